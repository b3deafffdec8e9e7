"""onnxruntime's quantized formats: QDQ (QuantizeLinear, DequantizeLinear) and QOperator (QLinearConv, QLinearMatMul).

All become the graph dialect's own precision ops on `!quant.uniform` types,
so imported quantized models run as the graphs `graph-quantize` makes do.
Scales and zero points must be compile-time constants (they always are in
models `quantize_static` writes); integer weights become quantized
constants. Values are stored over their type's full range. A QLinear op
reads values already quantized (QuantizeLinear's or another QLinear op's
output) with the scale its inputs name.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
from mlir import ir

from lamina.dialects.irdl import ShapeError
from lamina.dialects.types import QuantParams, TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
from .windows import check_auto_pad, window_attrs, window_pads

STORED_TYPES = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.int32))


def _params(n: NodeView, scale_index: int, zero_index: int, axis: int | None,
            stored: np.dtype = np.dtype(np.uint8)) -> tuple[QuantParams, np.dtype]:
    """The format an input pair (scale, zero point) names; per axis `axis` when the scale is a vector. Without
    a zero point: 0 of type `stored` (ONNX's default: uint8, or the type of the integers dequantized)."""
    scale = n.static(scale_index).astype(np.float64).reshape(-1)
    zero = n.static(zero_index) if n.has_input(zero_index) else np.zeros(1, stored)
    info = np.iinfo(zero.dtype)
    zeros = np.broadcast_to(zero.reshape(-1), scale.shape)
    return QuantParams(scale, zeros, axis if scale.size > 1 else None, int(info.min), int(info.max)), zero.dtype


def _check_zero_points(view: NodeView, indices: Iterable[int]) -> Iterable[str]:
    for index in indices:
        zero = view.static(index) if view.has_input(index) else None
        if zero is not None and zero.dtype not in STORED_TYPES:
            yield f"zero point of type {zero.dtype} (supported: int8, uint8, int16, int32)"


def _check_qdq(view: NodeView) -> Iterable[str]:
    yield from _check_zero_points(view, (2,))
    if view.attr("block_size", 0):
        yield "blocked quantization (block_size) is not supported"


def _quantized_sources(view: NodeView, indices: Iterable[int]) -> Iterable[str]:
    """Quantized inputs that are model inputs: stored integers whose scale no producer gives at import."""
    produced = {output for node in view.analysis.nodes for output in node.output}
    for index in indices:
        if (view.has_input(index) and view.static(index) is None
                and view.input_name(index) not in produced):
            yield (f"input {index} must be a quantized value (QuantizeLinear's or a QLinear op's output) "
                   "or a constant")


def _check_dequantize(view: NodeView) -> Iterable[str]:
    yield from _check_qdq(view)
    yield from _quantized_sources(view, (0,))


@converter("QuantizeLinear", graph_ops=("quantize",), static_inputs={1: "y_scale", 2: "y_zero_point"}, check=_check_qdq,
           notes="Per tensor or per axis; the stored type is the zero point's (default uint8).")
def convert_quantize_linear(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    params, stored = _params(n, 1, 2, n.attr("axis", 1) % max(spec.rank, 1))
    return n.emit("quantize", data, result_type=TensorSpec(spec.shape, stored, params))


@converter("DequantizeLinear", graph_ops=("dequantize", "constant"), static_inputs={1: "x_scale", 2: "x_zero_point"},
           check=_check_dequantize, notes="Per tensor or per axis; constant integer inputs become quantized constants.")
def convert_dequantize_linear(n: NodeEmitter):
    spec = n.spec(n.input(0))
    stored = spec.dtype if spec.dtype in STORED_TYPES else np.dtype(np.uint8)
    params, _ = _params(n, 1, 2, n.attr("axis", 1) % max(spec.rank, 1), stored)
    data = _quantized_input(n, 0, params)
    return n.emit("dequantize", data, result_type=TensorSpec(spec.shape, np.float32))


def _quantized_input(n: NodeEmitter, index: int, params: QuantParams) -> ir.Value:
    """Input `index` as a value of format `params`: a quantized producer's output or a quantized constant."""
    value = n.input(index)
    spec = n.spec(value)
    if spec.quant is None:
        known = n.static(index)
        if known is None:
            raise ShapeError(f"input {index} must be a quantized value (QuantizeLinear's or a QLinear op's output) "
                             f"or a constant, got {spec}")
        return n.emit("constant", value=known, result_type=TensorSpec(spec.shape, known.dtype, params))
    same = (np.allclose(spec.quant.scales, params.scales, rtol=1e-6) and spec.quant.zero_points == params.zero_points
            and spec.quant.axis == params.axis)
    if not same:
        raise ShapeError(f"input {index} is stored as {spec}, but the node reads it with scales {list(params.scales)} "
                         f"and zero points {list(params.zero_points)}")
    return value


def _layer(n: NodeEmitter, op: str, data_pair: tuple[int, int], weight_pair: tuple[int, int], output_pair: tuple[int, int],
           weight_index: int, weight_axis: int, bias: np.ndarray | None, **attrs) -> ir.Value:
    """A quantized convolution or fully_connected: quantized data, constant weights, an i32 bias in their product's scale."""
    data_params, _ = _params(n, *data_pair, None)
    data = _quantized_input(n, 0, data_params)
    weight_params, _ = _params(n, *weight_pair, weight_axis)
    weights = _quantized_input(n, weight_index, weight_params)
    channels = n.spec(weights).shape[weight_axis]
    scales = data_params.scales[0] * np.broadcast_to(np.asarray(weight_params.scales), (channels,))
    info = np.iinfo(np.int32)
    bias_params = QuantParams(scales, [0] * channels, 0, int(info.min), int(info.max))
    stored_bias = np.zeros(channels, np.int32) if bias is None else bias.astype(np.int32)
    bias_value = n.emit("constant", value=stored_bias, result_type=TensorSpec((channels,), np.int32, bias_params))
    output_params, stored = _params(n, *output_pair, None)
    shape = TensorSpec(tuple(n.output_spec(0).shape), stored, output_params)
    return n.emit(op, data, weights, bias_value, result_type=shape, **attrs)


QLINEAR_CONV_INPUTS = {1: "x_scale", 2: "x_zero_point", 3: "w", 4: "w_scale", 5: "w_zero_point", 6: "y_scale",
                       7: "y_zero_point", 8: "B"}


def _check_qlinear_conv(view: NodeView) -> Iterable[str]:
    yield from _quantized_sources(view, (0,))
    yield from check_auto_pad(view)
    yield from _check_zero_points(view, (2, 5, 7))


@converter("QLinearConv", graph_ops=("convolution", "constant"), static_inputs=QLINEAR_CONV_INPUTS,
           check=_check_qlinear_conv, notes="A quantized `graph.convolution`: per-tensor or per-channel weights, "
                                            "an i32 bias in input scale x weight scale.")
def convert_qlinear_conv(n: NodeEmitter):
    data_spec, weight_spec = n.spec(n.input(0)), n.spec(n.input(3))
    strides, dilations = window_attrs(n, data_spec.rank)
    pads = window_pads(n, data_spec.shape[2:], weight_spec.shape[2:], strides, dilations)
    bias = n.static(8) if n.has_input(8) else None
    return _layer(n, "convolution", (1, 2), (4, 5), (6, 7), 3, 0, bias, strides=strides, pads=pads,
                  dilations=dilations, group=n.attr("group", 1))


def _check_qlinear_matmul(view: NodeView) -> Iterable[str]:
    yield from _quantized_sources(view, (0,))
    yield from _check_zero_points(view, (2, 5, 7))
    a, b = view.input_spec(0), view.input_spec(3)
    if a is not None and b is not None and (a.rank != 2 or b.rank != 2):
        yield "only 2-D operands are supported (a fully-connected layer)"


@converter("QLinearMatMul", graph_ops=("fully_connected", "constant"),
           static_inputs={1: "a_scale", 2: "a_zero_point", 3: "b", 4: "b_scale", 5: "b_zero_point", 6: "y_scale",
                          7: "y_zero_point"},
           check=_check_qlinear_matmul, notes="2-D by constant weights: a quantized `graph.fully_connected`.")
def convert_qlinear_matmul(n: NodeEmitter):
    return _layer(n, "fully_connected", (1, 2), (4, 5), (6, 7), 3, 1, None)
