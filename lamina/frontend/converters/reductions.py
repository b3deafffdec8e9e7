"""Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd; and CumSum."""

from __future__ import annotations

import numpy as np

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter, register
from .axes import normalized_axes, normalized_axis

REDUCTIONS = {"ReduceSum": "reduce_sum", "ReduceMean": "reduce_mean", "ReduceMax": "reduce_max",
              "ReduceMin": "reduce_min", "ReduceProd": "reduce_prod"}


def _reduction(graph_op: str):
    def convert(n: NodeEmitter):
        data = n.input(0)
        rank = n.spec(data).rank
        axes = n.attr_or_input("axes", 1)
        if not axes:
            if n.attr("noop_with_empty_axes", 0):
                return n.emit("identity", data)
            axes = range(rank)
        return n.emit(graph_op, data, axes=normalized_axes(axes, rank), keepdims=bool(n.attr("keepdims", 1)))

    return convert


def _check_extremum(n: NodeView):
    """A maximum or minimum over an empty axis is +-inf in ONNX; the graph's reductions have no identity."""
    spec = n.input_spec(0)
    if spec is not None and spec.num_elements == 0:
        yield "a maximum or minimum over an empty tensor is not supported"


for _onnx_op, _graph_op in REDUCTIONS.items():
    register(_onnx_op, _reduction(_graph_op), graph_ops=(_graph_op, "identity"), static_inputs={1: "axes"},
             check=_check_extremum if _onnx_op in ("ReduceMax", "ReduceMin") else None,
             notes="`axes` as an attribute or a constant input (by opset), `keepdims`, `noop_with_empty_axes` "
                   "(an identity).")


@converter("CumSum", graph_ops=("matmul", "constant", "transpose"), static_inputs={1: "axis"},
           notes="`exclusive`, `reverse`: a matmul with a constant triangular matrix of ones along the axis "
                 "(moved last by transposes), so it maps onto a matmul unit.")
def convert_cumsum(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    axis = normalized_axis(n.static_ints(1)[0], spec.rank)
    size = spec.shape[axis]
    rows, columns = np.indices((size, size))
    after = rows < columns if n.attr("exclusive", 0) else rows <= columns
    before = rows > columns if n.attr("exclusive", 0) else rows >= columns
    triangle = (before if n.attr("reverse", 0) else after).astype(spec.dtype)
    order = [d for d in range(spec.rank) if d != axis] + [axis]
    moved = n.transpose(data, order) if axis != spec.rank - 1 else data
    summed = n.emit("matmul", moved if spec.rank > 1 else n.reshape(moved, (1, size)), n.constant(triangle))
    summed = summed if spec.rank > 1 else n.reshape(summed, (size,))
    return n.transpose(summed, list(np.argsort(order))) if axis != spec.rank - 1 else summed
