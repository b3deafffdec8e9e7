"""Program records ⇄ `.tprog` bytes, whole arrays at a time.

Each instruction is one little-endian word laid out by `InstructionLayout`
(operand 0 in the lowest bytes, the header byte last). Programs reach
millions of instructions, so every step works on NumPy columns. A value that
does not fit its field, an unsupported opcode or invalid flags is a
LaminaError naming the instruction's index and the field.
"""

from __future__ import annotations

import numpy as np

from lamina import LaminaError

from .architecture import Architecture
from .instruction_layout import FLAGS_BITS, OPCODE_BITS, InstructionLayout
from .program import INSTRUCTION, DataMoveKind, Opcode

# Opcodes Lamina emits and executes, with the flag values each accepts (the
# RTL validator's rules; NoOp takes none since Lamina runs one thread).
VALID_FLAGS: dict[Opcode, frozenset[int]] = {
    Opcode.NOOP: frozenset({0}),
    Opcode.MATMUL: frozenset(range(4)),
    Opcode.DATA_MOVE: frozenset(int(kind) for kind in DataMoveKind),
    Opcode.LOAD_WEIGHT: frozenset(range(2)),
    Opcode.SIMD: frozenset(range(8)),
    Opcode.CONFIGURE: frozenset({0}),
}


def invalid_opcodes(program: np.ndarray) -> np.ndarray:
    """Mask of instructions whose opcode Lamina does not support."""
    return ~np.isin(program["opcode"], [int(opcode) for opcode in VALID_FLAGS])


def invalid_flags(program: np.ndarray) -> np.ndarray:
    """Mask of instructions (of supported opcodes) whose flags their opcode does not accept."""
    valid = np.zeros((16, 16), dtype=bool)  # [opcode, flags]
    for opcode, flags in VALID_FLAGS.items():
        valid[int(opcode), sorted(flags)] = True
    opcodes = program["opcode"].astype(np.intp) & 0xF
    flags = program["flags"].astype(np.intp) & 0xF
    return ~valid[opcodes, flags] & ~invalid_opcodes(program)


def describe_first(mask: np.ndarray, source: str, what) -> str | None:
    """`source: instruction I: <what(I)>` for the first set index of `mask`,
    with how many more there are; None when the mask is empty."""
    indices = np.flatnonzero(mask)
    if indices.size == 0:
        return None
    first = int(indices[0])
    more = f" (and {indices.size - 1} more instructions)" if indices.size > 1 else ""
    return f"{source}: instruction {first}: {what(first)}{more}"


def _fail_if(mask: np.ndarray, source: str, what) -> None:
    message = describe_first(mask, source, what)
    if message is not None:
        raise LaminaError(message)


def _check_opcodes_and_flags(program: np.ndarray, source: str) -> None:
    """What decode rejects, encode does not write."""
    _fail_if(invalid_opcodes(program), source,
             lambda i: f"opcode {int(program['opcode'][i]):#x} is not an instruction Lamina supports")
    _fail_if(invalid_flags(program), source,
             lambda i: f"flags {int(program['flags'][i]):#06b} are not valid for {Opcode(program['opcode'][i]).name}")


def _field_widths(program: np.ndarray, layout: InstructionLayout) -> dict[str, np.ndarray | int]:
    """Bits of each record field; LoadWeight's size fills all of operand 1 (no stride)."""
    load_weight = program["opcode"] == Opcode.LOAD_WEIGHT
    return {
        "opcode": OPCODE_BITS,
        "flags": FLAGS_BITS,
        "op0": layout.operand0_address_bits,
        "op0_stride": layout.stride0_bits,
        "op1": np.where(load_weight, layout.operand1_bits, layout.operand1_address_bits),
        "op1_stride": np.where(load_weight, 0, layout.stride1_bits),
        "op2": layout.operand2_bits,
    }


def _little_endian_bytes(values: np.ndarray, count: int) -> np.ndarray:
    """The low `count` bytes of each uint64, least significant first: shape (n, count)."""
    return values.astype("<u8").view(np.uint8).reshape(-1, 8)[:, :count]


