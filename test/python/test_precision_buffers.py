"""Quantized and f16 graphs at the buffer level, against onnxruntime's quantized execution and the graph level."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from mlir import ir

from lamina.dialects.context import check_module, make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.model import body_ops
from lamina.dialects.types import UnsupportedType, spec_of
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter

from qdq_models import (calibration_inputs, float_cnn, float_conv_matmul, graph_quantized_cnn, output_step,
                        quantize_model)

TO_BUFFERS = "builtin.module(graph-optimize,graph-to-buffers)"


@pytest.mark.parametrize("operators", [False, True], ids=["qdq", "qoperator"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_quantized_onnx_models_at_the_buffer_level_match_onnxruntime_within_one_step(tmp_path, operators,
                                                                                     per_channel):
    """onnxruntime's quantize_static models (QDQ layers fused into integer ones by graph-optimize, or
    QLinearConv/QLinearMatMul) as planned buffers with i8 storage, run by the buffer interpreter."""
    model = float_conv_matmul() if operators else float_cnn()
    path = quantize_model(model, tmp_path, per_channel, calibration_inputs(8), operators=operators)
    module = import_model(str(path), make_context())
    run_pipeline(module, TO_BUFFERS)
    stored = [spec_of(op.operands[0].type) for op in body_ops(module) if op.name == "buffer.convolution"]
    assert stored and all(spec.quant is not None and spec.dtype.itemsize == 1 for spec in stored)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    step = output_step(onnx.load(path))
    for sample in calibration_inputs(4, seed=7):
        ours = buffer_interpreter.run(module, sample)["y"]
        assert np.abs(ours - session.run(None, sample)[0]).max() <= step * 1.001


def _activation_bytes(module: ir.Operation) -> int:
    return ir.IntegerAttr(module.operation.attributes["buffer.activation_bytes"]).value


def test_graph_quantize_and_fp16_compute_the_same_at_the_buffer_level(tmp_path):
    """Memory planning sizes buffers by stored element: int8 activations take a quarter of f32's bytes."""
    context = make_context()
    float_module = import_model(float_cnn(), context)
    run_pipeline(float_module, "builtin.module(graph-optimize,graph-to-buffers)")
    fp16 = import_model(float_cnn(), context)
    run_pipeline(fp16, "builtin.module(graph-optimize{fp16=true})")
    quantized = graph_quantized_cnn(tmp_path, "per-channel=true")
    run_pipeline(quantized, "builtin.module(graph-dce)")
    samples = calibration_inputs(3, seed=5)
    for module in (fp16, quantized):
        expected = [graph_interpreter.run(module, sample)["y"] for sample in samples]
        run_pipeline(module, "builtin.module(graph-to-buffers)")
        for sample, theirs in zip(samples, expected):  # the same kernels on the same values: equal
            np.testing.assert_array_equal(buffer_interpreter.run(module, sample)["y"], theirs)
    assert _activation_bytes(quantized) < _activation_bytes(fp16) < _activation_bytes(float_module)
    assert all(spec_of(op.results[0].type).dtype.itemsize == 1 for op in body_ops(quantized)
               if op.name == "buffer.alloc" and spec_of(op.results[0].type).quant is not None
               and spec_of(op.results[0].type).quant.qmax < 256)


def test_a_memref_whose_memory_space_is_not_a_quantized_type_is_refused():
    with make_context(), ir.Location.unknown():
        for text in ("memref<2xi8, 1>", "memref<2xi16, {quant = !quant.uniform<i8:f32, 0.5:3>}>"):
            with pytest.raises(UnsupportedType):
                spec_of(ir.Type.parse(text))


def test_a_copy_between_two_scales_is_refused():
    text = """
    func.func @main() {
      %0 = "buffer.alloc"() {name = "a", offset = -1 : i64} : () -> memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:0>}>
      %1 = "buffer.alloc"() {name = "b", offset = -1 : i64} : () -> memref<4xi8, {quant = !quant.uniform<i8:f32, 0.25:0>}>
      "buffer.copy"(%1, %0) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 0.25:0>}>, memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:0>}>) -> ()
      "buffer.dealloc"(%0) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:0>}>) -> ()
      "buffer.dealloc"(%1) : (memref<4xi8, {quant = !quant.uniform<i8:f32, 0.25:0>}>) -> ()
      return
    }"""
    module = parse_module(text, make_context(), "copy.mlir")
    with pytest.raises(LaminaError, match="copy needs buffers of one type"):
        check_module(module)
