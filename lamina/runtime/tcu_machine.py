"""The processing unit's state and the exact execution of its instructions.

Memories hold the data type's storage integers (int16 for FP16BP8), one row
per vector of N lanes: DRAM0, DRAM1, local memory, accumulators, the SIMD registers and
the systolic array's (N+1) x N weights (row 0 = bias). DRAMs are allocated
only as far as the program and the model files reach (`memory_extents`),
since a zcu104 DRAM would be 2M vectors. Every address an instruction will
touch is checked before anything runs, so an out-of-range access or a bad
field is a LaminaError naming the instruction's index.

Semantics are docs/accelerator.md's, with `DataType` doing all arithmetic.
One choice the contract leaves open: a SIMD instruction without the read
flag sees an all-zero input vector. `Machine.saturations` counts the lanes
saturation clipped, by opcode (Tensil's emulator reports overflows too).

Speed: runs of DataMoves into local memory, LoadWeights and MatMuls execute
together (`tcu_array_runs`), and periodic runs of SIMD instructions as one
operation per block position (`tcu_simd_runs`), whenever that provably equals
executing them one by one. Both are planned from the instructions alone, once
per distinct run or stretch (a convolution's output tiles repeat them).
`run(batch=False)` executes everything one instruction at a time: the
reference the tests compare the runs with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.fixed_point import DataType
from lamina.target.tcu.program import (MAX_SHIFT, ConfigRegister, DataMoveKind, LoadWeightFlag, MatMulFlag,
                                         Opcode, SimdFlag, SimdOp)
from lamina.dialects.diagnostics import LaminaError

from .tcu_array_runs import ArrayRuns, RunFields, array_run_lengths, structure_of
from .tcu_simd_runs import SimdCall, SimdFields, simd_calls
from .tcu_indexing import stretch_ends

CHUNK = 1 << 16  # instructions converted to Python scalars at a time

DRAM0, DRAM1, LOCAL, ACCUMULATORS = "DRAM0", "DRAM1", "local memory", "accumulators"

# DataMove kind -> (other memory, direction: True = local is the destination, accumulate)
_MOVES = {
    DataMoveKind.DRAM0_TO_LOCAL: (DRAM0, True, False),
    DataMoveKind.LOCAL_TO_DRAM0: (DRAM0, False, False),
    DataMoveKind.DRAM1_TO_LOCAL: (DRAM1, True, False),
    DataMoveKind.LOCAL_TO_DRAM1: (DRAM1, False, False),
    DataMoveKind.ACC_TO_LOCAL: (ACCUMULATORS, True, False),
    DataMoveKind.LOCAL_TO_ACC: (ACCUMULATORS, False, False),
    DataMoveKind.LOCAL_TO_ACC_ACCUMULATE: (ACCUMULATORS, False, True),
}


def _describe(index: int, record: np.void) -> str:
    opcode = int(record["opcode"])
    try:
        name = Opcode(opcode).name
    except ValueError:
        name = f"opcode {opcode:#x}"
    return f"instruction {index} ({name})"


def _accesses(program: np.ndarray) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(memory, mask of instructions touching it, highest vector address touched) per access kind."""
    opcode, flags = program["opcode"], program["flags"]
    op0, op1, op2 = (program[f].astype(np.int64) for f in ("op0", "op1", "op2"))
    last0 = op0 + (op2 << program["op0_stride"].astype(np.int64))
    last1 = op1 + (op2 << program["op1_stride"].astype(np.int64))
    matmul, move, load, vector = (opcode == code for code in
                                  (Opcode.MATMUL, Opcode.DATA_MOVE, Opcode.LOAD_WEIGHT, Opcode.SIMD))
    accesses = [
        (LOCAL, matmul & (flags & MatMulFlag.ZEROES == 0), last0),
        (ACCUMULATORS, matmul, last1),
        (LOCAL, move, last0),
        (LOCAL, load & (flags & LoadWeightFlag.ZEROES == 0), op0 + (op1 << program["op0_stride"].astype(np.int64))),
        (ACCUMULATORS, vector & (flags & SimdFlag.WRITE != 0), op0),
        (ACCUMULATORS, vector & (flags & SimdFlag.READ != 0), op1),
    ]
    for kind, (memory, _, _) in _MOVES.items():
        accesses.append((memory, move & (flags == kind), last1))
    return accesses


