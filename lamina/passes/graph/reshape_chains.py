"""graph-merge-reshapes: one reshape where there were several, none where the type stays."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.types import spec_of
from lamina.dialects.values import producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fused_location, replace_each


@register_pass
@dataclass(frozen=True)
class GraphMergeReshapes(Pass):
    """Replace `reshape(reshape(x))` by one `reshape(x)`, and a reshape whose
    result type is its input's by its input.

    A reshape only reinterprets the shape of elements kept in row-major
    order, so only the last shape of a chain matters: the rewrite is always
    legal and moves no data. A merged reshape takes the fused location of
    the reshapes it stands for; inner reshapes nobody else reads go. Runs in
    program order, so a chain of any length merges in one run (Glow's
    OptimizeReshape).
    """

    name = "graph-merge-reshapes"
    summary = "Merge chains of graph.reshape and remove reshapes to the same type"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"reshape"}, _simplified)


def _simplified(reshape: ir.Operation) -> ir.Value | None:
    """What `reshape` can be replaced by: its input, a reshape of its input's input, or None."""
    source = reshape.operands[0]
    result = spec_of(reshape.results[0].type)
    if spec_of(source.type) == result:
        return source
    inner = producer(source, "reshape")
    if inner is None:
        return None
    origin = inner.operands[0]
    if spec_of(origin.type) == result:
        return origin
    return create_before(reshape, "reshape", origin, result_types=[result], loc=fused_location([inner, reshape]))
