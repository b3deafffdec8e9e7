"""Calibrated accelerator formats against onnxruntime, Tensil's mode beside them, and the bad-input errors.

The oracle is onnxruntime on the ONNX model; the simulator reads only the
files `compile_model` wrote. The light-model sweep is `slow`; the figures
of record come from `benchmarks/accelerator_accuracy.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.hir import HIR
from lamina.dialects.model import body_ops
from lamina.dialects.types import TensorSpec
from lamina.driver.compiler import compile_model
from lamina.driver.summary import summary_text
from lamina.passes.conversion.graph_to_hir import convert_graph_to_hir
from lamina.passes.conversion.graph_to_hir.formats import seeded_samples
from lamina.runtime.calibration import value_ranges
from lamina.target.tcu.encoding import decode
from lamina.target.tcu.program import Opcode
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.random_weights import random_inputs, randomize_weights, run_onnx
from lamina.runtime.compare import cosine_similarity
from lamina.runtime.tcu_simulator import simulate_samples
from lamina.runtime.tensor_files import save_tensors

from light_models import LIGHT_MODELS, load_light_model

COSINE = 0.999  # the target for calibrated formats against onnxruntime


def mobile_block_cnn(seed: int = 0, size: int = 12, classes: int = 10) -> onnx.ModelProto:
    """conv 3x3 -> relu6 -> depthwise 3x3 -> relu6 -> 1x1 conv -> + residual -> global avg pool -> gemm.

    He-scaled weights and biases of a few tenths keep the activations healthy (order 1)."""
    rng = np.random.default_rng(seed)

    def he(*shape: int, fan_in: int | None = None) -> np.ndarray:
        fan = fan_in or int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan)).astype(np.float32)

    def bias(n: int) -> np.ndarray:
        return rng.uniform(-0.3, 0.3, n).astype(np.float32)

    weights = {"w1": he(16, 3, 3, 3), "b1": bias(16), "dw": he(16, 1, 3, 3), "db": bias(16),
               "pw": he(16, 16, 1, 1), "pb": bias(16), "fc": he(classes, 16), "fb": bias(classes),
               "six": np.array(6.0, np.float32), "zero": np.array(0.0, np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Clip", ["c1", "zero", "six"], ["r1"], name="relu6_1"),
        helper.make_node("Conv", ["r1", "dw", "db"], ["c2"], name="depthwise", pads=[1, 1, 1, 1], group=16,
                         kernel_shape=[3, 3]),
        helper.make_node("Clip", ["c2", "zero", "six"], ["r2"], name="relu6_2"),
        helper.make_node("Conv", ["r2", "pw", "pb"], ["c3"], name="pointwise", kernel_shape=[1, 1]),
        helper.make_node("Add", ["c3", "r1"], ["sum"], name="residual"),
        helper.make_node("GlobalAveragePool", ["sum"], ["pool"], name="pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc", "fb"], ["logits"], name="fc", transB=1),
    ]
    graph = helper.make_graph(nodes, "mobile_block_cnn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, size, size])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, classes])],
                              [numpy_helper.from_array(value, name) for name, value in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def fresh_inputs(count: int, size: int = 12) -> list[dict[str, np.ndarray]]:
    """Inputs the calibration did not see (it draws from seeds 0, 1, ...)."""
    return [{"x": np.random.default_rng(1000 + k).random((1, 3, size, size), np.float32)} for k in range(count)]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "mobile_block.onnx"
    onnx.save(mobile_block_cnn(), str(path))
    return path


@pytest.fixture(scope="module")
def calibrated(model_file, tmp_path_factory):
    return compile_model(model_file, "pynq-z1", tmp_path_factory.mktemp("calibrated"), samples=4,
                         emit=("graph", "hir"))


def test_calibrated_formats_agree_with_onnxruntime(calibrated, model_file):
    model = onnx.load(str(model_file))
    samples = fresh_inputs(6)
    simulated = simulate_samples(calibrated.outdir / "model.tmodel", samples)
    for sample, result in zip(samples, simulated):
        expected = run_onnx(model, sample)["logits"]
        assert cosine_similarity(result.outputs["logits"], expected) >= COSINE
        assert result.outputs["logits"].argmax() == expected.argmax()


def test_inputs_simulated_together_equal_one_at_a_time(calibrated):
    samples = fresh_inputs(3)
    together = list(simulate_samples(calibrated.outdir / "model.tmodel", samples, together=3))
    alone = list(simulate_samples(calibrated.outdir / "model.tmodel", samples))
    for one, other in zip(together, alone):
        np.testing.assert_array_equal(one.outputs["logits"], other.outputs["logits"])
    assert len(together) == 3 and together[0].outputs["logits"].shape == (1, 10)


def test_the_summary_reports_its_own_accuracy(calibrated):
    stats = json.loads((calibrated.outdir / "summary.json").read_text())
    accuracy = stats["accuracy"]
    assert accuracy["formats"] == "calibrated" and accuracy["reference"] == "onnxruntime"
    assert accuracy["samples"] == 4 and accuracy["bit_exact"]
    (logits,) = accuracy["outputs"]
    assert logits["name"] == "logits" and logits["cosine_min"] >= COSINE and logits["top1_agreement"] == 1.0
    assert accuracy["worst_layer"]["name"] and accuracy["layers_compared"] >= 4
    assert accuracy["configure_instructions"] > 0
    text = (calibrated.outdir / "summary.txt").read_text()
    assert "ACCURACY (calibrated formats; simulated binary vs onnxruntime" in text and "worst layer by SQNR" in text


def test_tensil_mode_keeps_every_tensor_in_fp16bp8(model_file, tmp_path):
    result = compile_model(model_file, "pynq-z1", tmp_path, formats="tensil", samples=2)
    manifest = json.loads((tmp_path / "model.tmodel").read_text())
    assert {entry["binary_point"] for entry in manifest["inputs"] + manifest["vars"]} == {8}
    program = decode((tmp_path / "model.tprog").read_bytes(), result.summary.arch)
    assert not (program["opcode"] == Opcode.CONFIGURE).any()
    assert result.summary.accuracy.formats == "tensil" and result.summary.accuracy.bit_exact


def test_a_graph_module_is_checked_against_the_graph_interpreter(calibrated, tmp_path):
    result = compile_model(calibrated.outdir / "graph.mlir", "pynq-z1", tmp_path, samples=2)
    accuracy = result.summary.accuracy
    assert accuracy.reference == "the graph interpreter" and accuracy.outputs[0].cosine_min >= COSINE


def lamina_compile(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lamina.tools.lamina_compile", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def error_line(done: subprocess.CompletedProcess) -> str:
    errors = [line for line in done.stderr.splitlines() if line.startswith("lamina-compile: error: ")]
    assert done.returncode == 1 and len(errors) == 1 and "Traceback" not in done.stderr, done.stderr
    return errors[0]


@pytest.mark.parametrize("arrays, message", [
    ({"x": np.zeros((1, 3, 12, 12), np.float32)}, "'x' must be [samples, 1, 3, 12, 12] (a leading sample axis)"),
    ({"x": np.zeros((0, 1, 3, 12, 12), np.float32)}, "every input needs the same, non-zero number of samples"),
    ({"y": np.zeros((2, 1, 3, 12, 12), np.float32)}, "calibration inputs must be exactly the model's inputs"),
    ({"x": np.full((2, 1, 3, 12, 12), np.nan, np.float32)}, "'x' must hold finite numbers"),
    ({"x": np.full((2, 1, 3, 12, 12), 1e6, np.float32)},
     "input 'x': range [-1e+06, 1e+06] fits no 16-bit format"),
])
def test_bad_calibration_inputs_are_one_line(model_file, tmp_path, arrays, message):
    save_tensors(str(tmp_path / "calibration.npz"), arrays)
    done = lamina_compile(str(model_file), "--arch", "pynq-z1", "-o", "out", "--calibration-inputs",
                          "calibration.npz", "--no-check", cwd=tmp_path)
    assert message in error_line(done)


def test_no_samples_is_one_line(model_file, tmp_path):
    done = lamina_compile(str(model_file), "--arch", "pynq-z1", "-o", "out", "--samples", "0", cwd=tmp_path)
    assert "--samples must be at least 1, got 0" in error_line(done)


def test_a_weight_that_fits_no_format_names_the_tensor(tmp_path):
    model = mobile_block_cnn()
    for initializer in model.graph.initializer:
        if initializer.name == "pw":
            initializer.CopyFrom(numpy_helper.from_array(np.full((16, 16, 1, 1), 5e4, np.float32), "pw"))
    with pytest.raises(LaminaError, match=r"the weights of node 'pointwise': range \[-50000, 50000\] fits no 16-bit format"):
        compile_model(_saved(model, tmp_path), "pynq-z1", tmp_path / "out", check=False, samples=1)


def test_a_one_dimensional_convolution_runs_on_the_host_and_agrees_with_onnxruntime(tmp_path):
    """The array takes 2-D convolutions only; a Conv1d (speech models' front ends) used to crash the weight
    splitter, which assumed a 4-D filter, before the partition sent it to the host."""
    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array((rng.standard_normal((8, 4, 3)) * 0.3).astype(np.float32), "w"),
               numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "b")]
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1], name="conv1d"),
         helper.make_node("Relu", ["c"], ["y"])], "conv1d",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    summary = compile_model(_saved(model, tmp_path), "pynq-z1", tmp_path / "out", samples=2).summary
    text = summary_text(summary)
    assert "graph.convolution" in text and "host-0.mlir" in text
    (output,) = summary.accuracy.outputs
    assert output.cosine_min > 0.99999, output


def _saved(model: onnx.ModelProto, directory) -> str:
    path = directory / "model.onnx"
    onnx.save(model, str(path))
    return str(path)


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT_MODELS)
@pytest.mark.parametrize("arch", ["ultra96v2", "zcu104"])
def test_light_model_calibrated_against_onnxruntime(name, arch, tmp_path):
    """Cosine >= 0.999 and the same top-1 class on fresh inputs (benchmarks/ records 100 of them)."""
    model = randomize_weights(load_light_model(name), 0)
    source = _saved(model, tmp_path)
    compile_model(source, arch, tmp_path / "out", random_weights=None, samples=4, check=False)
    samples = [random_inputs(model, 100 + k) for k in range(3)]
    for sample, result in zip(samples, simulate_samples(tmp_path / "out" / "model.tmodel", samples)):
        for output, expected in run_onnx(model, sample).items():
            assert cosine_similarity(result.outputs[output], expected) >= COSINE, output


CONV_RELU_SUM = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x8x4x4xf32> loc("x")
  %w = "graph.constant"() {value = dense<0.25> : tensor<6x8x3x3xf32>} : () -> tensor<6x8x3x3xf32> loc("w")
  %b = "graph.constant"() {value = dense<0.5> : tensor<6xf32>} : () -> tensor<6xf32> loc("b")
  %c = "graph.convolution"(%x, %w, %b) {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<6x8x3x3xf32>, tensor<6xf32>) -> tensor<1x6x4x4xf32> loc("conv")
  %r = "graph.relu"(%c) : (tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> loc("relu")
  %s = "graph.add"(%r, %r) : (tensor<1x6x4x4xf32>, tensor<1x6x4x4xf32>) -> tensor<1x6x4x4xf32> loc("sum")
  "graph.save"(%s) {name = "y"} : (tensor<1x6x4x4xf32>) -> () loc("save")
  return
}
"""


@pytest.mark.parametrize("calibrated", [True, False])
def test_conversion_calibrates_a_binary_point_per_object(calibrated):
    """x < 1 gets 14 bits (15 hold 2 x its peak); the weights, all 0.25, 16; the convolution is tied to the
    relu and the sum (no product between them) and the sum's peak (~24, x 2 of headroom) leaves 9 bits, so
    the matmul rounds at 14 + 16 - 9 = 21. Without calibration every object is FP16BP8's 8."""
    module = parse_module(CONV_RELU_SUM, make_context(), "conv.mlir")
    samples = seeded_samples({"x": TensorSpec((1, 8, 4, 4), np.float32)}, 2, 0)
    layers = convert_graph_to_hir(module, "ultra96v2", lambda graph: value_ranges(graph, samples),
                                  calibrated=calibrated)
    points = {op.name: HIR.view(op).attr("binary_point") for op in body_ops(module)
              if op.name in ("hir.consts", "hir.temp")}
    points.update({HIR.view(op).attr("name"): HIR.view(op).attr("binary_point") for op in body_ops(module)
                   if op.name == "hir.vars"})
    assert points == ({"x": 14, "hir.consts": 16, "y": 9, "hir.temp": 9} if calibrated else
                      {"x": 8, "hir.consts": 8, "y": 8, "hir.temp": 8})
    assert set(layers) == {"x", "y"}  # the float values of the first sample, by Vars name