def memory_extents(program: np.ndarray, arch: Architecture, first_index: int = 0) -> dict[str, int]:
    """Vectors of each memory the program touches (highest address + 1), after checking every field.

    Raises LaminaError naming the first instruction that is not executable:
    an unsupported opcode or DataMove kind, a SIMD register that does not
    exist, or an address past its memory's depth. `first_index` is the
    program index of `program[0]`, for messages.
    """
    depths = {DRAM0: arch.dram0_depth, DRAM1: arch.dram1_depth, LOCAL: arch.local_depth,
              ACCUMULATORS: arch.accumulator_depth}
    opcode = program["opcode"]
    executable = (Opcode.NOOP, Opcode.MATMUL, Opcode.DATA_MOVE, Opcode.LOAD_WEIGHT, Opcode.SIMD, Opcode.CONFIGURE)
    supported = np.isin(opcode, [int(code) for code in executable])
    bad_move = (opcode == Opcode.DATA_MOVE) & ~np.isin(program["flags"], [int(kind) for kind in _MOVES])
    simd = SimdFields.of(program, arch.simd_registers_depth)
    registers = np.maximum(np.maximum(simd.left, simd.right), simd.dest)
    bad_register = (opcode == Opcode.SIMD) & (registers > arch.simd_registers_depth)
    configure = opcode == Opcode.CONFIGURE
    bad_configure = configure & (~np.isin(program["op0"], [int(r) for r in ConfigRegister])
                                 | (program["op1"] > MAX_SHIFT))
    for mask, problem in ((~supported, "is not supported by the simulator"),
                          (bad_move, "has an unknown DataMove kind"),
                          (bad_configure, f"sets a register other than the rounding positions, or one beyond "
                                          f"{MAX_SHIFT}"),
                          (bad_register, f"names a SIMD register past the {arch.simd_registers_depth} there are")):
        if mask.any():
            index = int(np.argmax(mask))
            raise LaminaError(f"{_describe(first_index + index, program[index])} {problem}")
    extents = dict.fromkeys(depths, 0)
    for memory, mask, last in _accesses(program):
        if not mask.any():
            continue
        beyond = mask & (last >= depths[memory])
        if beyond.any():
            index = int(np.argmax(beyond))
            raise LaminaError(f"{_describe(first_index + index, program[index])} reaches {memory} vector "
                              f"{int(last[index])}, past its depth {depths[memory]}")
        extents[memory] = max(extents[memory], int(last[mask].max()) + 1)
    return extents


class SaturationCounts:
    """Lanes that saturation clipped, by the opcode whose arithmetic clipped them."""

    def __init__(self):
        self.by_opcode: dict[str, int] = {}
        self.current = Opcode.NOOP.name

    def add(self, clipped: int) -> None:
        self.by_opcode[self.current] = self.by_opcode.get(self.current, 0) + clipped


@dataclass(frozen=True)
class _CountingDataType(DataType):
    """The machine's data type: the same arithmetic, counting every lane its saturation clips."""

    counts: SaturationCounts = field(compare=False)

    def saturate(self, q: np.ndarray) -> np.ndarray:
        """Values already in range come back as they are (MatMul sums stay float64 until stored)."""
        q = np.asarray(q)
        if q.size and (q.min() < self.minimum or q.max() > self.maximum):  # two reductions: cheaper than counting
            self.counts.add(int(np.count_nonzero((q < self.minimum) | (q > self.maximum))))
            return super().saturate(q)
        return q


