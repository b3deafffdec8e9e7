"""Convolutions and pooling: Conv, ConvTranspose, MaxPool, AveragePool, global pools."""

from __future__ import annotations

from typing import Iterable

from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter, register
from .windows import check_auto_pad, split_padding, window_attrs, window_pads


def _bias_or_zeros(n: NodeEmitter, index: int, channels: int, dtype):
    """The optional bias input, or zeros: the graph ops always take a bias."""
    return n.input(index) if n.has_input(index) else n.splat(TensorSpec((channels,), dtype), 0)


@converter("Conv", graph_ops=("convolution", "splat"), check=check_auto_pad,
           notes="N-D, `group` (grouped and depthwise), `strides`, `dilations`, `pads` and every `auto_pad`; "
                 "a missing bias becomes a zero splat.")
def convert_conv(n: NodeEmitter):
    data, weights = n.input(0), n.input(1)
    data_spec, weight_spec = n.spec(data), n.spec(weights)
    strides, dilations = window_attrs(n, data_spec.rank)
    pads = window_pads(n, data_spec.shape[2:], weight_spec.shape[2:], strides, dilations)
    bias = _bias_or_zeros(n, 2, weight_spec.shape[0], data_spec.dtype)
    return n.emit("convolution", data, weights, bias, strides=strides, pads=pads, dilations=dilations,
                  group=n.attr("group", 1))


def conv_transpose_geometry(view: NodeView, data: TensorSpec, weights: TensorSpec) -> tuple[list[int], list[int]]:
    """(pads, output_padding). With `output_shape` or SAME auto_pad, pads follow from the output size
    as the ONNX spec says; an output larger than the full result grows `output_padding` instead."""
    k = data.rank - 2
    strides, dilations = window_attrs(view, data.rank)
    output_padding = list(view.attr("output_padding", [0] * k))
    auto_pad = view.attr("auto_pad", "NOTSET")
    output_shape = view.attr("output_shape")
    if output_shape is None and auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * 2 * k if auto_pad == "VALID" else list(view.attr("pads", [0] * 2 * k))
        return pads, output_padding
    targets = output_shape[-k:] if output_shape else [size * s for size, s in zip(data.shape[2:], strides)]
    begins, ends = [], []
    for i in range(k):
        full = strides[i] * (data.shape[2 + i] - 1) + output_padding[i] + (weights.shape[2 + i] - 1) * dilations[i] + 1
        total = full - targets[i]
        if total < 0:
            output_padding[i] -= total
            total = 0
        begin, end = split_padding(total, auto_pad)
        begins.append(begin)
        ends.append(end)
    return begins + ends, output_padding


@converter("ConvTranspose", graph_ops=("conv_transpose", "splat"), check=check_auto_pad,
           notes="N-D, `group`, `strides`, `dilations`, `output_padding`, `pads`, `auto_pad` and `output_shape` "
                 "(pads derived as the ONNX spec says; an `output_shape` beyond the full result extends "
                 "`output_padding`).")
def convert_conv_transpose(n: NodeEmitter):
    data, weights = n.input(0), n.input(1)
    data_spec, weight_spec = n.spec(data), n.spec(weights)
    strides, dilations = window_attrs(n, data_spec.rank)
    group = n.attr("group", 1)
    pads, output_padding = conv_transpose_geometry(n, data_spec, weight_spec)
    bias = _bias_or_zeros(n, 2, weight_spec.shape[1] * group, data_spec.dtype)
    return n.emit("conv_transpose", data, weights, bias, strides=strides, pads=pads, dilations=dilations, group=group,
                  output_padding=output_padding)


def _pool_attrs(n: NodeEmitter, data: TensorSpec) -> dict:
    kernel = n.attr("kernel_shape")
    strides, dilations = window_attrs(n, data.rank)
    return {"kernel": kernel, "strides": strides, "dilations": dilations,
            "pads": window_pads(n, data.shape[2:], kernel, strides, dilations),
            "ceil_mode": bool(n.attr("ceil_mode", 0))}


def _check_max_pool(view: NodeView) -> Iterable[str]:
    yield from check_auto_pad(view)
    if view.output_used(1):
        yield "the Indices output is not supported"


@converter("MaxPool", graph_ops=("max_pool",), check=_check_max_pool,
           notes="`kernel_shape`, `strides`, `pads`, `auto_pad`, `dilations`, `ceil_mode`; "
                 "the Indices output is unsupported.")
def convert_max_pool(n: NodeEmitter):
    data = n.input(0)
    return [n.emit("max_pool", data, **_pool_attrs(n, n.spec(data))), None]


def _check_average_pool(view: NodeView) -> Iterable[str]:
    yield from check_auto_pad(view)
    if any(d != 1 for d in view.attr("dilations", [])):
        yield "dilations other than 1 are not supported"


@converter("AveragePool", graph_ops=("avg_pool",), check=_check_average_pool,
           notes="`kernel_shape`, `strides`, `pads`, `auto_pad`, `ceil_mode`, `count_include_pad`; "
                 "dilations other than 1 are unsupported.")
def convert_average_pool(n: NodeEmitter):
    data = n.input(0)
    attrs = _pool_attrs(n, n.spec(data))
    del attrs["dilations"]
    return n.emit("avg_pool", data, count_include_pad=bool(n.attr("count_include_pad", 0)), **attrs)


for _onnx_op, _graph_op in (("GlobalAveragePool", "global_avg_pool"), ("GlobalMaxPool", "global_max_pool")):
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, n.input(0)), graph_ops=(_graph_op,))
