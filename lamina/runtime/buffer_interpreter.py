"""The buffer dialect's interpreter: instructions run on memory laid out as planned.

`run` executes a memory-planned buffer function the way a device would: every
buffer is bytes at its planned `offset` in one of three regions, each one
byte array of the size memory planning recorded on the module:

| buffers | region size attribute |
| --- | --- |
| `buffer.alloc` (activations) | `buffer.activation_bytes` |
| `buffer.constant`, immutable `buffer.weight` | `buffer.constant_bytes` |
| mutable `buffer.weight` | `buffer.mutable_bytes` |

A `buffer.view` is a NumPy view at its root buffer's offset plus its byte
offset. Instructions run the graph level's kernels (`graph_kernels.KERNELS`,
through `quantization.evaluate`, so quantized buffers hold stored integers and
compute as the graph interpreter does) on arrays read from that memory and write the result into the destination's
bytes, so a wrong memory plan (overlapping live buffers, a view past its
buffer) gives wrong numbers rather than going unnoticed. To make such bugs
loud, memory starts as 0xFF bytes (NaN in floats) and an activation's bytes
are refilled with them when it is allocated and when it is freed: reading
memory nothing wrote gives garbage, as on hardware, just recognizable garbage.

The model's interface is its public weights: one the program writes is an
output; one whose value on entry matters (the program reads it before
writing it, or never touches it, as an unused graph input) is an input.
IRGen makes one public weight per graph placeholder (an input) and per
graph save (an output), with the same names, so a buffer module takes and
returns what its graph module did.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np
from mlir import ir

from lamina.dialects.buffer import BUFFER, UNPLANNED
from lamina.dialects.buffer_analysis import BufferInfo, analyze, analyze_flat, block_ops, root_buffer, view_offset
from lamina.dialects.buffer_verifier import ACTIVATION_BYTES, ALIGNMENT, CONSTANT_BYTES, MUTABLE_BYTES
from lamina.dialects.buffer_verifier import region_of
from lamina.dialects.context import check_module
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.irdl import OpDef, OpView
from lamina.dialects.types import TensorSpec, spec_of

from .buffer_control_flow import run_region_op
from .graph_interpreter import checked_result, check_inputs
from lamina.kernels.graph_kernels import KernelError, Node
from lamina.kernels.quantization import evaluate

POISON = 0xFF  # the byte unwritten memory holds
REGION_BYTES = 1 << 31  # the largest memory region the interpreter allocates


@dataclass(frozen=True)
class Interface:
    """The public weights a run reads (inputs) and returns (outputs), by name."""

    inputs: dict[str, ir.Value]
    outputs: dict[str, ir.Value]


def interface(module: ir.Operation) -> Interface:
    """The model's inputs and outputs (see the module docstring for the rule)."""
    _, buffers = analyze(module)
    return _interface(buffers)


def inputs(module: ir.Operation) -> dict[str, TensorSpec]:
    """Input name -> type, in declaration order (what `lamina-run` feeds)."""
    return {name: spec_of(value.type) for name, value in interface(module).inputs.items()}


