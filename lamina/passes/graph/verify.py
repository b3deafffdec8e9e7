"""graph-verify: the semantic verifier as an explicit pipeline step."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.context import check_module
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class GraphVerify(Pass):
    """Check every op against its structural (IRDL) and semantic (shape function) rules.

    MLIR verifies IRDL ops only structurally between passes; Lamina's shape
    rules are Python. `lamina-opt` checks them after parsing, after each
    pass or named pipeline as written (a named pipeline's own passes are
    checked together, at its end) and after the pipeline, unless
    `--verify-each=false`; this pass makes the check a step of its own, e.g.
    right after upstream passes or in a pipeline run without `--verify-each`.
    It changes nothing, so it is legal anywhere; every problem is reported at
    its op's location.
    """

    name = "graph-verify"
    summary = "Check every op's structural and shape rules (the semantic verifier)"

    def run(self, op: ir.Operation) -> None:
        check_module(op)
