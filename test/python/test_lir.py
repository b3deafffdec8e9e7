"""The lir dialect: programs ⇄ LIR text and modules, and the program verifier.

Random valid programs (every opcode, flag, memory and register within the
architecture) go to text, through MLIR and back unchanged; each verifier
rule is shown to fire on a program that breaks only it.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.target.tcu.architecture import load_architecture, parse_architecture
from lamina.target.tcu.program import (INSTRUCTION, DataMoveKind, Opcode, ProgramBuilder, SimdOp)
from lamina.dialects.context import make_context, parse_module, print_module, verify_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.lir_program import (DATA_MOVES, lir_to_program, memory_depths, other_memory, program_to_lir,
                                         program_to_lir_text, verify_program)

SMALL = parse_architecture(dict(data_type="FP16BP8", array_size=4, dram0_depth=1024, dram1_depth=512,
                                local_depth=128, accumulator_depth=64, simd_registers_depth=2, stride0_depth=4,
                                stride1_depth=3), "small", "small")


def random_valid_program(arch, seed: int, count: int) -> np.ndarray:
    """Instructions of every kind whose every vector lies in its memory."""
    rng = np.random.default_rng(seed)
    depths = memory_depths(arch)
    builder = ProgramBuilder(arch.simd_registers_depth)

    def strided(memory: str, stride_depth: int, size: int):
        stride = 1 << int(rng.integers(0, stride_depth))
        stride = min(stride, max(1, (depths[memory] - 1) // max(size - 1, 1)))
        stride = 1 << (stride.bit_length() - 1)
        start = int(rng.integers(0, depths[memory] - (size - 1) * stride))
        return start, stride

    for _ in range(count):
        kind = rng.integers(0, 5)
        if kind == 0:
            builder.noop()
        elif kind == 1:
            size = int(rng.integers(1, 9))
            local, local_stride = strided("local", arch.stride0_depth, size)
            accumulator, accumulator_stride = strided("accumulator", arch.stride1_depth, size)
            builder.matmul(local, accumulator, size, accumulate=bool(rng.integers(2)), zeroes=bool(rng.integers(2)),
                           local_stride=local_stride, accumulator_stride=accumulator_stride)
        elif kind == 2:
            move = list(DATA_MOVES)[rng.integers(len(DATA_MOVES))]
            size = int(rng.integers(1, 9))
            local, local_stride = strided("local", arch.stride0_depth, size)
            address, stride = strided(other_memory(move), arch.stride1_depth, size)
            builder.data_move(move, local, address, size, local_stride=local_stride, stride=stride)
        elif kind == 3:
            size = int(rng.integers(1, arch.array_size + 2))
            local, local_stride = strided("local", arch.stride0_depth, size)
            builder.load_weight(local, size, zeroes=bool(rng.integers(2)), local_stride=local_stride)
        else:
            register = lambda: int(rng.integers(0, arch.simd_registers_depth + 1))  # noqa: E731
            address = lambda: int(rng.integers(0, arch.accumulator_depth)) if rng.integers(2) else None  # noqa: E731
            builder.simd(SimdOp(int(rng.integers(16))), left=register(), right=register(), dest=register(),
                         read=address(), write=address(), accumulate=bool(rng.integers(2)))
    return builder.build() if count else np.zeros(0, dtype=INSTRUCTION)


@pytest.fixture(scope="module")
def context():
    return make_context()


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), count=st.integers(0, 40))
def test_program_round_trips_through_lir(seed, count):
    context = make_context()
    program = random_valid_program(SMALL, seed, count)
    assert verify_program(program, SMALL) == []
    text = program_to_lir_text(program, SMALL)
    module = parse_module(text, context)
    assert verify_module(module) == []
    assert print_module(module) == text  # the generated text is what MLIR prints
    decoded, arch = lir_to_program(module)
    assert arch == SMALL
    assert np.array_equal(decoded, program)


def test_named_architecture_round_trips(context):
    arch = load_architecture("ultra96v2")
    program = random_valid_program(arch, seed=1, count=200)
    decoded, decoded_arch = lir_to_program(program_to_lir(program, arch, context))
    assert decoded_arch == arch and np.array_equal(decoded, program)


def single(opcode, flags=0, op0=0, op0_stride=0, op1=0, op1_stride=0, op2=0) -> np.ndarray:
    program = random_valid_program(SMALL, seed=7, count=5)
    bad = np.array([(opcode, flags, op0, op0_stride, op1, op1_stride, op2)], dtype=INSTRUCTION)
    return np.concatenate([program, bad])


@pytest.mark.parametrize("instruction, message", [
    (single(Opcode.MATMUL, op0=125, op2=3), "instruction 5: MATMUL reads local vectors 125..128 (stride 1) but "
                                            "local has 128 vectors"),
    (single(Opcode.MATMUL, op1=60, op1_stride=1, op2=2), "MATMUL writes accumulator vectors 60..64 (stride 2)"),
    (single(Opcode.MATMUL, op0_stride=4), "MATMUL operand 0 stride 2^4 is beyond the 4 strides"),
    (single(Opcode.DATA_MOVE, DataMoveKind.DRAM1_TO_LOCAL, op1=511, op2=1),
     "DATA_MOVE moves dram1 vectors 511..512 (stride 1) but dram1 has 512 vectors"),
    (single(Opcode.DATA_MOVE, DataMoveKind.LOCAL_TO_DRAM0, op1=1020, op1_stride=2, op2=1),
     "DATA_MOVE moves dram0 vectors 1020..1024 (stride 4)"),
    (single(Opcode.DATA_MOVE, DataMoveKind.LOCAL_TO_DRAM0, op1_stride=3), "DATA_MOVE operand 1 stride 2^3"),
    (single(Opcode.LOAD_WEIGHT, op1=5), "LOAD_WEIGHT pushes 6 vectors but the array holds 5"),
    (single(Opcode.LOAD_WEIGHT, op0=127, op1=1), "LOAD_WEIGHT reads local vectors 127..128"),
    (single(Opcode.SIMD, 0b010, op0=64), "SIMD writes accumulator vectors 64..64"),
    (single(Opcode.SIMD, 0b001, op1=70), "SIMD reads accumulator vectors 70..70"),
    (single(Opcode.SIMD, op2=0b1111_00_00_00 | 3), "SIMD dest = register 3"),  # 2 bits per operand, 2 registers
    (single(Opcode.SIMD, op2=0b1111_11_00_00), "SIMD left = register 3"),
    (single(Opcode.SIMD, op2=1 << 10), "SIMD sub-instruction 0x400 has bits above its 10"),
    (single(Opcode.SIMD, op1=3), "SIMD has read address 3 without the read flag"),
    (single(Opcode.LOAD_WEIGHT, op2=1), "LOAD_WEIGHT has op2 = 1, not 0"),
    (single(Opcode.NOOP, op0=1), "NOOP has op0 = 1, not 0"),
    (single(Opcode.MATMUL, flags=4), "flags 0b0100 are not valid for MATMUL"),
    (single(Opcode.LOAD_LUT), "opcode 0x5 is not supported"),
])
def test_verify_program_names_instruction_and_limit(instruction, message):
    problems = verify_program(instruction, SMALL, source="model.tprog")
    assert len(problems) == 1, problems
    assert problems[0].startswith("model.tprog: instruction 5: ") and message in problems[0]


def test_verify_program_counts_repeated_problems():
    program = np.zeros(4, dtype=INSTRUCTION)
    program["opcode"] = Opcode.SIMD
    program["flags"] = 0b010
    program["op0"] = [0, 64, 65, 3]
    (problem,) = verify_program(program, SMALL)
    assert problem.startswith("program: instruction 1: SIMD writes") and problem.endswith("(and 1 more instructions)")


@pytest.mark.parametrize("instruction, message", [
    (single(Opcode.NOOP, op2=7), "instruction 5: NOOP has op2 = 7, not 0"),
    (single(Opcode.LOAD_LUT), "instruction 5: opcode 0x5 is not supported"),
    (single(Opcode.DATA_MOVE, flags=14), "instruction 5: flags 0b1110 are not valid for DATA_MOVE"),
    (single(Opcode.SIMD, op2=1 << 12), "instruction 5: SIMD sub-instruction 0x1000 has bits above its 10"),
])
def test_lir_shows_every_bit_or_refuses(instruction, message):
    with pytest.raises(LaminaError, match=message):
        program_to_lir_text(instruction, SMALL)


def test_module_verifier_reports_at_the_instruction(context):
    program = single(Opcode.MATMUL, op0=125, op2=3)
    module = parse_module(program_to_lir_text(program, SMALL), context, source_name="p.mlir")
    (problem,) = verify_module(module)
    assert str(problem).startswith("p.mlir:7:3: error: 'lir.matmul' op (instruction 5): MATMUL reads local vectors")


def test_lir_to_program_rejects_bad_attributes(context):
    builder = ProgramBuilder()
    builder.noop()
    builder.matmul(local=0, accumulator=0, size=1)
    text = program_to_lir_text(builder.build(), SMALL).replace("local_stride = 1 :", "local_stride = 6 :")
    with pytest.raises(LaminaError, match=r"p.mlir:3:3: error: 'lir.matmul' op \(instruction 1\): local_stride = 6 "
                                          "is not a power of two"):
        lir_to_program(parse_module(text, context, source_name="p.mlir"))


def test_lir_needs_the_architecture(context):
    module = parse_module('"lir.noop"() : () -> ()', context, source_name="p.mlir")
    with pytest.raises(LaminaError, match="needs the 'lir.architecture' attribute"):
        lir_to_program(module)


def test_large_programs_format_and_verify_quickly():
    arch = load_architecture("ultra96v2")
    program = np.tile(random_valid_program(arch, seed=3, count=1000), 200)
    # Not timed (a timed assertion flakes on a loaded machine): 200,000 instructions format and verify.
    text = program_to_lir_text(program, arch)
    assert verify_program(program, arch) == []
    assert text.count("\n") == len(program) + 2
