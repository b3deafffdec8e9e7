"""The buffer dialect's whole-function rules: what no single op can check.

Each op's own shape rule is checked by the dialect table; these rules are
about the program as a sequence (Glow's IR verifier plus the allocator's
checks), so that a pass that breaks a lifetime or a memory plan is caught
right after it runs, at the op that shows the problem:

- a `buffer.constant` or a non-mutable `buffer.weight` is never written;
- an instruction that writes bytes it also reads is element-wise
  (`IN_PLACE_INSTRUCTIONS`) and reads exactly the bytes it writes;
- an alloc is deallocated exactly once, after its last use (views and their
  uses included), in the block that allocates it (a loop body must not free
  a buffer that lives across iterations); only allocs are deallocated;
  uses inside a region op's regions count as uses by the op;
- once planned (offset >= 0): offsets are aligned, buffers fit in the region
  size recorded on the module, and buffers live at the same time do not
  share bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from mlir import ir

from .buffer import BUFFER, UNPLANNED
from .buffer_analysis import (IN_PLACE_INSTRUCTIONS, block_programs, byte_range, flat_ops, nbytes, operand_roles,
                              overlap, root_buffer)
from .values import defining_op

ALIGNMENT = 64  # bytes; every planned offset is a multiple of it (Glow's TensorAlignment)

# The module attribute recording the size of each region, by buffer kind.
ACTIVATION_BYTES = "buffer.activation_bytes"
CONSTANT_BYTES = "buffer.constant_bytes"
MUTABLE_BYTES = "buffer.mutable_bytes"

Problems = list[tuple[ir.Location, str]]


def verify_buffers(module: ir.Operation) -> Problems:
    """Every whole-function problem of the buffer functions in `module`."""
    problems: Problems = []
    for body in _function_bodies(module):
        blocks = block_programs(body)
        if not any(BUFFER.lookup(op) is not None for op in blocks[0]):
            continue
        deallocated: set[ir.Value] = set()
        for program in blocks:
            problems += _check_accesses(program, deallocated)
        problems += _never_deallocated(blocks, deallocated)
        problems += _check_placement(module, flat_ops(blocks[0]))
    return problems


def _function_bodies(module: ir.Operation) -> Iterator[ir.Block]:
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            yield from op.operation.regions[0].blocks


def _name(buffer: ir.Value) -> str:
    op = defining_op(buffer)
    if op is not None and "name" in op.attributes:
        return ir.StringAttr(op.attributes["name"]).value
    return buffer.get_name()


def _kind(buffer: ir.Value) -> str | None:
    """The name of the buffer op defining `buffer` ('alloc', 'view', ...); None for anything else."""
    op = defining_op(buffer)
    definition = BUFFER.lookup(op) if op is not None else None
    return definition.name if definition is not None else None


def _read_only(buffer: ir.Value) -> bool:
    kind = _kind(buffer)
    return kind == "constant" or (kind == "weight" and not BUFFER.view(defining_op(buffer)).attr("mutable"))


# ---------------------------------------------------------------------------
# Reads, writes and lifetimes, in program order.
# ---------------------------------------------------------------------------


def _check_accesses(program: list[ir.Operation], deallocated: set[ir.Value]) -> Problems:
    """One block's ops in order; `deallocated` collects the allocs freed (in any block)."""
    problems: Problems = []
    here: set[ir.Value] = set()  # freed in this block: later uses here (or in its regions) are too late
    for op in program:
        if op.name == "buffer.dealloc":
            problems += _check_dealloc(op, deallocated)
            here.add(op.operands[0])
            continue
        used = [value for value, _ in operand_roles(op)] if len(op.regions) else op.operands
        for root in {root_buffer(value) for value in used}:
            if root in here:
                problems.append((op.location, f"uses buffer '{_name(root)}' after its dealloc"))
        problems += _check_writes(op)
    return problems


def _never_deallocated(blocks: list[list[ir.Operation]], deallocated: set[ir.Value]) -> Problems:
    return [(op.location, f"buffer '{_name(op.results[0])}' is never deallocated")
            for program in blocks for op in program
            if op.name == "buffer.alloc" and op.results[0] not in deallocated]


def _check_dealloc(op: ir.Operation, deallocated: set[ir.Value]) -> Problems:
    buffer = op.operands[0]
    if _kind(buffer) != "alloc":
        return [(op.location, f"deallocates a {_kind(buffer) or 'value'}, not a 'buffer.alloc'")]
    if buffer in deallocated:
        return [(op.location, f"deallocates buffer '{_name(buffer)}' a second time")]
    deallocated.add(buffer)
    if defining_op(buffer).block != op.block:
        return [(op.location, f"deallocates buffer '{_name(buffer)}' inside a region it was not allocated in; "
                              "a buffer is freed in the block that allocates it (a loop body would free it at "
                              "every iteration)")]
    return []


