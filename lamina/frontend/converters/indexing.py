"""Index operators: ArgMax, ArgMin, OneHot, ScatterElements (and Scatter), ScatterND, TopK, GatherND, GridSample."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from lamina.dialects.graph import GRAPH

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter, register
from .axes import normalized_axis


def _arg(graph_op: str):
    def convert(n: NodeEmitter):
        data = n.input(0)
        return n.emit(graph_op, data, axis=normalized_axis(n.attr("axis", 0), n.spec(data).rank),
                      keepdims=bool(n.attr("keepdims", 1)), select_last_index=bool(n.attr("select_last_index", 0)))

    return convert


for _onnx_op, _graph_op in (("ArgMax", "arg_max"), ("ArgMin", "arg_min")):
    register(_onnx_op, _arg(_graph_op), graph_ops=(_graph_op,),
             notes="`axis`, negative included; `keepdims`, `select_last_index`; i64 indices.")


@converter("OneHot", graph_ops=("less", "add", "where", "equal", "constant", "splat", "slice", "reshape",
                                "broadcast"), static_inputs={1: "depth"},
           notes="`axis`; a constant `depth`: `where(indices == iota, on, off)` with the indices made non-negative "
                 "(out-of-range and fractional ones match nothing), so every level runs it.")
def convert_one_hot(n: NodeEmitter):
    indices, values = n.input(0), n.input(2)  # compared in their own type: index 1.5 matches nothing
    depth = int(n.static(1).reshape(-1)[0])
    shape = n.spec(indices).shape
    axis = normalized_axis(n.attr("axis", -1), len(shape) + 1)
    out_shape = (*shape[:axis], depth, *shape[axis:])
    negative = n.emit("less", indices, n.splat(n.spec(indices), 0))
    indices = n.emit("where", negative, n.emit("add", indices, n.splat(n.spec(indices), depth)), indices)
    positions = n.reshape(n.constant(np.arange(depth, dtype=n.spec(indices).dtype)), [depth if d == axis else 1
                                                                         for d in range(len(out_shape))])
    mask = n.emit("equal", n.broadcast(n.reshape(indices, (*shape[:axis], 1, *shape[axis:])), out_shape),
                  n.broadcast(positions, out_shape))
    off, on = (n.broadcast(n.reshape(n.emit("slice", values, starts=[k], ends=[k + 1], steps=[1]),
                                     [1] * len(out_shape)), out_shape) for k in (0, 1))
    return n.emit("where", mask, on, off)


def _scatter_reduction(n: NodeEmitter) -> str:
    return n.attr("reduction", "none")


@converter("ScatterElements", "Scatter", graph_ops=("scatter_elements",),
           notes="`axis`, negative included; `reduction` none, add, mul, max or min. Scatter (opset 9-10) is the same.")
def convert_scatter_elements(n: NodeEmitter):
    data = n.input(0)
    return n.emit("scatter_elements", data, n.input(1), n.input(2),
                  axis=normalized_axis(n.attr("axis", 0), n.spec(data).rank), reduction=_scatter_reduction(n))


@converter("ScatterND", graph_ops=("scatter_nd",), notes="`reduction` none, add, mul, max or min.")
def convert_scatter_nd(n: NodeEmitter):
    return n.emit("scatter_nd", n.input(0), n.input(1), n.input(2), reduction=_scatter_reduction(n))


@converter("TopK", graph_ops=("top_k",), static_inputs={1: "K"},
           notes="`axis`, `largest`; `k` as an attribute (opset 1) or a constant input. Results are always sorted "
                 "(ONNX leaves the order open when `sorted` = 0); equal values keep index order.")
def convert_top_k(n: NodeEmitter):
    data = n.input(0)
    k = n.attr("k") if n.opset < 10 else int(n.static(1).reshape(-1)[0])
    op = GRAPH.create("top_k", data, axis=normalized_axis(n.attr("axis", -1), n.spec(data).rank), k=k,
                      largest=bool(n.attr("largest", 1)))
    return list(op.results)


@converter("GatherND", graph_ops=("gather_nd",), notes="`batch_dims`; i64 indices, negative included.")
def convert_gather_nd(n: NodeEmitter):
    return n.emit("gather_nd", n.input(0), n.input(1), batch_dims=n.attr("batch_dims", 0))


# GridSample-16's names of the modes GridSample-20 calls linear and cubic.
GRID_SAMPLE_MODES = {"bilinear": "linear", "bicubic": "cubic", "nearest": "nearest"}
GRID_SAMPLE_MODES_20 = GRAPH.ops["grid_sample"].enums["mode"]
GRID_SAMPLE_PADDINGS = GRAPH.ops["grid_sample"].enums["padding_mode"]


def _grid_sample_mode(view: NodeView) -> str | None:
    """The graph op's mode for the node's `mode`, None if the node's opset has no such mode."""
    mode = view.attr("mode", "linear" if view.opset >= 20 else "bilinear")
    return (mode if mode in GRID_SAMPLE_MODES_20 else None) if view.opset >= 20 else GRID_SAMPLE_MODES.get(mode)


def _check_grid_sample(view: NodeView) -> Iterable[str]:
    if _grid_sample_mode(view) is None:
        names = GRID_SAMPLE_MODES_20 if view.opset >= 20 else tuple(GRID_SAMPLE_MODES)
        yield f"mode '{view.attr('mode')}' is not supported (only {', '.join(names)} at opset {view.opset})"
    padding_mode = view.attr("padding_mode", "zeros")
    if padding_mode not in GRID_SAMPLE_PADDINGS:
        yield f"padding_mode '{padding_mode}' is not supported (only {', '.join(GRID_SAMPLE_PADDINGS)})"


@converter("GridSample", graph_ops=("grid_sample",), check=_check_grid_sample,
           notes="Every mode (linear/bilinear, nearest, cubic/bicubic), padding mode and `align_corners`, any "
                 "number of spatial axes.")
def convert_grid_sample(n: NodeEmitter):
    return n.emit("grid_sample", n.input(0), n.input(1), mode=_grid_sample_mode(n),
                  padding_mode=n.attr("padding_mode", "zeros"), align_corners=bool(n.attr("align_corners", 0)))
