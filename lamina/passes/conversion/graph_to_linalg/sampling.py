"""GatherND and GridSample in linalg: generics over the result that read their source with `tensor.extract`.

gather_nd: each result element extracts its index tuple, wraps negative
indices and clamps out-of-range ones (as gather's lowering does; compiled
code does not raise), then extracts the element. grid_sample follows the
kernel (`lamina/kernels/sampling.py`) step by step: each result point
extracts its grid coordinates, denormalizes them, pads the positions, and
sums its taps (1, 2 or 4 per axis; their product unrolled at compile time),
each a weight times the pixel at its padded index (zero outside the input
under `zeros`).
"""

from __future__ import annotations

import itertools

import numpy as np
from mlir import ir
from mlir.dialects import arith, math, tensor

from lamina.dialects.irdl import OpView
from lamina.kernels.sampling import CUBIC_ALPHA, borders

from .builders import PARALLEL, empty, generic, identity_map
from .elementwise import Scalars, operand_scalars
from .registry import converts
from .shape_ops import _index, _loop_index
from .storage import result_type

F64 = Scalars(np.dtype(np.float64))


def _generic_over_result(op: OpView, body) -> list[ir.Value]:
    """A generic with no inputs whose body computes each result element from its indices."""
    out = result_type(op)
    (result,) = generic([], [empty(out)], [identity_map(out.rank)], [PARALLEL] * out.rank, lambda _: body())
    return [result]


def _wrapped_clamped(index: ir.Value, size: int) -> ir.Value:
    """An i32/i64 index as an `index` inside [0, size): negative ones count from the end, others clamp."""
    position = arith.index_cast(ir.IndexType.get(), index)
    wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, position, _index(0)),
                           arith.addi(position, _index(size)), position)
    return arith.minsi(arith.maxsi(wrapped, _index(0)), _index(size - 1))


