"""Data-movement graph ops as `tensor` ops and index-mapping `linalg` ops.

Views stay views where upstream has one: reshape is a collapse then an
expand (`tensor.collapse_shape`/`expand_shape`, which bufferize to
reinterpretations), forward slices are `tensor.extract_slice`, concat and
constant pads are `tensor.insert_slice`/`tensor.pad`. The rest are
`linalg` ops whose indexing maps are projected permutations (what tiling and
vectorization handle): `linalg.transpose`, `linalg.broadcast`, and generics
for tile, backward slices, reflect/edge pads, gather and gather_elements
(the last three read their source with `tensor.extract` at computed indices).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.dialects.irdl import OpView

from .builders import PARALLEL, affine_map, dims, empty, generic, identity_map, pad
from .elementwise import operand_scalars
from .registry import converts
from .storage import result_type

Reassociation = list[list[int]]


def _type(value: ir.Value) -> ir.RankedTensorType:
    return ir.RankedTensorType(value.type)


def _reassociation_attr(groups: Reassociation) -> ir.ArrayAttr:
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in group]) for group in groups])


def unit_dims_reassociation(rank: int, kept: Sequence[int]) -> Reassociation:
    """Groups of dims [0, rank), one per `kept` dim; every other dim (of size 1) joins its left neighbour's
    group, or the first group when it leads."""
    if not kept:
        return []
    groups: Reassociation = []
    leading: list[int] = []
    for dim in range(rank):
        if dim in kept:
            groups.append([*leading, dim])
            leading = []
        elif groups:
            groups[-1].append(dim)
        else:
            leading.append(dim)
    return groups


def collapse(value: ir.Value, shape: Sequence[int], groups: Reassociation) -> ir.Value:
    result = ir.RankedTensorType.get(list(shape), _type(value).element_type)
    return tensor.collapse_shape(result, value, _reassociation_attr(groups))


def expand(value: ir.Value, shape: Sequence[int], groups: Reassociation) -> ir.Value:
    result = ir.RankedTensorType.get(list(shape), _type(value).element_type)
    return tensor.expand_shape(result, value, _reassociation_attr(groups), [], list(shape))


def drop_unit_dims(value: ir.Value, kept: Sequence[int]) -> ir.Value:
    """`value` without its dims outside `kept` (all of size 1)."""
    shape = _type(value).shape
    if len(kept) == len(shape):
        return value
    return collapse(value, [shape[d] for d in kept], unit_dims_reassociation(len(shape), kept))


def add_unit_dims(value: ir.Value, shape: Sequence[int], kept: Sequence[int]) -> ir.Value:
    """`value` expanded to `shape`, its dims becoming `kept` and every other (size 1) dim inserted."""
    if len(kept) == len(shape):
        return value
    return expand(value, shape, unit_dims_reassociation(len(shape), kept))


def reshape(value: ir.Value, shape: Sequence[int]) -> ir.Value:
    """Same elements in a new static shape: collapse to 1-D, then expand (views, no copy)."""
    source = list(_type(value).shape)
    if source == list(shape):
        return value
    count = int(np.prod(source, dtype=np.int64))
    flat = value
    if len(source) != 1:
        flat = expand(value, [1], []) if not source else collapse(value, [count], [list(range(len(source)))])
    if len(shape) == 1:
        return flat
    if not shape:
        return collapse(flat, [], [])
    return expand(flat, shape, [list(range(len(shape)))])


@converts("reshape")
def _reshape(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [reshape(operands[0], result_type(op).shape)]


@converts("transpose")
def _transpose(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    perm = list(op.attr("perm"))
    if perm == sorted(perm):
        return operands
    return [linalg.transpose(operands[0], outs=[empty(result_type(op))], permutation=perm).results[0]]


@converts("broadcast")
def _broadcast(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """NumPy broadcast: drop the size-1 dims that grow, then `linalg.broadcast` adds the missing dims."""
    (value,) = operands
    target = result_type(op)
    source_shape = list(_type(value).shape)
    offset = target.rank - len(source_shape)
    kept = [d for d, size in enumerate(source_shape) if size == target.shape[offset + d]]
    if len(kept) == target.rank:
        return operands
    added = [d for d in range(target.rank) if d - offset not in kept]
    op_ = linalg.broadcast(drop_unit_dims(value, kept), outs=[empty(target)], dimensions=added)
    return [op_.results[0]]


def extract(value: ir.Value, offsets: Sequence[int], sizes: Sequence[int]) -> ir.Value:
    """The block [offsets, offsets + sizes) of `value` (unit strides); the inverse of `insert`."""
    block_type = ir.RankedTensorType.get(list(sizes), _type(value).element_type)
    return tensor.extract_slice(block_type, value, [], [], [], list(offsets), list(sizes), [1] * len(sizes))


def insert(source: ir.Value, dest: ir.Value, offsets: Sequence[int]) -> ir.Value:
    sizes = list(_type(source).shape)
    return tensor.insert_slice(source, dest, [], [], [], list(offsets), sizes, [1] * len(sizes))


def copy_into(source: ir.Value, dest: ir.Value, offsets: list[int]) -> ir.Value:
    """`source` inserted into `dest` at `offsets` through a `linalg.copy` into the slice.

    (A bare `tensor.insert_slice` of a strided slice bufferizes to a `memref.copy`;
    a linalg.copy becomes loops LLVM vectorizes.)
    """
    copied = linalg.copy(source, outs=[extract(dest, offsets, list(_type(source).shape))])
    return insert(copied, dest, offsets)


@converts("concat")
def _concat(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Both operands copied (`linalg.copy`) into their slices of an empty result; an empty operand adds
    nothing (and its offset, the dimension's end, is one insert_slice refuses).

    (A bare insert_slice of a strided operand, such as a convolution's
    cropped output, bufferizes to a `memref.copy` that MLIR's C runner utils
    do element by element: ~10 % of SqueezeNet's time went there; a
    linalg.copy becomes loops LLVM vectorizes.)
    """
    lhs, rhs = operands
    axis = op.attr("axis")
    offsets = [0] * _type(lhs).rank
    joined = empty(result_type(op))
    for part in (lhs, rhs):
        shape = list(_type(part).shape)
        if 0 not in shape:
            joined = copy_into(part, joined, offsets)
        offsets[axis] += shape[axis]
    return [joined]


