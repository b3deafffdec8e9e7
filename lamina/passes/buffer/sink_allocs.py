"""buffer-sink-allocs: start each activation's lifetime at its first use."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer_analysis import programs, users
from lamina.passes.registry import Pass, register_pass

from .rewriting import in_block, positions


@register_pass
@dataclass(frozen=True)
class SinkAllocs(Pass):
    """Move each `buffer.alloc` right before the first op using it (Glow's SinkAllocas).

    An alloc declared long before its first write holds memory that
    planning could give to buffers dead by then. Uses include creating one
    of its views and the views' uses (and its dealloc, for an alloc nothing
    else uses). Allocs moved to the same point keep their order. A use inside
    a region op's regions is a use by the op: a buffer a loop body uses is
    allocated before the loop, never inside the body (where it would be
    allocated anew every iteration).

    Legal on verified IR: an alloc has no value before its first use.
    """

    name = "buffer-sink-allocs"
    summary = "Move each alloc right before the first use of its buffer (through views)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        moves = []  # decided before any op moves: `index` is only valid until then
        for program in programs(op):
            index = positions(program)
            for alloc in [op for op in program if op.name == "buffer.alloc"]:
                uses = [in_block(user, index) for user in users(alloc.results[0])]
                if uses:
                    moves.append((alloc, min(uses, key=index.__getitem__)))
        for alloc, first_use in moves:
            alloc.move_before(first_use)
