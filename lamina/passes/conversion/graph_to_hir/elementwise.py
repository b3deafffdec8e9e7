"""HIR emission of element-wise arithmetic: add, sub, mul, max, min.

With a per-channel constant operand: `hir.channel`; an add of a temp and a
value already in DRAM0: `hir.add` reading the Vars; two values no layer holds yet: `hir.binary` loading
the lhs and reading the rhs from its Vars; otherwise `hir.binary` of two temps.
"""

from __future__ import annotations

from mlir import ir

from lamina.dialects.values import is_constant_view, op_name

from .emit import HirEmitter, Temps
from .rules import ELEMENTWISE, rule


@rule("add", "sub", "mul", "max", "min", form=ELEMENTWISE)
def emit_elementwise(emitter: HirEmitter, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
    kind, loc = op_name(op), op.location
    lhs, rhs = op.operands
    if is_constant_view(lhs) or is_constant_view(rhs):
        swap = is_constant_view(lhs)
        data, value = (lhs, rhs) if swap else (rhs, lhs)
        source = emitter.loaded(value, temps, loc)
        constant = emitter.channel_consts(data, None if kind == "mul" else emitter.formats.of(op.result), loc)
        output = emitter.result_temp(op, [value], temps, escaping)
        emitter.op("channel", output, source, constant, loc=loc, op=kind, swap=swap)
    elif kind == "add" and (lhs in temps) != (rhs in temps):
        inside, outside = (lhs, rhs) if lhs in temps else (rhs, lhs)
        output = emitter.result_temp(op, [inside], temps, escaping)
        emitter.op("add", output, temps[inside], emitter.vars_of(outside), loc=loc)
    elif lhs not in temps and rhs not in temps:  # the layer starts here: one load, the rhs read from its Vars
        left = emitter.loaded(lhs, temps, loc)  # only an add may write over it (see accumulator_ops)
        output = emitter.result_temp(op, [lhs] if kind == "add" else [], temps, escaping)
        emitter.op("binary", output, left, emitter.vars_of(rhs), loc=loc, op=kind)
    else:
        left, right = emitter.loaded(lhs, temps, loc), emitter.loaded(rhs, temps, loc)
        output = emitter.result_temp(op, [lhs, rhs], temps, escaping)
        emitter.op("binary", output, left, right, loc=loc, op=kind)
