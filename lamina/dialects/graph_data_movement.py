"""The graph dialect's data-movement ops (reshape, broadcast, convert, transpose,
concat, slice, pad, tile, gather), its reductions and nearest resize.

Most take their result type as declared (a reshape's or broadcast's shape is
the result type) and check that the operand can become it; the others
compute it from their index attributes, which the importer normalizes
(non-negative axes, clamped slice bounds).
"""

from __future__ import annotations

import math

from .graph import GRAPH, INDEX_DTYPES, _axis, _broadcast_shapes, _declared, _require
from .irdl import BOOL, ELEMENTWISE, F32, F32S, I64, I64S, REARRANGING, STR, VIEW


def _reshape(ins, attrs, declared):
    (result,) = _declared(declared)
    _require(result.num_elements == ins[0].num_elements and result.dtype == ins[0].dtype,
             f"cannot reshape {ins[0]} into {result}")
    return [result]


def _broadcast(ins, attrs, declared):
    (result,) = _declared(declared)
    _require(result.dtype == ins[0].dtype and _broadcast_shapes(ins[0].shape, result.shape) == result.shape,
             f"cannot broadcast {ins[0]} to {result}")
    return [result]


def _convert(ins, attrs, declared):
    (result,) = _declared(declared)
    _require(result.shape == ins[0].shape, f"convert keeps the shape: {ins[0]} vs {result}")
    return [result]


def _transpose(ins, attrs, declared):
    (data,) = ins
    perm = attrs["perm"]
    _require(sorted(perm) == list(range(data.rank)), f"perm {list(perm)} is not a permutation of rank {data.rank}")
    return [data.with_shape(tuple(data.shape[p] for p in perm))]


def _concat(ins, attrs, declared):
    _require(len(ins) >= 1, "concat needs at least one input")
    first = ins[0]
    axis = _axis(attrs["axis"], first.rank)
    for other in ins[1:]:
        same = other.rank == first.rank and all(
            other.shape[i] == first.shape[i] for i in range(first.rank) if i != axis)
        _require(same and other.dtype == first.dtype, f"inputs {first} and {other} differ outside axis {axis}")
    return [first.with_shape((*first.shape[:axis], sum(s.shape[axis] for s in ins), *first.shape[axis + 1:]))]


def _slice(ins, attrs, declared):
    (data,) = ins
    starts, ends, steps = attrs["starts"], attrs["ends"], attrs["steps"]
    _require(len(starts) == len(ends) == len(steps) == data.rank,
             f"starts, ends and steps need one value per dimension ({data.rank})")
    shape = []
    for dim, (start, end, step) in enumerate(zip(starts, ends, steps)):
        size = data.shape[dim]
        _require(step != 0, "steps must be non-zero")
        # A backward slice starts at an element (ONNX clamps its start to size - 1).
        last_start = size - 1 if step < 0 and size > 0 else size
        _require(0 <= start <= last_start and -1 <= end <= size,
                 f"dimension {dim}: start {start} and end {end} must be normalized into [0, {last_start}] and "
                 f"[-1, {size}] (end -1: through index 0)")
        shape.append(len(range(start, end, step)) if end >= 0 else len(range(start, -1, step)))
    return [data.with_shape(tuple(shape))]


def _pad(ins, attrs, declared):
    (data,) = ins
    pads = attrs["pads"]
    _require(len(pads) == 2 * data.rank, f"pads needs {2 * data.rank} values, got {len(pads)}")
    _require(all(p >= 0 for p in pads), "pads must be >= 0")
    return [data.with_shape(tuple(d + pads[i] + pads[data.rank + i] for i, d in enumerate(data.shape)))]


def _tile(ins, attrs, declared):
    (data,) = ins
    repeats = attrs["repeats"]
    _require(len(repeats) == data.rank and all(r >= 1 for r in repeats), f"repeats {list(repeats)} invalid for {data}")
    return [data.with_shape(tuple(d * r for d, r in zip(data.shape, repeats)))]


def _gather(ins, attrs, declared):
    data, indices = ins
    axis = _axis(attrs["axis"], data.rank)
    _require(indices.dtype in INDEX_DTYPES, f"indices must be i32 or i64, got {indices}")
    return [data.with_shape((*data.shape[:axis], *indices.shape, *data.shape[axis + 1:]))]


