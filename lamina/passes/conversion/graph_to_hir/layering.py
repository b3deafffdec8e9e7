"""The HIR program's steps: layers and host segments, in program order.

A layer starts with a matmul-like op (convolution, fully-connected, matmul),
a pool, or an element-wise op (it loads the lhs; a binary op reads its rhs
from the Vars, so two values no layer holds start one), and absorbs the
accumulator ops that follow on its values: an add whose other operand is a
Vars object or a value of the layer, element-wise ops with per-channel
constants (DenseNet's unfolded batch norms), other element-wise ops on two
values of the layer, and activations. A pool is a layer of its own (load ->
pool -> save). Host ops in a row form one host segment; a concat adds the
copy layers its placement needs; placements (concats, reshapes) close the
open layer when they read one of its values, so every Vars a layer reads is
complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from lamina.dialects.values import is_constant_view, op_name

from .memory_manager import ConcatCopy, ConcatPlan
from .partition import computes
from .rules import ACTIVATION, ELEMENTWISE, PLACEMENT, POOL, form_of


@dataclass
class Layer:
    """Graph ops computed together in the accumulators, in program order."""

    ops: list[ir.Operation] = field(default_factory=list)
    values: set[ir.Value] = field(default_factory=set)

    def add(self, op: ir.Operation) -> None:
        self.ops.append(op)
        self.values.update(op.results)

    def absorbs(self, op: ir.Operation) -> bool:
        kind, form = op_name(op), form_of(op_name(op))
        inside = [value in self.values for value in op.operands]
        if form == ACTIVATION:
            return inside[0]
        if form == ELEMENTWISE:
            if any(is_constant_view(value) for value in op.operands) or kind == "add":
                return any(inside)
            return all(inside)
        return False


@dataclass
class HostSegment:
    ops: list[ir.Operation] = field(default_factory=list)


Step = Layer | HostSegment | ConcatCopy


def plan_steps(ops: list[ir.Operation], verdicts: dict[ir.Operation, str | None], concats: ConcatPlan) -> list[Step]:
    steps: list[Step] = []
    current: Layer | None = None
    for op in ops:
        if not computes(op):
            continue
        kind, form = op_name(op), form_of(op_name(op))
        if verdicts[op] is not None:
            current = None
            if not (steps and isinstance(steps[-1], HostSegment)):
                steps.append(HostSegment())
            steps[-1].ops.append(op)
        elif form == PLACEMENT:
            copies = concats.copies.get(op, []) if kind == "concat" else []
            read = [*op.operands, *(copy.input for copy in copies)]  # a concat chain copies its leaves
            if current is not None and any(value in current.values for value in read):
                current = None
            steps.extend(copies)
            if copies:
                current = None
        elif current is not None and current.absorbs(op):
            current.add(op)
        else:
            current = Layer()
            current.add(op)
            steps.append(current)
            if form == POOL:
                current = None
    return steps