class Machine:
    """The state of one processing unit, or of `inputs` copies of it that run the same program on different
    inputs (instructions do not depend on data, so every step applies to all copies at once); `run`
    executes instructions on it.

    `batched` holds each memory as (inputs, vectors, N); DRAM1 is shared (1, vectors, N) since programs
    only read it (a program that writes DRAM1 runs one input at a time). `memories`, `registers` and
    `weights` are the first copy's views.
    """

    def __init__(self, arch: Architecture, dram0_vectors: int, dram1_vectors: int, inputs: int = 1):
        n = arch.array_size
        self.arch = arch
        self.inputs = inputs
        self.saturations = SaturationCounts()
        self.data_type = _CountingDataType(arch.data_type.name, arch.data_type.width, arch.data_type.binary_point,
                                           self.saturations)
        storage = arch.data_type.storage  # every stored value is saturated to the data type's width
        self.batched = {
            DRAM0: np.zeros((inputs, dram0_vectors, n), storage),
            DRAM1: np.zeros((1, dram1_vectors, n), storage),
            LOCAL: np.zeros((inputs, arch.local_depth, n), storage),
            ACCUMULATORS: np.zeros((inputs, arch.accumulator_depth, n), storage),
        }
        self.batched_registers = np.zeros((inputs, arch.simd_registers_depth, n), storage)
        self.batched_weights = np.zeros((inputs, n + 1, n), storage)
        self.memories = {name: memory[0] for name, memory in self.batched.items()}
        self.registers = self.batched_registers[0]
        self.weights = self.batched_weights[0]
        # The rounding positions (Configure registers), reset to the data type's binary point.
        self.shifts = {ConfigRegister.ARRAY_SHIFT: arch.data_type.binary_point,
                       ConfigRegister.SIMD_SHIFT: arch.data_type.binary_point}
        self._simd_types: dict[int, _CountingDataType] = {}
        self.array_runs = ArrayRuns(self)
        self.simd_plans: dict[bytes, list[SimdCall]] = {}  # by the bytes of a stretch of SIMD instructions

    @property
    def local(self) -> np.ndarray:
        return self.memories[LOCAL]

    @property
    def accumulators(self) -> np.ndarray:
        return self.memories[ACCUMULATORS]

    @property
    def _local(self) -> np.ndarray:
        return self.batched[LOCAL]

    @property
    def _accumulators(self) -> np.ndarray:
        return self.batched[ACCUMULATORS]

    def check_fits(self, program: np.ndarray, first_index: int = 0) -> None:
        """Refuse a program that touches DRAM beyond what this machine allocated."""
        extents = memory_extents(program, self.arch, first_index)
        for memory in (DRAM0, DRAM1):
            if extents[memory] > len(self.memories[memory]):
                raise LaminaError(f"the program reaches {memory} vector {extents[memory] - 1}, but the "
                                  f"simulator allocated {len(self.memories[memory])} vectors")

    def run(self, program: np.ndarray, first: int = 0, count: int | None = None, *,
            batch: bool = True, progress: Callable[[int], None] | None = None, checked: bool = False) -> None:
        """Execute instructions [first, first + count) of `program`, after `check_fits` unless the caller
        `checked` them; `progress` hears how many of them have executed, after every chunk."""
        stop = len(program) if count is None else first + count
        if not checked:
            self.check_fits(program[first:stop], first)
        for start in range(first, stop, CHUNK):
            self._run_chunk(program[start:min(start + CHUNK, stop)], batch)
            if progress is not None:
                progress(min(start + CHUNK, stop) - first)

    # -- execution -------------------------------------------------------------

    def _run_chunk(self, chunk: np.ndarray, batch: bool) -> None:
        array_runs = array_run_lengths(chunk).tolist() if batch else None
        fields = RunFields(chunk) if batch else None
        structure = structure_of(chunk) if batch else None
        simd_ends = stretch_ends(chunk["opcode"] == Opcode.SIMD).tolist()
        opcode, flags = chunk["opcode"].tolist(), chunk["flags"].tolist()
        op0, op1, op2 = chunk["op0"].tolist(), chunk["op1"].tolist(), chunk["op2"].tolist()
        stride0, stride1 = chunk["op0_stride"].tolist(), chunk["op1_stride"].tolist()
        i = 0
        while i < len(chunk):
            code = opcode[i]
            if batch and array_runs[i] > 1:
                i += self.array_runs.execute(fields[i:i + array_runs[i]], structure[i:i + array_runs[i]])
                continue
            if code == Opcode.SIMD:
                stretch = chunk[i:simd_ends[i]]
                key = stretch.tobytes()
                calls = self.simd_plans.get(key) if batch else None
                if calls is None:
                    calls = simd_calls(stretch, self.arch.simd_registers_depth, batch)
                    if batch:
                        self.simd_plans[key] = calls
                for blocks, block in calls:
                    self.simd(blocks, block)
                i = simd_ends[i]
                continue
            if code == Opcode.MATMUL:
                self.matmul(flags[i], op0[i], 1 << stride0[i], op1[i], 1 << stride1[i], op2[i] + 1)
            elif code == Opcode.DATA_MOVE:
                self.data_move(DataMoveKind(flags[i]), op0[i], 1 << stride0[i], op1[i], 1 << stride1[i], op2[i] + 1)
            elif code == Opcode.LOAD_WEIGHT:
                self.load_weight(flags[i], op0[i], 1 << stride0[i], op1[i] + 1)
            elif code == Opcode.CONFIGURE:
                self.shifts[ConfigRegister(op0[i])] = op1[i]
            i += 1

    def matmul(self, flags: int, local: int, local_stride: int, accumulator: int, accumulator_stride: int,
               size: int) -> None:
        """One MatMul: `size` vectors through the array into the accumulators."""
        self.saturations.current = Opcode.MATMUL.name
        if flags & MatMulFlag.ZEROES:
            inputs = np.zeros((self.inputs, size, self.arch.array_size), np.int64)
        else:
            inputs = self._local[:, local + local_stride * np.arange(size)]
        weights, bias = self.batched_weights[:, None, 1:], self.batched_weights[:, None, :1]
        result = self.data_type.matmul(inputs[:, None], weights, bias, self.shifts[ConfigRegister.ARRAY_SHIFT])[:, 0]
        rows = accumulator + accumulator_stride * np.arange(size)
        if flags & MatMulFlag.ACCUMULATE:
            result = self.data_type.add(self._accumulators[:, rows], result)
        self._accumulators[:, rows] = result

    def data_move(self, kind: DataMoveKind, local: int, local_stride: int, address: int, stride: int,
                  size: int) -> None:
        self.saturations.current = Opcode.DATA_MOVE.name
        memory, to_local, accumulate = _MOVES[kind]
        local_rows = local + local_stride * np.arange(size)
        other_rows = address + stride * np.arange(size)
        other = self.batched[memory]
        if to_local:
            self._local[:, local_rows] = other[:, other_rows]
        elif accumulate:
            other[:, other_rows] = self.data_type.add(other[:, other_rows], self._local[:, local_rows])
        elif len(other) < self.inputs:
            raise LaminaError("a program writing DRAM1 runs one input at a time (DRAM1 is shared by the inputs)")
        else:
            other[:, other_rows] = self._local[:, local_rows]

    def load_weight(self, flags: int, local: int, local_stride: int, size: int) -> None:
        """Push `size` vectors, read from the highest address down, into the array (row 0 last)."""
        rows = self.arch.array_size + 1
        if flags & LoadWeightFlag.ZEROES:
            pushed = np.zeros((self.inputs, size, self.arch.array_size), np.int64)
        else:
            # after the pushes, row k holds the vector at local + k * stride
            pushed = self._local[:, local + local_stride * np.arange(size)]
        weights = self.batched_weights
        kept = weights[:, :max(rows - size, 0)].copy()
        weights[:, :min(size, rows)] = pushed[:, :rows]
        weights[:, size:] = kept

    def _simd_type(self, shift: int) -> _CountingDataType:
        """The data type SIMD Multiply rounds in: its binary point at the SIMD rounding position."""
        if shift not in self._simd_types:
            self._simd_types[shift] = _CountingDataType(self.data_type.name, self.data_type.width, shift,
                                                        self.saturations)
        return self._simd_types[shift]

    def simd(self, blocks: int, block: list[tuple[int, ...]]) -> None:
        """Execute a SIMD run (`tcu_simd_runs`): each position of its block (flags, op, left, right, dest, read
        address and step, write address and step) over all blocks at once, with one copy of the registers
        per block."""
        self.saturations.current = Opcode.SIMD.name
        shape = (self.inputs, blocks, self.arch.array_size)
        registers = np.repeat(self.batched_registers[:, None], blocks, axis=1)  # (inputs, blocks, depth, N)
        simd_type = self._simd_type(self.shifts[ConfigRegister.SIMD_SHIFT])
        for flags, op, left, right, dest, read, read_step, write, write_step in block:
            inputs = (self._accumulators[:, _rows(read, read_step, blocks)] if flags & _READ
                      else np.zeros(shape, np.int64))
            lhs = inputs if left == 0 else registers[:, :, left - 1]
            rhs = inputs if right == 0 else registers[:, :, right - 1]
            result = _ALU[op](simd_type if op == SimdOp.MULTIPLY else self.data_type, lhs, rhs, inputs)
            if dest:
                registers[:, :, dest - 1] = result
            if flags & _WRITE:
                writes = _rows(write, write_step, blocks)
                if flags & _ACCUMULATE:
                    result = self.data_type.add(self._accumulators[:, writes], result)
                self._accumulators[:, writes] = result
        self.batched_registers[:] = registers[:, -1]


