"""Instruction layout and `.tprog` encoding (tensil-facts §2.1).

The hand-checked words are Tensil's own worked example (CompilerSpec's XOR on
a 2×2 array with depths 256: 4-byte instructions, no stride bits); the
property test round-trips random valid programs on random architectures.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.target.tcu.architecture import load_architecture, parse_architecture
from lamina.target.tcu.encoding import VALID_FLAGS, decode, encode
from lamina.target.tcu.instruction_layout import InstructionLayout
from lamina.target.tcu.program import INSTRUCTION, DataMoveKind, Opcode, ProgramBuilder, SimdOp
from lamina.dialects.diagnostics import LaminaError


def architecture(name="test", **overrides):
    fields = dict(data_type="FP16BP8", array_size=2, dram0_depth=256, dram1_depth=256, local_depth=256,
                  accumulator_depth=256, simd_registers_depth=1, stride0_depth=1, stride1_depth=1)
    return parse_architecture({**fields, **overrides}, name, name)


TINY = architecture("tiny")


@pytest.mark.parametrize("name, size, operands", [
    ("arty-a7", 8, (16, 24, 16)),
    ("pynq-z1", 8, (16, 24, 16)),
    ("ultra96v2", 9, (24, 24, 16)),
    ("zcu104", 9, (24, 24, 16)),
])
def test_layout_of_named_architectures_matches_tensil(name, size, operands):
    layout = InstructionLayout.of(load_architecture(name))
    assert layout.instruction_bytes == size
    assert (layout.operand0_bits, layout.operand1_bits, layout.operand2_bits) == operands


def test_layout_field_widths():
    layout = InstructionLayout.of(load_architecture("ultra96v2"))
    # local 20480 -> 15 bits, DRAM 2^21 -> 21 bits, 8 strides -> 3 bits
    assert (layout.operand0_address_bits, layout.stride0_bits) == (15, 3)
    assert (layout.operand1_address_bits, layout.stride1_bits) == (21, 3)
    assert layout.simd_operand_bits == 1


def xor_program():
    builder = ProgramBuilder(registers_depth=1)
    builder.data_move(DataMoveKind.DRAM1_TO_LOCAL, local=0, address=0, size=3)
    builder.load_weight(local=0, size=3)
    builder.matmul(local=3, accumulator=0, size=1)
    builder.simd(SimdOp.ZERO, dest=1)
    builder.simd(SimdOp.MAX, left=0, right=1, read=0, write=1)
    builder.data_move(DataMoveKind.ACC_TO_LOCAL, local=4, address=1, size=1)
    builder.data_move(DataMoveKind.LOCAL_TO_DRAM0, local=4, address=1, size=1)
    return builder.build()


XOR_WORDS = ["00 00 02 22", "00 02 00 30", "03 00 00 10", "00 00 09 40", "01 00 7a 43", "04 01 00 2c",
             "04 01 00 21"]


def test_tensil_worked_example_words():
    data = encode(xor_program(), TINY)
    assert [data[i:i + 4].hex(" ") for i in range(0, len(data), 4)] == XOR_WORDS
    assert np.array_equal(decode(data, TINY), xor_program())


def test_strides_sit_above_the_address():
    arch = architecture(stride0_depth=8, stride1_depth=4)  # 3 and 2 stride bits
    builder = ProgramBuilder()
    builder.matmul(local=5, accumulator=6, size=2, local_stride=4, accumulator_stride=2)
    data = encode(builder.build(), arch)
    # op0: 8 address + 3 stride bits -> 2 bytes; op1: 8 + 2 -> 2 bytes; op2: 1 byte; header.
    assert data.hex(" ") == "05 02 06 01 01 10"


def test_load_weight_size_uses_all_of_operand_1():
    arch = architecture(stride1_depth=4)
    program = np.zeros(1, dtype=INSTRUCTION)
    program[0] = (Opcode.LOAD_WEIGHT, 0, 0, 0, 0x3FF, 0, 0)  # wider than op1's 8 address bits
    assert np.array_equal(decode(encode(program, arch), arch), program)


@st.composite
def architectures(draw):
    depth = lambda low, high: draw(st.integers(low, high))  # noqa: E731
    return architecture(
        array_size=draw(st.integers(2, 64)), dram0_depth=depth(2, 2**32), dram1_depth=depth(2, 2**32),
        local_depth=depth(2, 2**16), accumulator_depth=depth(2, 2**16),
        simd_registers_depth=draw(st.integers(0, 16)), stride0_depth=draw(st.integers(1, 16)),
        stride1_depth=draw(st.integers(1, 16)))


def random_program(arch, seed: int, count: int) -> np.ndarray:
    """Valid opcodes and flags, every field anywhere in its bits."""
    layout = InstructionLayout.of(arch)
    rng = np.random.default_rng(seed)
    program = np.zeros(count, dtype=INSTRUCTION)
    opcodes = list(VALID_FLAGS)
    program["opcode"] = rng.choice(opcodes, count)
    for opcode in opcodes:
        rows = program["opcode"] == opcode
        program["flags"][rows] = rng.choice(sorted(VALID_FLAGS[opcode]), rows.sum())

    def field(bits):
        return rng.integers(0, 2**bits, count, dtype=np.uint64)

    load_weight = program["opcode"] == Opcode.LOAD_WEIGHT
    program["op0"] = field(layout.operand0_address_bits)
    program["op0_stride"] = field(layout.stride0_bits)
    program["op1"] = np.where(load_weight, field(layout.operand1_bits), field(layout.operand1_address_bits))
    program["op1_stride"] = np.where(load_weight, 0, field(layout.stride1_bits))
    program["op2"] = field(layout.operand2_bits)
    return program


@settings(max_examples=60, deadline=None, derandomize=True)
@given(arch=architectures(), seed=st.integers(0, 2**32 - 1), count=st.integers(0, 50))
def test_random_programs_round_trip(arch, seed, count):
    program = random_program(arch, seed, count)
    data = encode(program, arch)
    assert len(data) == count * InstructionLayout.of(arch).instruction_bytes
    decoded = decode(data, arch)
    assert np.array_equal(decoded, program)
    assert encode(decoded, arch) == data


@pytest.mark.parametrize("field, value, message", [
    ("op0", 256, "instruction 2: op0 = 256 does not fit in 8 bits"),
    ("op1", 300, "instruction 2: op1 = 300 does not fit in 8 bits"),
    ("op2", 256, "instruction 2: op2 = 256 does not fit in 8 bits"),
    ("op0_stride", 1, "instruction 2: op0_stride = 1 does not fit in 0 bits"),
    ("opcode", 16, "instruction 2: opcode = 16 does not fit in 4 bits"),
])
def test_encode_rejects_fields_out_of_range(field, value, message):
    program = xor_program()
    program[field][2] = value
    with pytest.raises(LaminaError, match=message):
        encode(program, TINY)


@pytest.mark.parametrize("field, value, message", [
    ("opcode", Opcode.LOAD_LUT, "instruction 2: opcode 0x5 is not an instruction Lamina supports"),
    ("flags", 4, "instruction 2: flags 0b0100 are not valid for MATMUL"),
])
def test_encode_writes_only_what_decode_reads(field, value, message):
    program = xor_program()  # instruction 2 is a MatMul
    program[field][2] = value
    with pytest.raises(LaminaError, match=message):
        encode(program, TINY)


def test_decode_rejects_partial_instructions():
    with pytest.raises(LaminaError, match="10 bytes is not a whole number of 4-byte instructions"):
        decode(bytes(10), TINY)


@pytest.mark.parametrize("word, message", [
    ("00 00 00 50", "instruction 1: opcode 0x5 is not an instruction Lamina supports"),
    ("00 00 00 f0", "instruction 1: opcode 0xf is not an instruction Lamina supports"),
    ("00 00 00 24", "instruction 1: flags 0b0100 are not valid for DATA_MOVE"),
    ("00 00 00 14", "instruction 1: flags 0b0100 are not valid for MATMUL"),
    ("00 00 00 01", "instruction 1: flags 0b0001 are not valid for NOOP"),
])
def test_decode_rejects_unknown_instructions(word, message):
    data = bytes(4) + bytes.fromhex(word.replace(" ", "")) + bytes(4)
    with pytest.raises(LaminaError, match=f"prog.tprog: {message}"):
        decode(data, TINY, source="prog.tprog")


def test_decode_rejects_nonzero_padding():
    arch = architecture(local_depth=128, accumulator_depth=128)  # 7 address bits in a byte
    with pytest.raises(LaminaError, match="instruction 0: the padding bits at the top of operand 0 are not zero"):
        decode(bytes.fromhex("80 00 00 10".replace(" ", "")), arch)


def test_a_million_instructions_encode_and_decode_quickly():
    import time

    arch = load_architecture("ultra96v2")
    program = random_program(arch, seed=0, count=1_000_000)
    start = time.perf_counter()
    decoded = decode(encode(program, arch), arch)
    assert time.perf_counter() - start < 3.0
    assert np.array_equal(decoded, program)
