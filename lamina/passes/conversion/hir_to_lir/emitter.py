"""Instruction emission shared by every layer kind: rolled transfers, zero fill, registers, constants."""

from __future__ import annotations

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.program import ConfigRegister, DataMoveKind, Opcode, ProgramBuilder, SimdOp

from .rolling import segment_runs

# The longest zero run one DataMove copies from the zero block in DRAM1;
# longer runs take several instructions (the same cycles).
ZERO_BLOCK_VECTORS = 256

# DRAM1 vectors the memory manager leaves free for the ConstPool: the zero
# block and up to 256 broadcast constants (the scheduler checks the limit).
SCHEDULER_CONSTS_RESERVE = ZERO_BLOCK_VECTORS + 256


def weights_room(arch: Architecture) -> int:
    """DRAM1 vectors the memory manager may fill with HIR consts."""
    return arch.dram1_depth - SCHEDULER_CONSTS_RESERVE

_DATA_MOVE, _CONFIGURE = int(Opcode.DATA_MOVE), int(Opcode.CONFIGURE)
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
    """The scheduler's instruction stream: blocks of records in order, transfers rolled in batches.

    Emitters append whole blocks of records (`append`) and describe
    transfers as address arrays (`transfer`); the transfers pending since the
    last `flush` are rolled together by one `segment_runs` call, so a layer
    costs a fixed number of NumPy operations per stage, not per instruction.
    `len()` flushes first.
    """

    def __init__(self, arch: Architecture, consts: ConstPool):
        self.arch = arch
        self.consts = consts
        self.builder = ProgramBuilder(arch.simd_registers_depth)  # record helpers; holds the flushed blocks
        self._limits = (arch.stride0_depth, arch.stride1_depth)
        self._pieces: list[np.ndarray | int] = []  # record blocks, or the index of a pending transfer
        self._transfers: list[tuple[int, np.ndarray, np.ndarray, int]] = []  # (kind, local, other, max size)
        self._zero_moves: dict[int, np.ndarray] = {}  # local address -> its one-vector zero DataMove
        # The rounding positions the machine holds (reset to the binary point): Configure only on a change.
        self._shifts = dict.fromkeys(ConfigRegister, arch.data_type.binary_point)

    def append(self, block: np.ndarray) -> None:
        """Append a block of INSTRUCTION records."""
        self._pieces.append(block)

    def data_move(self, kind: DataMoveKind, local: int, address: int, size: int) -> None:
        """One DataMove of `size` contiguous vectors."""
        self.append(self.builder.records(_DATA_MOVE, int(kind), local, 0, address, 0, size - 1))

    def simd(self, op: SimdOp, *, read: int, dest: int = 0) -> None:
        """One SIMD instruction reading accumulator `read` into register `dest`."""
        self.append(self.builder.simd_block(op, read=np.array([read]), dest=dest))

    def round_at(self, register: ConfigRegister, shift: int | None) -> None:
        """Make `register` hold `shift` (None: the data type's binary point), emitting Configure if it changes."""
        shift = self.arch.data_type.binary_point if shift is None else shift
        if self._shifts[register] != shift:
            self.append(self.builder.records(_CONFIGURE, 0, int(register), 0, shift, 0, 0))
            self._shifts[register] = shift

    def __len__(self) -> int:
        self.flush()
        return len(self.builder)

    def transfer(self, kind: DataMoveKind, local: np.ndarray, other: np.ndarray,
                 max_size: int | None = None) -> None:
        """Move vector i between local[local[i]] and the other memory's other[i], rolled (at the next flush)."""
        if len(local):
            self._pieces.append(len(self._transfers))
            self._transfers.append((int(kind), local, other, max_size or self.arch.local_depth))

    def flush(self) -> None:
        """Roll the pending transfers and move every block, in order, into the builder."""
        blocks = self._rolled_transfers()
        for piece in self._pieces:
            self.builder.append(blocks[piece] if isinstance(piece, int) else piece)
        self._pieces, self._transfers = [], []

    def _rolled_transfers(self) -> list[np.ndarray]:
        """The DataMove records of each pending transfer."""
        if not self._transfers:
            return []
        kinds, locals_, others, max_sizes = zip(*self._transfers)
        lengths = np.array([len(x) for x in locals_])
        starts = np.cumsum(lengths) - lengths
        cut, segment = segment_runs(np.concatenate(locals_), np.concatenate(others), starts, np.array(max_sizes),
                                    self._limits)
        records = self.builder.records(_DATA_MOVE, np.array(kinds)[segment], cut.first, cut.first_exponent,
                                       cut.second, cut.second_exponent, cut.size - 1)
        return np.split(records, np.cumsum(np.bincount(segment, minlength=len(lengths)))[:-1])

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

    def zero_vector(self, local: int) -> None:
        """Write one zero vector at local address `local` (the same DataMove as `zero_fill` of one address)."""
        if local not in self._zero_moves:
            self._zero_moves[local] = self.builder.records(_DATA_MOVE, int(DataMoveKind.DRAM1_TO_LOCAL), local, 0,
                                                           self.consts.zeros(), 0, 0)
        self.append(self._zero_moves[local])

    def load_register(self, dram1: int, local_scratch: int, acc_scratch: int) -> None:
        """Register 1 = the DRAM1 vector `dram1` (through local memory and the accumulators)."""
        self.data_move(DataMoveKind.DRAM1_TO_LOCAL, local_scratch, dram1, 1)
        self.data_move(DataMoveKind.LOCAL_TO_ACC, local_scratch, acc_scratch, 1)
        self.simd(SimdOp.MOVE, read=acc_scratch, dest=REGISTER)

    def build(self) -> np.ndarray:
        """The whole program's records."""
        self.flush()
        return self.builder.build()
