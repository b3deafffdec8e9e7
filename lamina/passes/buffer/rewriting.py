"""Small rewrites the buffer passes share: finding and erasing buffers and their views."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.buffer_analysis import users
from lamina.dialects.values import defining_op


def positions(program: list[ir.Operation]) -> dict[ir.Operation, int]:
    """Each op's index in the program, until the IR changes.

    The bindings hash an op by its content: once an operand or attribute of
    an op changes, it is no longer found here. Key by values (stable) when
    indices must outlive rewrites.
    """
    return {op: index for index, op in enumerate(program)}


def definition_positions(program: list[ir.Operation]) -> dict[ir.Value, int]:
    """The index of the op defining each value the program defines; stable across rewrites."""
    return {result: index for index, op in enumerate(program) for result in op.results}


def dealloc_of(alloc: ir.Value) -> ir.Operation | None:
    """The `buffer.dealloc` ending `alloc`'s lifetime (verified IR has exactly one)."""
    return next((use.owner.operation for use in alloc.uses if use.owner.name == "buffer.dealloc"), None)


def erase_unused_views(value: ir.Value) -> None:
    """Erase `value`'s view op if nothing uses it, then its source's if that became unused, and so on."""
    op = defining_op(value)
    while op is not None and op.name == "buffer.view" and next(iter(op.results[0].uses), None) is None:
        source = op.operands[0]
        op.erase()
        op = defining_op(source)


def erase_buffer(alloc: ir.Value) -> None:
    """Erase an alloc that only its views and its dealloc use, with them."""
    for user in reversed(users(alloc)):  # uses of a view come after the view in `users`
        user.erase()
    defining_op(alloc).erase()
