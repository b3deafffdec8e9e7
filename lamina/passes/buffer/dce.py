"""buffer-dce: erase stores nobody reads and buffers nobody uses."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import analyze_program, covers_root, operand_roles, programs, root_buffer, users
from lamina.passes.registry import Pass, register_pass

from .rewriting import erase_buffer


@register_pass
@dataclass(frozen=True)
class BufferDCE(Pass):
    """Erase dead stores and dead allocs (Glow's DSE and DeleteDeadAllocs).

    An instruction is a dead store when every buffer it writes is an alloc
    whose value it leaves is never read: the program reads nothing of it
    before overwriting all of it or deallocating it. One backward sweep finds
    them, tracking which allocs hold a value still to be read; an erased
    store reads nothing, so the stores that only fed it die in the same
    sweep. A write through a view that covers part of its alloc does not
    hide an earlier write (the rest of the bytes may still be read). Then an
    alloc that nothing reads or writes (only its views and its dealloc use
    it) goes, with them.

    Weights are observable: their last value is the model's output, or kept
    for the next run, so instructions writing a weight are never erased.
    Ops of other dialects count as reading every buffer they use and are
    never erased. Each block on its own, inner blocks first: a region op
    writes the buffers of the enclosing blocks its regions write (and is
    erased, regions and all, when those are dead allocs); inside a region,
    only stores to the region's own allocs can be dead (a loop body's write
    to a carried buffer is read by the next iteration or after the loop).
    Always legal.
    """

    name = "buffer-dce"
    summary = "Erase instructions whose written allocs are never read, and allocs nothing uses"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        # Inner blocks first: erasing a region op erases its blocks.
        for program in reversed(programs(op)):
            buffers = analyze_program(program)
            allocs = {buffer for buffer, info in buffers.items() if info.kind == "alloc"}
            _erase_dead_stores(program, allocs)
            for alloc in allocs:
                if all(user.name in ("buffer.view", "buffer.dealloc") for user in users(alloc)):
                    erase_buffer(alloc)


def _erase_dead_stores(program: list[ir.Operation], allocs: set[ir.Value]) -> None:
    read_later: set[ir.Value] = set()  # allocs whose current value some later op reads
    for op in reversed(program):
        if op.name == "buffer.dealloc" or (BUFFER.lookup(op) is not None and not operand_roles(op)):
            continue  # deallocs end values; views and buffer declarations access nothing
        roles = operand_roles(op) or [(value, "in") for value in op.operands]
        written = [root_buffer(value) for value, role in roles if role != "in"]
        if written and all(root in allocs and root not in read_later for root in written):
            op.erase()
            continue
        for value, role in roles:
            if role == "out" and covers_root(value):
                read_later.discard(root_buffer(value))
        read_later.update(root_buffer(value) for value, role in roles if role != "out")
