"""Index-producing operators: ArgMax, ArgMin."""

from __future__ import annotations

from ..emitter import NodeEmitter
from ..registry import register
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
