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

from .tcu_machine import DRAM0, DRAM1

_READS = {DataMoveKind.DRAM0_TO_LOCAL: DRAM0, DataMoveKind.DRAM1_TO_LOCAL: DRAM1}
_WRITES = {DataMoveKind.LOCAL_TO_DRAM0: DRAM0, DataMoveKind.LOCAL_TO_DRAM1: DRAM1}


class DramWrites:
    """Written-vector masks of DRAM0 and DRAM1."""

    def __init__(self, dram0_vectors: int, dram1_vectors: int):
        self.written = {DRAM0: np.zeros(dram0_vectors, bool), DRAM1: np.zeros(dram1_vectors, bool)}

    def mark(self, memory: str, base: int, size: int) -> None:
        self.written[memory][base:base + size] = True

    def replay(self, program: np.ndarray, first: int, count: int, source: str) -> None:
        """Check and mark the DRAM traffic of instructions [first, first + count), in order."""
        chunk = program[first:first + count]
        moves = np.flatnonzero((chunk["opcode"] == Opcode.DATA_MOVE)
                               & np.isin(chunk["flags"], [int(kind) for kind in (*_READS, *_WRITES)]))
        for index in moves:
            record = chunk[index]
            kind = DataMoveKind(int(record["flags"]))
            rows = int(record["op1"]) + (np.arange(int(record["op2"]) + 1) << int(record["op1_stride"]))
            if kind in _READS:
                unwritten = ~self.written[_READS[kind]][rows]
                if unwritten.any():
                    raise LaminaError(f"{source}: instruction {first + int(index)} (DataMove) reads "
                                      f"{_READS[kind]} vector {int(rows[np.argmax(unwritten)])}, which no input, "
                                      f"consts file, host step or earlier instruction wrote (a manifest entry "
                                      f"or plan step is missing)")
            else:
                self.written[_WRITES[kind]][rows] = True

    def check_tensor(self, name: str, base: int, size: int, source: str) -> None:
        """A tensor the host reads back (an output, a host step's Vars input) was written."""
        if not self.written[DRAM0][base:base + size].all():
            raise LaminaError(f"{source}: tensor '{name}' in DRAM0 [{base}, {base + size}) was never written "
                              f"(a plan step is missing)")
