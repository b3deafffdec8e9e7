"""Accumulator ops and saves on one unit (an output channel tile of a stage).

Each temp of the layer lives in a region of the accumulators; an op writes
in place over an input whose last use it is (`allocate_regions`). SIMD
handles one vector per instruction and has one register, so every op is a
pass over the unit's valid positions, with register 1 set up first:

- relu: Zero -> r1 once, then Max(in, r1) per vector;
- clip: r1 = min, Max per vector; r1 = max, Min per vector;
- leaky relu: r1 = alpha, y = Multiply(x, r1) into the scratch region; then per vector
  r1 = y, Max(x, r1);
- channel op: r1 = the constant vector of the tile, op(in, r1) (or op(r1, in));
- binary op of temps: per vector r1 = rhs, op(lhs, r1);
- binary op of a temp and a Vars (a layer starting from two values): the Vars is
  loaded into the output region, then per vector r1 = lhs, op(r1, out);
- add of a Vars: DataMove DRAM0 -> local, then local -> accumulators with
  accumulate (kind 15) into the lhs in place; otherwise the Vars is loaded
  into the output region and added to with SIMD.

Saves move the valid positions accumulators -> local -> DRAM0, rolled into
one instruction per contiguous run; a Vars that stays in local memory
(`residency.py`) is written to, and read from, its planes there instead.
"""

from __future__ import annotations

import numpy as np

from lamina.target.tcu.program import INSTRUCTION, ConfigRegister, DataMoveKind, SimdOp

from .emitter import REGISTER, Emitter
from .errors import ScheduleError
from .layers import Elementwise, Save, Vars
from .residency import Residency, load_vars
from .units import Layout, Unit

SIMD_OPS = {"add": SimdOp.ADD, "sub": SimdOp.SUBTRACT, "mul": SimdOp.MULTIPLY, "max": SimdOp.MAX,
            "min": SimdOp.MIN}


def temp_inputs(op) -> list[str]:
    """The temps an accumulator op or save reads."""
    if isinstance(op, Save):
        return [op.input]
    return [x for x in op.operands if isinstance(x, str)]


def _loads_into_output(op: Elementwise) -> bool:
    """A binary op with a Vars rhs (other than an add, which accumulates into its lhs) loads the Vars into its
    output before reading the lhs, so the output cannot take the lhs's region."""
    return op.op != "add" and len(op.operands) == 2 and isinstance(op.operands[1], Vars)


def allocate_regions(first_temp: str, ops: list) -> tuple[dict[str, int], int]:
    """Region index per temp object and the regions needed at once.

    Temps are memory objects (an op may write the temp it reads); temps whose
    lives do not overlap share a region, and an op may write in place over
    an input whose life ends there. A layer with a leaky relu gets one more
    region, its scratch (the last one).
    """
    last_use = {first_temp: 0}
    for index, op in enumerate(ops):
        for temp in [*temp_inputs(op), *([op.output] if isinstance(op, Elementwise) else [])]:
            last_use[temp] = index
    assigned = {first_temp: 0}
    free: list[int] = []
    count = 1
    for index, op in enumerate(ops):
        dying = [t for t in dict.fromkeys(temp_inputs(op)) if last_use.get(t) == index and t in assigned]
        if isinstance(op, Elementwise) and op.output not in assigned:
            reusable = [t for t in dying if op.in_place and not _loads_into_output(op)]
            if reusable:
                assigned[op.output] = assigned[reusable[0]]
                dying.remove(reusable[0])
            elif free:
                assigned[op.output] = free.pop(0)
            else:
                assigned[op.output] = count
                count += 1
        if isinstance(op, Elementwise) and last_use[op.output] == index and op.output not in dying:
            dying.append(op.output)  # written but never read again
        free.extend(assigned[t] for t in dict.fromkeys(dying))
        free = sorted(set(free))
    if any(isinstance(op, Elementwise) and op.op == "leaky_relu" for op in ops):
        count += 1
    return assigned, count


