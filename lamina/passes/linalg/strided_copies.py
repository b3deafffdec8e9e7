"""cpu-strided-copies: a `memref.copy` between strided views as a `linalg.copy`, which becomes loops LLVM vectorizes.

Bufferization writes a `memref.copy` wherever a tensor is copied into or out
of a slice: a pool's padded input, a concatenation's operands, a
convolution's cropped output read by an op that wants it whole. The
ExecutionEngine lowers it to a call of the C runner utils' `memrefCopy`,
which copies anything but two contiguous buffers one element at a time,
computing each element's address from the descriptor: 9 % of Inception
v2's time on one thread (issue 18, `perf`). A `linalg.copy` on the same
views is a loop nest with static strides whose innermost loop LLVM
vectorizes. Copies between identity layouts stay: `memrefCopy` hands those
to `memcpy`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import linalg

from lamina.dialects.values import ops_where
from lamina.passes.registry import Pass, register_pass


def _identity_layout(value: ir.Value) -> bool:
    memref = ir.MemRefType(value.type)
    return (isinstance(memref.layout, ir.AffineMapAttr)
            and ir.AffineMapAttr(memref.layout).value == ir.AffineMap.get_identity(memref.rank))


def _strided(op: ir.Operation) -> bool:
    """A copy `memrefCopy` would do element by element: a view with a non-identity layout on either side,
    of ranked memrefs of the same element type."""
    if op.name != "memref.copy" or not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
        return False
    source, target = (ir.MemRefType(v.type) for v in op.operands)
    return source.element_type == target.element_type and not (_identity_layout(op.operands[0])
                                                                and _identity_layout(op.operands[1]))


def _same_view(a: ir.Value, b: ir.Value) -> bool:
    """Whether two memrefs are the same elements: one value, or two identical subviews of one buffer."""
    if a == b:
        return True
    views = [v.owner for v in (a, b)]
    if not all(isinstance(v, ir.OpView) and v.operation.name == "memref.subview" for v in views):
        return False
    first, second = (v.operation for v in views)
    return (first.operands[0] == second.operands[0] and len(first.operands) == len(second.operands) == 1
            and first.results[0].type == second.results[0].type
            and all(str(first.attributes[n]) == str(second.attributes[n])
                    for n in ("static_offsets", "static_sizes", "static_strides")))


def _self_copy(op: ir.Operation) -> bool:
    """A copy of a view onto itself: what bufferization leaves of an in-place insert (a padded buffer's
    interior and border written in place), a no-op that would still read and write every element."""
    return op.name == "memref.copy" and _same_view(op.operands[0], op.operands[1])


@register_pass
@dataclass(frozen=True)
class StridedCopies(Pass):
    """Rewrite every `memref.copy` whose source or target has a non-identity layout (a strided view: a
    slice, a padded interior) as a `linalg.copy` of the same views, and erase copies of a view onto itself
    (one buffer, or identical subviews of one buffer).

    Legal on memrefs after bufferization, before `convert-linalg-to-loops`
    (`graph-to-cpu` runs it there). Copies between identity layouts, and
    unranked ones, are left alone.
    """

    name = "cpu-strided-copies"
    summary = "memref.copy between strided views as linalg.copy (vectorized loops, not memrefCopy element by element)"

    def run(self, op: ir.Operation) -> None:
        for copy in ops_where(op, lambda candidate: _self_copy(candidate) or _strided(candidate)):
            if not _self_copy(copy):
                with ir.InsertionPoint(copy), copy.location:
                    linalg.copy(copy.operands[0], outs=[copy.operands[1]])
            copy.erase()
