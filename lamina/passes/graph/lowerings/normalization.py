"""Lowerings of batch, layer and local-response normalization into arithmetic.

Each builds the interpreter's own formula, operation by operation (and the
batch-norm factor on constants exactly as the interpreter computes it), so
the lowered graph computes bit-for-bit what the op does.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec, spec_of
from lamina.dialects.values import constant_value

from .base import Emitter, lowering


@lowering("batch_norm")
def batch_norm(op: OpView, emit: Emitter) -> ir.Value:
    """(x - mean) * factor + bias per channel, with factor = scale / sqrt(variance + epsilon).

    As in Glow, the per-channel vectors are broadcast over the image. With
    constant scale and variance (inference), the factor is computed now,
    so the graph keeps three element-wise ops by constants.
    """
    x = op.operand("input")
    spec = spec_of(x.type)
    centered = emit.op("sub", x, _per_channel(emit, op.operand("mean"), spec))
    scaled = emit.op("mul", centered, _per_channel(emit, _factor(op, emit), spec))
    return emit.op("add", scaled, _per_channel(emit, op.operand("bias"), spec))


def _factor(op: OpView, emit: Emitter) -> ir.Value | np.ndarray:
    """scale / sqrt(variance + epsilon): an array when both are constants, else ops computing it."""
    scale, variance = op.operand("scale"), op.operand("variance")
    scale_data, variance_data = constant_value(scale), constant_value(variance)
    if scale_data is not None and variance_data is not None:
        return scale_data / np.sqrt(variance_data + variance_data.dtype.type(op.attr("epsilon")))
    shifted = emit.op("add", variance, emit.splat(op.attr("epsilon"), spec_of(variance.type)))
    return emit.op("div", scale, emit.op("sqrt", shifted))


def _per_channel(emit: Emitter, vector: ir.Value | np.ndarray, like: TensorSpec) -> ir.Value:
    """A [C] vector broadcast over an N x C x ... tensor, through a [1, C, 1, ...] reshape.

    A constant vector is reshaped in place: a new constant, no reshape op.
    """
    data = vector if isinstance(vector, np.ndarray) else constant_value(vector)
    column = (1, like.shape[1]) + (1,) * (like.rank - 2)
    if data is not None:
        reshaped = emit.constant(data.reshape(column))
    else:
        reshaped = emit.op("reshape", vector, result_type=like.with_shape(column))
    return emit.broadcast(reshaped, like)


@lowering("layer_norm")
def layer_norm(op: OpView, emit: Emitter) -> ir.Value:
    """(x - mean) / sqrt(variance + epsilon) * scale + bias, with mean and variance over the axes [axis, rank)."""
    x = op.operand("input")
    spec = spec_of(x.type)
    axes = tuple(range(op.attr("axis"), spec.rank))
    mean = emit.op("reduce_mean", x, axes=axes, keepdims=True)
    centered = emit.op("sub", x, emit.broadcast(mean, spec))
    variance = emit.op("reduce_mean", emit.op("mul", centered, centered), axes=axes, keepdims=True)
    deviation = emit.op("sqrt", emit.op("add", variance, emit.splat(op.attr("epsilon"), spec_of(variance.type))))
    normalized = emit.op("div", centered, emit.broadcast(deviation, spec))
    scaled = emit.op("mul", normalized, emit.broadcast(op.operand("scale"), spec))
    return emit.op("add", scaled, emit.broadcast(op.operand("bias"), spec))


@lowering("lrn")
def lrn(op: OpView, emit: Emitter) -> ir.Value:
    """x / (bias + alpha / size * window_sum) ** beta, where window_sum adds x^2 over `size` channels.

    The channel window is centered (one more channel after it than before
    when `size` is even, as ONNX says); the sum is exact without any window
    op: zero-pad the squares along the channels, take `size` shifted slices
    of the original channel count and add them (`graph.sum`).
    """
    x = op.operand("input")
    spec = spec_of(x.type)
    size, channels, rank = op.attr("size"), spec.shape[1], spec.rank
    before = (size - 1) // 2
    pads = [0] * (2 * rank)
    pads[1], pads[rank + 1] = before, size - 1 - before
    padded = emit.op("pad", emit.op("mul", x, x), pads=pads, mode="constant", value=0.0)
    windows = [
        emit.op("slice", padded, starts=[0, shift] + [0] * (rank - 2),
                ends=[spec.shape[0], shift + channels, *spec.shape[2:]], steps=[1] * rank)
        for shift in range(size)
    ]
    window_sum = emit.op("sum", *windows) if size > 1 else windows[0]
    alpha_over_size = spec.dtype.type(op.attr("alpha")) / spec.dtype.type(size)
    scaled_sum = emit.op("mul", emit.splat(alpha_over_size, spec), window_sum)
    base = emit.op("add", emit.splat(op.attr("bias"), spec), scaled_sum)
    return emit.op("div", x, emit.op("pow", base, emit.splat(op.attr("beta"), spec)))
