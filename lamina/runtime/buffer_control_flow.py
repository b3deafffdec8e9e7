"""The buffer interpreter's region ops: `buffer.if`, `buffer.loop`, `buffer.scan` (lamina/dialects/buffer_control_flow.py).

They run in the interpreter's one byte arena like every instruction: the
condition, the iteration number and the carried values are buffers the body
reads and rewrites, and a block argument is bound, each iteration, to the
bytes of its slice of a scanned input or scan output (`memory.bind`). A
region's allocs are poisoned when allocated and freed, every iteration, so
a value that a wrong memory plan lets die inside a body reads as garbage.
"""

from __future__ import annotations

from typing import Callable

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_control_flow import loop_groups, scan_groups
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.types import spec_of
from lamina.kernels.control_flow import truth

RunBlock = Callable[[ir.Block], None]


def run_region_op(op: ir.Operation, memory, run_block: RunBlock) -> None:
    """Execute region op `op`; `run_block` runs one of its blocks' instructions."""
    RUNNERS[BUFFER.lookup(op).name](op, memory, run_block)


def _run_if(op: ir.Operation, memory, run_block: RunBlock) -> None:
    run_block(op.regions[0 if truth(memory.array(op.operands[0])) else 1].blocks[0])


def _slice_bytes(buffer: ir.Value) -> int:
    spec = spec_of(buffer.type)
    return spec.nbytes // spec.shape[0] if spec.shape[0] else 0


def _bind_slices(memory, arguments, buffers, positions) -> None:
    for argument, buffer, position in zip(arguments, buffers, positions):
        memory.bind(argument, buffer, position * _slice_bytes(buffer))


def _run_loop(op: ir.Operation, memory, run_block: RunBlock) -> None:
    trip_count, condition, iteration = op.operands[:3]
    _, outputs = loop_groups(op)
    body = op.regions[0].blocks[0]
    length = spec_of(outputs[0].type).shape[0] if outputs else None
    count, done = int(memory.array(trip_count)), 0
    while done < count and truth(memory.array(condition)):
        if length is not None and done == length:
            raise LaminaError(f"{format_location(op.location)}: error: the loop runs more than the {length} "
                              "iterations its scan outputs hold")
        memory.array(iteration)[...] = done
        _bind_slices(memory, body.arguments, outputs, [done] * len(outputs))
        run_block(body)
        done += 1
    if length is not None and done != length:
        raise LaminaError(f"{format_location(op.location)}: error: the loop ran {done} iterations, but its scan "
                          f"outputs have the static length {length}")


def _position(step: int, length: int, direction: int) -> int:
    return length - 1 - step if direction else step


def _run_scan(op: ir.Operation, memory, run_block: RunBlock) -> None:
    _, inputs, outputs = scan_groups(op)
    view = BUFFER.view(op)
    directions = [*view.attr("scan_input_directions"), *view.attr("scan_output_directions")]
    scanned = [*inputs, *outputs]
    length = spec_of(scanned[0].type).shape[0]
    body = op.regions[0].blocks[0]
    for step in range(length):
        _bind_slices(memory, body.arguments, scanned, [_position(step, length, d) for d in directions])
        run_block(body)


RUNNERS = {"if": _run_if, "loop": _run_loop, "scan": _run_scan}
assert set(RUNNERS) == {name for name, d in BUFFER.ops.items() if d.regions}, "a buffer region op without a runner"
