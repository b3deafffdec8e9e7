"""buffer-copy-propagation: read a copy's source instead of its destination."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import operand_roles, programs, root_buffer
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class CopyPropagation(Pass):
    """After `buffer.copy(%a, %b)`, let later instructions read `%b` where they read `%a`.

    While neither buffer is written again, `%a` and `%b` hold the same
    values, so an `in` operand `%a` may be `%b`. The window closes at the
    first later op that writes either buffer (through any view) or
    deallocates `%b`'s buffer (or any op of another dialect using either, as
    it might write it); an op writing only `%a`'s buffer still has its
    reads rewritten, as it reads them before it writes. Only operands that
    are the value `%a` itself change (a view of `%a` is another value).
    Copies are visited in program order, so chains of copies collapse onto
    the first source. Each block on its own (a window never leaves the
    copy's block); a region op using either buffer in its regions closes
    the window, as its regions are not rewritten.

    The copy stays: when nothing reads `%a` any more it is a dead store that
    `buffer-dce` erases (a copy into a weight is the model's output and
    stays). Legal on verified IR.
    """

    name = "buffer-copy-propagation"
    summary = "Make reads of a copy's destination read its source while both are unchanged"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        for program in programs(op):
            for index, copy in enumerate(program):
                if copy.name == "buffer.copy":
                    _propagate(copy, program[index + 1:])


def _propagate(copy: ir.Operation, later: list[ir.Operation]) -> None:
    dest, source = copy.operands
    dest_root, source_root = root_buffer(dest), root_buffer(source)
    if dest_root == source_root:
        return
    for op in later:
        if op.name == "buffer.dealloc" and root_buffer(op.operands[0]) in (dest_root, source_root):
            return
        if BUFFER.lookup(op) is None and {root_buffer(v) for v in op.operands} & {dest_root, source_root}:
            return  # an op of another dialect may write what it uses
        roles = operand_roles(op)
        if len(op.regions) and {root_buffer(value) for value, _ in roles} & {dest_root, source_root}:
            return
        written = {root_buffer(value) for value, role in roles if role != "in"}
        if source_root in written:
            return
        for position, (value, role) in enumerate(roles):
            if role == "in" and value == dest:
                op.operands[position] = source
        if dest_root in written:
            return
