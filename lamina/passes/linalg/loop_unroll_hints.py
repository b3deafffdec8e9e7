"""cpu-keep-vector-loops-rolled and llvm-loop-annotations: LLVM does not unroll the loops MLIR vectorized.

`cpu-vectorize` and `convert-vector-to-scf{full-unroll}` leave each
register tile as straight-line 32-wide vector code inside a loop over the
reduction (8 weight broadcasts, 16 FMAs per channel). LLVM's loop unroller
at O2/O3 unrolls those loops again (partially, at run time, or fully when
the trip count is known): on ResNet-50 it took 6.4 of the 10 s of `opt -O3`
and doubled the machine code that instruction selection and loop strength
reduction then work through, for no measured speed (docs/cpu-path.md, *JIT
time*). The scalar loops left (pools, copies, element-wise ops that were
not vectorized) still gain from unrolling (SqueezeNet ran 30 % slower with
no unrolling at all), so only loops with vector code inside are marked.

The first pass puts LLVM's unroll-disable loop annotation on every
`scf.for` with a vector-typed value inside; `convert-scf-to-cf` carries it
to the loop's back edge as a discardable `llvm.loop_annotation` attribute,
which the LLVM dialect's branch ops do not translate. The second pass, after
`convert-cf-to-llvm`, moves it into the branch's `loop_annotation`, which
becomes `!llvm.loop` metadata.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.passes.registry import Pass, register_pass

ANNOTATION = "llvm.loop_annotation"  # the discardable attribute convert-scf-to-cf forwards to the back edge
ROLLED = "#llvm.loop_annotation<unroll = <disable = true>>"
BRANCHES = ("llvm.br", "llvm.cond_br")


def _has_vector_result(op: ir.Operation) -> bool:
    return any(isinstance(result.type, ir.VectorType) for result in op.results)


@register_pass
@dataclass(frozen=True)
class KeepVectorLoopsRolled(Pass):
    """Annotate every `scf.for` that has vector-typed values inside (in its body or nested loops) with
    `llvm.loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>`.

    Legal anywhere; meant for after `convert-vector-to-scf{full-unroll}`,
    before `convert-scf-to-cf` (which carries the attribute to the loop's back
    edge, see `llvm-loop-annotations`). Loops with only scalar code are left
    alone, as are loops already annotated.
    """

    name = "cpu-keep-vector-loops-rolled"
    summary = "mark loops with vector code for LLVM not to unroll them (llvm.loop_annotation)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        marked: set[ir.Operation] = set()

        def visit(child: ir.Operation) -> ir.WalkResult:
            if _has_vector_result(child):
                parent = child.parent
                while parent is not None and parent.name != "func.func" and parent not in marked:
                    if parent.name == "scf.for":
                        marked.add(parent)
                    parent = parent.parent
            return ir.WalkResult.ADVANCE

        op.walk(visit)
        rolled = ir.Attribute.parse(ROLLED)
        for loop in marked:
            if ANNOTATION not in loop.attributes:
                loop.attributes[ANNOTATION] = rolled


@register_pass
@dataclass(frozen=True)
class LlvmLoopAnnotations(Pass):
    """Move the discardable `llvm.loop_annotation` attribute of `llvm.br` / `llvm.cond_br` into the branch's
    own `loop_annotation` (which translates to `!llvm.loop` metadata).

    Legal on the LLVM dialect, after `convert-cf-to-llvm` (which keeps the
    attribute `convert-scf-to-cf` put on a loop's back edge but under its
    discardable name). Branches without it are left alone.
    """

    name = "llvm-loop-annotations"
    summary = "llvm.loop_annotation attributes of LLVM branches into their loop_annotation (loop metadata)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        def visit(child: ir.Operation) -> ir.WalkResult:
            if child.name in BRANCHES and ANNOTATION in child.attributes:
                child.attributes["loop_annotation"] = child.attributes[ANNOTATION]
                del child.attributes[ANNOTATION]
            return ir.WalkResult.ADVANCE

        op.walk(visit)