def _from_little_endian(columns: np.ndarray) -> np.ndarray:
    """uint64 values of (n, k ≤ 8) little-endian byte columns."""
    padded = np.zeros((columns.shape[0], 8), dtype=np.uint8)
    padded[:, :columns.shape[1]] = columns
    return padded.view("<u8").ravel()


def encode(program: np.ndarray, arch: Architecture, *, source: str = "program") -> bytes:
    """The `.tprog` bytes of a record array."""
    if program.dtype != INSTRUCTION:
        raise TypeError(f"expected an INSTRUCTION record array, got {program.dtype}")
    layout = InstructionLayout.of(arch)
    for field, bits in _field_widths(program, layout).items():
        values = program[field].astype(np.uint64)
        _fail_if(values >> np.asarray(bits, dtype=np.uint64) != 0, source,
                 lambda i, field=field, bits=bits, values=values:
                 f"{field} = {int(values[i])} does not fit in {int(np.broadcast_to(bits, values.shape)[i])} bits")
    _check_opcodes_and_flags(program, source)
    load_weight = program["opcode"] == Opcode.LOAD_WEIGHT
    operand0 = program["op0"] | (program["op0_stride"].astype(np.uint64) << np.uint64(layout.operand0_address_bits))
    operand1 = np.where(load_weight, program["op1"],
                        program["op1"] | (program["op1_stride"].astype(np.uint64)
                                          << np.uint64(layout.operand1_address_bits)))
    header = (program["opcode"].astype(np.uint64) << np.uint64(FLAGS_BITS)) | program["flags"]
    words = np.concatenate([
        _little_endian_bytes(operand0, layout.operand0_bits // 8),
        _little_endian_bytes(operand1, layout.operand1_bits // 8),
        _little_endian_bytes(program["op2"], layout.operand2_bits // 8),
        _little_endian_bytes(header, 1),
    ], axis=1)
    return words.tobytes()


def decode(data: bytes, arch: Architecture, *, source: str = "program") -> np.ndarray:
    """The record array of `.tprog` bytes; rejects what Lamina cannot run."""
    layout = InstructionLayout.of(arch)
    size = layout.instruction_bytes
    if len(data) % size:
        raise LaminaError(f"{source}: {len(data)} bytes is not a whole number of {size}-byte instructions "
                          f"for architecture '{arch.name}'")
    words = np.frombuffer(data, dtype=np.uint8).reshape(-1, size)
    widths = [layout.operand0_bits // 8, layout.operand1_bits // 8, layout.operand2_bits // 8]
    starts = np.cumsum([0, *widths])
    operand0, operand1, operand2 = (_from_little_endian(words[:, start:start + width])
                                    for start, width in zip(starts, widths))
    header = words[:, -1]

    program = np.zeros(len(words), dtype=INSTRUCTION)
    program["opcode"] = header >> FLAGS_BITS
    program["flags"] = header & ((1 << FLAGS_BITS) - 1)
    _check_opcodes_and_flags(program, source)

    load_weight = program["opcode"] == Opcode.LOAD_WEIGHT
    for name, operand, bits, exempt in ((0, operand0, layout.operand0_address_bits + layout.stride0_bits, False),
                                        (1, operand1, layout.operand1_address_bits + layout.stride1_bits, load_weight)):
        _fail_if(((operand >> np.uint64(bits)) != 0) & ~exempt, source,
                 lambda i, name=name: f"the padding bits at the top of operand {name} are not zero")
    a0, a1 = np.uint64(layout.operand0_address_bits), np.uint64(layout.operand1_address_bits)
    program["op0"] = operand0 & ((np.uint64(1) << a0) - np.uint64(1))
    program["op0_stride"] = operand0 >> a0
    program["op1"] = np.where(load_weight, operand1, operand1 & ((np.uint64(1) << a1) - np.uint64(1)))
    program["op1_stride"] = np.where(load_weight, 0, operand1 >> a1)
    program["op2"] = operand2
    return program
