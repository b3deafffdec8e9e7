"""Where memory objects live: concat placement, Vars in DRAM0, Consts in DRAM1.

Concats are placements, not copies, when they can be: the output is one Vars
object and each input that a layer produces is saved straight into a
`hir.view` of it at its channel offset. That needs the offset to be a
multiple of N and the input to end on a tile boundary (or at the end of the
output): whole channel tiles are the unit of the layout. An input that
cannot be placed (a model input, a value the host reads, one already placed
in another concat) is copied by a load -> save layer. An N-input concat is a
chain of binary concats; a link read only by the next one is not stored, so
the last link places or copies all the chain's inputs (its leaves), and
leaves whose channels are not tile-aligned are built, per group of leaves
sharing channel tiles, by 1x1 matmuls with 0/1 selection weights into the
group's tiles, each after the first adding what the group already holds
(exact in fixed point: x + 0). Work grows with the leaves, not with the
square of the chain.

Vars are placed after emission from the HIR program itself: model inputs
first from vector 0 and kept for the whole program, then every other object
first fit, reusing the space of objects whose lifetime (in layers and host
segments, whole steps: the scheduler may interleave a layer's reads and
writes) has ended. Model outputs live to the end.

Consts are laid out one after the other when they fit DRAM1 with room for
the scheduler's own constants (`SCHEDULER_CONSTS_RESERVE`). Otherwise they
are paged: Consts that one layer reads (its weights) are grouped, in program
order, into pages of at most the room DRAM1 has left; every page starts at
vector 0 and the host loads page k over page k - 1 before its first layer
(the plan's consts steps). Consts several layers share stay resident above
the page region, followed by the scheduler's constants.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from mlir import ir

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.data_layout import vector_count
from lamina.dialects.context import embedded_source
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import HIR, object_kind
from lamina.dialects.irdl import I64, INTERFACE, MEMORY_OBJECT, VIEW
from lamina.dialects.model import body_ops
from lamina.dialects.types import spec_of
from lamina.dialects.values import defining_op, op_name, users

from lamina.passes.conversion.hir_to_lir.emitter import SCHEDULER_CONSTS_RESERVE, weights_room

from .partition import host_interface


@dataclass(frozen=True)
class Placement:
    """A value stored inside a concat's output: channels [offset, offset + C) of `root`."""

    root: ir.Value
    offset: int


@dataclass(frozen=True)
class ConcatCopy:
    """One layer writing an input of `concat` into its output at channel `offset`.

    `select`: a 1x1 matmul with 0/1 weights (misaligned inputs) writing the
    output's channels [span[0], span[0] + span[1]) (whole tiles, zeros where
    other inputs go), which with `accumulate` adds what those channels
    already hold; otherwise a load -> save into a view.
    """

    concat: ir.Operation
    input: ir.Value
    offset: int
    select: bool
    accumulate: bool = False
    span: tuple[int, int] = (0, 0)


@dataclass
class ConcatPlan:
    placements: dict[ir.Value, Placement] = field(default_factory=dict)
    copies: dict[ir.Operation, list[ConcatCopy]] = field(default_factory=dict)

    def home(self, value: ir.Value) -> Placement:
        """Where a concat's output lives: inside another concat's output, or its own root."""
        return self.placements.get(value, Placement(value, 0))


def _channels(value: ir.Value) -> int:
    return spec_of(value.type).shape[1]


def _fits(offset: int, channels: int, total: int, lanes: int) -> bool:
    end = offset + channels
    return offset % lanes == 0 and (end % lanes == 0 or end == total)


def _is_output_or_view(op: ir.Operation) -> bool:
    """A reader that needs its operand in Vars of its own: a model output, or a view of its memory."""
    definition = GRAPH.lookup(op)
    return definition is not None and (definition.has(INTERFACE) or definition.has(VIEW))


