"""Which DRAM vectors hold data someone wrote, so a program never reads memory nobody filled.

A `.tmodel` whose `inputs`, `consts` or `plan` entry was deleted still
decodes and runs: the program then reads DRAM vectors that no input, consts
file, host step or earlier instruction wrote, and the simulator would
return results computed from zeros. `DramWrites` follows the plan: the
host's writes (inputs, consts, host-step results) mark vectors, each
accelerator step's DataMoves are replayed in program order before the step
runs (DRAM reads are checked, DRAM writes marked), and a read of an
unwritten vector is a LaminaError naming the instruction.
"""

from __future__ import annotations

import numpy as np

from lamina.target.tcu.program import DataMoveKind, Opcode
from lamina.dialects.diagnostics import LaminaError

from .tcu_indexing import first_positions, strided_vectors
from .tcu_machine import DRAM0, DRAM1

_KINDS = {DRAM0: (DataMoveKind.DRAM0_TO_LOCAL, DataMoveKind.LOCAL_TO_DRAM0),
          DRAM1: (DataMoveKind.DRAM1_TO_LOCAL, DataMoveKind.LOCAL_TO_DRAM1)}  # memory: (read, write)


def _traffic(chunk: np.ndarray, read_kind: int, write_kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(instruction position, DRAM vector, is a read) of every vector the DataMoves of these kinds move."""
    moves = np.flatnonzero((chunk["opcode"] == Opcode.DATA_MOVE) & np.isin(chunk["flags"], [read_kind, write_kind]))
    owner, row = strided_vectors(chunk["op1"][moves].astype(np.int64), chunk["op1_stride"][moves].astype(np.int64),
                                 chunk["op2"][moves].astype(np.int64) + 1)
    return moves[owner], row, chunk["flags"][moves][owner] == read_kind


class DramWrites:
    """Written-vector masks of DRAM0 and DRAM1."""

    def __init__(self, dram0_vectors: int, dram1_vectors: int):
        self.written = {DRAM0: np.zeros(dram0_vectors, bool), DRAM1: np.zeros(dram1_vectors, bool)}

    def mark(self, memory: str, base: int, size: int) -> None:
        self.written[memory][base:base + size] = True

    def replay(self, program: np.ndarray, first: int, count: int, source: str) -> None:
        """Check and mark the DRAM traffic of instructions [first, first + count), in order: a vector read
        must be written before the step or by an earlier instruction of it."""
        chunk = program[first:first + count]
        traffic = {memory: _traffic(chunk, *kinds) for memory, kinds in _KINDS.items()}
        problems = []  # (position, memory, vector) of the first unwritten read per memory
        for memory, (position, row, reads) in traffic.items():
            first_write = first_positions(len(self.written[memory]), row[~reads], position[~reads], count)
            unwritten = reads & ~self.written[memory][row] & (first_write[row] >= position)
            if unwritten.any():
                k = int(np.argmax(unwritten))
                problems.append((int(position[k]), memory, int(row[k])))
        if problems:
            position, memory, vector = min(problems)
            raise LaminaError(f"{source}: instruction {first + position} (DataMove) reads {memory} vector {vector}, "
                              f"which no input, consts file, host step or earlier instruction wrote (a manifest "
                              f"entry or plan step is missing)")
        for memory, (_, row, reads) in traffic.items():
            self.written[memory][row[~reads]] = True

    def check_tensor(self, name: str, base: int, size: int, source: str) -> None:
        """A tensor the host reads back (an output, a host step's Vars input) was written."""
        if not self.written[DRAM0][base:base + size].all():
            raise LaminaError(f"{source}: tensor '{name}' in DRAM0 [{base}, {base + size}) was never written "
                              f"(a plan step is missing)")
