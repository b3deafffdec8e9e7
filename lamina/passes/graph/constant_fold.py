"""graph-constant-fold: compute ops whose operands are all constants at compile time."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.types import spec_of
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from .rewriting import fold_to_constant, replace_each

# Results this small always fold, whatever their operands' size.
SMALL_RESULT_ELEMENTS = 64


@register_pass
@dataclass(frozen=True)
class GraphConstantFold(Pass):
    """Replace each graph op whose operands are all `graph.constant` or
    `graph.splat` by its result, computed with the interpreter's kernels.

    This folds the importer's shape computations (int64 gathers, concats and
    reshapes of constants), reshapes, transposes and broadcasts of weights,
    and any other op of constants, in one sweep in program order, so chains
    fold completely. Operand constants left unused are erased. Always legal:
    the kernels are the interpreter's, so every folded value is bit-identical.
    (A matmul or fully-connected layer that now reads a folded, contiguous
    transpose rather than a transposed view may sum in another order inside
    BLAS: float32 rounding, within 1e-5 of the output's scale on the light
    models.) Placeholders and saves are never folded.

    Policy, so that folding never blows up the IR: a result known to be
    uniform without computing it (an element-wise or rearranging op of
    uniform constants, e.g. a broadcast of a scalar) becomes a `graph.splat`
    whatever its size; any other result is computed only when it has at most
    max(64, max-growth x the operands' total elements) elements, and becomes
    a `graph.splat` when all its elements are equal, else a `graph.constant`.
    Ops whose data makes them fail (a gather index out of range) stay, to
    fail at run time as before.
    """

    name = "graph-constant-fold"
    summary = "Compute ops of constants at compile time (results stay splats or bounded in size)"

    max_growth: int = option(4, "fold only results with at most this many times their operands' elements (or 64)")

    def run(self, op: ir.Operation) -> None:
        replace_each(op, None, lambda candidate: fold_to_constant(candidate, self._max_elements(candidate)))

    def _max_elements(self, op: ir.Operation) -> int:
        operand_elements = sum(spec_of(v.type).num_elements for v in op.operands)
        return max(SMALL_RESULT_ELEMENTS, self.max_growth * operand_elements)
