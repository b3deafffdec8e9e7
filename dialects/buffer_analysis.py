"""Facts about a buffer-dialect function that passes, the verifier and memory
planning share: which buffer a value really is (through views), who reads and
writes it, and where its lifetime starts and ends."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from .buffer import BUFFER
from .model import body_ops
from .types import spec_of


def root_buffer(value: ir.Value) -> ir.Value:
    """The buffer `value` aliases: itself, or the source of the views it is made of."""
    while True:
        owner = value.owner
        if isinstance(owner, ir.Operation) and owner.name == "buffer.view":
            value = owner.operands[0]
        else:
            return value


def view_offset(value: ir.Value) -> int:
    """Byte offset of `value` inside its root buffer."""
    offset = 0
    while isinstance(value.owner, ir.Operation) and value.owner.name == "buffer.view":
        offset += BUFFER.view(value.owner).attr("byte_offset")
        value = value.owner.operands[0]
    return offset


def nbytes(value: ir.Value) -> int:
    return spec_of(value.type).nbytes


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
    return program, buffers
