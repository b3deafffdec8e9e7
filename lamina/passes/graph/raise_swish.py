"""graph-raise-swish: x * sigmoid(x) -> swish(x)."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.values import has_one_use, producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fused_location, replace_each


@register_pass
@dataclass(frozen=True)
class GraphRaiseSwish(Pass):
    """Replace `mul(x, sigmoid(x))`, in either operand order, by `swish(x)`.

    Exporters write SiLU/Swish as Sigmoid and Mul; one op lets a backend run
    it as one activation (Glow's SwishNode). Legal when the sigmoid's result
    has no other user (else it would be computed anyway). Results are
    bit-identical (swish computes x * sigmoid(x)); the swish takes the fused
    location of the sigmoid and the mul.
    """

    name = "graph-raise-swish"
    summary = "Raise x * sigmoid(x) into swish"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"mul"}, _raised_swish)


def _raised_swish(mul: ir.Operation) -> ir.Value | None:
    lhs, rhs = mul.operands
    for x, gate in ((lhs, rhs), (rhs, lhs)):
        sigmoid = producer(gate, "sigmoid")
        if sigmoid is not None and sigmoid.operands[0] == x and has_one_use(gate):
            return create_before(mul, "swish", x, loc=fused_location([sigmoid, mul]))
    return None