def plan_concats(ops: list[ir.Operation], verdicts: dict[ir.Operation, str | None], lanes: int) -> ConcatPlan:
    """Views or copies for every accelerated concat (consumers first, so nested concats share one root).

    A concat read only by another accelerated concat is part of it: an
    N-input ONNX Concat is a chain of N - 1 binary concats, and copying each
    link's whole output into the next made the chain quadratic. The outermost
    concat places or copies the chain's leaves, tile group by tile group.
    """
    plan = ConcatPlan()

    def accelerated_concat(op: ir.Operation | None) -> bool:
        return op is not None and op in verdicts and verdicts[op] is None and op_name(op) == "concat"

    def placeable(value: ir.Value) -> bool:
        op = defining_op(value)
        if op is None or verdicts.get(op, "not computed") is not None or op_name(op) == "reshape":
            return False
        readers = users(value)
        return value not in plan.placements and all(
            verdicts.get(user) is None and not _is_output_or_view(user) for user in readers)

    def inlined(value: ir.Value) -> bool:
        readers = users(value)
        return accelerated_concat(defining_op(value)) and len(readers) == 1 and accelerated_concat(readers[0])

    def leaves(concat: ir.Operation) -> list[tuple[ir.Value, int]]:
        """The chain's inputs that are not inlined concats, with their channel offsets."""
        found = []
        pending = [(concat.operands[1], _channels(concat.operands[0])), (concat.operands[0], 0)]
        while pending:
            value, offset = pending.pop()
            if not inlined(value):
                found.append((value, offset))
                continue
            lhs, rhs = defining_op(value).operands
            pending += [(rhs, offset + _channels(lhs)), (lhs, offset)]
        return found

    for concat in reversed([op for op in ops if accelerated_concat(op)]):
        if inlined(concat.result):
            continue
        home, pieces, channels = plan.home(concat.result), leaves(concat), _channels(concat.result)
        repeated = {value for value, count in Counter(value for value, _ in pieces).items() if count > 1}
        copies = []
        for group in _tile_groups(pieces, lanes):
            value, offset = group[0]
            if len(group) == 1 and _fits(home.offset + offset, _channels(value), _channels(home.root), lanes):
                if placeable(value) and value not in repeated:
                    plan.placements[value] = Placement(home.root, home.offset + offset)
                else:
                    copies.append(ConcatCopy(concat, value, offset, select=False))
                continue
            start = offset - offset % lanes
            stop = min(-(-(group[-1][1] + _channels(group[-1][0])) // lanes) * lanes, channels)
            copies += [ConcatCopy(concat, value, offset, select=True, accumulate=index > 0, span=(start, stop - start))
                       for index, (value, offset) in enumerate(group)]
        plan.copies[concat] = copies
    return plan


def _tile_groups(pieces: list[tuple[ir.Value, int]], lanes: int) -> list[list[tuple[ir.Value, int]]]:
    """Pieces (in channel order) grouped so that no channel tile holds two groups' channels."""
    groups: list[list[tuple[ir.Value, int]]] = []
    for value, offset in pieces:
        if groups and offset % lanes != 0:
            groups[-1].append((value, offset))
        else:
            groups.append([(value, offset)])
    return groups


# ---------------------------------------------------------------------------
# DRAM allocation over the emitted HIR program.
# ---------------------------------------------------------------------------


def _program_steps(module: ir.Operation) -> list[tuple[int, ir.Operation]]:
    """(step, op) for every op that is not an object declaration; a step is a layer or a host segment."""
    steps, keys = [], {}
    for op in body_ops(module):
        definition = HIR.lookup(op)
        if definition is None or definition.has(MEMORY_OBJECT):
            continue
        key = ("host", HIR.view(op).attr("segment")) if definition.name == "host" else \
            ("layer", HIR.view(op).attr("layer"))
        steps.append((keys.setdefault(key, len(keys)), op))
    return steps


def _root_name(value: ir.Value) -> str | None:
    kind = object_kind(value)
    if kind == "view":
        return _root_name(value.owner.operands[0])
    if kind == "vars":
        return HIR.view(value.owner).attr("name")
    return None


def allocate(module: ir.Operation, architecture: Architecture, inputs: list[str], outputs: list[str]) -> None:
    """Give every `hir.vars` and `hir.consts` its `base` (in vectors)."""
    lanes = architecture.array_size
    vars_ops: dict[str, list[ir.Operation]] = {}
    consts_steps: dict[ir.Value, set[int]] = {}
    for op in body_ops(module):
        kind = HIR.lookup(op).name if HIR.lookup(op) else None
        if kind == "vars":
            vars_ops.setdefault(HIR.view(op).attr("name"), []).append(op)
        elif kind == "consts":
            consts_steps[op.result] = set()

    lifetimes: dict[str, list[int]] = {}

    def touch(name: str | None, step: int) -> None:
        if name in vars_ops:
            span = lifetimes.setdefault(name, [step, step])
            span[0], span[1] = min(span[0], step), max(span[1], step)

    steps = _program_steps(module)
    for step, op in steps:
        if op.name == "hir.host":
            reads, writes, _ = host_interface(HIR.view(op).attr("module"), module.context, embedded_source(op, "module"))
            for name in reads + writes:
                touch(name, step)
        for operand in op.operands:
            touch(_root_name(operand), step)
            if operand in consts_steps:
                consts_steps[operand].add(step)
    end = steps[-1][0] if steps else 0

    sizes = {name: max(vector_count(spec_of(op.result.type).shape, lanes) for op in ops)
             for name, ops in vars_ops.items()}
    bases: dict[str, int] = {}
    next_input = 0
    for name in inputs:
        if name in vars_ops:
            bases[name] = next_input
            next_input += sizes[name]
    placed: list[tuple[int, int, int, int]] = []  # (base, size, first, last)
    others = [name for name in vars_ops if name not in bases]
    for name in sorted(others, key=lambda n: lifetimes.get(n, [0, 0])[0]):
        first, last = lifetimes.get(name, [0, 0])
        if name in outputs:
            last = end
        bases[name] = _first_fit(sizes[name], first, last, placed, next_input)
        placed.append((bases[name], sizes[name], first, last))
    _check_depth("DRAM0 (Vars)", max([b + sizes[n] for n, b in bases.items()], default=0),
                 architecture.dram0_depth, architecture.name)
    for name, ops in vars_ops.items():
        for op in ops:
            op.attributes["base"] = I64.encode(bases[name])

    _place_consts(consts_steps, steps, architecture)


def _place_consts(consts_steps: dict[ir.Value, set[int]], steps: list[tuple[int, ir.Operation]],
                  architecture: Architecture) -> None:
    """Give every `hir.consts` its `base` and `page`: all resident when they fit, else paged by layer."""
    size = {value: spec_of(value.type).shape[0] for value in consts_steps}
    room = weights_room(architecture)
    if sum(size.values()) <= room:
        _stack([(value, 0) for value in consts_steps], 0, size)
        return
    resident: list[ir.Value] = []
    by_step: dict[int, list[ir.Value]] = {}
    for value, used in consts_steps.items():
        if len(used) == 1:
            by_step.setdefault(next(iter(used)), []).append(value)
        else:
            resident.append(value)
    resident_size = sum(size[value] for value in resident)
    if resident_size > room:
        raise LaminaError(f"the model does not fit: DRAM1 (Consts): {resident_size} vectors of constants that "
                          f"several layers share, architecture '{architecture.name}' has room for {room} "
                          f"({resident_size - room} too many)")
    room -= resident_size
    pages: list[list[ir.Value]] = []
    page_size = 0
    for step in sorted(by_step):
        needed = sum(size[value] for value in by_step[step])
        if needed > room:
            where = next(op for number, op in steps if number == step).location
            raise LaminaError(
                f"the model does not fit: DRAM1 (Consts): the layer at {format_location(where)} "
                f"needs {needed} vectors of weights, architecture '{architecture.name}' has room for {room} "
                f"({architecture.dram1_depth} minus {resident_size} shared and {SCHEDULER_CONSTS_RESERVE} reserved "
                f"for the scheduler; {needed - room} too many)")
        if not pages or page_size + needed > room:
            pages.append([])
            page_size = 0
        pages[-1].extend(by_step[step])
        page_size += needed
    region = max((_stack([(value, number) for value in page], 0, size) for number, page in enumerate(pages, 1)),
                 default=0)
    _stack([(value, 0) for value in resident], region, size)


def _stack(values: list[tuple[ir.Value, int]], base: int, size: dict[ir.Value, int]) -> int:
    """Place (consts, page) one after the other from `base`; the end."""
    for value, page in values:
        value.owner.attributes["base"] = I64.encode(base)
        value.owner.attributes["page"] = I64.encode(page)
        base += size[value]
    return base


def _first_fit(size: int, first: int, last: int, placed: list[tuple[int, int, int, int]], floor: int) -> int:
    """The lowest base >= floor where `size` vectors overlap no object alive during [first, last]."""
    busy = sorted((base, base + length) for base, length, start, stop in placed if start <= last and first <= stop)
    candidate = floor
    for start, stop in busy:
        if candidate + size <= start:
            break
        candidate = max(candidate, stop)
    return candidate


def _check_depth(what: str, needed: int, depth: int, architecture: str) -> None:
    if needed > depth:
        raise LaminaError(f"the model does not fit: {what} needs {needed} vectors, architecture '{architecture}' "
                          f"has {depth}")
