"""graph-transpose-simplify: compose transposes, drop identity ones, fold them into constants."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.values import is_constant, producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fold_to_constant, fused_location, replace_each


@register_pass
@dataclass(frozen=True)
class GraphTransposeSimplify(Pass):
    """Simplify each `graph.transpose`:

    - transpose(transpose(x, p1), p2) becomes transpose(x, p1[p2[i]]) at the
      fused location of both (result dim i of the pair is x's dim p1[p2[i]]);
    - a transpose whose permutation (given or composed) is the identity is
      replaced by its input;
    - a transpose of a `graph.constant` or `graph.splat` becomes a new
      constant holding the transposed data (Glow's TransposeConstants: the
      transpose is folded into the weights), at the transpose's location.

    All three are always legal and move the same elements, so every value
    stays bit-identical; only a matmul or fully-connected layer reading
    folded weights may round differently, as BLAS sums a contiguous operand
    in another order than a transposed view (within 1e-5 of the output's
    scale on the light models). Runs in program order, so chains collapse in
    one run; transposes and constants left unused go.
    """

    name = "graph-transpose-simplify"
    summary = "Compose consecutive graph.transpose, drop identity ones, fold transposes of constants"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"transpose"}, _simplified)


def _simplified(transpose: ir.Operation) -> ir.Value | None:
    """What `transpose` can be replaced by, or None."""
    source = transpose.operands[0]
    perm = GRAPH.view(transpose).attr("perm")
    if _is_identity(perm):
        return source
    inner = producer(source, "transpose")
    if inner is not None:
        inner_perm = GRAPH.view(inner).attr("perm")
        composed = tuple(inner_perm[p] for p in perm)
        origin = inner.operands[0]
        if _is_identity(composed):
            return origin
        return create_before(transpose, "transpose", origin, perm=composed, loc=fused_location([inner, transpose]))
    if is_constant(source):
        return fold_to_constant(transpose)
    return None


def _is_identity(perm: tuple[int, ...]) -> bool:
    return perm == tuple(range(len(perm)))
