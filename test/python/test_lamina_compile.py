"""lamina-compile end to end: files, summary consistency, the simulator against the reference, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

from lamina.target.tcu.architecture import ARCHITECTURES_DIR, architecture_names, load_architecture
from lamina.driver.compiler import LEVELS, compile_model
from lamina.target.tcu.instruction_layout import InstructionLayout
from lamina.target.tcu.latency import instruction_cycles
from lamina.target.tcu.encoding import decode
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.passes.conversion.hir_to_lir.emitter import SCHEDULER_CONSTS_RESERVE
from lamina.driver.onnx_reference import OnnxReference
from lamina.frontend.random_weights import random_inputs, run_onnx
from lamina.runtime.compare import cosine_similarity
from lamina.runtime.tcu_simulator import simulate

from accelerator_models import small_cnn

EVERY_LEVEL_BUT_BUFFERS = ("graph", "graph-optimized", "hir", "lir")
MODEL_FILES = ("graph.mlir", "weights.npz", "graph-optimized.mlir", "hir.mlir", "lir.mlir",
               "model.tprog", "model.tdata", "model.tmodel", "host-0.mlir", "summary.txt", "summary.json")


def lamina_compile(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lamina.tools.lamina_compile", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def error_line(stderr: str) -> str:
    """The tool's one error line, after the progress lines."""
    errors = [line for line in stderr.splitlines() if line.startswith("lamina-compile: error: ")]
    assert len(errors) == 1, stderr
    return errors[0]


@pytest.fixture(scope="module")
def small_cnn_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "small_cnn.onnx"
    onnx.save(small_cnn(), str(path))
    return path


@pytest.fixture(scope="module", params=architecture_names())
def compiled(request, small_cnn_file, tmp_path_factory):
    outdir = tmp_path_factory.mktemp(request.param)
    return compile_model(small_cnn_file, request.param, outdir, emit=EVERY_LEVEL_BUT_BUFFERS)


def test_every_file_is_written_and_every_mlir_parses(compiled):
    assert sorted(compiled.files) == sorted(MODEL_FILES)
    context = make_context()
    for name, path in compiled.files.items():
        assert path.exists() and path.stat().st_size > 0, name
        if name.endswith(".mlir"):
            parse_module(path.read_text(), context, str(path))
    assert "dense_resource<" in (compiled.outdir / "graph.mlir").read_text()  # fc_w: 1,280 elements


def test_by_default_only_the_hir_level_is_written_and_the_summary_is_the_same(compiled, small_cnn_file, tmp_path):
    if compiled.summary.arch.name != "arty-a7":
        pytest.skip("one architecture is enough")
    default = compile_model(small_cnn_file, "arty-a7", tmp_path)
    assert sorted(path.name for path in tmp_path.glob("*.mlir")) == ["hir.mlir", "host-0.mlir"]

    def without_timings(result):
        figures = json.loads((result.outdir / "summary.json").read_text())
        del figures["compile_seconds"], figures["stage_seconds"], figures["stage_cpu_seconds"]
        return figures

    assert without_timings(default) == without_timings(compiled)
    assert (tmp_path / "model.tdata").read_bytes() == (compiled.outdir / "model.tdata").read_bytes()


