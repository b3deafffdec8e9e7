"""graph-sum-to-adds: a variadic sum as a chain of binary adds."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, replace_each


@register_pass
@dataclass(frozen=True)
class GraphSumToAdds(Pass):
    """Replace `graph.sum(x0, x1, ..., xn)` by `add(...add(add(x0, x1), x2)..., xn)`;
    a sum of one input by that input.

    Later levels need only binary arithmetic. The chain adds left to right,
    as the interpreter's sum does, so results stay bit-identical; every add
    takes the sum's location. Always legal.
    """

    name = "graph-sum-to-adds"
    summary = "Replace graph.sum of n inputs by a chain of n-1 graph.add"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"sum"}, _add_chain)


def _add_chain(sum_op: ir.Operation) -> ir.Value:
    first, *rest = sum_op.operands
    total = first
    for operand in rest:
        total = create_before(sum_op, "add", total, operand, loc=sum_op.location)
    return total
