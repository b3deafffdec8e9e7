"""Running a `.tmodel` through its plan: accelerator steps, host steps, inputs checked."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lamina.driver.compiler import compile_model
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.random_weights import randomize_weights
from lamina.runtime.hir_interpreter import inputs as hir_inputs
from lamina.runtime.hir_interpreter import run_hir
from lamina.runtime.tcu_simulator import simulate
from lamina.runtime.tensor_files import load_tensors, save_tensors

from accelerator_models import small_cnn
from light_models import load_light_model
from tcu_tiny_model import DT, X_SHAPE, float_convolution, reference, write_tiny_model

LAMINA_RUN = str(Path(sys.executable).parent / "lamina-run")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return write_tiny_model(tmp_path_factory.mktemp("tiny"))


def _inputs(seed=0):
    return {"x": np.random.default_rng(seed).random(X_SHAPE, dtype=np.float32)}


def test_tiny_model_matches_numpy(tiny_model):
    inputs = _inputs()
    result = simulate(tiny_model, inputs)
    expected = reference(inputs["x"])
    assert set(result.outputs) == {"y", "h", "t"}
    np.testing.assert_array_equal(result.outputs["y"], expected["y"])
    np.testing.assert_allclose(result.outputs["h"], expected["h"], rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(result.outputs["t"], expected["t"])
    # fixed point stays within a few units in the last place of the float convolution
    assert np.abs(result.outputs["y"] - float_convolution(inputs["x"])).max() < 20 * DT.lsb
    assert result.outputs["y"].max() > 0 and result.outputs["y"].min() == 0  # relu did something


def test_cycles_and_instruction_counts(tiny_model):
    result = simulate(tiny_model, _inputs())
    by_opcode = result.instructions_by_opcode
    assert by_opcode["MATMUL"].count == 4 and by_opcode["LOAD_WEIGHT"].count == 2 * 3
    assert by_opcode["SIMD"].count == 1 + 18 + 18
    assert result.instructions == sum(s.count for s in by_opcode.values())
    # each co tile: LoadWeight 17 (bias and first tile), then 16 + 1 (second tile, zero bias row);
    # each MatMul 9 + N (after a LoadWeight)
    assert by_opcode["LOAD_WEIGHT"].cycles == 2 * (17 + 16 + 1)
    assert by_opcode["MATMUL"].cycles == 4 * (9 + 16)
    assert result.cycles == sum(s.cycles for s in by_opcode.values())


def test_batched_and_one_by_one_simulation_agree(tiny_model):
    inputs = _inputs(3)
    batched = simulate(tiny_model, inputs).outputs
    single = simulate(tiny_model, inputs, batch=False).outputs
    for name in batched:
        np.testing.assert_array_equal(batched[name], single[name])


@pytest.mark.parametrize("inputs, message", [
    ({}, r"missing input\(s\) x; the model's inputs are 'x' \[1, 20, 3, 3\]"),
    ({"x": np.zeros(X_SHAPE, np.float32), "z": np.zeros(1)}, r"unknown input\(s\) z"),
    ({"x": np.zeros((1, 20, 3), np.float32)}, r"input 'x': expected float32 \[1, 20, 3, 3\], got float32 \[1, 20, 3\]"),
])
def test_wrong_inputs_are_clear_errors(tiny_model, inputs, message):
    with pytest.raises(LaminaError, match=message):
        simulate(tiny_model, inputs)


def test_host_step_reading_an_unknown_tensor_is_an_error(tmp_path):
    tmodel = write_tiny_model(tmp_path)
    manifest = json.loads(tmodel.read_text())
    manifest["vars"] = [v for v in manifest["vars"] if v["name"] != "y"]
    tmodel.write_text(json.dumps(manifest))
    with pytest.raises(LaminaError, match=r"field 'plan\[1\]\.reads': 'y' is not a model input"):
        simulate(tmodel, _inputs())


def test_lamina_run_simulates_a_tmodel(tiny_model, tmp_path):
    inputs = _inputs(5)
    save_tensors(str(tmp_path / "in.npz"), inputs)
    save_tensors(str(tmp_path / "ref.npz"), reference(inputs["x"]))
    result = subprocess.run([LAMINA_RUN, str(tiny_model), "--inputs", "in.npz", "--output", "out.npz",
                             "--compare", "ref.npz"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert re.search(r"simulated 55 instructions, \d+ cycles \(latency model\)", result.stdout)
    assert re.search(r"MATMUL +4 instructions", result.stdout)
    assert re.search(r"  y  max abs 0  max rel 0", result.stdout), result.stdout
    outputs = load_tensors(str(tmp_path / "out.npz"))
    np.testing.assert_array_equal(outputs["t"], reference(inputs["x"])["t"])


def test_lamina_run_tmodel_errors_are_one_line(tmp_path):
    result = subprocess.run([LAMINA_RUN, "missing.tmodel"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1
    assert result.stderr.strip() == "lamina-run: error: missing.tmodel: cannot read: No such file or directory"
    result = subprocess.run([LAMINA_RUN, "missing.tmodel", "--target", "cpu"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert result.stderr.strip() == ("lamina-run: error: --target compiles graph modules; "
                                     "missing.tmodel is already compiled")


def _simulator_equals_hir_executor(onnx_model, arch, outdir):
    """A compiled model: the simulator (instructions) and the HIR executor (layers) agree bit for bit."""
    source = outdir / "model.onnx"
    source.write_bytes(onnx_model.SerializeToString())
    compile_model(source, arch, outdir / "out", samples=2, check=False)  # calibrated formats: Configure runs too
    hir_file = outdir / "out" / "hir.mlir"
    hir = parse_module(hir_file.read_text(), make_context(), str(hir_file))
    rng = np.random.default_rng(1)
    inputs = {name: rng.random(spec.shape, dtype=np.float32) for name, spec in hir_inputs(hir).items()}
    expected = run_hir(hir, inputs)
    for batch in (True, False):
        outputs = simulate(outdir / "out" / "model.tmodel", inputs, batch=batch).outputs
        assert outputs.keys() == expected.keys()
        for name in expected:
            np.testing.assert_array_equal(outputs[name], expected[name])


@pytest.mark.parametrize("arch", ["arty-a7", "ultra96v2"])
def test_compiled_small_cnn_equals_the_hir_executor(arch, tmp_path):
    _simulator_equals_hir_executor(small_cnn(channels=20, size=8), arch, tmp_path)


@pytest.mark.slow
def test_compiled_squeezenet_equals_the_hir_executor(tmp_path):
    _simulator_equals_hir_executor(randomize_weights(load_light_model("squeezenet"), 0), "ultra96v2", tmp_path)


@pytest.mark.parametrize("edit, message", [
    # the program's first DataMove reads x: nobody wrote it
    (lambda m: m["inputs"][0].update(base=None, size=0), "(DataMove) reads DRAM0 vector"),
    # the weights never reach DRAM1
    (lambda m: m["consts"].clear(), "reads DRAM1 vector"),
    # the first accelerator step is gone: y, which the host step reads, was never written
    (lambda m: m["plan"].pop(0), "tensor 'y' in DRAM0"),
    # the last one is gone: output t was never written
    (lambda m: m["plan"].pop(), "tensor 't' in DRAM0"),
])
def test_deleted_manifest_entries_are_errors_not_zeros(tmp_path, edit, message):
    tmodel = write_tiny_model(tmp_path)
    manifest = json.loads(tmodel.read_text())
    edit(manifest)
    tmodel.write_text(json.dumps(manifest))
    with pytest.raises(LaminaError, match=re.escape(message)):
        simulate(tmodel, _inputs())
