"""Instruction emission shared by every layer kind: rolled transfers, zero fill, registers, constants."""

from __future__ import annotations

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.program import DataMoveKind, ProgramBuilder, SimdOp

from .rolling import runs

# The longest zero run one DataMove copies from the zero block in DRAM1;
# longer runs take several instructions (the same cycles).
ZERO_BLOCK_VECTORS = 256

# DRAM1 vectors the memory manager leaves free for the ConstPool: the zero
# block and up to 256 broadcast constants (the scheduler checks the limit).
SCHEDULER_CONSTS_RESERVE = ZERO_BLOCK_VECTORS + 256


def weights_room(arch: Architecture) -> int:
    """DRAM1 vectors the memory manager may fill with HIR consts."""
    return arch.dram1_depth - SCHEDULER_CONSTS_RESERVE

REGISTER = 1  # the SIMD register every accumulator op uses (all shipped architectures have one)


class ConstPool:
    """Vectors the scheduler adds after the HIR consts in DRAM1: a zero block and broadcast constants."""

    def __init__(self, base: int, lanes: int):
        self.base = base
        self.lanes = lanes
        self._vectors: list[np.ndarray] = []
        self._broadcasts: dict[int, int] = {}
        self._zeros: int | None = None

    def _append(self, vectors: np.ndarray) -> int:
        address = self.base + sum(len(v) for v in self._vectors)
        self._vectors.append(vectors)
        return address

    def zeros(self) -> int:
        """The DRAM1 address of ZERO_BLOCK_VECTORS zero vectors."""
        if self._zeros is None:
            self._zeros = self._append(np.zeros((ZERO_BLOCK_VECTORS, self.lanes), np.int64))
        return self._zeros

    def broadcast(self, value: int) -> int:
        """The DRAM1 address of a vector holding the storage integer `value` in every lane."""
        if value not in self._broadcasts:
            self._broadcasts[value] = self._append(np.full((1, self.lanes), value, np.int64))
        return self._broadcasts[value]

    def image(self) -> np.ndarray:
        return np.concatenate(self._vectors) if self._vectors else np.zeros((0, self.lanes), np.int64)


class Emitter:
    """A ProgramBuilder that knows the architecture: transfers roll up, strides stay in range."""

    def __init__(self, arch: Architecture, consts: ConstPool):
        self.arch = arch
        self.consts = consts
        self.builder = ProgramBuilder(arch.simd_registers_depth)
        self._limits = (arch.stride0_depth, arch.stride1_depth)

    def __len__(self) -> int:
        return len(self.builder)

    def transfer(self, kind: DataMoveKind, local: np.ndarray, other: np.ndarray,
                 max_size: int | None = None) -> None:
        """Move vector i between local[local[i]] and the other memory's other[i], rolled."""
        limit = max_size or self.arch.local_depth
        for l0, ls, o0, os, size in runs(local, other, max_size=limit, stride_limits=self._limits):
            self.builder.data_move(kind, l0, o0, size, local_stride=ls, stride=os)

    def zero_fill(self, local: np.ndarray) -> None:
        """Write zero vectors at the local addresses `local` (ascending), from the zero block."""
        local = np.asarray(local, np.int64)
        if not len(local):
            return
        # offsets inside each run of consecutive addresses, wrapped to the zero block
        breaks = np.flatnonzero(np.diff(local) != 1) + 1
        run_start = np.zeros(len(local), np.int64)
        run_start[breaks] = breaks
        run_start = np.maximum.accumulate(run_start)
        offset = (np.arange(len(local)) - run_start) % ZERO_BLOCK_VECTORS
        self.transfer(DataMoveKind.DRAM1_TO_LOCAL, local, self.consts.zeros() + offset,
                      max_size=ZERO_BLOCK_VECTORS)

    def load_register(self, dram1: int, local_scratch: int, acc_scratch: int) -> None:
        """Register 1 = the DRAM1 vector `dram1` (through local memory and the accumulators)."""
        self.builder.data_move(DataMoveKind.DRAM1_TO_LOCAL, local_scratch, dram1, 1)
        self.builder.data_move(DataMoveKind.LOCAL_TO_ACC, local_scratch, acc_scratch, 1)
        self.builder.simd(SimdOp.MOVE, read=acc_scratch, dest=REGISTER)
