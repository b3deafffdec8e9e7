"""Facts about a buffer-dialect function that passes, the verifier and memory
planning share: which buffer a value really is (through views), who reads and
writes it, and where its lifetime starts and ends.

Region ops (`buffer.if`, `buffer.loop`, `buffer.scan`) count, in the block
holding them, as accessing every buffer of the enclosing blocks that their
regions use (`operand_roles`): such a buffer is live across the whole op,
every iteration included. `programs` lists every block (the function's,
then each region's) for passes that work block by block; `analyze_flat`
numbers all ops in one pre-order walk for memory planning, where a region's
allocs live inside the op's span.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from .buffer import BUFFER, BUFFER_SOURCES
from .buffer_control_flow import declared_roles
from .graph_control_flow import TERMINATOR
from .irdl import IN_PLACE
from .model import body_ops, main_function
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


def own_roles(op: ir.Operation) -> list[tuple[ir.Value, str]]:
    """Each operand of a buffer instruction (copy, dealloc and region ops included) with its role."""
    definition = BUFFER.lookup(op)
    if definition is None or definition.name in BUFFER_SOURCES:
        return []
    roles = declared_roles(op) if definition.regions else definition.operand_roles(len(op.operands))
    return list(zip(op.operands, roles))


def operand_roles(op: ir.Operation) -> list[tuple[ir.Value, str]]:
    """`own_roles`, and for a region op also each buffer of the enclosing blocks its regions use (its root,
    after the operands): "in" if they only read it, else "inout" (a write in a body may be partial or
    conditional)."""
    roles = own_roles(op)
    if not len(op.regions) or not roles:
        return roles
    known = {root_buffer(value) for value in op.operands}
    inner: set[ir.Value] = set()
    used: dict[ir.Value, set[str]] = {}

    def visit(nested: ir.Operation) -> ir.WalkResult:
        if nested != op:
            inner.update(nested.results)
            for value, role in own_roles(nested):
                used.setdefault(root_buffer(value), set()).add(role)
        for region in nested.regions:
            for block in region.blocks:
                inner.update(block.arguments)
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    return roles + [(root, "in" if used_as == {"in"} else "inout") for root, used_as in used.items()
                    if root not in known and root not in inner]


def block_ops(block: ir.Block) -> list[ir.Operation]:
    """A block's ops in order, its terminator (func.return, gpu.yield) excluded."""
    return [op.operation for op in block.operations if op.operation.name not in ("func.return", TERMINATOR)]


def programs(module: ir.Operation) -> list[list[ir.Operation]]:
    """The ops of every block of the model's function: its body, then each region's block (pre-order)."""
    return block_programs(main_function(module).regions[0].blocks[0])


def block_programs(body: ir.Block) -> list[list[ir.Operation]]:
    """`programs` of one function body."""
    found = []

    def collect(block: ir.Block) -> None:
        ops = block_ops(block)
        found.append(ops)
        for op in ops:
            for region in op.regions:
                for nested in region.blocks:
                    collect(nested)

    collect(body)
    return found


def flat_ops(ops: list[ir.Operation]) -> list[ir.Operation]:
    """`ops` with each region op followed by its regions' ops, recursively (one pre-order numbering; at any
    level: graph or buffer ops)."""
    flat = []
    for op in ops:
        flat.append(op)
        for region in op.regions:
            for block in region.blocks:
                flat += flat_ops(block_ops(block))
    return flat


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
    kind: str  # "alloc", "weight" or "constant"; "outer": a buffer of an enclosing block (`analyze_program`)
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


def analyze_flat(module: ir.Operation) -> tuple[list[ir.Operation], dict[ir.Value, BufferInfo]]:
    """`analyze` over every op of the function, regions' ops included, numbered in one pre-order walk
    (`flat_ops`): each op's own accesses only, every alloc's lifetime inside the block that deallocates it.
    What memory planning places: a region's allocs live within the region op's span, alongside the buffers
    of the enclosing blocks that live across it."""
    program = flat_ops(body_ops(module))
    return program, analyze_program(program, own_roles)


def analyze_program(program: list[ir.Operation], roles=operand_roles, outer: bool = False) -> dict[ir.Value, BufferInfo]:
    """`analyze` over a list of ops in program order (one block); `roles` gives each op's accesses. With
    `outer`, the buffers the block uses but does not declare (a region's view of the enclosing blocks' buffers
    and its block arguments) get infos of kind "outer" too, starting before the block (-1)."""
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
            merged: dict[ir.Value, set[str]] = {}
            for value, role in roles(op):
                merged.setdefault(root_buffer(value), set()).add(role)
            for root, used_as in merged.items():
                role = next(iter(used_as)) if len(used_as) == 1 else "inout"
                if root not in buffers and outer:
                    buffers[root] = BufferInfo(root, "outer", -1)
                if root in buffers:
                    buffers[root].accesses.append(Access(index, op, role))
    return buffers