_READ, _WRITE, _ACCUMULATE = int(SimdFlag.READ), int(SimdFlag.WRITE), int(SimdFlag.ACCUMULATE)


def _rows(start: int, step: int, count: int) -> slice | np.ndarray:
    """Rows start, start + step, ... (count of them): a slice when possible, as slicing is cheaper."""
    if count == 1:
        return slice(start, start + 1)
    if step > 0:
        return slice(start, start + step * (count - 1) + 1, step)
    return start + step * np.arange(count)


def _truth(condition: np.ndarray, data_type: DataType) -> np.ndarray:
    """Comparisons and logic give 1.0 or 0 in the data type."""
    return np.where(condition, data_type.one, 0)


# SIMD op -> result from (data type, left source, right source, input read from the accumulators)
_ALU: dict[int, Callable[[DataType, np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    SimdOp.NOOP: lambda t, lhs, rhs, x: x,
    SimdOp.ZERO: lambda t, lhs, rhs, x: np.zeros_like(x),
    SimdOp.MOVE: lambda t, lhs, rhs, x: lhs,
    SimdOp.NOT: lambda t, lhs, rhs, x: _truth(lhs == 0, t),
    SimdOp.AND: lambda t, lhs, rhs, x: _truth((lhs != 0) & (rhs != 0), t),
    SimdOp.OR: lambda t, lhs, rhs, x: _truth((lhs != 0) | (rhs != 0), t),
    SimdOp.INCREMENT: lambda t, lhs, rhs, x: t.add(lhs, t.one),
    SimdOp.DECREMENT: lambda t, lhs, rhs, x: t.sub(lhs, t.one),
    SimdOp.ADD: lambda t, lhs, rhs, x: t.add(lhs, rhs),
    SimdOp.SUBTRACT: lambda t, lhs, rhs, x: t.sub(lhs, rhs),
    SimdOp.MULTIPLY: lambda t, lhs, rhs, x: t.mul(lhs, rhs),
    SimdOp.ABS: lambda t, lhs, rhs, x: t.saturate(np.abs(lhs.astype(np.int64))),
    SimdOp.GREATER: lambda t, lhs, rhs, x: _truth(lhs > rhs, t),
    SimdOp.GREATER_EQUAL: lambda t, lhs, rhs, x: _truth(lhs >= rhs, t),
    SimdOp.MIN: lambda t, lhs, rhs, x: np.minimum(lhs, rhs),
    SimdOp.MAX: lambda t, lhs, rhs, x: np.maximum(lhs, rhs),
}
