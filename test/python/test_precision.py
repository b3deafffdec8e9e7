"""The precision stage against outside oracles: onnxruntime's quantized execution and the float model."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.model import body_ops
from lamina.dialects.model import inputs as model_inputs
from lamina.dialects.types import spec_of
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_executor, graph_interpreter

from qdq_models import (calibration_inputs, float_cnn, float_conv_matmul, graph_quantized_cnn, output_step,
                        quantize_model)


def _session(model) -> ort.InferenceSession:
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _assert_within_one_step(module, path, samples, runs=(graph_interpreter.run, cpu_executor.run)) -> None:
    """Every executor in `runs` within one output quantization step of onnxruntime on the model at `path`."""
    session = _session(path)
    step = output_step(onnx.load(path))
    for sample in samples:
        theirs = session.run(None, sample)[0]
        for run in runs:
            assert np.abs(run(module, sample)["y"] - theirs).max() <= step * 1.001


@pytest.mark.parametrize("per_channel", [False, True])
def test_qdq_model_matches_onnxruntime_within_one_step(tmp_path, per_channel):
    path = quantize_model(float_cnn(), tmp_path, per_channel, calibration_inputs(8))
    module = import_model(str(path), make_context())
    _assert_within_one_step(module, path, calibration_inputs(6, seed=7), runs=(graph_interpreter.run,))


@pytest.mark.parametrize("per_channel", [False, True])
def test_qlinear_model_matches_onnxruntime_within_one_step(tmp_path, per_channel):
    """QOperator format: QuantizeLinear, QLinearConv (into quantized graph.convolution), MaxPool on stored
    values, QLinearMatMul (into a quantized graph.fully_connected), DequantizeLinear."""
    path = quantize_model(float_conv_matmul(), tmp_path, per_channel, calibration_inputs(8), operators=True)
    assert {"QLinearConv", "QLinearMatMul"} <= {node.op_type for node in onnx.load(path).graph.node}
    module = import_model(str(path), make_context())
    assert '"graph.convolution"' in str(module) and "quant.uniform" in str(module)
    _assert_within_one_step(module, path, calibration_inputs(4, seed=7))


@pytest.mark.parametrize("per_channel, pipeline", [(False, "graph-fuse-qdq"),
                                                   (True, "graph-constant-fold,graph-fuse-qdq")])
def test_fused_qdq_layers_match_onnxruntime_within_one_step(tmp_path, per_channel, pipeline):
    """QDQ layers fused into quantized ones (from the dequantized integer constants the importer makes, or
    recovered from the float constants constant folding leaves): every layer computes on integers, and
    both executors stay within one output step of onnxruntime."""
    path = quantize_model(float_cnn(), tmp_path, per_channel, calibration_inputs(8))
    module = import_model(str(path), make_context())
    run_pipeline(module, f"builtin.module({pipeline},graph-dce)")
    layers = [op for op in body_ops(module) if op.name in ("graph.convolution", "graph.fully_connected")]
    assert len(layers) == 3 and all(spec_of(op.results[0].type).quant is not None for op in layers)
    _assert_within_one_step(module, path, calibration_inputs(4, seed=7))


def _quantized_conv_model(x_scale, x_zero, w_scales, y_scale, y_zero, weights, bias):
    """ORT's quantized convolution: QLinearConv for i8 data; for u8 data (which ORT's QLinearConv
    pairs only with u8 weights) the QDQ form DequantizeLinear -> Conv -> QuantizeLinear, which ORT fuses."""
    scales = np.array(w_scales, np.float32)
    inits = [numpy_helper.from_array(np.array(x_scale, np.float32), "xs"),
             numpy_helper.from_array(np.array(x_zero), "xz"),
             numpy_helper.from_array(np.array(y_scale, np.float32), "ys"),
             numpy_helper.from_array(np.array(y_zero), "yz")]
    if np.asarray(x_zero).dtype == np.int8:
        inits += [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(scales, "ws"),
                  numpy_helper.from_array(np.zeros(len(w_scales), np.int8), "wz"), numpy_helper.from_array(bias, "b")]
        nodes = [helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                                  pads=[1, 1, 1, 1])]
    else:
        real_weights = (weights * scales[:, None, None, None]).astype(np.float32)
        real_bias = (bias * (np.float32(x_scale) * scales)).astype(np.float32)
        inits += [numpy_helper.from_array(real_weights, "w"), numpy_helper.from_array(real_bias, "b")]
        nodes = [helper.make_node("DequantizeLinear", ["x", "xs", "xz"], ["xf"]),
                 helper.make_node("Conv", ["xf", "w", "b"], ["yf"], pads=[1, 1, 1, 1]),
                 helper.make_node("QuantizeLinear", ["yf", "ys", "yz"], ["y"])]
    x_type = helper.np_dtype_to_tensor_dtype(np.asarray(x_zero).dtype)
    graph = helper.make_graph(nodes, "qconv", [helper.make_tensor_value_info("x", x_type, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", x_type, [1, 4, 6, 6])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("stored", [np.int8, np.uint8])
def test_quantized_convolution_matches_onnxruntime_qlinearconv(stored):
    """i8/u8 x i8 -> i32 accumulation, per-channel weights, requantization: the interpreter and the CPU path
    against ORT's quantized convolution (within one step: the requantization rounds in f32 on the CPU, f64 here)."""
    rng = np.random.default_rng(3)
    info = np.iinfo(stored)
    weights = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    bias = rng.integers(-2000, 2000, 4).astype(np.int32)
    x_scale, x_zero, w_scales, y_scale, y_zero = 0.02, stored(info.min + 123), [0.01, 0.02, 0.005, 0.03], 0.25, stored(3)
    x = rng.integers(info.min, int(info.max) + 1, (1, 3, 6, 6)).astype(stored)
    theirs = _session(_quantized_conv_model(x_scale, x_zero, w_scales, y_scale, y_zero, weights, bias)).run(None, {"x": x})[0]
    storage = "u8" if stored == np.uint8 else "i8"
    x_type = f"tensor<1x3x6x6x!quant.uniform<{storage}:f32, {x_scale}:{x_zero}>>"
    w_type = "tensor<4x3x3x3x!quant.uniform<i8<-127:127>:f32:0, {" + ",".join(f"{s}:0" for s in w_scales) + "}>>"
    b_type = "tensor<4x!quant.uniform<i32:f32:0, {" + ",".join(f"{x_scale * s!r}:0" for s in w_scales) + "}>>"
    y_type = f"tensor<1x4x6x6x!quant.uniform<{storage}:f32, {y_scale}:{y_zero}>>"
    text = f"""
    func.func @main() {{
      %x = "graph.placeholder"() {{name = "x"}} : () -> {x_type}
      %w = "graph.constant"() {{value = dense<{weights.tolist()}> : tensor<4x3x3x3xi8>}} : () -> {w_type}
      %b = "graph.constant"() {{value = dense<{bias.tolist()}> : tensor<4xi32>}} : () -> {b_type}
      %y = "graph.convolution"(%x, %w, %b) {{dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}} : ({x_type}, {w_type}, {b_type}) -> {y_type}
      "graph.save"(%y) {{name = "y"}} : ({y_type}) -> ()
      return
    }}"""
    module = parse_module(text, make_context(), "qconv.mlir")
    for ours in (graph_interpreter.run(module, {"x": x})["y"], cpu_executor.run(module, {"x": x})["y"]):
        assert ours.dtype == stored
        assert np.abs(ours.astype(np.int32) - theirs.astype(np.int32)).max() <= 1


