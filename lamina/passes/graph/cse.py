"""graph-cse: compute each value once."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import MODEL_INTERFACE
from lamina.dialects.values import op_name
from lamina.passes.registry import Pass, register_pass

from .rewriting import fused_location, graph_ops, replace_op


@register_pass
@dataclass(frozen=True)
class GraphCSE(Pass):
    """Replace a graph op by an earlier op of its block that computes the same value.

    Two graph ops compute the same value when they have the same name,
    operands, attributes and result types: graph ops are pure, so this is
    always legal and results stay bit-identical. Constants with equal data
    merge too (MLIR uniques attributes, so equal data is the same attribute).
    The kept op takes the fused location of the ops it now stands for. The
    model interface never merges: saves are effects, placeholders inputs.

    Upstream `cse` cannot do this: IRDL ops have no traits, so MLIR must
    assume they have side effects. Ops are only matched within one block,
    where the earlier op dominates the later one. One run in program order
    merges whole duplicated subgraphs, as merging a producer makes its users'
    operands equal.
    """

    name = "graph-cse"
    summary = "Merge graph ops computing the same value (same op, operands, attributes, types)"

    def run(self, op: ir.Operation) -> None:
        seen: dict[tuple, ir.Operation] = {}
        for candidate in graph_ops(op):
            if op_name(candidate) in MODEL_INTERFACE:
                continue
            key = _identity(candidate)
            kept = seen.setdefault(key, candidate)
            if kept != candidate:
                kept.location = fused_location([kept, candidate])
                replace_op(candidate, list(kept.results))


def _identity(op: ir.Operation) -> tuple:
    """What determines the values `op` computes, and the block it may be reused in."""
    return (
        op.block,
        op.name,
        tuple(op.operands),
        tuple((name, op.attributes[name]) for name in op.attributes),
        tuple(result.type for result in op.results),
    )
