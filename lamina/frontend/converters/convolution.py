"""Convolutions: Conv, ConvTranspose."""

from __future__ import annotations

from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
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
