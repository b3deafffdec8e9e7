"""Reductions as `linalg.generic` ops with reduction iterators.

A reduction writes the tensor without its reduced dims (its output map is a
projected permutation, which tiling and vectorization handle); `keepdims`
then reinserts them as size-1 dims with `tensor.expand_shape`, a view.
The normalizations (normalization.py) build on `reduce`, `spread` and
`map_with`. Accumulation order and types
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
from .shape_ops import add_unit_dims
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


def extreme(s: Scalars, largest: bool):
    """The identity of max (largest=False) or min (largest=True): -inf/+inf, true/false or the integer range's end."""
    if s.kind == "f":
        return float("inf") if largest else float("-inf")
    if s.kind == "b":
        return largest
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
    "reduce_max": lambda value, axes, s: reduce(value, axes, s, extreme(s, largest=False), s.max),
    "reduce_min": lambda value, axes, s: reduce(value, axes, s, extreme(s, largest=True), s.min),
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
