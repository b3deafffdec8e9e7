"""Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd."""

from __future__ import annotations

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import register
from .axes import normalized_axes

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
