"""HIR emission of the activations: relu, clip and leaky_relu, in the accumulators, over their input's temp
when nothing else reads it."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.values import op_name

from .emit import HirEmitter, Temps
from .rules import ACTIVATION, rule


@rule("relu", "clip", "leaky_relu", form=ACTIVATION)
def emit_activation(emitter: HirEmitter, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
    kind, loc, attrs = op_name(op), op.location, GRAPH.view(op).attrs()
    source = emitter.loaded(op.operands[0], temps, loc)
    output = emitter.result_temp(op, [op.operands[0]], temps, escaping)
    emitter.op(kind, output, source, loc=loc, **attrs)