class AccumulatorOps:
    """Emits a layer's accumulator ops and saves for each unit."""

    def __init__(self, emitter: Emitter, layout: Layout, regions: dict[str, int], residency: Residency):
        self.emitter = emitter
        self.builder = emitter.builder
        self.layout = layout
        self.regions = regions
        self.residency = residency

    def base(self, temp: str) -> int:
        if temp not in self.regions:  # a HIR op reading a temp no earlier op of its layer produced
            raise ScheduleError("convert-hir-to-lir", f"temp '{temp}' is read before any op of its layer "
                                f"writes it")
        return self.layout.region_base(self.regions[temp])

    def run(self, ops: list, unit: Unit) -> None:
        for op in ops:
            if isinstance(op, Save):
                self.save(op, unit)
            else:
                self.elementwise(op, unit)

    # -- helpers -------------------------------------------------------------------------

    def _register(self, dram1: int) -> None:
        self.emitter.load_register(dram1, self.layout.local_scratch, self.layout.acc_scratch)

    def _constant(self, value: float, binary_point: int | None = None) -> int:
        data_type = self.emitter.arch.data_type
        if binary_point is not None:
            data_type = data_type.at(binary_point)
        return self.emitter.consts.broadcast(int(data_type.from_float(value)))

    def _per_vector(self, op: SimdOp, unit: Unit, read: int, write: int, *, swap: bool = False) -> None:
        left, right = (REGISTER, 0) if swap else (0, REGISTER)
        self.emitter.append(self.builder.simd_block(op, left=left, right=right, read=read + unit.positions,
                                                    write=write + unit.positions))

    def _through_register(self, source: int, op: SimdOp, unit: Unit, read: int, write: int, *,
                          register_left: bool = False) -> None:
        """Per vector: register 1 = source[p], then write[p] = op(read[p], register) (or op(register, read[p]))."""
        positions, builder = unit.positions, self.builder
        left, right = (REGISTER, 0) if register_left else (0, REGISTER)
        pairs = np.empty((len(positions), 2), INSTRUCTION)
        pairs[:, 0] = builder.simd_block(SimdOp.MOVE, read=source + positions, dest=REGISTER)
        pairs[:, 1] = builder.simd_block(op, left=left, right=right, read=read + positions, write=write + positions)
        self.emitter.append(pairs.reshape(-1))

    def _load_vars(self, source: Vars, unit: Unit, destination: int, accumulate: bool) -> None:
        kind = DataMoveKind.LOCAL_TO_ACC_ACCUMULATE if accumulate else DataMoveKind.LOCAL_TO_ACC
        load_vars(self.emitter, source, self.residency.of(source), unit.tile, unit.pixels,
                  self.layout.staging + np.arange(len(unit.positions)), destination + unit.positions, kind)

    # -- ops -----------------------------------------------------------------------------

    def save(self, op: Save, unit: Unit) -> None:
        planes = self.residency.of(op.output)
        if planes is not None:  # straight into the planes its reader addresses; pixels it never reads are dropped
            stored, local = planes.addresses(unit.tile, unit.pixels)
            self.emitter.transfer(DataMoveKind.ACC_TO_LOCAL, local[stored],
                                  self.base(op.input) + unit.positions[stored])
            return
        staging = self.layout.staging + np.arange(len(unit.positions))
        self.emitter.transfer(DataMoveKind.ACC_TO_LOCAL, staging, self.base(op.input) + unit.positions)
        self.emitter.transfer(DataMoveKind.LOCAL_TO_DRAM0, staging, op.output.addresses(unit.tile, unit.pixels))

    def elementwise(self, op: Elementwise, unit: Unit) -> None:
        out = self.base(op.output)
        if op.op in ("mul", "leaky_relu"):  # leaky relu multiplies by alpha in the data type's format
            self.emitter.round_at(ConfigRegister.SIMD_SHIFT, op.shift if op.op == "mul" else None)
        if op.constant is not None:
            self._register(op.constant + unit.tile)
            self._per_vector(SIMD_OPS[op.op], unit, self.base(op.operands[0]), out, swap=op.swap)
        elif op.op == "relu":
            self.emitter.append(self.builder.simd_block(SimdOp.ZERO, dest=REGISTER))
            self._per_vector(SimdOp.MAX, unit, self.base(op.operands[0]), out)
        elif op.op == "clip":
            low, high = op.params
            self._register(self._constant(low, op.binary_point))
            self._per_vector(SimdOp.MAX, unit, self.base(op.operands[0]), out)
            self._register(self._constant(high, op.binary_point))
            self._per_vector(SimdOp.MIN, unit, out, out)
        elif op.op == "leaky_relu":
            x, scratch = self.base(op.operands[0]), self.layout.region_base(self.layout.regions - 1)
            self._register(self._constant(op.params[0]))
            self._per_vector(SimdOp.MULTIPLY, unit, x, scratch)
            self._through_register(scratch, SimdOp.MAX, unit, x, out)
        else:
            self._binary(op, unit, out)

    def _binary(self, op: Elementwise, unit: Unit, out: int) -> None:
        lhs, rhs = op.operands
        simd_op = SIMD_OPS[op.op]
        if isinstance(rhs, Vars):
            if self.regions[op.output] == self.regions[lhs] and op.op == "add":
                self._load_vars(rhs, unit, out, accumulate=True)
                return
            # out = rhs (loaded), then out = lhs op out, reading lhs into the register
            self._load_vars(rhs, unit, out, accumulate=False)
            self._through_register(self.base(lhs), simd_op, unit, out, out, register_left=True)
            return
        self._through_register(self.base(rhs), simd_op, unit, self.base(lhs), out)
