"""buffer-inplace: element-wise instructions write over an input that dies there."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import (IN_PLACE_INSTRUCTIONS, BufferInfo, analyze_program, operand_roles,
                                             programs, root_buffer)
from lamina.dialects.values import defining_op
from lamina.passes.registry import Pass, register_pass

from .rewriting import deallocs_by_buffer, definition_positions


@register_pass
@dataclass(frozen=True)
class InPlace(Pass):
    """Let an element-wise instruction write its result over an input whose last use it is (Glow's in-place reuse).

    For an instruction of `IN_PLACE_INSTRUCTIONS` (element-wise arithmetic,
    activations, copies: each output element is computed from the input
    elements at the same index) whose destination is a fresh alloc `%d`
    (this instruction is its first use) and whose `in` operand `%s` has `%d`'s
    type, lives in an alloc, and is never used after this instruction, `%d`
    is replaced by `%s` everywhere: the instruction runs in place, `%s`'s
    alloc lives until `%d`'s dealloc if that is later, and `%d` goes. The instruction must not
    read other bytes of `%s`'s alloc, and `%s` must be defined before `%d`'s
    alloc, so that it dominates every use of `%d`. A rewritten copy becomes
    a copy onto itself, which `buffer-eliminate-copies` erases.

    "Last use" is the last access through any view, not the dealloc's
    position, so the pass needs no lifetime tightening before it (IRGen's
    deallocs at the end are fine). Legal on verified IR: no later op reads
    `%s`'s old values, and the verifier accepts exactly these in-place
    instructions.

    Each block on its own: the input must be an alloc of the instruction's
    block, so a loop body never writes over a buffer of the enclosing blocks
    (a carried value, read again next iteration), and a use inside a later
    region op counts as a use by that op.
    """

    name = "buffer-inplace"
    summary = "Run element-wise instructions in place over an input they read last"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        for program in programs(op):
            _run_in_block(program)


def _run_in_block(program: list[ir.Operation]) -> None:
    buffers = analyze_program(program)
    defined_at = definition_positions(program)
    deallocs = deallocs_by_buffer(program)
    # Only allocs and deallocs are erased below, never these.
    candidates = [(index, op) for index, op in enumerate(program)
                  if BUFFER.lookup(op) and BUFFER.lookup(op).name in IN_PLACE_INSTRUCTIONS]
    for index, instruction in candidates:
        dest = buffers.get(instruction.operands[0])
        source = _dying_input(instruction, index, dest, buffers, defined_at)
        if source is not None:
            _write_over(dest, source, buffers, deallocs)


def _dying_input(instruction: ir.Operation, index: int, dest: BufferInfo | None, buffers: dict,
                 defined_at: dict[ir.Value, int]) -> ir.Value | None:
    """The input `instruction` (at `index`) may overwrite with its result, if any."""
    if dest is None or dest.kind != "alloc" or dest.first_use != index:
        return None
    roles = operand_roles(instruction)
    for value, role in roles:
        source = buffers.get(root_buffer(value))
        if (role == "in" and value.type == dest.buffer.type and source is not None and source.kind == "alloc"
                and source.last_use == index and defined_at[value] < dest.start
                and all(other == value for other, _ in roles if root_buffer(other) == source.buffer)):
            return value
    return None


def _write_over(dest: BufferInfo, source: ir.Value, buffers: dict, deallocs: dict[ir.Value, ir.Operation]) -> None:
    """Replace `dest` by `source`, whose buffer now lives as long as `dest` did."""
    kept = buffers[root_buffer(source)]
    # `kept` lives until the later of the two deallocs (it may still be
    # viewed after its last access). The analysis stays valid for later
    # instructions: indices keep their order, and `kept` takes `dest`'s later
    # accesses and end.
    if dest.end > kept.end:
        deallocs[kept.buffer].move_before(deallocs[dest.buffer])
        kept.end = dest.end
    kept.accesses += dest.accesses[1:]
    del buffers[dest.buffer]
    deallocs.pop(dest.buffer).erase()
    alloc = defining_op(dest.buffer)
    dest.buffer.replace_all_uses_with(source)
    alloc.erase()
