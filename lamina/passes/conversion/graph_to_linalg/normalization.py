"""Normalizations in linalg: softmax, layer norm, batch norm and local response normalization.

Softmax, layer norm and batch norm are reductions (reductions.py) and
element-wise maps that read the reduced values through maps dropping the
reduced dims; the CPU pipeline's element-wise fusion merges the maps. LRN
sums squares over a window of channels with one `linalg.generic`.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, math, tensor

from lamina.dialects.irdl import OpView

from .builders import PARALLEL, REDUCTION, affine_map, dims, filled, generic, identity_map, map_elements, pad, scalar
from .elementwise import Scalars, operand_scalars
from .reductions import extreme, map_with, mean, reduce, spread
from .registry import converts
from .storage import result_type


@converts("softmax")
def _softmax(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """exp(x - max) / sum(exp(x - max)) along `axis`, as the kernel computes it (NumPy sums float16
    in f32 and rounds once)."""
    (x,) = operands
    axes = [op.attr("axis")]
    s = operand_scalars(op)
    type_ = ir.RankedTensorType(x.type)
    identity = identity_map(type_.rank)
    largest = reduce(x, axes, s, extreme(s, largest=False), s.max)
    exponentials = map_with(type_, [(x, identity), spread(largest, type_.rank, axes)],
                            lambda e, m: math.exp(arith.subf(e, m)))
    if isinstance(type_.element_type, ir.F16Type):
        f32 = Scalars(np.dtype(np.float32))
        total = reduce(exponentials, axes, f32, 0, lambda e, acc: arith.addf(arith.extf(f32.element, e), acc))
        return [map_with(type_, [(exponentials, identity), spread(total, type_.rank, axes)],
                         lambda e, t: arith.divf(e, arith.truncf(type_.element_type, t)))]
    total = reduce(exponentials, axes, s, 0, s.add)
    return [map_with(type_, [(exponentials, identity), spread(total, type_.rank, axes)], arith.divf)]


@converts("layer_norm")
def _layer_norm(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """(x - mean) / sqrt(variance + epsilon) * scale + bias over dims [axis, rank)."""
    x, scale, bias = operands
    s = operand_scalars(op)
    type_ = ir.RankedTensorType(x.type)
    rank, axis = type_.rank, op.attr("axis")
    axes = list(range(axis, rank))
    identity = identity_map(rank)
    centered = map_with(type_, [(x, identity), spread(mean(x, axes, s), rank, axes)], arith.subf)
    squares = map_with(type_, [(centered, identity)], lambda c: arith.mulf(c, c))
    variance = mean(squares, axes, s)
    trailing = affine_map(rank, dims(*axes))
    epsilon = s.constant(op.attr("epsilon"))

    def body(c, v, g, b):
        return arith.addf(arith.mulf(arith.divf(c, math.sqrt(arith.addf(v, epsilon))), g), b)

    return [map_with(type_, [(centered, identity), spread(variance, rank, axes), (scale, trailing),
                             (bias, trailing)], body)]


@converts("batch_norm")
def _batch_norm(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """(x - mean) * (scale / sqrt(variance + epsilon)) + bias per channel (axis 1), as the kernel does."""
    x, scale, bias, mean, variance = operands
    s = operand_scalars(op)
    epsilon = s.constant(op.attr("epsilon"))
    vector = ir.RankedTensorType(scale.type)
    inverse_std = map_with(vector, [(scale, identity_map(1)), (variance, identity_map(1))],
                           lambda g, v: arith.divf(g, math.sqrt(arith.addf(v, epsilon))))
    type_ = ir.RankedTensorType(x.type)
    channel = affine_map(type_.rank, dims(1))
    return [map_with(type_, [(x, identity_map(type_.rank)), (mean, channel), (inverse_std, channel), (bias, channel)],
                     lambda e, m, i, b: arith.addf(arith.mulf(arith.subf(e, m), i), b))]


@converts("lrn")
def lrn(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels) ^ beta."""
    (data,) = operands
    out = result_type(view)
    element = out.element_type
    size, rank = view.attr("size"), out.rank
    before = (size - 1) // 2
    squares = map_elements(out, [data], lambda x: arith.mulf(x, x))
    low, high = [0] * rank, [0] * rank
    low[1], high[1] = before, size - 1 - before
    padded = pad(squares, low, high, 0)
    # Loops: the result's dims, then the channel offset t; input channel c + t.
    d = ir.AffineDimExpr.get
    window = tensor.empty([size], element)
    maps = [affine_map(rank + 1, [d(0), d(1) + d(rank), *dims(*range(2, rank))]),
            affine_map(rank + 1, dims(rank)), affine_map(rank + 1, dims(*range(rank)))]
    (sums,) = generic([padded, window], [filled(out, 0)], maps, [PARALLEL] * rank + [REDUCTION],
                      lambda square, _, total: arith.addf(total, square))
    alpha, beta, bias = view.attr("alpha"), view.attr("beta"), view.attr("bias")

    def normalize(x: ir.Value, total: ir.Value) -> ir.Value:
        scaled = arith.mulf(scalar(element, np.float32(alpha) / np.float32(size)), total)
        base = arith.addf(scalar(element, bias), scaled)
        return arith.divf(x, math.powf(base, scalar(element, beta)))

    return [map_elements(out, [data, sums], normalize)]
