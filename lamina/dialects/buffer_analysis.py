"""Facts about a buffer-dialect function that passes, the verifier and memory
planning share: which buffer a value really is (through views), who reads and
writes it, and where its lifetime starts and ends."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from .buffer import BUFFER, BUFFER_SOURCES
from .irdl import IN_PLACE
from .model import body_ops
from .types import spec_of

# Instructions whose every output element is computed from the input elements
# at the same index, so they may write their destination over an input of
# the same type (Glow's `inplaceOperand`): the `in-place` trait, which
# element-wise arithmetic, activations and copies have; not comparisons (i1
# results), nor anything that moves or combines elements.
IN_PLACE_INSTRUCTIONS = BUFFER.with_trait(IN_PLACE)


def root_buffer(value: ir.Value) -> ir.Value:
    """The buffer `value` aliases: itself, or the source of the views it is made of."""
    while _is_view(value):
        value = value.owner.operands[0]
    return value


def view_offset(value: ir.Value) -> int:
    """Byte offset of `value` inside its root buffer."""
    offset = 0
    while _is_view(value):
        offset += BUFFER.view(value.owner).attr("byte_offset")
        value = value.owner.operands[0]
    return offset


def _is_view(value: ir.Value) -> bool:
    # `owner` is an OpView for op results and a Block for block arguments.
    owner = value.owner
    return isinstance(owner, (ir.Operation, ir.OpView)) and owner.name == "buffer.view"


def nbytes(value: ir.Value) -> int:
    return spec_of(value.type).nbytes


def covers_root(value: ir.Value) -> bool:
    """Whether `value` is all of its root buffer's bytes (the root, or a view of all of it)."""
    return view_offset(value) == 0 and nbytes(value) == nbytes(root_buffer(value))


def byte_range(value: ir.Value) -> tuple[int, int]:
    """The bytes [begin, end) of its root buffer that `value` covers."""
    begin = view_offset(value)
    return begin, begin + nbytes(value)


def overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether byte ranges [begin, end) a and b share a byte."""
    return a[0] < b[1] and b[0] < a[1]


def operand_roles(op: ir.Operation) -> list[tuple[ir.Value, str]]:
    """Each operand of a buffer instruction (copy and dealloc included) with its role."""
    definition = BUFFER.lookup(op)
    if definition is None or definition.name in BUFFER_SOURCES:
        return []
    return list(zip(op.operands, definition.operand_roles(len(op.operands))))


def users(buffer: ir.Value) -> list[ir.Operation]:
    """The ops using `buffer` directly or through views (the views included), unordered."""
    found = []
    pending = [buffer]
    while pending:
        for use in pending.pop().uses:
            owner = use.owner.operation
            found.append(owner)
            if owner.name == "buffer.view":
                pending.append(owner.results[0])
    return found


@dataclass
class Access:
    """One instruction's use of a buffer: position in the program, op, role."""

    index: int
    op: ir.Operation
    role: str  # "in", "out" or "inout" (an op both reading and writing it is "inout")


@dataclass
class BufferInfo:
    """What the program does with one root buffer."""

    buffer: ir.Value
    kind: str  # "alloc", "weight" or "constant"
    start: int  # program index of the op defining it
    end: int | None = None  # program index of its dealloc (allocs only)
    accesses: list[Access] = field(default_factory=list)

    @property
    def first_use(self) -> int | None:
        return self.accesses[0].index if self.accesses else None

    @property
    def last_use(self) -> int | None:
        return self.accesses[-1].index if self.accesses else None


def analyze(module: ir.Operation) -> tuple[list[ir.Operation], dict[ir.Value, BufferInfo]]:
    """The program (ops in order) and, per root buffer, its accesses and lifetime.

    A view's uses count as uses of its root buffer. An op that names a buffer
    several times gets one access whose role merges them.
    """
    program = body_ops(module)
    return program, analyze_program(program)


def analyze_program(program: list[ir.Operation]) -> dict[ir.Value, BufferInfo]:
    """`analyze` over a list of ops in program order (one function's body)."""
    buffers: dict[ir.Value, BufferInfo] = {}
    for index, op in enumerate(program):
        definition = BUFFER.lookup(op)
        if definition is None:
            continue
        if definition.name in ("alloc", "weight", "constant"):
            buffers[op.results[0]] = BufferInfo(op.results[0], definition.name, index)
        elif definition.name == "dealloc":
            info = buffers.get(root_buffer(op.operands[0]))
            if info is not None:
                info.end = index
        elif definition.name != "view":
            roles: dict[ir.Value, set[str]] = {}
            for value, role in zip(op.operands, definition.operand_roles(len(op.operands))):
                roles.setdefault(root_buffer(value), set()).add(role)
            for root, used_as in roles.items():
                role = next(iter(used_as)) if len(used_as) == 1 else "inout"
                if root in buffers:
                    buffers[root].accesses.append(Access(index, op, role))
    return buffers