def _gather_elements(ins, attrs, declared):
    data, indices = ins
    _axis(attrs["axis"], data.rank)
    _require(indices.dtype in INDEX_DTYPES, f"indices must be i32 or i64, got {indices}")
    _require(indices.rank == data.rank, f"indices {indices} must have the rank of {data}")
    return [data.with_shape(indices.shape)]


def _reduce(ins, attrs, declared):
    (data,) = ins
    axes = attrs["axes"]
    _require(list(axes) == sorted(set(axes)), f"axes {list(axes)} must be sorted and unique")
    for a in axes:
        _axis(a, data.rank)
    if attrs["keepdims"]:
        shape = tuple(1 if i in axes else d for i, d in enumerate(data.shape))
    else:
        shape = tuple(d for i, d in enumerate(data.shape) if i not in axes)
    return [data.with_shape(shape)]


def _resize_nearest(ins, attrs, declared):
    (data,) = ins
    scales = attrs["scales"]
    _require(len(scales) == data.rank and all(s > 0 for s in scales), f"scales {list(scales)} invalid for {data}")
    return [data.with_shape(tuple(int(math.floor(d * s)) for d, s in zip(data.shape, scales)))]


# Data movement.
GRAPH.op("reshape", "Same elements, new static shape (the result type).", operands=("input",), shape_fn=_reshape,
         traits={REARRANGING, VIEW}, quantized="same_scale")
GRAPH.op("broadcast", "NumPy broadcast to the result type's shape.", operands=("input",), shape_fn=_broadcast,
         traits={REARRANGING})
GRAPH.op("convert", "Element type conversion (C-style casts; float to int truncates).", operands=("input",),
         shape_fn=_convert, traits={ELEMENTWISE})
GRAPH.op("transpose", "Permutes dimensions: result dim i is input dim perm[i].", operands=("input",),
         attrs={"perm": I64S}, shape_fn=_transpose, traits={REARRANGING}, quantized="same_scale")
# Binary, not variadic: IRDL verifies every operand of a variadic group against one
# constraint variable, which ties their types together (N inputs become a chain).
GRAPH.op("concat", "Joins `lhs` and `rhs` along `axis`.", operands=("lhs", "rhs"), attrs={"axis": I64},
         shape_fn=_concat, quantized="requantize")
GRAPH.op("slice", "Strided slice, one normalized (start, end, step) per dimension; end -1 means 'through index 0'.",
         operands=("input",), attrs={"starts": I64S, "ends": I64S, "steps": I64S}, shape_fn=_slice,
         traits={REARRANGING}, quantized="same_scale")
GRAPH.op("pad", "Pads each dimension with begins then ends; mode constant, reflect or edge.", operands=("input",),
         attrs={"pads": I64S, "mode": STR, "value": F32}, shape_fn=_pad,
         enums={"mode": ("constant", "reflect", "edge")})
GRAPH.op("tile", "Repeats the input `repeats[i]` times along dimension i.", operands=("input",),
         attrs={"repeats": I64S}, shape_fn=_tile, traits={REARRANGING})
GRAPH.op("gather", "Takes slices of `input` along `axis` at `indices` (negative indices count from the end).",
         operands=("input", "indices"), attrs={"axis": I64}, shape_fn=_gather)
GRAPH.op("gather_elements", "out[i...] = input[i... with i[axis] = indices[i...]] (ONNX GatherElements; negative "
         "indices count from the end).", operands=("input", "indices"), attrs={"axis": I64}, shape_fn=_gather_elements)
for _name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"):
    GRAPH.op(_name, f"{_name.split('_')[1].capitalize()} over sorted `axes`.", operands=("input",),
             attrs={"axes": I64S, "keepdims": BOOL}, shape_fn=_reduce)
GRAPH.op("resize_nearest", "Nearest-neighbour resize by `scales` (ONNX Resize, mode nearest).", operands=("input",),
         attrs={"scales": F32S, "coordinate_transformation_mode": STR, "nearest_mode": STR}, shape_fn=_resize_nearest,
         enums={"coordinate_transformation_mode": ("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"),
                "nearest_mode": ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")})
