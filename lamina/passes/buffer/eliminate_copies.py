"""buffer-eliminate-copies: let a copy's producer write the copy's destination."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import (BufferInfo, analyze_program, byte_range, covers_root, operand_roles,
                                             overlap, programs, root_buffer)
from lamina.dialects.types import spec_of
from lamina.dialects.values import defining_op
from lamina.passes.registry import Pass, register_pass

from .rewriting import dealloc_of, definition_positions, erase_unused_views, flatten_views


@register_pass
@dataclass(frozen=True)
class EliminateCopies(Pass):
    """Erase `buffer.copy(%dest, %src)` by computing `%src` in `%dest` directly.

    IRGen computes every value into an alloc and copies model outputs into
    their weights; Glow's buffer sharing and peephole remove those copies.
    Here, when `%src` is all of an alloc `%t` that is only read after the
    copy, `%t` is replaced by `%dest` everywhere (through a view of `%dest`
    with `%t`'s shape if the types differ): the instructions that filled `%t`
    fill `%dest`, and the copy and `%t` go. Legal when the buffer of `%dest`
    is free for that: nothing uses its bytes from `%t`'s first use up to the copy,
    nothing writes them from the copy up to `%t`'s last read, and if it is an
    alloc it is deallocated after `%t`'s last use (views included). If `%dest`
    is an alloc, or a view of one, declared after `%t`, the alloc and its views
    move up to `%t`'s place: so the copies `buffer-lower-concat` leaves put each
    concat input straight into its part of the result.

    Also erases copies of bytes onto themselves (same buffer, same bytes),
    which in-place rewriting and buffer sharing leave behind.

    Each block on its own; a use inside a region op is a use by the op, so
    a carried buffer is retargeted into a model output only when nothing
    uses that output while the loop runs. In a region, `%dest` may be a
    buffer of the enclosing blocks (a carried value, a scan output's slice):
    the body then computes its next value straight into it, when the body
    does not use that buffer between the producer and the copy (it would
    read the next value where it meant this iteration's). The temporary is
    always the block's own alloc.
    """

    name = "buffer-eliminate-copies"
    summary = "Make a copy's producer write the copy's destination; erase copies onto themselves"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        # Each round eliminates what one analysis proves; look again until nothing changes.
        while sum(_eliminate_round(program) for program in programs(op)):
            flatten_views(op)


def _eliminate_round(program: list[ir.Operation]) -> int:
    """Eliminate every copy the analysis at the start of the round still describes; how many.

    An elimination moves and erases only ops of the two buffers it involves
    and changes only their accesses, and keeps every other op's relative
    order. So after it, the analysis still holds for copies between other
    buffers: those are eliminated in the same round, and copies touching a
    changed ("dirty") buffer wait for the next round's analysis. A Concat of
    N inputs takes O(log N) rounds instead of N analyses.
    """
    buffers = analyze_program(program, outer=True)
    last_users, defined_at = _last_users(program), definition_positions(program)
    dirty: set[ir.Value] = set()
    eliminated = 0
    for copied_at, copy in enumerate(program):
        if copy.name != "buffer.copy":
            continue
        dest, src = copy.operands
        roots = (root_buffer(dest), root_buffer(src))
        if any(root in dirty for root in roots):
            continue
        if roots[0] == roots[1] and byte_range(dest) == byte_range(src):
            copy.erase()
            erase_unused_views(src)
            erase_unused_views(dest)
            dirty.update(roots)
            eliminated += 1
            continue
        temporary, target = buffers.get(roots[1]), buffers.get(roots[0])
        if temporary is not None and _can_retarget(copy, copied_at, temporary, target, last_users, defined_at):
            dirty.update(roots)
            _retarget(copy, temporary, defined_at)
            eliminated += 1
    return eliminated


def _can_retarget(copy: ir.Operation, copied_at: int, temporary: BufferInfo, target: BufferInfo | None,
                  last_users: dict[ir.Value, int], defined_at: dict[ir.Value, int]) -> bool:
    dest, src = copy.operands
    if temporary.kind != "alloc" or target is None or target is temporary or not covers_root(src):
        return False
    first_use, last_read = temporary.first_use, temporary.last_use
    if first_use == copied_at or any(a.index > copied_at and a.role != "in" for a in temporary.accesses):
        return False
    # Only accesses to the bytes `dest` covers matter: a concat's other parts may be written meanwhile.
    span = byte_range(dest)
    for access in target.accesses:
        if not _touches(access.op, target.buffer, span):
            continue
        if first_use <= access.index < copied_at:
            return False
        if copied_at < access.index <= last_read and access.role != "in":
            return False
    if target.kind == "alloc" and (target.end is None or target.end < last_users[temporary.buffer]):
        return False
    # `dest` must be defined before `%t` (outside the block: before all of it), or be an alloc or views of one,
    # which can move up there.
    root = root_buffer(dest)
    if dest not in defined_at:
        return True
    return root in defined_at and (defined_at[root] < temporary.start or defining_op(root).name == "buffer.alloc")


def _touches(op: ir.Operation, root: ir.Value, byte_span: tuple[int, int]) -> bool:
    """Whether `op` names any byte of `root` in [begin, end) (a region op: in its regions too)."""
    used = [value for value, _ in operand_roles(op)] if len(op.regions) else op.operands
    return any(root_buffer(value) == root and overlap(byte_range(value), byte_span) for value in used)


def _last_users(program: list[ir.Operation]) -> dict[ir.Value, int]:
    """Per root buffer, where the last op using it other than its dealloc is: an access, or creating a view.

    Keyed by buffer value and computed once per round, since ops are hashed by content and change."""
    last = {}
    for position, op in enumerate(program):
        if op.name != "buffer.dealloc":
            used = [value for value, _ in operand_roles(op)] if len(op.regions) else op.operands
            for value in used:
                last[root_buffer(value)] = position
    return last


def _retarget(copy: ir.Operation, temporary: BufferInfo, defined_at: dict[ir.Value, int]) -> None:
    """Replace `temporary` by the copy's destination, first moving up what defines it after `temporary`."""
    dest, src = copy.operands
    temporary_alloc = defining_op(temporary.buffer)
    for definition in _definition_chain(dest) if dest in defined_at else []:
        if defined_at[definition.results[0]] > temporary.start:
            definition.move_before(temporary_alloc)
    replacement = dest
    if dest.type != temporary.buffer.type:
        with ir.InsertionPoint(temporary_alloc), temporary_alloc.location:
            replacement = BUFFER.create("view", dest, result_types=[spec_of(temporary.buffer.type)],
                                        byte_offset=0).result
    dealloc_of(temporary.buffer).erase()
    copy.erase()
    erase_unused_views(src)
    temporary.buffer.replace_all_uses_with(replacement)
    temporary_alloc.erase()


def _definition_chain(value: ir.Value) -> list[ir.Operation]:
    """The ops defining `value`: its root buffer's, then each view down to `value`'s."""
    chain = [defining_op(value)]
    while chain[-1].name == "buffer.view":
        chain.append(defining_op(chain[-1].operands[0]))
    return chain[::-1]
