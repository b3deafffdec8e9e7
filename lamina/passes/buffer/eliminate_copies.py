"""buffer-eliminate-copies: let a copy's producer write the copy's destination."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import BufferInfo, analyze, byte_range, covers_root, overlap, root_buffer, users
from lamina.dialects.types import spec_of
from lamina.dialects.values import defining_op
from lamina.passes.registry import Pass, register_pass

from .rewriting import dealloc_of, definition_positions, erase_unused_views, positions


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
    """

    name = "buffer-eliminate-copies"
    summary = "Make a copy's producer write the copy's destination; erase copies onto themselves"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        # Each elimination moves and erases ops: look again until nothing changes.
        while _eliminate_one(op):
            pass


def _eliminate_one(module: ir.Operation) -> bool:
    program, buffers = analyze(module)
    index, defined_at = positions(program), definition_positions(program)
    for copied_at, copy in enumerate(program):
        if copy.name != "buffer.copy":
            continue
        dest, src = copy.operands
        if root_buffer(dest) == root_buffer(src) and byte_range(dest) == byte_range(src):
            copy.erase()
            erase_unused_views(src)
            erase_unused_views(dest)
            return True
        temporary = buffers.get(root_buffer(src))
        target = buffers.get(root_buffer(dest))
        if temporary is not None and _can_retarget(copy, copied_at, temporary, target, index, defined_at):
            _retarget(copy, temporary, defined_at)
            return True
    return False


def _can_retarget(copy: ir.Operation, copied_at: int, temporary: BufferInfo, target: BufferInfo | None,
                  index: dict[ir.Operation, int], defined_at: dict[ir.Value, int]) -> bool:
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
    if target.kind == "alloc" and (target.end is None or target.end < _last_user(temporary, index)):
        return False
    # `dest` must be defined before `%t`, or be an alloc or views of one, which can move up there.
    root = root_buffer(dest)
    return dest in defined_at and (defined_at[root] < temporary.start or defining_op(root).name == "buffer.alloc")


def _touches(op: ir.Operation, root: ir.Value, byte_span: tuple[int, int]) -> bool:
    """Whether `op` names any byte of `root` in [begin, end)."""
    return any(root_buffer(value) == root and overlap(byte_range(value), byte_span) for value in op.operands)


def _last_user(buffer: BufferInfo, index: dict[ir.Operation, int]) -> int:
    """Where the last op using `buffer` other than its dealloc is: an access, or creating a view."""
    return max(index[user] for user in users(buffer.buffer) if user.name != "buffer.dealloc")


def _retarget(copy: ir.Operation, temporary: BufferInfo, defined_at: dict[ir.Value, int]) -> None:
    """Replace `temporary` by the copy's destination, first moving up what defines it after `temporary`."""
    dest, src = copy.operands
    temporary_alloc = defining_op(temporary.buffer)
    for definition in _definition_chain(dest):
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
