"""graph-profile-instrument: Glow's Profile mode, a probe on every computed value."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of
from lamina.passes.registry import Pass, register_pass
from .graph_identity import graph_hash, output_names

# The module attribute recording the hash of the graph before probes were added.
PROFILED_HASH_ATTRIBUTE = "lamina.profiled_graph_hash"


@register_pass
@dataclass(frozen=True)
class GraphProfileInstrument(Pass):
    """Add a `graph.profile` after every float value a graph op computes (placeholders included).

    Glow's `transformForPrecisionMode` in Profile mode: the interpreter then
    reports each probe's values, from which `lamina-profile` builds the
    min/max/histogram profile that `graph-quantize` reads. The probes are
    named as `graph_identity.py` names node outputs, and
    the module records the hash of the graph as it was before probing
    (`lamina.profiled_graph_hash`). Results do not change; a graph that
    already has probes is left alone.
    """

    name = "graph-profile-instrument"
    summary = "Add graph.profile probes after every computed float value (Glow's Profile mode)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        if PROFILED_HASH_ATTRIBUTE in op.attributes:
            return
        op.attributes[PROFILED_HASH_ATTRIBUTE] = ir.StringAttr.get(graph_hash(op))
        for value, name in output_names(op).items():
            spec = spec_of(value.type)
            if spec.quant is not None or spec.dtype.kind != "f":
                continue
            producer = value.owner.operation
            with ir.InsertionPoint.after(producer):
                GRAPH.create("profile", value, name=name, loc=producer.location)
