"""graph-dce: erase graph ops nobody reads."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_precision import KEPT_WITHOUT_USES
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class GraphDCE(Pass):
    """Erase graph ops whose results are unused, to a fixpoint.

    Every graph op except `graph.save` only computes its results, so one
    whose results nobody reads cannot change the model's outputs: erasing it
    is always legal, at any point of a pipeline. The model's interface
    (`MODEL_INTERFACE`: placeholders and saves) and profiling probes stay,
    so the model keeps taking every input even when one no longer matters. Ops of other dialects
    are left alone.

    Upstream `canonicalize` and `cse` cannot do this: IRDL ops have no traits,
    so MLIR must assume they have side effects. Blocks are swept innermost
    first and each from its end, so a chain of dead ops goes in one sweep;
    sweeps repeat until one erases nothing, for users in blocks swept after
    their producer's (later blocks of a CFG).
    """

    name = "graph-dce"
    summary = "Erase graph ops whose results are unused (the model interface stays)"

    def run(self, op: ir.Operation) -> None:
        while _sweep(op):
            pass


def _sweep(op: ir.Operation) -> bool:
    """Erase dead graph ops in every block under `op`, last op first; whether any went."""
    erased = False
    for block in _blocks(op):
        for candidate in reversed(list(block.operations)):
            candidate = candidate.operation
            if _is_dead(candidate):
                candidate.erase()
                erased = True
    return erased


def _is_dead(op: ir.Operation) -> bool:
    definition = GRAPH.lookup(op)
    return (
        definition is not None
        and definition.name not in KEPT_WITHOUT_USES
        and all(_unused(result) for result in op.results)
    )


def _unused(value: ir.Value) -> bool:
    return next(iter(value.uses), None) is None


def _blocks(op: ir.Operation) -> list[ir.Block]:
    """Every block under `op`, those of nested ops before their parent's."""
    blocks = []

    def collect(nested: ir.Operation) -> ir.WalkResult:
        blocks.extend(block for region in nested.regions for block in region.blocks)
        return ir.WalkResult.ADVANCE

    op.walk(collect, ir.WalkOrder.POST_ORDER)
    return blocks
