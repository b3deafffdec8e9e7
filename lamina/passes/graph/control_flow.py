"""graph-fold-if and graph-unroll-loops: control flow known at compile time becomes straight-line code."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import block_ops, loop_counts, region_block, yielded
from lamina.dialects.types import spec_of
from lamina.dialects.values import remap_operands
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from .rewriting import (constant_view, create_constant, erase_unused_producers, has_uses, op_name, replace_op)


def _innermost_first(root: ir.Operation, name: str) -> list[ir.Operation]:
    """The `graph.<name>` ops under `root`, nested ones before those holding them: rewriting
    one then never erases an op still to be visited."""
    found = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        if op_name(op) == name:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(collect, ir.WalkOrder.POST_ORDER)
    return found


@register_pass
@dataclass(frozen=True)
class GraphFoldIf(Pass):
    """Replace each `graph.if` whose condition is a constant by the branch it takes.

    The taken branch's ops move in front of the If (they see the same values
    there: everything a region uses dominates its op) and the If's results
    become the values the branch yields. Always legal. Ifs whose condition
    is computed at run time stay.
    """

    name = "graph-fold-if"
    summary = "Inline the taken branch of each graph.if with a constant condition"

    def run(self, op: ir.Operation) -> None:
        for candidate in _innermost_first(op, "if"):
            condition = constant_view(candidate.operands[0])
            if condition is None:
                continue
            block = region_block(candidate, 0 if bool(np.asarray(condition).reshape(-1)[0]) else 1)
            for inner in block_ops(block):
                inner.move_before(candidate)
            operands = list(candidate.operands)
            replace_op(candidate, yielded(block))
            erase_unused_producers(operands)


@register_pass
@dataclass(frozen=True)
class GraphUnrollLoops(Pass):
    """Replace each `graph.loop` with a constant trip count of at most `max-trip-count`
    whose condition stays true by that many copies of its body.

    Legal when the loop's condition operand is a constant true and its body
    yields either its own condition argument or a constant true: then it runs
    exactly trip-count times. Each copy reads the iteration number as a
    constant and the previous copy's carried values; scan outputs are the
    copies' slices concatenated. Backends without control flow (the
    accelerator) see straight-line code; the IR grows by the trip count.
    """

    name = "graph-unroll-loops"
    summary = "Unroll graph.loop ops with a small constant trip count that always run to it"

    max_trip_count: int = option(64, "unroll only loops running at most this many iterations")

    def run(self, op: ir.Operation) -> None:
        for candidate in _innermost_first(op, "loop"):
            if self._unrollable(candidate):
                _unroll(candidate)

    def _unrollable(self, loop: ir.Operation) -> bool:
        trips, condition = (constant_view(v) for v in loop.operands[:2])
        if trips is None or condition is None or not bool(np.all(condition)) or int(trips) > self.max_trip_count:
            return False
        body = region_block(loop, 0)
        kept = yielded(body)[0]
        always = constant_view(kept)
        return kept == body.arguments[1] or (always is not None and bool(np.all(always)))


def _unroll(loop: ir.Operation) -> None:
    body = region_block(loop, 0)
    carried_count, _ = loop_counts(loop)
    carried = list(loop.operands[2:])
    slices: list[list[ir.Value]] = []
    operands = list(loop.operands)
    with ir.InsertionPoint(loop), loop.location:
        mapping = {body.arguments[1]: loop.operands[1]}  # a constant true
        for iteration in range(int(constant_view(loop.operands[0]))):
            mapping.update(zip(body.arguments[2:], carried))
            if has_uses(body.arguments[0]):
                mapping[body.arguments[0]] = create_constant(np.array(iteration, np.int64), loop.location)
            for inner in block_ops(body):
                copy = inner.clone(ir.InsertionPoint(loop))
                remap_operands(copy, mapping)
                mapping.update(zip(inner.results, copy.results))
            values = [mapping.get(v, v) for v in yielded(body)[1:]]
            carried = values[:carried_count]
            slices.append(values[carried_count:])
        scans = [spec_of(result.type) for result in loop.results[carried_count:]]
        stacked = ([_stack(list(parts), loop.location) for parts in zip(*slices)] if slices
                   else [create_constant(np.zeros(spec.shape, spec.dtype), loop.location) for spec in scans])
    replace_op(loop, [*carried, *stacked])
    erase_unused_producers(operands)


def _stack(parts: list[ir.Value], loc: ir.Location) -> ir.Value:
    rows = [GRAPH.create("reshape", p, result_types=[spec_of(p.type).with_shape((1, *spec_of(p.type).shape))],
                         loc=loc).result for p in parts]
    result = rows[0]
    for row in rows[1:]:
        result = GRAPH.create("concat", result, row, axis=0, loc=loc).result
    return result
