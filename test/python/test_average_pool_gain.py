"""The accelerator's average pools with calibrated formats: the rounded 1/count is undone (average_pools.py)."""

from __future__ import annotations

import numpy as np
import pytest

import onnx
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.driver.compiler import compile_model
from lamina.passes.conversion.graph_to_hir import convert_graph_to_hir
from lamina.passes.conversion.graph_to_hir.average_pools import division_gain
from lamina.runtime import graph_interpreter
from lamina.runtime.calibration import value_ranges
from lamina.runtime.hir_interpreter import run_hir
from lamina.target.tcu.fixed_point import FP16BP8

GLOBAL_POOL = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x7x7xf32> loc("x")
  %p = "graph.avg_pool"(%x) {kernel = array<i64: 7, 7>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<1x16x7x7xf32>) -> tensor<1x16x1x1xf32> loc("pool")
  "graph.save"(%p) {name = "y"} : (tensor<1x16x1x1xf32>) -> () loc("y")
  return
}
"""


def test_division_gain_is_what_scale_factors_multiply_by():
    assert division_gain(1, FP16BP8) == division_gain(2, FP16BP8) == 1.0  # exact powers of two
    assert division_gain(7, FP16BP8) == pytest.approx(146 / 256 * 7 / 4)  # 1/7 = 146/256 x 1/4: 0.2% low


@pytest.mark.parametrize("calibrated, largest_error", [(True, 1e-3), (False, 2e-2)])
def test_a_global_average_pool_keeps_its_gain_only_with_calibrated_formats(calibrated, largest_error):
    """Calibrated: within a rounding of the mean. FP16BP8 (Tensil's mode, unchanged): 1/7 twice, 0.4% low,
    and 8 fractional bits."""
    context = make_context()
    module = parse_module(GLOBAL_POOL, context, "pool.mlir")
    samples = [{"x": np.random.default_rng(k).uniform(1.0, 2.0, (1, 16, 7, 7)).astype(np.float32)} for k in range(4)]
    expected = graph_interpreter.run(parse_module(print_module(module), context, "pool.mlir"), samples[0])["y"]
    measure = (lambda m: value_ranges(m, samples)) if calibrated else None
    convert_graph_to_hir(module, "pynq-z1", measure, calibrated=calibrated)
    relative = np.abs(run_hir(module, samples[0])["y"] / expected - 1)
    assert relative.max() <= largest_error
    assert calibrated or relative.max() >= 3e-3  # the uncorrected gain is there without calibration


def _conv_pool_classifier() -> onnx.ModelProto:
    """ResNet-50's head in small: conv -> ReLU -> 7x7 AveragePool -> Flatten -> Gemm (He-scaled random weights)."""
    rng = np.random.default_rng(0)
    conv = (rng.normal(0, 1, (32, 3, 3, 3)) * np.sqrt(2 / 27)).astype(np.float32)
    fc = (rng.normal(0, 1, (10, 32)) / np.sqrt(32)).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("AveragePool", ["r"], ["p"], kernel_shape=[7, 7]),
             helper.make_node("Flatten", ["p"], ["f"]),
             helper.make_node("Gemm", ["f", "fc"], ["logits"], transB=1)]
    graph = helper.make_graph(nodes, "head", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 14, 14])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
                              [numpy_helper.from_array(conv, "w"), numpy_helper.from_array(fc, "fc")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_a_classifier_head_after_a_7x7_pool_agrees_with_onnxruntime(tmp_path):
    """The simulated binary's logits against onnxruntime (the compile's own check): 63.7 dB with the gain undone,
    48.4 dB with the 0.4% low gain of two rounded 1/7 (which caps SQNR at 20 log10(1 / 0.0039) = 48 dB)."""
    onnx.save(_conv_pool_classifier(), tmp_path / "head.onnx")
    result = compile_model(tmp_path / "head.onnx", "pynq-z1", tmp_path / "out", samples=4)
    (logits,) = result.summary.accuracy.outputs
    assert result.summary.accuracy.reference.startswith("onnxruntime")
    assert logits.sqnr_db >= 56.0
