"""cpu-unroll-small-loops-only and llvm-loop-annotations: LLVM unrolls the small window loops and nothing else.

`cpu-vectorize` and `convert-vector-to-scf{full-unroll}` leave each
register tile as straight-line 32-wide vector code inside a loop over the
reduction (8 weight broadcasts, 16 FMAs per channel). LLVM's loop unroller
at O2/O3 unrolled those loops again, and the copies' and element-wise ops'
scalar loops too (partially, at run time, or fully where the trip count is
known): on ResNet-50 it took 6.4 of the 10 s of `opt -O3` and doubled the
machine code that instruction selection and loop strength reduction then
work through, for no measured speed (docs/cpu-path.md, *JIT time*). What
unrolling does buy is the small constant windows of pools: SqueezeNet's
3 x 3 max pools keep their maximum in a register when both window loops are
unrolled, and the model ran 30 % slower with no unrolling at all. So a loop
stays LLVM's to unroll only when its trip count is a constant of at most
`SMALL_TRIP_COUNT` and every loop inside it is such a loop too.

The first pass puts LLVM's unroll-disable loop annotation on every other
`scf.for`; `convert-scf-to-cf` carries it to the loop's back edge as a
discardable `llvm.loop_annotation` attribute, which the LLVM dialect's
branch ops do not translate. The second pass, after `convert-cf-to-llvm`,
moves it into the branch's `loop_annotation`, which becomes `!llvm.loop`
metadata.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.passes.registry import Pass, register_pass

ANNOTATION = "llvm.loop_annotation"  # the discardable attribute convert-scf-to-cf forwards to the back edge
ROLLED = "#llvm.loop_annotation<unroll = <disable = true>>"
BRANCHES = ("llvm.br", "llvm.cond_br")
SMALL_TRIP_COUNT = 8  # pool windows (3 x 3, 7 x 7 rows) are within it; register tiles' channel loops are not


def _constant(value: ir.Value) -> int | None:
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "arith.constant":
        attribute = owner.operation.attributes["value"]
        return ir.IntegerAttr(attribute).value if isinstance(attribute, ir.IntegerAttr) else None
    return None


def _small(loop: ir.Operation) -> bool:
    """Whether the scf.for `loop` runs a constant number of iterations, at most SMALL_TRIP_COUNT."""
    lower, upper, step = (_constant(v) for v in list(loop.operands)[:3])
    if lower is None or upper is None or not step:
        return False
    return -(-(upper - lower) // step) <= SMALL_TRIP_COUNT


def _enclosing_loop(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    while parent is not None and parent.name not in ("scf.for", "func.func", "builtin.module"):
        parent = parent.parent
    return parent if parent is not None and parent.name == "scf.for" else None


@register_pass
@dataclass(frozen=True)
class UnrollSmallLoopsOnly(Pass):
    """Annotate every `scf.for` with `llvm.loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>`
    unless it runs a constant number of iterations, at most 8, and so does every loop inside it.

    Legal anywhere; meant for after `convert-vector-to-scf{full-unroll}`,
    before `convert-scf-to-cf` (which carries the attribute to the loop's back
    edge, see `llvm-loop-annotations`). Loops already annotated keep their
    annotation.
    """

    name = "cpu-unroll-small-loops-only"
    summary = "mark all but small constant loop nests for LLVM not to unroll them (llvm.loop_annotation)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        rolled_inside: set[ir.Operation] = set()  # loops with a loop LLVM must not unroll inside
        rolled: list[ir.Operation] = []

        def visit(child: ir.Operation) -> ir.WalkResult:  # post-order: inner loops first
            if child.name == "scf.for" and (child in rolled_inside or not _small(child)):
                rolled.append(child)
                outer = _enclosing_loop(child)
                if outer is not None:
                    rolled_inside.add(outer)
            return ir.WalkResult.ADVANCE

        op.walk(visit, ir.WalkOrder.POST_ORDER)
        annotation = ir.Attribute.parse(ROLLED)
        for loop in rolled:
            if ANNOTATION not in loop.attributes:
                loop.attributes[ANNOTATION] = annotation


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
