"""Small rewrites the buffer passes share: finding and erasing buffers and their views."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import users
from lamina.dialects.values import defining_op


def positions(program: list[ir.Operation]) -> dict[ir.Operation, int]:
    """Each op's index in the program, until the IR changes.

    The bindings hash an op by its content: once an operand or attribute of
    an op changes, it is no longer found here. Key by values (stable) when
    indices must outlive rewrites.
    """
    return {op: index for index, op in enumerate(program)}


def in_block(op: ir.Operation, index: dict[ir.Operation, int]) -> ir.Operation:
    """`op`, or the region op holding it among the ops `index` numbers (one block): a use inside a
    loop body is, in the block around the loop, a use by the loop, every iteration."""
    while op not in index:
        op = op.parent.operation
    return op


def definition_positions(program: list[ir.Operation]) -> dict[ir.Value, int]:
    """The index of the op defining each value the program defines; stable across rewrites."""
    return {result: index for index, op in enumerate(program) for result in op.results}


def dealloc_of(alloc: ir.Value) -> ir.Operation | None:
    """The `buffer.dealloc` ending `alloc`'s lifetime (verified IR has exactly one)."""
    return next((use.owner.operation for use in alloc.uses if use.owner.name == "buffer.dealloc"), None)


def deallocs_by_buffer(program: list[ir.Operation]) -> dict[ir.Value, ir.Operation]:
    """Each buffer's `buffer.dealloc`, found once: `dealloc_of` scans a buffer's uses, which grow as
    rewrites merge buffers (a chain of in-place ops made that quadratic)."""
    return {op.operands[0]: op for op in program if op.name == "buffer.dealloc"}


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


def flatten_views(module: ir.Operation) -> None:
    """Make every view of a view a view of its root (offsets added), erasing views left unused.

    Retargeting a buffer into part of another nests its views one level
    deeper each time; a 512-input Concat nested them 512 deep, and every
    later `root_buffer` walked the chain.
    """
    views = []

    def collect(op: ir.Operation):
        if op.name == "buffer.view":
            views.append(op)
        return ir.WalkResult.ADVANCE

    module.walk(collect)  # definitions come before uses: a view's source is flattened before it
    for op in views:
        if op.name != "buffer.view":
            continue
        source = defining_op(op.operands[0])
        if source is None or source.name != "buffer.view":
            continue
        offset = BUFFER.view(op).attr("byte_offset") + BUFFER.view(source).attr("byte_offset")
        op.attributes["byte_offset"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), offset)
        op.operands[0] = source.operands[0]
        erase_unused_views(source.results[0])