def run(module: ir.Operation, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Execute a memory-planned buffer-dialect model; returns output name -> array.

    `inputs` maps every input name to an array of exactly its type. Raises
    LaminaError for invalid IR, ops that are not buffer ops, a module memory
    planning has not placed, wrong inputs and data-dependent failures (naming
    the op's location).
    """
    check_module(module)
    program, buffers = analyze(module)
    definitions = [BUFFER.require(op, "the buffer interpreter") for op in program]
    memory = _Memory(module, analyze_flat(module)[1])  # regions' allocs included
    ports = _interface(buffers)
    _warn_about_reads_of_unwritten(buffers)
    feeds = check_inputs({name: spec_of(value.type) for name, value in ports.inputs.items()}, inputs)
    for name, array in feeds.items():
        memory.array(ports.inputs[name])[...] = array
    with np.errstate(all="ignore"):  # IEEE semantics, as in the graph interpreter
        for op, definition in zip(program, definitions):
            _execute(op, definition, memory)
    return {name: np.array(memory.array(value)) for name, value in ports.outputs.items()}




def _interface(buffers: dict[ir.Value, BufferInfo]) -> Interface:
    inputs, outputs = {}, {}
    for info in buffers.values():
        if info.kind != "weight":
            continue
        weight = BUFFER.view(info.buffer.owner)
        if not weight.attr("public"):
            continue
        name = weight.attr("name")
        if not info.accesses or info.accesses[0].role != "out":
            inputs[name] = info.buffer
        if any(access.role != "in" for access in info.accesses):
            outputs[name] = info.buffer
    return Interface(inputs, outputs)


def _warn_about_reads_of_unwritten(buffers: dict[ir.Value, BufferInfo]) -> None:
    for info in buffers.values():
        if info.kind == "alloc" and info.accesses and info.accesses[0].role != "out":
            op = info.buffer.owner
            warnings.warn(f"{format_location(op.location)}: buffer '{BUFFER.view(op).attr('name')}' is read "
                          "before anything writes it; it holds garbage", RuntimeWarning)


class _Memory:
    """The regions, with each root buffer placed at its planned offset.

    The module verifier has checked that planned buffers fit their regions
    and that live buffers do not overlap; what is left is a plan's absence.
    """

    def __init__(self, module: ir.Operation, buffers: dict[ir.Value, BufferInfo]):
        self.regions = {attribute: _poisoned_bytes(_region_size(module, attribute))
                        for attribute in (ACTIVATION_BYTES, CONSTANT_BYTES, MUTABLE_BYTES)}
        self.places: dict[ir.Value, tuple[np.ndarray, int]] = {}  # root buffer -> (region, offset)
        self.arrays: dict[ir.Value, np.ndarray] = {}  # buffer or view -> its bytes, typed (a cache)
        for buffer in buffers:
            op = buffer.owner.operation
            offset = BUFFER.view(op).attr("offset")
            if offset == UNPLANNED:
                raise LaminaError(f"{format_location(op.location)}: error: buffer '{BUFFER.view(op).attr('name')}' "
                                  "has no memory offset yet; run memory planning (buffer-allocate) before "
                                  "interpreting")
            self.places[buffer] = (self.regions[region_of(op)], offset)
        for buffer, info in buffers.items():
            if info.kind == "constant":
                self.array(buffer)[...] = BUFFER.view(buffer.owner).attr("value")

    def array(self, value: ir.Value) -> np.ndarray:
        """The bytes of `value` (a buffer or a view of one), as an array of its type."""
        array = self.arrays.get(value)
        if array is None:
            region, offset = self.places[root_buffer(value)]
            spec = spec_of(value.type)
            start = offset + view_offset(value)
            array = region[start:start + spec.nbytes].view(spec.dtype).reshape(spec.shape)
            if not isinstance(root_buffer(value).owner, ir.Block):  # a slice moves with each iteration
                self.arrays[value] = array
        return array

    def bind(self, argument: ir.BlockArgument, buffer: ir.Value, byte_offset: int) -> None:
        """Place a region's block argument (a slice) at `byte_offset` in `buffer`, for one iteration."""
        region, offset = self.places[root_buffer(buffer)]
        self.places[argument] = (region, offset + view_offset(buffer) + byte_offset)

    def poison(self, value: ir.Value) -> None:
        region, offset = self.places[value]
        region[offset:offset + spec_of(value.type).nbytes] = POISON


def _region_size(module: ir.Operation, attribute: str) -> int:
    try:
        size = module.attributes[attribute]
    except KeyError:
        raise LaminaError(f"the module has no '{attribute}' attribute: it is not memory-planned; run memory "
                          "planning (buffer-allocate) before interpreting") from None
    if not isinstance(size, ir.IntegerAttr) or not 0 <= ir.IntegerAttr(size).value <= REGION_BYTES:
        raise LaminaError(f"module attribute '{attribute}' must be an integer in [0, {REGION_BYTES}] "
                          f"(bytes the interpreter allocates), got {str(size)[:40]}")
    return ir.IntegerAttr(size).value


def _poisoned_bytes(size: int) -> np.ndarray:
    """`size` bytes of POISON starting at an ALIGNMENT-aligned address."""
    raw = np.full(size + ALIGNMENT, POISON, dtype=np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + size]


def _run_block(block: ir.Block, memory: _Memory) -> None:
    for op in block_ops(block):
        _execute(op, BUFFER.require(op, "the buffer interpreter"), memory)


def _execute(op: ir.Operation, definition: OpDef, memory: _Memory) -> None:
    kind = definition.name
    if kind in ("weight", "constant", "view"):
        return  # placed before the run
    if kind in ("alloc", "dealloc"):
        memory.poison(op.operands[0] if kind == "dealloc" else op.result)
        return
    if definition.regions:
        run_region_op(op, memory, lambda block: _run_block(block, memory))
        return
    dest, *sources = (memory.array(value) for value in op.operands)
    if kind == "copy":
        dest[...] = sources[0]
        return
    view = OpView(op, definition)
    dest_spec, *source_specs = (spec_of(value.type) for value in op.operands)
    node = Node(view.attrs(), [dest_spec], operands=source_specs)
    try:
        result = evaluate(kind, node, *sources)  # on stored integers where the types are !quant.uniform
    except KernelError as error:
        raise LaminaError(f"{format_location(op.location)}: error: {error}") from None
    dest[...] = checked_result(result, node.result, op)