def _quantize_qlinearconv_dequantize(weights, bias, w_scales, group, stride) -> onnx.ModelProto:
    """float x -> QuantizeLinear (i8) -> QLinearConv (per-channel i8 weights) -> DequantizeLinear -> float y."""
    channels, size = weights.shape[1] * group, 6 // stride
    inits = [numpy_helper.from_array(np.array(0.02, np.float32), "xs"), numpy_helper.from_array(np.int8(-5), "xz"),
             numpy_helper.from_array(weights, "w"), numpy_helper.from_array(np.array(w_scales, np.float32), "ws"),
             numpy_helper.from_array(np.zeros(len(weights), np.int8), "wz"), numpy_helper.from_array(bias, "b"),
             numpy_helper.from_array(np.array(0.05, np.float32), "ys"), numpy_helper.from_array(np.int8(3), "yz")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quantize"),
             helper.make_node("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["yq"], name="conv",
                              pads=[1, 1, 1, 1], group=group, strides=[stride, stride]),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dequantize")]
    graph = helper.make_graph(nodes, "qconv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, len(weights), size, size])],
                              inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("group, stride", [(1, 2), (2, 1), (4, 1)])
def test_grouped_and_strided_quantized_convolutions_match_onnxruntime(group, stride):
    """Strided, grouped and depthwise i8 convolutions, which the CPU path rewrites into i32 matmuls and tap
    sums (`linalg-convolution-to-matmuls`), against ORT's QLinearConv: within one output step."""
    rng = np.random.default_rng(4)
    weights = rng.integers(-127, 128, (4, 4 // group, 3, 3)).astype(np.int8)
    bias = rng.integers(-500, 500, 4).astype(np.int32)
    model = _quantize_qlinearconv_dequantize(weights, bias, [0.01, 0.02, 0.005, 0.03], group, stride)
    module = import_model(model, make_context())
    assert '"graph.convolution"' in str(module) and "quant.uniform" in str(module)
    session = _session(model)
    for seed in range(3):
        x = {"x": np.random.default_rng(seed).uniform(-2, 2, (1, 4, 6, 6)).astype(np.float32)}
        theirs = session.run(None, x)[0]
        ours = cpu_executor.run(module, x)["y"]
        assert np.abs(ours - theirs).max() <= 0.05 * 1.001
        assert np.abs(theirs).max() > 0.5  # not all clipped or zero


def test_quantized_model_on_the_cpu_path_matches_the_interpreter(tmp_path):
    quantized = graph_quantized_cnn(tmp_path, "per-channel=true")
    save = next(op for op in body_ops(quantized) if op.name == "graph.save")
    step = spec_of(save.operands[0].owner.operands[0].type).quant.scales[0]  # the dequantized result's scale
    for sample in calibration_inputs(3, seed=5):
        ours = cpu_executor.run(quantized, sample)["y"]
        assert np.abs(ours - graph_interpreter.run(quantized, sample)["y"]).max() <= step * 1.001


def test_fp16_model_on_the_cpu_path_stays_close_to_onnxruntime_float():
    context = make_context()
    module = import_model(float_cnn(), context)
    run_pipeline(module, "builtin.module(graph-optimize{fp16=true})")
    assert "f16" in str(module)
    session = _session(float_cnn())
    samples = calibration_inputs(4, seed=9)
    theirs = np.stack([session.run(None, s)[0] for s in samples])
    for run in (graph_interpreter.run, cpu_executor.run):
        assert _cosine(np.stack([run(module, s)["y"] for s in samples]), theirs) >= 0.9999


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# KL clips ranges on a histogram of 16 small samples: it trades the tails for resolution (0.9876 when it
# assumed 128 levels for the ReLU outputs the asymmetric format gives 256; 0.9967 now).
@pytest.mark.parametrize("options, least_cosine", [("per-channel=true", 0.99), ("schema=symmetric_power2", 0.99),
                                                   ("calibration=kl", 0.99), ("precision=int16", 0.9999)])
def test_graph_quantize_stays_close_to_onnxruntime_float(tmp_path, options, least_cosine):
    model = float_cnn()
    quantized = graph_quantized_cnn(tmp_path, options)
    assert "quant.uniform" in str(quantized)
    session = _session(model)
    samples = calibration_inputs(8, seed=11)
    ours = np.stack([graph_interpreter.run(quantized, s)["y"] for s in samples])
    theirs = np.stack([session.run(None, s)[0] for s in samples])
    assert _cosine(ours, theirs) >= least_cosine
    assert list(model_inputs(quantized)) == ["x"]


def test_f16_products_sum_in_f32_on_both_executors():
    """A 4096-term f16 matmul: summed in f32 and rounded once, within an f16 rounding of the exact sum
    (summed in f16, the error would be about 2%)."""
    text = """
    func.func @main() {
      %a = "graph.placeholder"() {name = "a"} : () -> tensor<1x4096xf16>
      %b = "graph.placeholder"() {name = "b"} : () -> tensor<4096x4xf16>
      %c = "graph.matmul"(%a, %b) : (tensor<1x4096xf16>, tensor<4096x4xf16>) -> tensor<1x4xf16>
      "graph.save"(%c) {name = "c"} : (tensor<1x4xf16>) -> ()
      return
    }"""
    module = parse_module(text, make_context(), "f16.mlir")
    rng = np.random.default_rng(0)
    feeds = {"a": rng.random((1, 4096)).astype(np.float16), "b": rng.random((4096, 4)).astype(np.float16)}
    exact = feeds["a"].astype(np.float64) @ feeds["b"].astype(np.float64)
    for run in (graph_interpreter.run, cpu_executor.run):
        ours = run(module, feeds)["c"]
        assert ours.dtype == np.float16
        assert np.abs(ours - exact).max() <= np.abs(exact).max() * 2.0 ** -10
