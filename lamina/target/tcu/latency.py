"""Cycle estimates of a program: Tensil's latency model, vectorized over the record array.

The model is Tensil's estimator (`Estimator.scala`, tensil-facts §5.2) for
one thread with no overlap between units:

| instruction | cycles |
|---|---|
| NoOp (and the never-emitted LoadLUT, Configure) | 1 |
| MatMul of n vectors | n; + N after a LoadWeight; + 2N after anything but a MatMul (fill, drain) |
| SIMD | 1 |
| LoadWeight of n vectors | n |
| DataMove of n vectors | n (1 cycle per vector, DRAM included) |

What it ignores, as Tensil does: DRAM latency and bandwidth (a real DRAM
read has a setup time), the overlap of DRAM DataMoves with compute through
local memory's second port, instruction fetch, and the two-deep instruction
queue. Unlike Tensil's "execution latency" it does not drop the last nine
instructions (a bookkeeping bug there): the total is the plain sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .architecture import Architecture
from .program import Opcode


def vectors_moved(program: np.ndarray) -> np.ndarray:
    """Vectors each instruction processes: size field + 1 where there is one, else 1."""
    opcode = program["opcode"]
    vectors = np.ones(len(program), dtype=np.int64)
    sized = (opcode == Opcode.MATMUL) | (opcode == Opcode.DATA_MOVE)
    vectors[sized] = program["op2"][sized].astype(np.int64) + 1
    load = opcode == Opcode.LOAD_WEIGHT
    vectors[load] = program["op1"][load].astype(np.int64) + 1
    return vectors


def instruction_cycles(program: np.ndarray, arch: Architecture, previous_opcode: int | None = None) -> np.ndarray:
    """Cycles of each instruction (int64). `previous_opcode` is the instruction before the first, if any."""
    opcode = program["opcode"]
    cycles = vectors_moved(program)
    previous = np.empty(len(program), dtype=np.int64)
    if len(program):
        previous[0] = Opcode.NOOP if previous_opcode is None else previous_opcode
        previous[1:] = opcode[:-1]
    matmul = opcode == Opcode.MATMUL
    n = arch.array_size
    cycles[matmul & (previous == Opcode.LOAD_WEIGHT)] += n
    cycles[matmul & (previous != Opcode.LOAD_WEIGHT) & (previous != Opcode.MATMUL)] += 2 * n
    return cycles


@dataclass(frozen=True)
class OpcodeSummary:
    count: int
    vectors: int
    cycles: int


def summarize_by_opcode(program: np.ndarray, cycles: np.ndarray) -> dict[str, OpcodeSummary]:
    """Per opcode present in the program: instructions, vectors processed and cycles."""
    vectors = vectors_moved(program)
    summary = {}
    for code in np.unique(program["opcode"]):
        selected = program["opcode"] == code
        summary[Opcode(int(code)).name] = OpcodeSummary(
            int(selected.sum()), int(vectors[selected].sum()), int(cycles[selected].sum()))
    return summary


def mac_efficiency(true_macs: int, cycles: int, arch: Architecture) -> float:
    """The fraction of the array's peak (N² MACs per cycle) the program achieves."""
    return true_macs / (cycles * arch.array_size ** 2) if cycles else 0.0