def _check_writes(op: ir.Operation) -> Problems:
    """Writes go to writable buffers, and overlap what the op reads only when it runs in place."""
    problems: Problems = []
    roles = operand_roles(op)
    if not roles:
        return []
    written = [value for value, role in roles if role != "in"]
    for value in written:
        if _read_only(root_buffer(value)):
            problems.append((op.location, f"writes read-only buffer '{_name(root_buffer(value))}'"))
    if len(op.regions):
        return problems  # a region op's operands are its buffers, not one computation's inputs and outputs
    in_place = BUFFER.lookup(op).name in IN_PLACE_INSTRUCTIONS
    for written_at, (target, written_as) in enumerate(roles):
        for read_at, (source, read_as) in enumerate(roles):
            if written_as == "in" or read_as == "out" or read_at == written_at:
                continue
            if root_buffer(source) != root_buffer(target) or not overlap(byte_range(source), byte_range(target)):
                continue
            if not (in_place and byte_range(source) == byte_range(target)):
                problems.append((op.location, f"operand #{read_at} reads bytes of '{_name(root_buffer(source))}' "
                                              f"that operand #{written_at} writes; only element-wise instructions "
                                              f"run in place, reading exactly the bytes they write"))
    return problems


# ---------------------------------------------------------------------------
# The memory plan: offsets, region sizes and simultaneously live buffers.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Placed:
    """A planned buffer: where it lives in its region and when, in program indices."""

    op: ir.Operation
    region: str  # the module attribute holding the region's size
    begin: int
    end: int
    birth: int
    death: int


def _check_placement(module: ir.Operation, program: list[ir.Operation]) -> Problems:
    problems: Problems = []
    placed = []
    deaths = {op.operands[0]: index for index, op in enumerate(program) if op.name == "buffer.dealloc"}
    for index, op in enumerate(program):
        region = region_of(op)
        if region is None or BUFFER.view(op).attr("offset") == UNPLANNED:
            continue
        offset = BUFFER.view(op).attr("offset")
        # Weights and constants live through the whole program; allocs until their dealloc.
        if region == ACTIVATION_BYTES:
            birth, death = index, deaths.get(op.results[0], len(program))
        else:
            birth, death = 0, len(program)
        buffer = _Placed(op, region, offset, offset + nbytes(op.results[0]), birth, death)
        problems += _check_offset(module, buffer)
        placed.append(buffer)
    return problems + _check_overlaps(placed)


def region_of(op: ir.Operation) -> str | None:
    """The region a buffer-declaring op is placed in, named by its size attribute."""
    if op.name == "buffer.alloc":
        return ACTIVATION_BYTES
    if op.name == "buffer.constant":
        return CONSTANT_BYTES
    if op.name == "buffer.weight":
        return MUTABLE_BYTES if BUFFER.view(op).attr("mutable") else CONSTANT_BYTES
    return None


def _check_offset(module: ir.Operation, buffer: _Placed) -> Problems:
    where = buffer.op.location
    if buffer.begin < 0 or buffer.begin % ALIGNMENT:
        return [(where, f"offset {buffer.begin} is not a multiple of {ALIGNMENT} bytes (or -1: unplanned)")]
    if buffer.region not in module.attributes:
        return [(where, f"is placed at offset {buffer.begin} but the module records no '{buffer.region}'")]
    attribute = module.attributes[buffer.region]
    if not isinstance(attribute, ir.IntegerAttr):
        return [(where, f"module attribute '{buffer.region}' must be an integer byte size, got {str(attribute)[:40]}")]
    size = ir.IntegerAttr(attribute).value
    if buffer.end > size:
        return [(where, f"bytes [{buffer.begin}, {buffer.end}) do not fit in the {size} bytes of '{buffer.region}'")]
    return []


def _check_overlaps(placed: list[_Placed]) -> Problems:
    """Buffers of one region that are live at the same time and share bytes, each pair once.

    A sweep in order of birth: only the buffers still alive are compared.
    """
    problems: Problems = []
    alive: dict[str, list[_Placed]] = {}  # per region
    for buffer in sorted(placed, key=lambda b: b.birth):
        others = [other for other in alive.get(buffer.region, []) if other.death > buffer.birth]
        for other in others:
            if overlap((other.begin, other.end), (buffer.begin, buffer.end)):
                problems.append((buffer.op.location,
                                 f"bytes [{buffer.begin}, {buffer.end}) overlap those of "
                                 f"'{_name(other.op.results[0])}' ([{other.begin}, {other.end}) in "
                                 f"'{buffer.region}'), which is live at the same time"))
        alive[buffer.region] = [*others, buffer]
    return problems
