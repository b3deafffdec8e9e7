"""Boolean logic and float classification, built from comparisons and min/max on i1.

On i1 tensors min is logical and, max logical or, and `x == false` is
logical not; IsNaN is `(x == x) == false` and IsInf compares |x| (or x) with
infinity. No new graph op is needed, so every level runs them.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from ..emitter import NodeEmitter
from ..registry import converter, register
from .elementwise import BROADCAST_NOTE


def logical_not(n: NodeEmitter, value: ir.Value) -> ir.Value:
    return n.emit("equal", value, n.splat(n.spec(value), False))


for _onnx_op, _graph_op in (("And", "min"), ("Or", "max")):
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, *n.broadcast_together([n.input(0), n.input(1)])),
             graph_ops=(_graph_op, "broadcast"), notes=f"`graph.{_graph_op}` of i1 tensors. {BROADCAST_NOTE}")


@converter("Xor", graph_ops=("equal", "splat", "broadcast"), notes=f"`(a == b) == false`. {BROADCAST_NOTE}")
def convert_xor(n: NodeEmitter):
    return logical_not(n, n.emit("equal", *n.broadcast_together([n.input(0), n.input(1)])))


@converter("Not", graph_ops=("equal", "splat"), notes="`x == false`.")
def convert_not(n: NodeEmitter):
    return logical_not(n, n.input(0))


@converter("IsNaN", graph_ops=("equal", "splat"), notes="`(x == x) == false`.")
def convert_is_nan(n: NodeEmitter):
    data = n.input(0)
    return logical_not(n, n.emit("equal", data, data))


@converter("IsInf", graph_ops=("equal", "abs", "splat", "max"),
           notes="`detect_positive` and `detect_negative`: comparisons with +inf and -inf.")
def convert_is_inf(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    found = [n.emit("equal", data, n.splat(spec, sign * np.inf))
             for sign, attribute in ((1, "detect_positive"), (-1, "detect_negative")) if n.attr(attribute, 1)]
    if not found:
        return n.splat(spec.with_dtype(np.bool_), False)
    return n.chain("max", found) if len(found) > 1 else found[0]