@converts("slice")
def _slice(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Forward slices are `tensor.extract_slice`; a backward step reads `start + step * i` in a generic.
    An empty slice is an empty tensor (its start may be the dimension's end, which extract_slice refuses)."""
    (value,) = operands
    starts, steps = op.attr("starts"), op.attr("steps")
    result = result_type(op)
    if 0 in result.shape:
        return [empty(result)]
    if all(step > 0 for step in steps):
        return [tensor.extract_slice(result, value, [], [], [], list(starts), list(result.shape), list(steps))]
    rank = result.rank
    source = [ir.AffineConstantExpr.get(start) + ir.AffineDimExpr.get(d) * step
              for d, (start, step) in enumerate(zip(starts, steps))]
    (sliced,) = generic([value], [empty(result)], [affine_map(rank, source), identity_map(rank)],
                        [PARALLEL] * rank, lambda element, _: element)
    return [sliced]


@converts("tile")
def _tile(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Broadcast x[n0, n1, ...] to [r0, n0, r1, n1, ...], then collapse each (ri, ni) pair."""
    (value,) = operands
    repeats = op.attr("repeats")
    shape = _type(value).shape
    rank = len(shape)
    if all(r == 1 for r in repeats):
        return operands
    interleaved = [size for pair in zip(repeats, shape) for size in pair]
    spread = ir.RankedTensorType.get(interleaved, _type(value).element_type)
    broadcast = linalg.broadcast(value, outs=[empty(spread)], dimensions=list(range(0, 2 * rank, 2))).results[0]
    return [collapse(broadcast, result_type(op).shape, [[2 * d, 2 * d + 1] for d in range(rank)])]


@converts("pad")
def _pad(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    (value,) = operands
    pads, mode = op.attr("pads"), op.attr("mode")
    rank = _type(value).rank
    low, high = pads[:rank], pads[rank:]
    if mode == "constant":
        fill = operand_scalars(op).stored(op.attr("value"))
        return [pad(value, low, high, fill)]
    return [_gather_pad(value, result_type(op), low, mode)]


def _loop_index(dim: int) -> ir.Value:
    """The enclosing generic's iteration index along `dim` (`linalg.index` is shadowed by the op DSL)."""
    return linalg.IndexOp(dim).result


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _reflect(position: ir.Value, size: int) -> ir.Value:
    """NumPy's 'reflect' index for any position: mirror about both ends, period 2 (size - 1)."""
    if size == 1:
        return _index(0)
    period = 2 * (size - 1)
    folded = arith.remsi(arith.maxsi(position, arith.subi(_index(0), position)), _index(period))
    return arith.minsi(folded, arith.subi(_index(period), folded))


def _gather_pad(value: ir.Value, result: ir.RankedTensorType, low: Sequence[int], mode: str) -> ir.Value:
    """Reflect and edge pads: each output element reads the source at a mirrored or clamped index."""
    size_of = _type(value).shape

    def source_index(d: int) -> ir.Value:
        if size_of[d] == result.shape[d]:  # this dim is not padded
            return _loop_index(d)
        position = arith.subi(_loop_index(d), _index(low[d]))
        if mode == "edge":
            return arith.minsi(arith.maxsi(position, _index(0)), _index(size_of[d] - 1))
        return _reflect(position, size_of[d])

    def body(_):
        return tensor.extract(value, [source_index(d) for d in range(result.rank)])

    (padded,) = generic([], [empty(result)], [identity_map(result.rank)], [PARALLEL] * result.rank, body)
    return padded


@converts("gather")
def _gather(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """out[outer, j..., inner] = data[outer, indices[j...], inner]; negative indices count from the end.

    Out-of-range indices are clamped into the axis (compiled code does not
    raise; the reference interpreter reports them).
    """
    data, indices = operands
    axis = op.attr("axis")
    result = result_type(op)
    data_shape, index_rank = _type(data).shape, _type(indices).rank
    size = data_shape[axis]
    index_dims = dims(*range(axis, axis + index_rank))

    def body(index, _):
        position = arith.index_cast(ir.IndexType.get(), index)
        wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, position, _index(0)),
                               arith.addi(position, _index(size)), position)
        clamped = arith.minsi(arith.maxsi(wrapped, _index(0)), _index(size - 1))
        outer = [_loop_index(d) for d in range(axis)]
        inner = [_loop_index(axis + index_rank + d) for d in range(len(data_shape) - axis - 1)]
        return tensor.extract(data, [*outer, clamped, *inner])

    (gathered,) = generic([indices], [empty(result)], [affine_map(result.rank, index_dims), identity_map(result.rank)],
                          [PARALLEL] * result.rank, body)
    return [gathered]


@converts("gather_elements")
def _gather_elements(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """out[i...] = data[i... with i[axis] = indices[i...]], negative indices wrapped and out-of-range ones
    clamped (as gather's)."""
    data, indices = operands
    axis = op.attr("axis")
    result = result_type(op)
    size = _type(data).shape[axis]

    def body(index, _):
        position = arith.index_cast(ir.IndexType.get(), index)
        wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, position, _index(0)),
                               arith.addi(position, _index(size)), position)
        clamped = arith.minsi(arith.maxsi(wrapped, _index(0)), _index(size - 1))
        return tensor.extract(data, [clamped if d == axis else _loop_index(d) for d in range(result.rank)])

    (gathered,) = generic([indices], [empty(result)], [identity_map(result.rank), identity_map(result.rank)],
                          [PARALLEL] * result.rank, body)
    return [gathered]