def test_summary_numbers_agree_with_the_files(compiled):
    stats = json.loads((compiled.outdir / "summary.json").read_text())
    arch = load_architecture(stats["architecture"])
    n = arch.array_size
    instruction_bytes = InstructionLayout.of(arch).instruction_bytes
    program = decode((compiled.outdir / "model.tprog").read_bytes(), arch)
    assert stats["instructions"] == len(program) == stats["program_bytes"] // instruction_bytes
    assert stats["program_bytes"] == (compiled.outdir / "model.tprog").stat().st_size
    assert stats["cycles"] == int(instruction_cycles(program, arch).sum())
    assert stats["true_macs"] > 0
    assert stats["mac_efficiency"] == pytest.approx(stats["true_macs"] / (stats["cycles"] * n * n))
    layers = stats["layer_table"]
    assert len(layers) == stats["layers"] >= 2  # the conv and the fully-connected layer at least
    assert sum(layer["instructions"] for layer in layers) == stats["instructions"]
    assert sum(layer["cycles"] for layer in layers) == stats["cycles"]
    assert sum(layer["macs"] for layer in layers) == stats["true_macs"]
    # conv: 8 x 8 outputs x 8 channels x 27 inputs, padding pixels excluded; fc: 128 x 10.
    padded_conv = 8 * 8 * 8 * 27
    assert 128 * 10 < stats["true_macs"] <= padded_conv + 128 * 10
    tdata_vectors = (compiled.outdir / "model.tdata").stat().st_size // (n * arch.data_type.width // 8)
    assert stats["dram1_usage"]["vectors"] == tdata_vectors
    assert 0 < stats["consts_utilization"] <= 1
    assert [segment["ops"] for segment in stats["host_segments"]] == [{"graph.softmax": 1}]
    # The host softmax reads the logits (10 classes: one vector per array lane group) from DRAM0 and
    # writes the model output on the host only; no pages: host transfers are that read alone.
    logits_vectors = -(-10 // n)
    assert stats["consts_pages"] == 0
    assert stats["host_dram0_bytes"] == logits_vectors * n * arch.data_type.width // 8
    assert stats["cycles_with_host_transfers"] == stats["cycles"] + logits_vectors
    text = (compiled.outdir / "summary.txt").read_text()
    assert f"{stats['instructions']:,}" in text and "graph.softmax" in text


def test_simulator_matches_onnxruntime(compiled, small_cnn_file):
    rng = np.random.default_rng(1)
    inputs = {"input": rng.random((1, 3, 8, 8), np.float32)}
    expected = run_onnx(onnx.load(str(small_cnn_file)), inputs)["prob"]
    result = simulate(compiled.outdir / "model.tmodel", inputs).outputs["prob"]
    assert cosine_similarity(result, expected) >= 0.999 and result.argmax() == expected.argmax()


def test_cli_prints_the_summary_and_lamina_run_executes_the_files(small_cnn_file, tmp_path):
    done = lamina_compile(str(small_cnn_file), "--arch", "arty-a7", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "COMPILER SUMMARY" in done.stdout and "LAYERS SUMMARY" in done.stdout
    assert "graph-optimize" in done.stderr  # the progress display names the stages
    run = subprocess.run([str(Path(sys.executable).parent / "lamina-run"), "out/model.tmodel"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "prob" in run.stdout


def test_a_model_that_does_not_fit_fails_with_the_schedulers_message(small_cnn_file, tmp_path):
    arch = json.loads((ARCHITECTURES_DIR / "arty-a7.tarch").read_text())
    arch.update(local_depth=16, accumulator_depth=16)
    (tmp_path / "tiny.tarch").write_text(json.dumps(arch))
    done = lamina_compile(str(small_cnn_file), "--arch", "tiny.tarch", "-o", "out", cwd=tmp_path)
    assert done.returncode == 1
    error = error_line(done.stderr)
    assert "does not fit the tiny local memory" in error and "16 are available" in error and "too many" in error
    assert "Traceback" not in done.stderr


def test_weights_larger_than_dram1_are_paged_and_compute_the_same(compiled, small_cnn_file, tmp_path):
    if compiled.summary.arch.name != "arty-a7":
        pytest.skip("one architecture is enough")
    arch = json.loads((ARCHITECTURES_DIR / "arty-a7.tarch").read_text())
    arch.update(dram1_depth=SCHEDULER_CONSTS_RESERVE + 200)  # conv 73 vectors, fc 2 x 129: room for 200
    (tmp_path / "small.tarch").write_text(json.dumps(arch))
    done = lamina_compile(str(small_cnn_file), "--arch", "small.tarch", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    outdir = tmp_path / "out"
    manifest = json.loads((outdir / "model.tmodel").read_text())
    assert [entry["file_name"] for entry in manifest["consts"]] == \
        ["model.tdata", "model.page1.tdata", "model.page2.tdata", "model.page3.tdata"]
    assert [step["index"] for step in manifest["plan"] if step["kind"] == "consts"] == [1, 2, 3]
    assert manifest["plan"][0] == {"kind": "consts", "index": 1}  # the conv's weights, before its layer
    stats = json.loads((outdir / "summary.json").read_text())
    assert stats["consts_pages"] == 3 and stats["dram1_usage"]["vectors"] <= arch["dram1_depth"]
    assert stats["consts_page_bytes"] == (73 + 129 + 129) * 8 * 2
    # The page loads are charged beside the program's cycles at one vector per cycle, with the
    # softmax's read of the logits (10 classes: 2 vectors of 8).
    assert stats["host_transfer_cycles"] == 73 + 129 + 129 + 2
    assert stats["cycles_with_host_transfers"] == stats["cycles"] + stats["host_transfer_cycles"]
    inputs = {"input": np.random.default_rng(2).random((1, 3, 8, 8), np.float32)}
    paged = simulate(outdir / "model.tmodel", inputs).outputs
    whole = simulate(compiled.outdir / "model.tmodel", inputs).outputs
    np.testing.assert_array_equal(paged["prob"], whole["prob"])


@pytest.mark.parametrize("args, message", [
    (["--arch", "nosuch"], "unknown architecture 'nosuch'"),
    (["--arch", "arty-a7", "--input-shape", "nosuch=1x3"], "nosuch"),
])
def test_user_errors_are_one_clear_line(small_cnn_file, tmp_path, args, message):
    done = lamina_compile(str(small_cnn_file), *args, "-o", "out", cwd=tmp_path)
    assert done.returncode == 1
    assert message in error_line(done.stderr)
    assert "Traceback" not in done.stderr


def test_the_buffer_level_is_built_only_when_asked(compiled, small_cnn_file, tmp_path):
    if compiled.summary.arch.name != "arty-a7":
        pytest.skip("one architecture is enough")
    assert "graph-to-buffers" not in compiled.summary.stage_seconds
    assert compiled.summary.stage_cpu_seconds.keys() == compiled.summary.stage_seconds.keys()
    every = compile_model(small_cnn_file, "arty-a7", tmp_path / "every", emit=LEVELS)
    assert sorted(every.files) == sorted([*MODEL_FILES, "buffers.mlir"])
    assert "buffer.alloc" in (tmp_path / "every" / "buffers.mlir").read_text()
    assert (tmp_path / "every" / "model.tprog").read_bytes() == (compiled.outdir / "model.tprog").read_bytes()
    done = lamina_compile(str(small_cnn_file), "--arch", "arty-a7", "--emit", "hir", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in (tmp_path / "out").glob("*.mlir")) == ["hir.mlir", "host-0.mlir"]


def test_an_unknown_level_to_emit_is_a_clear_error(small_cnn_file, tmp_path):
    done = lamina_compile(str(small_cnn_file), "--arch", "arty-a7", "--emit", "hir,bufers", "-o", "out", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "argument --emit: unknown level bufers (levels: graph, graph-optimized, buffers, hir, lir)" in done.stderr
    with pytest.raises(LaminaError, match="unknown level"):
        compile_model(small_cnn_file, "arty-a7", tmp_path / "x", emit=("asm",))


def test_a_missing_model_file_is_a_clear_error(tmp_path):
    done = lamina_compile("missing.onnx", "--arch", "arty-a7", "-o", "out", cwd=tmp_path)
    assert done.returncode == 1 and "missing.onnx" in error_line(done.stderr) and "Traceback" not in done.stderr


def test_a_graph_module_compiles_to_the_same_program(compiled, tmp_path):
    again = compile_model(compiled.outdir / "graph.mlir", compiled.summary.arch, tmp_path)
    assert (tmp_path / "model.tprog").read_bytes() == (compiled.outdir / "model.tprog").read_bytes()
    assert (tmp_path / "model.tdata").read_bytes() == (compiled.outdir / "model.tdata").read_bytes()
    assert again.summary.model == "graph"


def test_random_weights_report_the_activation_peak(small_cnn_file, tmp_path):
    done = lamina_compile(str(small_cnn_file), "--arch", "arty-a7", "-o", "out", "--random-weights", "3", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "random weights (seed 3): largest |activation| on random inputs" in done.stdout


def test_random_weights_do_not_apply_to_graph_modules(compiled, tmp_path):
    done = lamina_compile(str(compiled.outdir / "graph.mlir"), "--arch", "arty-a7", "-o", "out",
                          "--random-weights", "0", cwd=tmp_path)
    assert done.returncode == 1 and "apply to ONNX models" in error_line(done.stderr)


def test_the_checks_onnxruntime_outputs_come_from_the_thread_for_each_sample(small_cnn_file):
    proto = onnx.load(str(small_cnn_file))
    samples = [random_inputs(proto, seed) for seed in (0, 1)]
    float_model = OnnxReference(proto, samples).float_model()
    for sample in samples:
        expected = run_onnx(proto, sample)
        for given in (sample, {name: array.copy() for name, array in sample.items()}):
            assert all(np.array_equal(float_model(given)[name], expected[name]) for name in expected)
    with pytest.raises(ValueError, match="did not calibrate on"):
        float_model(random_inputs(proto, 2))


def test_a_graph_module_compiled_into_its_own_directory_keeps_its_weights(compiled, tmp_path):
    if compiled.summary.arch.name != "arty-a7":
        pytest.skip("one architecture is enough")
    for name in ("graph.mlir", "weights.npz"):
        (tmp_path / name).write_bytes((compiled.outdir / name).read_bytes())
    again = compile_model(tmp_path / "graph.mlir", "arty-a7", tmp_path)  # writes hir.mlir's weights beside
    assert again.summary.accuracy.outputs[0].cosine_min > 0.99
    parse_module((tmp_path / "graph.mlir").read_text(), make_context(), str(tmp_path / "graph.mlir"))
    parse_module((tmp_path / "hir.mlir").read_text(), make_context(), str(tmp_path / "hir.mlir"))
