"""The precision stage against outside oracles: onnxruntime's quantized execution and the float model."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, print_module
from lamina.dialects.model import inputs as model_inputs
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.quantization.profile import write_profile
from lamina.quantization.profiler import profile_graph
from lamina.runtime import graph_interpreter

from quantize_models import calibration_inputs, float_cnn, quantize_model


def _session(model) -> ort.InferenceSession:
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def _output_step(model: onnx.ModelProto) -> float:
    """The scale of the DequantizeLinear producing the model's output: one quantization step."""
    producer = next(n for n in model.graph.node if n.output[0] == model.graph.output[0].name)
    scale = next(i for i in model.graph.initializer if i.name == producer.input[1])
    return float(numpy_helper.to_array(scale))


@pytest.mark.parametrize("per_channel", [False, True])
def test_quantize_model_matches_onnxruntime_within_one_step(tmp_path, per_channel):
    path = quantize_model(float_cnn(), tmp_path, per_channel, calibration_inputs(8))
    module = import_model(str(path), make_context())
    session = _session(path)
    step = _output_step(onnx.load(path))
    for sample in calibration_inputs(6, seed=7):
        ours = graph_interpreter.run(module, sample)["y"]
        theirs = session.run(None, sample)[0]
        assert np.abs(ours - theirs).max() <= step * 1.001


def _qlinear_conv_model(x_scale, x_zero, w_scales, y_scale, y_zero, weights, bias):
    inits = [numpy_helper.from_array(np.array(x_scale, np.float32), "xs"),
             numpy_helper.from_array(np.array(x_zero, np.int8), "xz"),
             numpy_helper.from_array(weights, "w"),
             numpy_helper.from_array(np.array(w_scales, np.float32), "ws"),
             numpy_helper.from_array(np.zeros(len(w_scales), np.int8), "wz"),
             numpy_helper.from_array(np.array(y_scale, np.float32), "ys"),
             numpy_helper.from_array(np.array(y_zero, np.int8), "yz"),
             numpy_helper.from_array(bias, "b")]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"],
                            pads=[1, 1, 1, 1])
    graph = helper.make_graph([node], "qconv", [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 4, 6, 6])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_quantized_convolution_matches_onnxruntime_qlinearconv():
    """i8 x i8 -> i32 accumulation with per-channel weights and requantization, against ORT's QLinearConv."""
    rng = np.random.default_rng(3)
    weights = rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    bias = rng.integers(-2000, 2000, 4).astype(np.int32)
    x_scale, x_zero, w_scales, y_scale, y_zero = 0.02, -5, [0.01, 0.02, 0.005, 0.03], 0.25, 3
    x = rng.integers(-128, 128, (1, 3, 6, 6)).astype(np.int8)
    theirs = _session(_qlinear_conv_model(x_scale, x_zero, w_scales, y_scale, y_zero, weights, bias)).run(None, {"x": x})[0]
    scales_w = ",".join(f"{s}:0" for s in w_scales)
    scales_b = ",".join(f"{x_scale * s!r}:0" for s in w_scales)
    text = f"""
    func.func @main() {{
      %x = "graph.placeholder"() {{name = "x"}} : () -> tensor<1x3x6x6x!quant.uniform<i8:f32, {x_scale}:{x_zero}>>
      %w = "graph.constant"() {{value = dense<{weights.tolist()}> : tensor<4x3x3x3xi8>}} : () -> tensor<4x3x3x3x!quant.uniform<i8<-127:127>:f32:0, {{{scales_w}}}>>
      %b = "graph.constant"() {{value = dense<{bias.tolist()}> : tensor<4xi32>}} : () -> tensor<4x!quant.uniform<i32:f32:0, {{{scales_b}}}>>
      %y = "graph.convolution"(%x, %w, %b) {{dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}} : (tensor<1x3x6x6x!quant.uniform<i8:f32, {x_scale}:{x_zero}>>, tensor<4x3x3x3x!quant.uniform<i8<-127:127>:f32:0, {{{scales_w}}}>>, tensor<4x!quant.uniform<i32:f32:0, {{{scales_b}}}>>) -> tensor<1x4x6x6x!quant.uniform<i8:f32, {y_scale}:{y_zero}>>
      "graph.save"(%y) {{name = "y"}} : (tensor<1x4x6x6x!quant.uniform<i8:f32, {y_scale}:{y_zero}>>) -> ()
      return
    }}"""
    from lamina.dialects.context import parse_module
    module = parse_module(text, make_context(), "qconv.mlir")
    ours = graph_interpreter.run(module, {"x": x})["y"]
    assert ours.dtype == np.int8
    assert np.abs(ours.astype(np.int32) - theirs.astype(np.int32)).max() <= 1


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# KL clips ranges on a histogram of 16 small samples: it trades the tails for resolution, so its bar is lower.
@pytest.mark.parametrize("options, least_cosine", [("per-channel=true", 0.99), ("schema=symmetric_power2", 0.99),
                                                   ("calibration=kl", 0.95), ("precision=int16", 0.9999)])
def test_graph_quantize_stays_close_to_onnxruntime_float(tmp_path, options, least_cosine):
    model = float_cnn()
    context = make_context()
    module = import_model(model, context)
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference})")
    text = print_module(module, debug_info=True)
    profile = profile_graph(module, calibration_inputs(16))
    write_profile(profile, tmp_path / "p.yaml")
    from lamina.dialects.context import parse_module
    quantized = parse_module(text, context, "cnn.mlir")
    run_pipeline(quantized, f"builtin.module(graph-quantize{{profile={tmp_path / 'p.yaml'} {options}}})")
    assert "quant.uniform" in str(quantized)
    session = _session(model)
    samples = calibration_inputs(8, seed=11)
    ours = np.stack([graph_interpreter.run(quantized, s)["y"] for s in samples])
    theirs = np.stack([session.run(None, s)[0] for s in samples])
    assert _cosine(ours, theirs) >= least_cosine
    assert list(model_inputs(quantized)) == ["x"]
