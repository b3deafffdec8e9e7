"""The latency model on hand-written programs, against the table in docs/accelerator.md."""

import numpy as np

from lamina.target.tcu.architecture import load_architecture
from lamina.target.tcu.latency import instruction_cycles, mac_efficiency, summarize_by_opcode
from lamina.target.tcu.program import DataMoveKind, Opcode, ProgramBuilder, SimdOp

ARCH = load_architecture("ultra96v2")  # N = 16


def test_cycles_follow_the_table():
    b = ProgramBuilder()
    b.data_move(DataMoveKind.DRAM1_TO_LOCAL, 0, 0, 17)      # 17
    b.matmul(0, 0, 5)                                        # 5 + 2N (after a DataMove)
    b.load_weight(0, 17)                                     # 17
    b.matmul(20, 0, 8, accumulate=True)                      # 8 + N (after a LoadWeight)
    b.matmul(30, 8, 3)                                       # 3 (after a MatMul)
    b.simd(SimdOp.MAX, right=1, read=0, write=0)             # 1
    b.noop()                                                 # 1
    b.data_move(DataMoveKind.ACC_TO_LOCAL, 0, 0, 4)          # 4
    cycles = instruction_cycles(b.build(), ARCH)
    assert cycles.tolist() == [17, 5 + 32, 17, 8 + 16, 3, 1, 1, 4]


def test_first_matmul_pays_the_fill_unless_told_the_previous_instruction():
    b = ProgramBuilder()
    b.matmul(0, 0, 4)
    program = b.build()
    assert instruction_cycles(program, ARCH).tolist() == [4 + 32]
    assert instruction_cycles(program, ARCH, previous_opcode=Opcode.LOAD_WEIGHT).tolist() == [4 + 16]
    assert instruction_cycles(program, ARCH, previous_opcode=Opcode.MATMUL).tolist() == [4]


def test_summary_and_efficiency():
    b = ProgramBuilder()
    b.load_weight(0, 17)
    b.matmul(17, 0, 100)
    b.simd(SimdOp.ZERO, write=3)
    b.simd(SimdOp.ZERO, write=4)
    program = b.build()
    cycles = instruction_cycles(program, ARCH)
    summary = summarize_by_opcode(program, cycles)
    assert summary["LOAD_WEIGHT"].cycles == 17 and summary["LOAD_WEIGHT"].vectors == 17
    assert summary["MATMUL"].count == 1 and summary["MATMUL"].cycles == 116
    assert summary["SIMD"].count == 2 and summary["SIMD"].cycles == 2
    assert set(summary) == {"LOAD_WEIGHT", "MATMUL", "SIMD"}
    total = int(cycles.sum())
    assert total == 135
    assert np.isclose(mac_efficiency(100 * 16 * 16, total, ARCH), 100 / 135)
    assert instruction_cycles(ProgramBuilder().build(), ARCH).size == 0
