"""How many bits each instruction field takes, derived from the architecture.

Tensil's `InstructionLayout` (tensil-facts §2.1): an instruction is, from the
most significant end, a header byte (opcode, flags), operand 2, operand 1 and
operand 0; each operand is rounded up to whole bytes. Operands 0 and 1 hold
an address (low bits) and a stride exponent (above it); operand 2 holds a
size or a SIMD sub-instruction. Widths are sized for the largest memory an
operand can name, so one layout serves every opcode.
"""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import Architecture
from .program import simd_operand_bits

HEADER_BITS = 8  # 4-bit opcode above 4-bit flags (one thread: no thread-id bits)
OPCODE_BITS = 4
FLAGS_BITS = 4
SIMD_OP_BITS = 4


def bits_to_address(depth: int) -> int:
    """Bits holding 0..depth-1 (Tensil's log2ceil)."""
    return max(depth - 1, 0).bit_length()


def _round_to_bytes(bits: int) -> int:
    return (bits + 7) // 8 * 8


@dataclass(frozen=True)
class InstructionLayout:
    """Field widths in bits; `operandK_bits` are the byte-rounded operand widths."""

    operand0_address_bits: int
    stride0_bits: int
    operand1_address_bits: int
    stride1_bits: int
    operand2_bits: int
    simd_operand_bits: int

    @classmethod
    def of(cls, arch: Architecture) -> "InstructionLayout":
        local = bits_to_address(arch.local_depth)
        accumulator = bits_to_address(arch.accumulator_depth)
        dram0 = bits_to_address(arch.dram0_depth)
        dram1 = bits_to_address(arch.dram1_depth)
        simd_operand = simd_operand_bits(arch.simd_registers_depth)
        simd = SIMD_OP_BITS + 3 * simd_operand
        return cls(
            operand0_address_bits=max(local, accumulator),
            stride0_bits=bits_to_address(arch.stride0_depth),
            operand1_address_bits=max(local, dram0, dram1, accumulator),
            stride1_bits=bits_to_address(arch.stride1_depth),
            # A size counts vectors moved between two memories, so the smaller one bounds it.
            operand2_bits=_round_to_bytes(max(min(local, accumulator), min(local, dram0), min(local, dram1), simd)),
            simd_operand_bits=simd_operand,
        )

    @property
    def operand0_bits(self) -> int:
        return _round_to_bytes(self.operand0_address_bits + self.stride0_bits)

    @property
    def operand1_bits(self) -> int:
        return _round_to_bytes(self.operand1_address_bits + self.stride1_bits)

    @property
    def instruction_bits(self) -> int:
        return HEADER_BITS + self.operand2_bits + self.operand1_bits + self.operand0_bits

    @property
    def instruction_bytes(self) -> int:
        return self.instruction_bits // 8
