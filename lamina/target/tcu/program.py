"""A program for the processing unit: one record per instruction, as the hardware sees it.

The scheduler appends instructions through `ProgramBuilder`; the encoder
turns the record array into `.tprog` bytes and the decoder turns bytes back
into the same array; the simulator, the latency model and the LIR dialect
read it. Fields are machine fields: addresses in vectors, strides as
power-of-two exponents, sizes as "vectors - 1", SIMD sub-instructions packed.

| opcode | op0 (+stride) | op1 (+stride) | op2 |
|---|---|---|---|
| MatMul | local address | accumulator address | size |
| DataMove | local address | DRAM0/DRAM1/accumulator address | size |
| LoadWeight | local address | size (op1, no stride) | 0 |
| SIMD | accumulator write address | accumulator read address | sub-instruction |
| Configure | register | value | 0 |
"""

from __future__ import annotations

from enum import IntEnum, IntFlag

import numpy as np

INSTRUCTION = np.dtype([
    ("opcode", "u1"),
    ("flags", "u1"),
    ("op0", "<u8"),
    ("op0_stride", "u1"),
    ("op1", "<u8"),
    ("op1_stride", "u1"),
    ("op2", "<u8"),
])


class Opcode(IntEnum):
    NOOP = 0x0
    MATMUL = 0x1
    DATA_MOVE = 0x2
    LOAD_WEIGHT = 0x3
    SIMD = 0x4
    LOAD_LUT = 0x5
    CONFIGURE = 0xF


class ConfigRegister(IntEnum):
    """Configure registers Lamina adds beside Tensil's (0x00-0x0B): the rounding positions of calibrated formats.

    Both reset to the data type's binary point, so a program that never
    configures them computes exactly Tensil's FP16BP8 arithmetic.
    """

    ARRAY_SHIFT = 0xC  # MatMul: the bias is shifted up by it, each output rounded at it
    SIMD_SHIFT = 0xD  # SIMD Multiply: each product rounded at it


# The largest rounding position: a 16-bit bias shifted by it stays inside the wide (64-bit) column sum.
MAX_SHIFT = 47


class MatMulFlag(IntFlag):
    ACCUMULATE = 0b01
    ZEROES = 0b10


class LoadWeightFlag(IntFlag):
    ZEROES = 0b1


class SimdFlag(IntFlag):
    READ = 0b001
    WRITE = 0b010
    ACCUMULATE = 0b100


class DataMoveKind(IntEnum):
    """The DataMove flags: which memories the vectors move between."""

    DRAM0_TO_LOCAL = 0b0000
    LOCAL_TO_DRAM0 = 0b0001
    DRAM1_TO_LOCAL = 0b0010
    LOCAL_TO_DRAM1 = 0b0011
    ACC_TO_LOCAL = 0b1100
    LOCAL_TO_ACC = 0b1101
    LOCAL_TO_ACC_ACCUMULATE = 0b1111


class SimdOp(IntEnum):
    NOOP = 0x0
    ZERO = 0x1
    MOVE = 0x2
    NOT = 0x3
    AND = 0x4
    OR = 0x5
    INCREMENT = 0x6
    DECREMENT = 0x7
    ADD = 0x8
    SUBTRACT = 0x9
    MULTIPLY = 0xA
    ABS = 0xB
    GREATER = 0xC
    GREATER_EQUAL = 0xD
    MIN = 0xE
    MAX = 0xF


# SIMD operand sources and destinations: 0 is the ALU input (the vector read
# from the accumulators) or, as a destination, "no register"; k >= 1 is register k.
SIMD_INPUT = 0


def simd_operand_bits(registers_depth: int) -> int:
    """Bits of one SIMD source/destination field: log2ceil(registers + 1)."""
    return max(registers_depth, 0).bit_length()


def pack_simd(op: SimdOp, left: int, right: int, dest: int, registers_depth: int) -> int:
    """The SIMD sub-instruction: LSB to MSB dest, right source, left source, op (4 bits)."""
    return _packed_simd(op, left, right, dest, simd_operand_bits(registers_depth))


def _packed_simd(op: SimdOp, left: int, right: int, dest: int, bits: int) -> int:
    return ((((int(op) << bits) | left) << bits | right) << bits) | dest


