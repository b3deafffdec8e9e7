"""Reductions and normalizations as `linalg.generic` ops with reduction iterators.

A reduction writes the tensor without its reduced dims (its output map is a
projected permutation, which tiling and vectorization handle); `keepdims`
then reinserts them as size-1 dims with `tensor.expand_shape`, a view.
Softmax, layer norm and batch norm are reductions and element-wise maps that
read the reduced values through maps dropping the reduced dims; the CPU
pipeline's element-wise fusion merges the maps. Accumulation order and types
follow the reference kernels: sums and products accumulate in the tensor's
type, integer means sum exactly in i64 and then divide truncating.
"""

from __future__ import annotations

import math as pymath
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, math

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec

from .builders import PARALLEL, REDUCTION, affine_map, dims, empty, generic, identity_map
from .elementwise import Scalars, operand_scalars
from .registry import converts
from .shape import add_unit_dims
from .storage import storage_type


def _shape(value: ir.Value) -> list[int]:
    return list(ir.RankedTensorType(value.type).shape)


def _kept(rank: int, axes: Sequence[int]) -> list[int]:
    return [d for d in range(rank) if d not in axes]


def reduce(value: ir.Value, axes: Sequence[int], s: Scalars, initial,
           combine: Callable[[ir.Value, ir.Value], ir.Value]) -> ir.Value:
    """`value` reduced over `axes` (dropped from the shape) into elements of `s`'s dtype.

    `combine(element, accumulator)` folds one input element in; the
    accumulator starts at `initial`.
    """
    shape = _shape(value)
    kept = _kept(len(shape), axes)
    spec = TensorSpec([shape[d] for d in kept], s.dtype)
    init = linalg.fill(s.constant(initial), outs=[empty(storage_type(spec))])
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(len(shape))]
    (result,) = generic([value], [init], [identity_map(len(shape)), affine_map(len(shape), dims(*kept))],
                        iterators, combine)
    return result


def spread(reduced: ir.Value, rank: int, axes: Sequence[int]):
    """The indexing map reading a reduced tensor from a generic over the unreduced shape."""
    return reduced, affine_map(rank, dims(*_kept(rank, axes)))


def map_with(result_type: ir.RankedTensorType, operands: Sequence[tuple[ir.Value, ir.AffineMap]],
             body: Callable[..., ir.Value]) -> ir.Value:
    """An element-wise generic over `result_type` whose operands come with their own indexing maps."""
    rank = result_type.rank
    maps = [m for _, m in operands] + [identity_map(rank)]
    (result,) = generic([v for v, _ in operands], [empty(result_type)], maps, [PARALLEL] * rank,
                        lambda *elements: body(*elements[:-1]))
    return result


# ---------------------------------------------------------------------------
# reduce_*.
# ---------------------------------------------------------------------------


def _extreme(s: Scalars, largest: bool):
    """The identity of max (largest=False) or min (largest=True): -inf/+inf or the integer range's end."""
    if s.kind == "f":
        return float("inf") if largest else float("-inf")
    info = np.iinfo(s.dtype)
    return info.max if largest else info.min


def mean(x: ir.Value, axes: Sequence[int], s: Scalars) -> ir.Value:
    """The float mean over `axes`: the sum in x's type divided by the count (NumPy's mean)."""
    count = pymath.prod(_shape(x)[d] for d in axes)
    total = reduce(x, axes, s, 0, s.add)
    return map_with(ir.RankedTensorType(total.type), [(total, identity_map(len(_shape(total))))],
                    lambda t: arith.divf(t, s.constant(count)))


def _reduce_mean(value: ir.Value, axes: Sequence[int], s: Scalars) -> ir.Value:
    if s.kind == "f":
        return mean(value, axes, s)
    shape = _shape(value)
    count = pymath.prod(shape[d] for d in axes)
    wide = Scalars(np.dtype(np.int64))  # the exact sum, then C's truncating division
    total = reduce(value, axes, wide, 0, lambda x, acc: wide.add(s.cast(x, wide.dtype), acc))
    result_spec = TensorSpec([shape[d] for d in _kept(len(shape), axes)], s.dtype)
    return map_with(storage_type(result_spec), [(total, identity_map(len(result_spec.shape)))],
                    lambda t: wide.cast(wide.div(t, wide.constant(count)), s.dtype))


REDUCTIONS = {
    "reduce_sum": lambda value, axes, s: reduce(value, axes, s, 0, s.add),
    "reduce_prod": lambda value, axes, s: reduce(value, axes, s, 1, s.mul),
    "reduce_max": lambda value, axes, s: reduce(value, axes, s, _extreme(s, largest=False), s.max),
    "reduce_min": lambda value, axes, s: reduce(value, axes, s, _extreme(s, largest=True), s.min),
    "reduce_mean": _reduce_mean,
}


@converts(*REDUCTIONS)
def _reduction(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    (value,) = operands
    axes = list(op.attr("axes"))
    if not axes:
        return operands
    reduced = REDUCTIONS[op.name](value, axes, operand_scalars(op))
    if not op.attr("keepdims"):
        return [reduced]
    shape = op.result_specs()[0].shape
    return [add_unit_dims(reduced, shape, _kept(len(shape), axes))]


# ---------------------------------------------------------------------------
# Normalizations.
# ---------------------------------------------------------------------------


@converts("softmax")
def _softmax(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """exp(x - max) / sum(exp(x - max)) along `axis`, as the kernel computes it."""
    (x,) = operands
    axes = [op.attr("axis")]
    s = operand_scalars(op)
    type_ = ir.RankedTensorType(x.type)
    identity = identity_map(type_.rank)
    largest = reduce(x, axes, s, _extreme(s, largest=False), s.max)
    exponentials = map_with(type_, [(x, identity), spread(largest, type_.rank, axes)],
                            lambda e, m: math.exp(arith.subf(e, m)))
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
