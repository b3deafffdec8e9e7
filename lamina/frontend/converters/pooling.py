"""Pooling: MaxPool, AveragePool, global pools."""

from __future__ import annotations

from typing import Iterable

from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter, register
from .windows import check_auto_pad, window_attrs, window_pads


def _pool_attrs(n: NodeEmitter, data: TensorSpec) -> dict:
    kernel = n.attr("kernel_shape")
    strides, dilations = window_attrs(n, data.rank)
    return {"kernel": kernel, "strides": strides, "dilations": dilations,
            "pads": window_pads(n, data.shape[2:], kernel, strides, dilations),
            "ceil_mode": bool(n.attr("ceil_mode", 0))}


def _check_max_pool(view: NodeView) -> Iterable[str]:
    yield from check_auto_pad(view)
    if view.output_used(1):
        yield "the Indices output is not supported"


@converter("MaxPool", graph_ops=("max_pool",), check=_check_max_pool,
           notes="`kernel_shape`, `strides`, `pads`, `auto_pad`, `dilations`, `ceil_mode`; "
                 "the Indices output is unsupported.")
def convert_max_pool(n: NodeEmitter):
    data = n.input(0)
    return [n.emit("max_pool", data, **_pool_attrs(n, n.spec(data))), None]


def _check_average_pool(view: NodeView) -> Iterable[str]:
    yield from check_auto_pad(view)
    if any(d != 1 for d in view.attr("dilations", [])):
        yield "dilations other than 1 are not supported"


@converter("AveragePool", graph_ops=("avg_pool",), check=_check_average_pool,
           notes="`kernel_shape`, `strides`, `pads`, `auto_pad`, `ceil_mode`, `count_include_pad`; "
                 "dilations other than 1 are unsupported.")
def convert_average_pool(n: NodeEmitter):
    data = n.input(0)
    attrs = _pool_attrs(n, n.spec(data))
    del attrs["dilations"]
    return n.emit("avg_pool", data, count_include_pad=bool(n.attr("count_include_pad", 0)), **attrs)


for _onnx_op, _graph_op in (("GlobalAveragePool", "global_avg_pool"), ("GlobalMaxPool", "global_max_pool")):
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, n.input(0)), graph_ops=(_graph_op,))
