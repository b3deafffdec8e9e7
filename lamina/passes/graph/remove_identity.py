"""graph-remove-identity: bypass ops that return their input."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import FORWARDING
from lamina.passes.registry import Pass, register_pass

from .rewriting import replace_each

# Graph ops whose result is their operand: `graph.dropout` is inference-mode dropout.
IDENTITY_OPS = GRAPH.with_trait(FORWARDING)


@register_pass
@dataclass(frozen=True)
class GraphRemoveIdentity(Pass):
    """Replace every `graph.identity` and `graph.dropout` by its input.

    Both return their operand unchanged (the graph dialect's dropout is the
    inference-mode one; its `ratio` is only kept for reference), so removing
    them is always legal and leaves results bit-identical. Glow's
    EliminateNoop does the same.
    """

    name = "graph-remove-identity"
    summary = "Replace graph.identity and inference-mode graph.dropout by their input"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, IDENTITY_OPS, lambda identity: identity.operands[0])
