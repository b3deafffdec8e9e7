"""Periodic runs of SIMD instructions, found so that each runs as one NumPy operation over many vectors.

SIMD instructions handle one vector each and are two thirds of a ResNet-50 program. They come in blocks
repeated with addresses advancing by a constant step: a ReLU is a block of one instruction per vector, a
3x3 max pool a block of nine per output vector (a Move into register 1, seven Max into it, a Max written
out). A run of `blocks` repetitions of a `period`-instruction block executes position by position, each
position over all blocks at once, with one copy of the registers per block. That equals executing the
instructions in order when:

- registers: every register a block reads is written earlier in the same block, or never written by it
  (then every block reads the value from before the run);
- memory: no accumulator address is accessed by two blocks when one of the accesses is a write.

`SimdRuns.at` returns the longest such run starting at an instruction, trying each period up to
`MAX_PERIOD` and cutting a candidate to the blocks before its first conflict. `simd_calls` turns a stretch
of consecutive SIMD instructions into the `Machine.simd` calls of its runs, which a machine keeps per
distinct stretch.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.program import Opcode, SimdFlag, unpack_simd

from .tcu_indexing import first_positions

MAX_PERIOD = 9  # a 3x3 pool; longer blocks (a 7x7 average pool) run one instruction at a time


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


@dataclass(frozen=True)
class SimdRun:
    """`blocks` repetitions of instructions [start, start + period); each position's addresses advance by a
    constant step per block (its addresses in the second block minus those in the first)."""

    start: int
    period: int
    blocks: int


def candidate_lengths(c: _Columns, period: int) -> np.ndarray:
    """For each instruction, how many instructions from it repeat a `period`-instruction block of SIMD
    instructions with the same flags and sub-instructions, each position's addresses advancing by a constant
    step per block."""
    count = len(c.is_simd)
    index = np.arange(count)
    same = np.zeros(count, dtype=bool)  # instruction k repeats k - period
    same[period:] = (c.is_simd[period:] & c.is_simd[:-period] & (c.flags[period:] == c.flags[:-period])
                     & (c.op2[period:] == c.op2[:-period]))
    steady = same.copy()  # k also advances by the step k - period did
    for address in (c.write, c.read):
        step = address[period:] - address[:-period]
        steady[2 * period:] &= step[period:] == step[:-period]
    steady[:2 * period] = False

    def next_false(mask: np.ndarray, start: np.ndarray) -> np.ndarray:
        following = np.append(np.minimum.accumulate(np.where(mask, count, index)[::-1])[::-1], count)
        return following[np.minimum(start, count)]

    # block 1 repeats block 0; later blocks also repeat its steps
    end = np.minimum(next_false(same, index + period), next_false(steady, index + 2 * period))
    return np.where(c.is_simd, np.minimum(end, count) - index, 0)


class _Columns:
    """The fields `candidate_lengths` compares, converted once for every period."""

    def __init__(self, program: np.ndarray):
        self.is_simd = program["opcode"] == Opcode.SIMD
        self.flags, self.op2 = program["flags"], program["op2"]
        self.write, self.read = program["op0"].astype(np.int64), program["op1"].astype(np.int64)


# One `Machine.simd` call: the number of blocks, and per position of the block (flags, op, left, right, dest,
# read address, read step, write address, write step)
SimdCall = tuple[int, list[tuple[int, ...]]]


def simd_calls(stretch: np.ndarray, registers_depth: int, batch: bool) -> list[SimdCall]:
    """The `Machine.simd` calls that execute a stretch of consecutive SIMD instructions: its runs in order
    (`batch`), or one instruction per call. They depend on the instructions only, so a machine reuses them for
    every stretch with the same instructions (a convolution's epilogue on each output tile)."""
    simd = SimdFields.of(stretch, registers_depth)
    runs = SimdRuns(stretch, simd) if batch else None
    flags, read, write = stretch["flags"].tolist(), stretch["op1"].tolist(), stretch["op0"].tolist()
    op, left, right, dest = (a.tolist() for a in (simd.op, simd.left, simd.right, simd.dest))
    calls, i = [], 0
    while i < len(stretch):
        run = runs.at(i) if batch else SimdRun(i, 1, 1)
        block = range(i, i + run.period)
        steps = ([(read[k + run.period] - read[k], write[k + run.period] - write[k]) for k in block]
                 if run.blocks > 1 else [(0, 0)] * run.period)
        calls.append((run.blocks, [(flags[k], op[k], left[k], right[k], dest[k], read[k], read_step, write[k],
                                    write_step) for k, (read_step, write_step) in zip(block, steps)]))
        i += run.period * run.blocks
    return calls


class SimdRuns:
    """The batchable SIMD runs of a stretch of instructions (module docstring)."""

    def __init__(self, chunk: np.ndarray, simd: SimdFields):
        self.flags = chunk["flags"].tolist()
        self.read, self.write = chunk["op1"].tolist(), chunk["op0"].tolist()
        self.left, self.right, self.dest = simd.left.tolist(), simd.right.tolist(), simd.dest.tolist()
        columns = _Columns(chunk)
        self.lengths = np.stack([candidate_lengths(columns, period) for period in range(1, MAX_PERIOD + 1)])

    def at(self, start: int) -> SimdRun:
        """The longest batchable run from `start` (one block of one instruction if there is none)."""
        lengths = self.lengths[:, start].tolist()
        candidates = sorted((-(length // period * period), period) for period, length in enumerate(lengths, 1)
                            if length >= 2 * period)
        for _, period in candidates:  # the most instructions covered, then the shortest period
            if not self._registers_defined_before_use(start, period):
                continue
            blocks = self._blocks_without_conflict(start, period, lengths[period - 1] // period)
            if blocks >= 2:
                return SimdRun(start, period, blocks)
        return SimdRun(start, 1, 1)

    def _registers_defined_before_use(self, start: int, period: int) -> bool:
        block = range(start, start + period)
        written = {self.dest[k] for k in block} - {0}
        defined = set()
        for k in block:
            if {self.left[k], self.right[k]} & (written - defined):
                return False
            defined.add(self.dest[k])
        return True

    def _blocks_without_conflict(self, start: int, period: int, blocks: int) -> int:
        """How many blocks run before the first whose accumulator access conflicts with an earlier block's."""
        block = np.arange(blocks)
        addresses, writes = [], []  # per access of a block position: its address in each block
        for k in range(start, start + period):
            flags = self.flags[k]
            if flags & _READ:
                addresses.append(self.read[k] + (self.read[k + period] - self.read[k]) * block)
                writes.append(False)
            if flags & _WRITE:  # an accumulating write also reads its address, in the same block
                addresses.append(self.write[k] + (self.write[k + period] - self.write[k]) * block)
                writes.append(True)
        if not any(writes):
            return blocks  # reads only
        steps = {int(a[1] - a[0]) for a in addresses} if blocks > 1 else {1}
        if len(steps) == 1:
            step = abs(steps.pop())
            first = [int(a[0]) for a in addresses]
            if step > max(first) - min(first):
                return blocks  # each block's addresses lie within one step: the blocks never meet
        # block-major order, so that the owning block never decreases
        address = np.stack(addresses, axis=1).ravel()
        write = np.tile(writes, blocks)
        owner = np.repeat(block, len(writes))
        address -= address.min()
        first_access = first_positions(int(address.max()) + 1, address, owner, blocks)
        first_write = first_positions(len(first_access), address[write], owner[write], blocks)
        conflict = (owner > first_write[address]) | (write & (owner > first_access[address]))
        return int(owner[conflict].min()) if conflict.any() else blocks


_READ, _WRITE = int(SimdFlag.READ), int(SimdFlag.WRITE)