@converts("gather_nd")
def _gather_nd(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, indices = operands
    batch_dims = op.attr("batch_dims")
    data_shape, index_shape = op.operand_specs()[0].shape, op.operand_specs()[1].shape
    depth, outer = index_shape[-1], len(index_shape) - 1  # result dims [0, outer) walk the index tuples

    def body() -> ir.Value:
        tuple_at = [_loop_index(d) for d in range(outer)]
        picked = [_wrapped_clamped(tensor.extract(indices, [*tuple_at, _index(k)]), data_shape[batch_dims + k])
                  for k in range(depth)]
        rest = [_loop_index(outer + d) for d in range(len(data_shape) - batch_dims - depth)]
        return tensor.extract(data, [*tuple_at[:batch_dims], *picked, *rest])

    return _generic_over_result(op, body)


# ---------------------------------------------------------------------------
# GridSample: positions and weights in the grid's element type, reflections and the sum in f64, as the kernel.
# ---------------------------------------------------------------------------


def _select_outside(s: Scalars, x: ir.Value, low: float, high: float, inside: ir.Value,
                    outside: ir.Value) -> ir.Value:
    is_outside = arith.ori(s.compare("lt", x, s.constant(low)), s.compare("gt", x, s.constant(high)))
    return arith.select(is_outside, outside, inside)


def _reflect(x: ir.Value, low: float, high: float) -> ir.Value:
    """The kernel's `reflect` of an f64 position: outside [low, high], folded back in."""
    span = high - low
    if span <= 0:
        return F64.constant(low)
    lowest, highest = F64.constant(low), F64.constant(high)
    below = F64.compare("lt", x, lowest)
    distance = arith.select(below, arith.subf(lowest, x), arith.subf(x, highest))
    folds = math.floor(arith.divf(distance, F64.constant(span)))  # distance >= 0 where it is used: floor is trunc
    rest = arith.subf(distance, arith.mulf(folds, F64.constant(span)))
    half = arith.mulf(folds, F64.constant(0.5))
    even = F64.compare("eq", math.floor(half), half)
    from_low, from_high = arith.addf(lowest, rest), arith.subf(highest, rest)
    return _select_outside(F64, x, low, high, x, arith.select(below, arith.select(even, from_low, from_high),
                                                              arith.select(even, from_high, from_low)))


def _cubic_weights(s: Scalars, t: ir.Value) -> list[ir.Value]:
    """The kernel's `cubic_weights` for taps at -1, 0, 1, 2."""
    a = CUBIC_ALPHA

    def poly(x: ir.Value, coefficients: tuple[float, ...]) -> ir.Value:  # Horner, highest power first
        value = s.constant(coefficients[0])
        for c in coefficients[1:]:
            value = arith.addf(arith.mulf(value, x), s.constant(c))
        return value

    near, far = (a + 2, -(a + 3), 0.0, 1.0), (a, -5 * a, 8 * a, -4 * a)
    one, two = s.constant(1), s.constant(2)
    return [poly(arith.addf(t, one), far), poly(t, near), poly(arith.subf(one, t), near),
            poly(arith.subf(two, t), far)]


def _taps(s: Scalars, x: ir.Value, mode: str) -> list[tuple[ir.Value, ir.Value]]:
    """The kernel's `taps`: (i64 index, weight) of each tap at position x."""
    i64 = ir.IntegerType.get_signless(64)
    if mode == "nearest":
        return [(arith.fptosi(i64, x), s.constant(1))]
    base = math.floor(x)
    index = arith.fptosi(i64, base)
    offset = lambda k: arith.addi(index, arith.constant(i64, k))  # noqa: E731
    if mode == "linear":
        return [(index, arith.subf(arith.addf(base, s.constant(1)), x)), (offset(1), arith.subf(x, base))]
    return [(offset(k), weight) for k, weight in zip((-1, 0, 1, 2), _cubic_weights(s, arith.subf(x, base)))]


def _padded_index(index: ir.Value, size: int, align_corners: bool, padding_mode: str) -> tuple[ir.Value, ir.Value]:
    """The kernel's `pad_index`: (an `index` inside the axis, an i1 whether the tap reads the input)."""
    i64 = ir.IntegerType.get_signless(64)
    inside = arith.andi(arith.cmpi(arith.CmpIPredicate.sge, index, arith.constant(i64, 0)),
                        arith.cmpi(arith.CmpIPredicate.slt, index, arith.constant(i64, size)))
    if padding_mode == "reflection":
        index = arith.fptosi(i64, _reflect(arith.sitofp(F64.element, index), *borders(size, align_corners)))
    clamped = arith.minsi(arith.maxsi(index, arith.constant(i64, 0)), arith.constant(i64, size - 1))
    reads = inside if padding_mode == "zeros" else arith.constant(ir.IntegerType.get_signless(1), 1)
    return arith.index_cast(ir.IndexType.get(), clamped), reads


def _position(s: Scalars, coordinate: ir.Value, size: int, mode: str, padding_mode: str,
              align_corners: bool) -> ir.Value:
    """A grid coordinate as a padded position along an axis of `size` (the kernel's steps before `taps`)."""
    one = s.constant(1)
    if align_corners:  # (c + 1) / 2 * (size - 1)
        x = arith.mulf(arith.divf(arith.addf(coordinate, one), s.constant(2)), s.constant(size - 1))
    else:  # ((c + 1) * size - 1) / 2
        x = arith.divf(arith.subf(arith.mulf(arith.addf(coordinate, one), s.constant(size)), one), s.constant(2))
    if mode == "nearest":
        x = math.roundeven(x)
    low, high = borders(size, align_corners)
    if padding_mode == "border":
        clamped = arith.minimumf(arith.maximumf(x, s.constant(0)), s.constant(size - 1))
        return _select_outside(s, x, low, high, x, clamped)
    if padding_mode == "reflection":
        return F64.cast(_reflect(s.cast(x, np.float64), low, high), s.dtype)
    return x


@converts("grid_sample")
def _grid_sample(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, grid = operands
    mode, padding_mode, align_corners = (op.attr(name) for name in ("mode", "padding_mode", "align_corners"))
    pixels, s = operand_scalars(op, 0), operand_scalars(op, 1)
    spatial = op.operand_specs()[0].shape[2:]
    rank, result_dtype = len(spatial), op.result_specs()[0].dtype

    def body() -> ir.Value:
        batch, channel = _loop_index(0), _loop_index(1)
        point = [_loop_index(2 + d) for d in range(rank)]
        per_axis = []
        for axis, size in enumerate(spatial):
            coordinate = tensor.extract(grid, [batch, *point, _index(rank - 1 - axis)])
            per_axis.append(_taps(s, _position(s, coordinate, size, mode, padding_mode, align_corners), mode))
        total = F64.constant(0)
        for combination in itertools.product(*per_axis):
            weight, indices = F64.constant(1), []
            for (index, axis_weight), size in zip(combination, spatial):
                index, reads = _padded_index(index, size, align_corners, padding_mode)
                weight = arith.select(reads, arith.mulf(weight, s.cast(axis_weight, np.float64)), F64.constant(0))
                indices.append(index)
            pixel = pixels.cast(tensor.extract(data, [batch, channel, *indices]), np.float64)
            total = arith.addf(total, arith.mulf(weight, pixel))
        return F64.cast(total, result_dtype)

    return _generic_over_result(op, body)
