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

Speed: DataMove and LoadWeight run as one NumPy operation each over their
strided address ranges; consecutive MatMuls (same weights) run as one array
pass when they write distinct accumulator rows. SIMD instructions handle one
vector each and dominate program length, so runs of them execute as one
operation when that is provably the same as one by one (`simd_run_lengths`).
`run(batch=False)` executes everything one instruction at a time, for tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.fixed_point import DataType
from lamina.target.tcu.program import (DataMoveKind, LoadWeightFlag, MatMulFlag, Opcode, SimdFlag, SimdOp,
                                         unpack_simd)
from lamina.dialects.diagnostics import LaminaError

CHUNK = 1 << 16  # instructions converted to Python scalars at a time
_SINGLE_THREAD_PRODUCT = 1 << 18  # OpenBLAS multiplies rows x N x N up to this on one thread

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


@dataclass(frozen=True)
class SimdFields:
    """The unpacked SIMD sub-instructions of a program (one entry per instruction)."""

    op: np.ndarray
    left: np.ndarray
    right: np.ndarray
    dest: np.ndarray

    @classmethod
    def of(cls, program: np.ndarray, registers_depth: int) -> SimdFields:
        return cls(*unpack_simd(program["op2"], registers_depth))


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
    executable = (Opcode.NOOP, Opcode.MATMUL, Opcode.DATA_MOVE, Opcode.LOAD_WEIGHT, Opcode.SIMD)
    supported = np.isin(opcode, [int(code) for code in executable])
    bad_move = (opcode == Opcode.DATA_MOVE) & ~np.isin(program["flags"], [int(kind) for kind in _MOVES])
    simd = SimdFields.of(program, arch.simd_registers_depth)
    registers = np.maximum(np.maximum(simd.left, simd.right), simd.dest)
    bad_register = (opcode == Opcode.SIMD) & (registers > arch.simd_registers_depth)
    for mask, problem in ((~supported, "is not supported by the simulator"),
                          (bad_move, "has an unknown DataMove kind"),
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


def simd_run_lengths(program: np.ndarray, simd: SimdFields) -> np.ndarray:
    """For each instruction, how many instructions from it form a batchable SIMD run (0 if not SIMD).

    A run is consecutive SIMD instructions with the same flags and
    sub-instruction, no destination register (so registers stay constant),
    and read and write addresses each advancing by a constant step. Such a
    run equals its one-by-one execution when (a) it writes distinct
    addresses (write step non-zero) and (b) no instruction reads an address
    that an earlier instruction of the run wrote; `batchable_prefix` checks
    those two on the actual run before it executes.
    """
    count = len(program)
    lengths = np.zeros(count, dtype=np.int64)
    is_simd = program["opcode"] == Opcode.SIMD
    if count == 0:
        return lengths
    read, write = program["op1"].astype(np.int64), program["op0"].astype(np.int64)
    same = np.zeros(count, dtype=bool)  # instruction i can follow i - 1 in a run
    same[1:] = (is_simd[1:] & is_simd[:-1] & (simd.dest[1:] == 0) & (simd.dest[:-1] == 0)
                & (program["flags"][1:] == program["flags"][:-1]) & (program["op2"][1:] == program["op2"][:-1]))
    steady = np.zeros(count, dtype=bool)  # i continues the step of (i - 2, i - 1)
    steady[2:] = (same[2:] & same[1:-1] & (np.diff(read)[1:] == np.diff(read)[:-1])
                  & (np.diff(write)[1:] == np.diff(write)[:-1]))
    index = np.arange(count)
    # next_break[i]: the first j >= i where the step breaks (count if none)
    next_break = np.append(np.minimum.accumulate(np.where(steady, count, index)[::-1])[::-1], count)
    has_second = np.append(same[1:], False)
    ends = np.where(has_second, next_break[np.minimum(index + 2, count)], index + 1)
    lengths[is_simd] = (ends - index)[is_simd]
    return lengths


def consecutive_lengths(mask: np.ndarray) -> np.ndarray:
    """For each index, how many consecutive True entries start there (0 where False)."""
    index = np.arange(len(mask))
    next_false = np.minimum.accumulate(np.where(mask, len(mask), index)[::-1])[::-1]
    return np.where(mask, next_false - index, 0)


def batchable_prefix(length: int, flags: int, read0: int, read_step: int, write0: int, write_step: int) -> int:
    """How many instructions of a candidate run can execute together (conditions (a), (b) above)."""
    if length == 1 or not flags & _WRITE:
        return length
    if write_step == 0:
        return 1
    if not flags & _READ:
        return length
    index = np.arange(length)
    reads = read0 + read_step * index
    offset = reads - write0
    writer = offset // write_step  # the run position that writes this read address, if any
    hazard = (offset % write_step == 0) & (writer >= 0) & (writer < index)
    return int(np.argmax(hazard)) if hazard.any() else length


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
        q = np.asarray(q, dtype=np.int64)
        clipped = int(np.count_nonzero((q < self.minimum) | (q > self.maximum)))
        if clipped:
            self.counts.add(clipped)
        return super().saturate(q)


class Machine:
    """The state of one processing unit; `run` executes instructions on it."""

    def __init__(self, arch: Architecture, dram0_vectors: int, dram1_vectors: int):
        n = arch.array_size
        self.arch = arch
        self.saturations = SaturationCounts()
        self.data_type = _CountingDataType(arch.data_type.name, arch.data_type.width, arch.data_type.binary_point,
                                           self.saturations)
        storage = arch.data_type.storage  # every stored value is saturated to the data type's width
        self.memories = {
            DRAM0: np.zeros((dram0_vectors, n), storage),
            DRAM1: np.zeros((dram1_vectors, n), storage),
            LOCAL: np.zeros((arch.local_depth, n), storage),
            ACCUMULATORS: np.zeros((arch.accumulator_depth, n), storage),
        }
        self.registers = np.zeros((arch.simd_registers_depth, n), storage)
        self.weights = np.zeros((n + 1, n), storage)

    @property
    def local(self) -> np.ndarray:
        return self.memories[LOCAL]

    @property
    def accumulators(self) -> np.ndarray:
        return self.memories[ACCUMULATORS]

    def check_fits(self, program: np.ndarray, first_index: int = 0) -> None:
        """Refuse a program that touches DRAM beyond what this machine allocated."""
        extents = memory_extents(program, self.arch, first_index)
        for memory in (DRAM0, DRAM1):
            if extents[memory] > len(self.memories[memory]):
                raise LaminaError(f"the program reaches {memory} vector {extents[memory] - 1}, but the "
                                  f"simulator allocated {len(self.memories[memory])} vectors")

    def run(self, program: np.ndarray, first: int = 0, count: int | None = None, *,
            batch: bool = True) -> None:
        """Execute instructions [first, first + count) of `program` (checked with `check_fits` first)."""
        stop = len(program) if count is None else first + count
        self.check_fits(program[first:stop], first)
        for start in range(first, stop, CHUNK):
            self._run_chunk(program[start:min(start + CHUNK, stop)], batch)

    # -- execution -------------------------------------------------------------

    def _run_chunk(self, chunk: np.ndarray, batch: bool) -> None:
        simd = SimdFields.of(chunk, self.arch.simd_registers_depth)
        runs = simd_run_lengths(chunk, simd).tolist() if batch else [1] * len(chunk)
        matmul_groups = consecutive_lengths(chunk["opcode"] == Opcode.MATMUL).tolist()
        opcode, flags = chunk["opcode"].tolist(), chunk["flags"].tolist()
        op0, op1, op2 = chunk["op0"].tolist(), chunk["op1"].tolist(), chunk["op2"].tolist()
        stride0, stride1 = chunk["op0_stride"].tolist(), chunk["op1_stride"].tolist()
        simd_op, left, right, dest = (a.tolist() for a in (simd.op, simd.left, simd.right, simd.dest))
        i = 0
        while i < len(chunk):
            code = opcode[i]
            if code == Opcode.SIMD:
                length = 1
                if runs[i] > 1:
                    length = batchable_prefix(runs[i], flags[i], op1[i], op1[i + 1] - op1[i],
                                              op0[i], op0[i + 1] - op0[i])
                read_step = op1[i + 1] - op1[i] if length > 1 else 0
                write_step = op0[i + 1] - op0[i] if length > 1 else 0
                self.simd(flags[i], simd_op[i], left[i], right[i], dest[i],
                          _rows(op1[i], read_step, length), _rows(op0[i], write_step, length))
                i += length
                continue
            if code == Opcode.MATMUL:
                length = matmul_groups[i] if batch else 1
                self.matmuls(chunk[i:i + length])
                i += length
                continue
            if code == Opcode.DATA_MOVE:
                self.data_move(DataMoveKind(flags[i]), op0[i], 1 << stride0[i], op1[i], 1 << stride1[i], op2[i] + 1)
            elif code == Opcode.LOAD_WEIGHT:
                self.load_weight(flags[i], op0[i], 1 << stride0[i], op1[i] + 1)
            i += 1

    def matmuls(self, records: np.ndarray) -> None:
        """Consecutive MatMuls (so the same weights): one array pass if they write distinct accumulator rows.

        Distinct rows make the batch equal to executing them in order (no
        MatMul reads what another wrote); otherwise they run one by one.
        """
        self.saturations.current = Opcode.MATMUL.name
        sizes = records["op2"].astype(np.int64) + 1
        owner = np.repeat(np.arange(len(records)), sizes)
        offset = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        accumulator_rows = (records["op1"].astype(np.int64)[owner]
                            + (offset << records["op1_stride"].astype(np.int64)[owner]))
        if len(records) > 1 and len(np.unique(accumulator_rows)) < len(accumulator_rows):
            for k in range(len(records)):
                self.matmuls(records[k:k + 1])
            return
        flags = records["flags"][owner]
        zeroes = (flags & MatMulFlag.ZEROES) != 0
        local_rows = records["op0"].astype(np.int64)[owner] + (offset << records["op0_stride"].astype(np.int64)[owner])
        inputs = self.local[np.where(zeroes, 0, local_rows)]
        inputs[zeroes] = 0
        # Row blocks keep each float product small enough that OpenBLAS stays on one thread:
        # on a busy machine its threads cost far more than they gain (ResNet-50: 47 s instead of 8 s).
        block = max(1, _SINGLE_THREAD_PRODUCT // self.arch.array_size ** 2)
        result = np.concatenate([self.data_type.matmul(inputs[start:start + block], self.weights[1:], self.weights[0])
                                 for start in range(0, len(inputs), block)])
        accumulate = (flags & MatMulFlag.ACCUMULATE) != 0
        result[accumulate] = self.data_type.add(self.accumulators[accumulator_rows[accumulate]], result[accumulate])
        self.accumulators[accumulator_rows] = result

    def data_move(self, kind: DataMoveKind, local: int, local_stride: int, address: int, stride: int,
                  size: int) -> None:
        self.saturations.current = Opcode.DATA_MOVE.name
        memory, to_local, accumulate = _MOVES[kind]
        local_rows = local + local_stride * np.arange(size)
        other_rows = address + stride * np.arange(size)
        other = self.memories[memory]
        if to_local:
            self.local[local_rows] = other[other_rows]
        elif accumulate:
            other[other_rows] = self.data_type.add(other[other_rows], self.local[local_rows])
        else:
            other[other_rows] = self.local[local_rows]

    def load_weight(self, flags: int, local: int, local_stride: int, size: int) -> None:
        """Push `size` vectors, read from the highest address down, into the array (row 0 last)."""
        rows = self.arch.array_size + 1
        if flags & LoadWeightFlag.ZEROES:
            pushed = np.zeros((size, self.arch.array_size), np.int64)
        else:
            # after the pushes, row k holds the vector at local + k * stride
            pushed = self.local[local + local_stride * np.arange(size)]
        kept = self.weights[:max(rows - size, 0)].copy()
        self.weights[:min(size, rows)] = pushed[:rows]
        self.weights[size:] = kept

    def simd(self, flags: int, op: int, left: int, right: int, dest: int,
             reads: slice | np.ndarray, writes: slice | np.ndarray) -> None:
        """Execute the SIMD instructions of one run (one vector each) reading and writing these rows."""
        self.saturations.current = Opcode.SIMD.name
        if flags & _READ:
            inputs = self.accumulators[reads]
        else:
            inputs = np.zeros((_count(reads), self.arch.array_size), np.int64)
        # a register source repeats per instruction, so saturations count once per instruction too
        lhs = inputs if left == 0 else np.broadcast_to(self.registers[left - 1], inputs.shape)
        rhs = inputs if right == 0 else np.broadcast_to(self.registers[right - 1], inputs.shape)
        result = _ALU[op](self.data_type, lhs, rhs, inputs)
        if dest:
            self.registers[dest - 1] = result[-1]
        if flags & _WRITE:
            if flags & _ACCUMULATE:
                result = self.data_type.add(self.accumulators[writes], result)
            self.accumulators[writes] = result


_READ, _WRITE, _ACCUMULATE = int(SimdFlag.READ), int(SimdFlag.WRITE), int(SimdFlag.ACCUMULATE)


def _rows(start: int, step: int, count: int) -> slice | np.ndarray:
    """Rows start, start + step, ... (count of them): a slice when possible, as slicing is cheaper."""
    if count == 1:
        return slice(start, start + 1)
    if step > 0:
        return slice(start, start + step * (count - 1) + 1, step)
    return start + step * np.arange(count)


def _count(rows: slice | np.ndarray) -> int:
    return len(range(rows.start, rows.stop, rows.step or 1)) if isinstance(rows, slice) else len(rows)


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
