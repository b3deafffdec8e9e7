"""Hand-written HIR programs for the scheduler tests: a builder that writes HIR text, weight tiles in
the array's layout, and a run of the scheduled program on the simulated machine."""

from __future__ import annotations

import itertools
import json

import numpy as np

from lamina.target.tcu.architecture import Architecture, load_architecture
from lamina.target.tcu.data_layout import channel_tiles, from_vectors, to_vectors, vector_count
from lamina.target.tcu.fixed_point import FP16BP8, FP32BP16
from lamina.target.tcu.program import DataMoveKind, Opcode
from lamina.dialects.context import make_context, parse_module
from lamina.passes.conversion.hir_to_lir import schedule
from lamina.runtime.tcu_machine import DRAM0, DRAM1, Machine

# A 4-lane array with small accumulators, so that layers need several stages.
TINY = Architecture(name="tiny", data_type=FP16BP8, array_size=4, dram0_depth=1 << 16, dram1_depth=1 << 16,
                    local_depth=2048, accumulator_depth=64, simd_registers_depth=1, stride0_depth=8,
                    stride1_depth=8)
ARTY = load_architecture("arty-a7")
WIDE = Architecture(name="wide", data_type=FP32BP16, array_size=4, dram0_depth=1 << 16, dram1_depth=1 << 16,
                    local_depth=4096, accumulator_depth=256, simd_registers_depth=1, stride0_depth=2,
                    stride1_depth=2)


def memref_type(shape, width: int = 16) -> str:
    """A HIR memory object's type: a memref of `width`-bit integers."""
    return f"memref<{'x'.join(map(str, shape))}xi{width}>"


def int_array(values) -> str:
    """An i64 array attribute as HIR text."""
    return f"array<i64: {', '.join(str(int(v)) for v in values)}>"


