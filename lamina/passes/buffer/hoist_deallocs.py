"""buffer-hoist-deallocs: end each activation's lifetime at its last use."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer_analysis import programs, users
from lamina.dialects.values import defining_op
from lamina.passes.registry import Pass, register_pass

from .rewriting import in_block, positions


@register_pass
@dataclass(frozen=True)
class HoistDeallocs(Pass):
    """Move each `buffer.dealloc` right after the last op using its alloc (Glow's HoistDealloc).

    IRGen puts every dealloc at the end of the function, so every activation
    looks live until then; memory planning can only reuse bytes between a
    dealloc and a later alloc. Uses include the alloc's views and their uses,
    and creating a view; an alloc nothing uses is deallocated right after it
    is allocated. Deallocs moved to the same point keep their order. In a
    block holding a region op, a use inside its regions is a use by the op,
    so a buffer a loop body reads stays live until the loop ends; the allocs
    of a region's own block are freed there, after their last use in it.

    Legal on verified IR: nothing uses a buffer after its last use, so the
    program computes the same values.
    """

    name = "buffer-hoist-deallocs"
    summary = "Move each dealloc right after the last use of its buffer (through views)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        moves = []  # decided before any op moves: `index` is only valid until then
        for program in programs(op):
            index = positions(program)
            for dealloc in reversed([op for op in program if op.name == "buffer.dealloc"]):
                alloc = dealloc.operands[0]
                uses = [in_block(user, index) for user in users(alloc) if user != dealloc]
                moves.append((dealloc, max(uses, key=index.__getitem__) if uses else defining_op(alloc)))
        for dealloc, last_use in moves:
            dealloc.move_after(last_use)
