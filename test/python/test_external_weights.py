"""Large constants written outside the text (`dense_resource<KEY>` + a `.npz` beside the IR) and read back."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import onnx
import pytest

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.external_weights import INLINE_ELEMENTS, WeightsFile, external_text, write_module
from lamina.dialects.model import body_ops
from lamina.driver.compiler import compile_model

from accelerator_models import small_cnn


def _module_text(large: np.ndarray, small: np.ndarray) -> str:
    def constant(name: str, array: np.ndarray) -> str:
        values = ", ".join(f"{value:.1f}" for value in array)
        return (f'  %{name} = "graph.constant"() {{value = dense<[{values}]> : tensor<{array.size}xf32>}} '
                f': () -> tensor<{array.size}xf32>\n')

    return ("module {\nfunc.func @main() {\n" + constant("big", large) + constant("small", small)
            + f'  "graph.save"(%big) {{name = "y"}} : (tensor<{large.size}xf32>) -> ()\n'
            + f'  "graph.save"(%small) {{name = "z"}} : (tensor<{small.size}xf32>) -> ()\n  return\n}}\n}}\n')


LARGE = np.arange(INLINE_ELEMENTS + 1, dtype=np.float32) * 0.5
SMALL = np.arange(INLINE_ELEMENTS, dtype=np.float32)


def _constants(module) -> list[np.ndarray]:
    return [np.array(op.attributes["value"]) for op in body_ops(module) if op.name == "graph.constant"]


@pytest.fixture
def written(tmp_path) -> Path:
    module = parse_module(_module_text(LARGE, SMALL), make_context(), "model.mlir")
    write_module(module, tmp_path / "model.mlir")
    return tmp_path / "model.mlir"


def test_large_constants_go_to_the_weights_file_and_parse_back_bit_exact(written):
    text = written.read_text()
    assert 'lamina.weights_file = "model.weights.npz"' in text
    assert text.count("dense_resource<w_") == 1  # the large one; the small one stays inline
    assert text.count("dense<\"0x") == 1  # MLIR prints it in hex
    assert len(text) < 2 * SMALL.nbytes + 1_000
    context = make_context()
    for _ in range(2):  # a second parse in the same context sees the key renamed `KEY_1` by MLIR
        module = parse_module(text, context, str(written))
        large, small = _constants(module)
        assert np.array_equal(large, LARGE) and np.array_equal(small, SMALL)
        assert "dense_resource" not in print_module(module) and "lamina.weights_file" not in print_module(module)


def test_levels_sharing_a_weights_file_store_each_tensor_once(tmp_path):
    context = make_context()
    module = parse_module(_module_text(LARGE, SMALL), context, "model.mlir")
    weights = WeightsFile(tmp_path / "weights.npz")
    first = external_text(module, weights)
    second = external_text(parse_module(_module_text(LARGE, SMALL + 1), context, "other.mlir"), weights)
    third = external_text(parse_module(_module_text(LARGE + 1, SMALL), context, "third.mlir"), weights)
    assert first.split("dense_resource<")[1][:18] == second.split("dense_resource<")[1][:18]
    assert len(zipfile.ZipFile(weights.path).namelist()) == 2
    (tmp_path / "third.mlir").write_text(third)
    assert np.array_equal(_constants(parse_module(third, context, str(tmp_path / "third.mlir")))[0], LARGE + 1)


@pytest.mark.parametrize("name", ["../weights.npz", "/tmp/weights.npz", "sub/weights.npz", "..", ""])
def test_a_weights_file_outside_the_irs_directory_is_refused(written, name):
    text = written.read_text().replace('"model.weights.npz"', f'"{name}"')
    with pytest.raises(LaminaError, match="lamina.weights_file must name a file in the IR's directory"):
        parse_module(text, make_context(), str(written))


def test_unreadable_weights_are_one_clear_error(written, tmp_path):
    text = written.read_text()
    with pytest.raises(LaminaError, match="was not read from a file"):
        parse_module(text, make_context(), "-")
    with pytest.raises(LaminaError, match=r"constant 'w_0000000000000000' is not in model.weights.npz"):
        key = text.split("dense_resource<")[1][:18]
        parse_module(text.replace(key, "w_0000000000000000"), make_context(), str(written))
    wrong_type = text.replace(f"tensor<{LARGE.size}xf32>", f"tensor<{LARGE.size}xi32>")
    with pytest.raises(LaminaError, match="is tensor<1025xf32>, the IR says tensor<1025xi32>"):
        parse_module(wrong_type, make_context(), str(written))
    (tmp_path / "model.weights.npz").write_bytes(b"not a zip")
    with pytest.raises(LaminaError, match="model.weights.npz: cannot read the weights"):
        parse_module(text, make_context(), str(written))
    (tmp_path / "model.weights.npz").unlink()
    with pytest.raises(LaminaError, match="model.weights.npz: cannot read the weights: No such file"):
        parse_module(text, make_context(), str(written))
    no_file = text.replace('attributes {lamina.weights_file = "model.weights.npz"} ', "")
    with pytest.raises(LaminaError, match="dense_resource constants need the weights file named by"):
        parse_module(no_file, make_context(), str(written))


def test_lamina_opt_and_lamina_run_read_the_weights_beside_the_ir(written, tmp_path):
    tools = Path(sys.executable).parent
    run = subprocess.run([str(tools / "lamina-run"), str(written)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    escape = tmp_path / "escape.mlir"
    escape.write_text(written.read_text().replace('"model.weights.npz"', '"../model.weights.npz"'))
    done = subprocess.run([str(tools / "lamina-opt"), str(escape)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"lamina-opt: error: {escape}: error: lamina.weights_file must name a file in the IR's directory, "
        "got '../model.weights.npz'"]


def test_every_emitted_level_runs_from_its_files(tmp_path):
    onnx.save(small_cnn(), str(tmp_path / "small_cnn.onnx"))
    compile_model(tmp_path / "small_cnn.onnx", "arty-a7", tmp_path / "out", emit=("graph", "graph-optimized", "hir"),
                  check=False)
    lamina_run = Path(sys.executable).parent / "lamina-run"
    for level in ("graph", "graph-optimized", "hir"):
        run = subprocess.run([str(lamina_run), f"out/{level}.mlir"], cwd=tmp_path, capture_output=True, text=True,
                             timeout=300)
        assert run.returncode == 0 and "prob" in run.stdout, (level, run.stderr)


def test_lamina_import_and_lamina_opt_write_their_weights_beside_the_output(tmp_path):
    onnx.save(small_cnn(), str(tmp_path / "small_cnn.onnx"))
    tools = Path(sys.executable).parent

    def tool(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run([str(tools / args[0]), *args[1:]], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        return done

    tool("lamina-import", "small_cnn.onnx", "-o", "imported.mlir")
    tool("lamina-opt", "imported.mlir", "--pass-pipeline=builtin.module(graph-dce)", "-o", "optimized.mlir")
    for name in ("imported", "optimized"):
        assert 'lamina.weights_file = "' + name + '.weights.npz"' in (tmp_path / f"{name}.mlir").read_text()
        assert (tmp_path / f"{name}.weights.npz").exists()
    inline = tool("lamina-opt", "optimized.mlir").stdout  # to stdout: complete, no weights file needed
    assert "dense_resource" not in inline and "lamina.weights_file" not in inline
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inline.mlir").write_text(inline)
    tool("lamina-run", "imported.mlir", "--output", "a.npz")
    tool("lamina-run", "sub/inline.mlir", "--output", "b.npz")
    with np.load(tmp_path / "a.npz") as first, np.load(tmp_path / "b.npz") as second:
        assert all(np.array_equal(first[key], second[key]) for key in first.files)


def test_a_large_constant_nested_in_another_attribute_keeps_the_module_inline(tmp_path):
    nested = ", ".join(f"{value:.1f}" for value in LARGE)
    note = f"lamina.note = [dense<[{nested}]> : tensor<{LARGE.size}xf32>]"
    text = _module_text(LARGE, SMALL).replace("func.func @main() {", f"func.func @main() attributes {{{note}}} {{")
    module = parse_module(text, make_context(), "nested.mlir")
    written = external_text(module, WeightsFile(tmp_path / "weights.npz"))
    assert "dense_resource" not in written and "lamina.weights_file" not in written
    assert not (tmp_path / "weights.npz").exists()
    assert print_module(parse_module(written, make_context(), "-")) == print_module(module)
