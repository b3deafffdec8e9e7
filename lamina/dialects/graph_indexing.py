"""The graph dialect's index ops: `graph.arg_max` and `graph.arg_min` (ONNX
ArgMax, ArgMin; i64 positions along one axis), `graph.scatter_elements` and
`graph.scatter_nd` (ONNX ScatterElements, ScatterND: the input with updates
written at given indices, in order, so a repeated index keeps the last write
or combines every one by `reduction`), `graph.top_k` (ONNX TopK),
`graph.gather_nd` (ONNX GatherND) and `graph.grid_sample` (ONNX GridSample:
the input read at positions a grid gives, interpolated).
"""

from __future__ import annotations

import numpy as np

from .graph import FLOAT_DTYPES, GRAPH, INDEX_DTYPES, _axis, _require
from .irdl import BOOL, I64, STR


def _arg_reduce(ins, attrs, declared):
    (data,) = ins
    _require(data.dtype != np.bool_, f"expects a numeric operand, got {data}")
    axis = _axis(attrs["axis"], data.rank)
    shape = tuple(1 if i == axis else d for i, d in enumerate(data.shape)) if attrs["keepdims"] else \
        tuple(d for i, d in enumerate(data.shape) if i != axis)
    return [data.with_shape(shape).with_dtype(np.int64)]


for _name, _which in (("arg_max", "largest"), ("arg_min", "smallest")):
    GRAPH.op(_name, f"Index of the {_which} element along `axis` (the first, or the last when "
             "`select_last_index`; a NaN wins).", operands=("input",),
             attrs={"axis": I64, "keepdims": BOOL, "select_last_index": BOOL}, shape_fn=_arg_reduce)


SCATTER_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _scatter_elements(ins, attrs, declared):
    data, indices, updates = ins
    _axis(attrs["axis"], data.rank)
    _require(indices.dtype in INDEX_DTYPES, f"indices must be i32 or i64, got {indices}")
    _require(indices.shape == updates.shape and updates.dtype == data.dtype and indices.rank == data.rank,
             f"updates {updates} must have the indices' shape {indices.shape} and the input's element type and rank")
    _require(all(i <= d or k == attrs["axis"] for k, (i, d) in enumerate(zip(indices.shape, data.shape))),
             f"indices {indices} exceed the input {data} outside the axis")
    return [data]


def _scatter_nd(ins, attrs, declared):
    data, indices, updates = ins
    _require(indices.dtype == np.int64 and indices.rank >= 1, f"indices must be i64 of rank >= 1, got {indices}")
    depth = indices.shape[-1]
    _require(depth <= data.rank, f"index tuples of {depth} exceed the input's rank {data.rank}")
    expected = (*indices.shape[:-1], *data.shape[depth:])
    _require(updates.shape == expected and updates.dtype == data.dtype,
             f"updates must be {data.with_shape(expected)}, got {updates}")
    return [data]


GRAPH.op("scatter_elements", "The input with updates[i...] written (or combined by `reduction`) at i... with "
         "i[axis] = indices[i...] (ONNX ScatterElements; negative indices count from the end).",
         operands=("input", "indices", "updates"), attrs={"axis": I64, "reduction": STR}, shape_fn=_scatter_elements,
         enums={"reduction": SCATTER_REDUCTIONS})
GRAPH.op("scatter_nd", "The input with each slice updates[j...] written (or combined by `reduction`) at the index "
         "tuple indices[j...] (ONNX ScatterND).", operands=("input", "indices", "updates"), attrs={"reduction": STR},
         shape_fn=_scatter_nd, enums={"reduction": SCATTER_REDUCTIONS})


def _top_k(ins, attrs, declared):
    (data,) = ins
    _require(data.dtype != np.bool_, f"expects a numeric operand, got {data}")
    axis = _axis(attrs["axis"], data.rank)
    k = attrs["k"]
    _require(0 <= k <= data.shape[axis], f"k {k} out of range for axis {axis} of size {data.shape[axis]}")
    shape = tuple(k if d == axis else size for d, size in enumerate(data.shape))
    return [data.with_shape(shape), data.with_shape(shape).with_dtype(np.int64)]


GRAPH.op("top_k", "The `k` largest (or smallest) elements along `axis` and their i64 indices, best first; equal "
         "values keep index order.", operands=("input",), results=("values", "indices"),
         attrs={"axis": I64, "k": I64, "largest": BOOL}, shape_fn=_top_k)


def _gather_nd(ins, attrs, declared):
    data, indices = ins
    batch_dims = attrs["batch_dims"]
    _require(indices.dtype == np.int64 and indices.rank >= 1, f"indices must be i64 of rank >= 1, got {indices}")
    _require(0 <= batch_dims < min(data.rank, indices.rank), f"batch_dims {batch_dims} must be below the ranks of "
             f"the input {data} and the indices {indices}")
    _require(indices.shape[:batch_dims] == data.shape[:batch_dims],
             f"the indices' batch dimensions {indices.shape[:batch_dims]} differ from the input's")
    depth = indices.shape[-1]
    _require(1 <= depth <= data.rank - batch_dims, f"index tuples of {depth} do not fit the input's rank {data.rank} "
             f"after {batch_dims} batch dimensions")
    return [data.with_shape((*indices.shape[:-1], *data.shape[batch_dims + depth:]))]


GRAPH.op("gather_nd", "out[b..., j...] = input[b..., indices[b..., j..., :]] over the `batch_dims` leading axes b "
         "(ONNX GatherND; negative indices count from the end).", operands=("input", "indices"),
         attrs={"batch_dims": I64}, shape_fn=_gather_nd)


def _grid_sample(ins, attrs, declared):
    data, grid = ins
    spatial = data.rank - 2
    _require(spatial >= 1, f"the input {data} needs batch, channel and spatial axes")
    _require(grid.dtype in FLOAT_DTYPES and grid.shape == (data.shape[0], *grid.shape[1:-1], spatial),
             f"the grid {grid} must be real, of shape (N, *output, {spatial}) with N = {data.shape[0]}")
    return [data.with_shape((*data.shape[:2], *grid.shape[1:-1]))]


GRAPH.op("grid_sample", "out[n, c, o...] = input[n, c] interpolated (`mode`) at the position grid[n, o...] gives in "
         "[-1, 1] coordinates, innermost axis first; outside the input, `padding_mode` (ONNX GridSample).",
         operands=("input", "grid"), attrs={"mode": STR, "padding_mode": STR, "align_corners": BOOL},
         shape_fn=_grid_sample, enums={"mode": ("linear", "nearest", "cubic"),
                                       "padding_mode": ("zeros", "border", "reflection")})