def unpack_simd(words: np.ndarray, registers_depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(op, left, right, dest) columns of packed sub-instructions (the inverse of `pack_simd`)."""
    bits = simd_operand_bits(registers_depth)
    mask = (1 << bits) - 1
    words = np.asarray(words).astype(np.int64)
    return (words >> (3 * bits)) & 0xF, (words >> (2 * bits)) & mask, (words >> bits) & mask, words & mask


def stride_exponent(stride: int) -> int:
    """The stride field for a step of `stride` vectors (a power of two)."""
    if stride < 1 or stride & (stride - 1):
        raise ValueError(f"strides are powers of two, got {stride}")
    return stride.bit_length() - 1


# The flags as plain ints: combining IntFlag members costs an enum construction each (1.56 M of them, 12% of
# ResNet-50's compile time, went to `|` on flags).
_MATMUL_ACCUMULATE, _MATMUL_ZEROES = int(MatMulFlag.ACCUMULATE), int(MatMulFlag.ZEROES)
_SIMD_READ, _SIMD_WRITE, _SIMD_ACCUMULATE = int(SimdFlag.READ), int(SimdFlag.WRITE), int(SimdFlag.ACCUMULATE)
_SIMD_OPCODE = int(Opcode.SIMD)


class ProgramBuilder:
    """Appends instructions, one at a time or as whole blocks; `build()` returns the record array.

    Single-instruction methods take sizes in vectors (>= 1) and strides in
    vectors (powers of two) and store the machine fields. The scheduler
    emits most of a program as blocks (`append`, `records`, `simd_block`):
    one record array per run of instructions, so a 1 M-instruction program
    costs a few thousand NumPy operations, not a Python call per instruction.
    """

    def __init__(self, registers_depth: int = 1):
        self.registers_depth = registers_depth
        self._simd_bits = simd_operand_bits(registers_depth)
        self._blocks: list[np.ndarray] = []
        self._rows: list[tuple] = []  # single instructions since the last block
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def _append(self, opcode, flags, op0=0, op0_stride=0, op1=0, op1_stride=0, op2=0) -> None:
        self._rows.append((int(opcode), int(flags), op0, op0_stride, op1, op1_stride, op2))
        self._count += 1

    def _flush(self) -> None:
        if self._rows:
            self._blocks.append(np.array(self._rows, dtype=INSTRUCTION))
            self._rows = []

    def append(self, block: np.ndarray) -> None:
        """Append a block of INSTRUCTION records (machine fields) after everything so far."""
        if len(block):
            self._flush()
            self._blocks.append(block)
            self._count += len(block)

    def records(self, opcode: int, flags, op0=0, op0_stride=0, op1=0, op1_stride=0, op2=0) -> np.ndarray:
        """A block of records from machine fields (scalars or 1-D arrays of one length); not appended."""
        fields = (opcode, flags, op0, op0_stride, op1, op1_stride, op2)
        count = max([len(x) for x in fields if isinstance(x, np.ndarray) and x.ndim], default=1)
        block = np.zeros(count, INSTRUCTION)
        for name, column in zip(INSTRUCTION.names, fields):
            if isinstance(column, np.ndarray) or column:  # zeros are there already
                block[name] = column
        return block

    def simd_word(self, op, left=SIMD_INPUT, right=SIMD_INPUT, dest=SIMD_INPUT):
        """The packed sub-instruction of SIMD operations (ints, or arrays of them)."""
        bits = self._simd_bits
        return (((np.asarray(op, np.int64) << bits | left) << bits | right) << bits) | dest

    def simd_block(self, op: SimdOp, *, read: np.ndarray | None = None, write: np.ndarray | None = None,
                   left: int = SIMD_INPUT, right: int = SIMD_INPUT, dest: int = SIMD_INPUT) -> np.ndarray:
        """SIMD records, one per address of `read`/`write` (arrays of one length; neither: one record);
        not appended."""
        flags = (_SIMD_READ if read is not None else 0) | (_SIMD_WRITE if write is not None else 0)
        return self.records(_SIMD_OPCODE, flags, 0 if write is None else write, 0, 0 if read is None else read, 0,
                            self.simd_word(op, left, right, dest))

    def noop(self) -> None:
        self._append(Opcode.NOOP, 0)

    def matmul(self, local: int, accumulator: int, size: int, *, accumulate: bool = False,
               zeroes: bool = False, local_stride: int = 1, accumulator_stride: int = 1) -> None:
        flags = (_MATMUL_ACCUMULATE if accumulate else 0) | (_MATMUL_ZEROES if zeroes else 0)
        self._append(Opcode.MATMUL, flags, local, stride_exponent(local_stride),
                     accumulator, stride_exponent(accumulator_stride), size - 1)

    def data_move(self, kind: DataMoveKind, local: int, address: int, size: int, *,
                  local_stride: int = 1, stride: int = 1) -> None:
        self._append(Opcode.DATA_MOVE, kind, local, stride_exponent(local_stride),
                     address, stride_exponent(stride), size - 1)

    def load_weight(self, local: int, size: int, *, zeroes: bool = False, local_stride: int = 1) -> None:
        self._append(Opcode.LOAD_WEIGHT, LoadWeightFlag.ZEROES if zeroes else 0,
                     local, stride_exponent(local_stride), size - 1, 0, 0)

    def simd(self, op: SimdOp, *, left: int = SIMD_INPUT, right: int = SIMD_INPUT, dest: int = SIMD_INPUT,
             read: int | None = None, write: int | None = None, accumulate: bool = False) -> None:
        """One SIMD instruction; `read`/`write` are accumulator addresses or None."""
        flags = ((_SIMD_READ if read is not None else 0) | (_SIMD_WRITE if write is not None else 0)
                 | (_SIMD_ACCUMULATE if accumulate else 0))
        self._rows.append((_SIMD_OPCODE, flags, write or 0, 0, read or 0, 0,
                           _packed_simd(op, left, right, dest, self._simd_bits)))
        self._count += 1

    def configure(self, register: ConfigRegister, value: int) -> None:
        self._append(Opcode.CONFIGURE, 0, int(register), 0, value, 0, 0)

    def build(self) -> np.ndarray:
        self._flush()
        # concatenated as bytes: a structured concatenate promotes the fields of every block (slow)
        raw = [np.ascontiguousarray(block).view(np.uint8) for block in self._blocks]
        return np.concatenate(raw).view(INSTRUCTION) if raw else np.zeros(0, INSTRUCTION)
