"""buffer-allocate: memory planning, every buffer's byte offset in its region."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer_analysis import analyze_flat, nbytes
from lamina.dialects.buffer_verifier import ACTIVATION_BYTES, CONSTANT_BYTES, MUTABLE_BYTES
from lamina.dialects.buffer_verifier import region_of
from lamina.passes.registry import Pass, register_pass

from .memory_plan import Lifetime, aligned, live_peak, place, sequential

# Recorded beside the regions' sizes: the most activation bytes live at once.
ACTIVATION_LOWER_BOUND_BYTES = "buffer.activation_lower_bound_bytes"


@register_pass
@dataclass(frozen=True)
class BufferAllocate(Pass):
    """Give every buffer a byte offset in one of three regions and record the regions' sizes.

    Glow's memory allocation: activations (`buffer.alloc`) share one region,
    in which two allocs live at the same time (from their alloc to their
    dealloc, uses through views included; an alloc never deallocated lives
    to the end) never share a byte: `memory_plan.place` packs them, trying
    several orders and fitting rules. Read-only data (`buffer.constant`,
    non-mutable `buffer.weight`) and mutable weights (the model's inputs and
    outputs, fed and read by the caller) live for the whole run and sit one
    after the other in their own two regions (the regions the verifier and
    the buffer interpreter expect). Every offset is a multiple of 64 bytes.

    Records on the module `buffer.activation_bytes` (the activation
    region's size), `buffer.activation_lower_bound_bytes` (the most
    activation bytes live at one point of the program, with each buffer
    rounded up to 64 bytes: no placement of this schedule can do better),
    `buffer.constant_bytes` and `buffer.mutable_bytes`.

    A region op's allocs are numbered inside its span (`analyze_flat`): they
    live within one iteration or branch, alongside every buffer of the
    enclosing blocks that is live across the op (its alloc before the op,
    its dealloc after), so they never share bytes with a loop's carried
    values, conditions or scan outputs, nor with values the body reads.

    Run it last: any later change to the program's order or buffers makes
    the plan stale. Re-running it replans from scratch, so it is always
    legal on a buffer module.
    """

    name = "buffer-allocate"
    summary = "Memory planning: byte offsets for allocs, constants and weights; region sizes on the module"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        program, buffers = analyze_flat(op)
        by_region: dict[str, list] = {ACTIVATION_BYTES: [], CONSTANT_BYTES: [], MUTABLE_BYTES: []}
        for info in buffers.values():
            by_region[region_of(info.buffer.owner)].append(info)
        activations = by_region[ACTIVATION_BYTES]
        lifetimes = [Lifetime(info.start, len(program) if info.end is None else info.end,
                              aligned(nbytes(info.buffer))) for info in activations]
        placement = place(lifetimes)
        _set_offsets(activations, placement.offsets)
        sizes = {ACTIVATION_BYTES: placement.size, ACTIVATION_LOWER_BOUND_BYTES: live_peak(lifetimes)}
        for region in (CONSTANT_BYTES, MUTABLE_BYTES):
            offsets, sizes[region] = sequential([nbytes(info.buffer) for info in by_region[region]])
            _set_offsets(by_region[region], offsets)
        i64 = ir.IntegerType.get_signless(64)
        for attribute, size in sizes.items():
            op.attributes[attribute] = ir.IntegerAttr.get(i64, size)


def _set_offsets(infos: list, offsets) -> None:
    i64 = ir.IntegerType.get_signless(64)
    for info, offset in zip(infos, offsets):
        info.buffer.owner.attributes["offset"] = ir.IntegerAttr.get(i64, offset)
