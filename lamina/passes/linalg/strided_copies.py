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


@register_pass
@dataclass(frozen=True)
class StridedCopies(Pass):
    """Rewrite every `memref.copy` whose source or target has a non-identity layout (a strided view: a
    slice, a padded interior) as a `linalg.copy` of the same views.

    Legal on memrefs after bufferization, before `convert-linalg-to-loops`
    (`graph-to-cpu` runs it there). Copies between identity layouts, and
    unranked ones, are left alone.
    """

    name = "cpu-strided-copies"
    summary = "memref.copy between strided views as linalg.copy (vectorized loops, not memrefCopy element by element)"

    def run(self, op: ir.Operation) -> None:
        for copy in ops_where(op, _strided):
            with ir.InsertionPoint(copy), copy.location:
                linalg.copy(copy.operands[0], outs=[copy.operands[1]])
            copy.erase()