class HirBuilder:
    """Writes a HIR model as text: Vars placed one after another, consts likewise."""

    def __init__(self, arch: Architecture):
        self.arch = arch
        self.width = arch.data_type.width
        self.lines: list[str] = []
        self.dram0 = 0
        self.dram1 = 0
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.places: dict[str, int] = {}
        self.count = 0

    def _name(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def point(self, binary_point: int | None) -> int:
        return self.arch.data_type.binary_point if binary_point is None else binary_point

    def vars(self, name: str, shape, binary_point: int | None = None) -> str:
        value = self._name()
        self.lines.append(f'{value} = "hir.vars"() {{binary_point = {self.point(binary_point)} : i64, name = "{name}", '
                          f'base = {self.dram0} : i64}} : () -> {memref_type(shape, self.width)}')
        self.shapes[value], self.places[name] = tuple(shape), self.dram0
        self.dram0 += vector_count(tuple(shape), self.arch.array_size)
        return value

    def consts(self, image: np.ndarray, binary_point: int | None = None) -> str:
        value = self._name()
        rows = ", ".join("[" + ", ".join(str(int(x)) for x in row) + "]" for row in image)
        shape = image.shape
        self.lines.append(f'{value} = "hir.consts"() {{binary_point = {self.point(binary_point)} : i64, '
                          f'base = {self.dram1} : i64, page = 0 : i64, value = dense<[{rows}]> : '
                          f"tensor<{shape[0]}x{shape[1]}xi{self.width}>}} : () -> {memref_type(shape, self.width)}")
        self.shapes[value] = shape
        self.dram1 += shape[0]
        return value

    def temp(self, layer: int, shape, binary_point: int | None = None) -> str:
        value = self._name()
        self.lines.append(f'{value} = "hir.temp"() {{binary_point = {self.point(binary_point)} : i64, '
                          f'layer = {layer} : i64}} : () -> {memref_type(shape, self.width)}')
        self.shapes[value] = tuple(shape)
        return value

    def op(self, name: str, operands: list[str], layer: int, **attrs) -> None:
        fields = ", ".join([f"layer = {layer} : i64", *(f"{k} = {v}" for k, v in attrs.items())])
        types = ", ".join(memref_type(self.shapes[v], self.width) for v in operands)
        self.lines.append(f'"hir.{name}"({", ".join(operands)}) {{{fields}}} : ({types}) -> ()')

    def module(self, inputs: list[str], outputs: list[str]):
        arch = json.dumps({"name": self.arch.name, **self.arch.to_json()}).replace('"', '\\"')
        names = lambda items: "[" + ", ".join(f'"{n}"' for n in items) + "]"  # noqa: E731
        text = (f'module attributes {{hir.architecture = "{arch}", hir.inputs = {names(inputs)}, '
                f"hir.outputs = {names(outputs)}}} {{\n  func.func @main() {{\n    "
                + "\n    ".join(self.lines) + "\n    return\n  }\n}\n")
        return parse_module(text, make_context(), "test.mlir")


def weight_tiles(filters: np.ndarray, bias: np.ndarray, lanes: int) -> tuple[np.ndarray, list[int]]:
    """The weights object and tile_slots of a (co, ci, kh, kw) filter (all-zero tiles skipped).

    Per co_t: its bias vector, then its present tiles of N vectors (rows of input lanes).
    """
    co, ci, kh, kw = filters.shape
    vectors, slots, count = [], [], 0
    for co_t in range(channel_tiles(co, lanes)):
        lane_bias = np.asarray(bias[co_t * lanes:(co_t + 1) * lanes], np.int64)
        vectors.append(np.pad(lane_bias, (0, lanes - len(lane_bias)))[None])
        first = True
        for y, x, ci_t in itertools.product(range(kh), range(kw), range(channel_tiles(ci, lanes))):
            block = filters[co_t * lanes:(co_t + 1) * lanes, ci_t * lanes:(ci_t + 1) * lanes, y, x]
            last_chance = (y, x, ci_t) == (kh - 1, kw - 1, channel_tiles(ci, lanes) - 1)
            if not block.any() and not (first and last_chance):
                slots.append(-1)
                continue
            tile = np.zeros((lanes, lanes), np.int64)
            tile[:block.shape[1], :block.shape[0]] = block.T
            first = False
            slots.append(count)
            count += 1
            vectors.append(tile)
    return np.concatenate(vectors), slots


def run_scheduled(module, feeds: dict[str, np.ndarray], outputs: dict[str, tuple]):
    """Schedule `module`, run it on the machine; outputs as storage integers."""
    result = schedule(module)
    arch = result.arch
    places = {}
    for op in module.regions[0].blocks[0].operations[0].regions[0].blocks[0].operations:
        if op.operation.name == "hir.vars":
            places[op.attributes["name"].value] = op.attributes["base"].value
    dram0 = max(places.values()) + sum(vector_count(shape, arch.array_size) for shape in outputs.values()) + 4096
    machine = Machine(arch, dram0, len(result.consts[0].image))
    for name, value in feeds.items():
        vectors = to_vectors(value, arch.array_size)
        machine.memories[DRAM0][places[name]:places[name] + len(vectors)] = vectors
    machine.memories[DRAM1][:] = result.consts[0].image
    for step in result.plan:
        assert step["kind"] == "accelerator"
        machine.run(result.program, step["first"], step["count"])
    got = {}
    for name, shape in outputs.items():
        base = places[name]
        got[name] = from_vectors(machine.memories[DRAM0][base:base + vector_count(shape, arch.array_size)],
                                 shape, arch.array_size)
    return got, result


def dram0_vectors(program: np.ndarray, kind: DataMoveKind) -> set[int]:
    """The DRAM0 vectors the program's DataMoves of `kind` touch."""
    moves = program[(program["opcode"] == Opcode.DATA_MOVE) & (program["flags"] == kind)]
    return {int(m["op1"]) + (k << int(m["op1_stride"])) for m in moves for k in range(int(m["op2"]) + 1)}
