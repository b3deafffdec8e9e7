"""LIR and the TCU's programs: a `Program` record array (lamina/target/tcu/program.py) as LIR text and back,
and the checks every instruction must pass on an architecture.

Programs run to millions of instructions, so `program_to_lir_text` formats
text directly (no op-by-op building), and `verify_program` checks a record
array with NumPy; the LIR module verifier converts the ops to records and
shares it, reporting each problem at the op of the offending instruction.
"""

from __future__ import annotations

import json
from typing import Callable

import numpy as np
from mlir import ir

from lamina.target.tcu.architecture import Architecture, parse_architecture
from lamina.target.tcu.encoding import describe_first, invalid_flags, invalid_opcodes
from lamina.target.tcu.program import (INSTRUCTION, MAX_SHIFT, ConfigRegister, DataMoveKind, LoadWeightFlag,
                                         MatMulFlag, Opcode, SimdFlag, SimdOp, pack_simd, simd_operand_bits,
                                         unpack_simd)

from .diagnostics import LaminaError, format_location
from .irdl import ShapeError
from .lir import ARCHITECTURE_ATTR, LIR, NONE
from .values import ops_of

# Configure registers by LIR name.
CONFIG_REGISTERS = {register.name.lower(): register for register in ConfigRegister}
_CONFIG_NAME_OF_CODE = np.full(16, "", dtype=object)
for _register in ConfigRegister:
    _CONFIG_NAME_OF_CODE[_register] = _register.name.lower()

# DataMove kinds as (source, target, accumulate).
DATA_MOVES: dict[DataMoveKind, tuple[str, str, bool]] = {
    DataMoveKind.DRAM0_TO_LOCAL: ("dram0", "local", False),
    DataMoveKind.LOCAL_TO_DRAM0: ("local", "dram0", False),
    DataMoveKind.DRAM1_TO_LOCAL: ("dram1", "local", False),
    DataMoveKind.LOCAL_TO_DRAM1: ("local", "dram1", False),
    DataMoveKind.ACC_TO_LOCAL: ("accumulator", "local", False),
    DataMoveKind.LOCAL_TO_ACC: ("local", "accumulator", False),
    DataMoveKind.LOCAL_TO_ACC_ACCUMULATE: ("local", "accumulator", True),
}
SIMD_OP_NAMES = {op: op.name.lower() for op in SimdOp}
SIMD_OPS_BY_NAME = {name: op for op, name in SIMD_OP_NAMES.items()}

# The same tables indexed by the 4-bit field, for formatting whole columns.
_SIMD_NAME_OF_CODE = np.array([SIMD_OP_NAMES[SimdOp(code)] for code in range(16)], dtype=object)
_SOURCE_OF_KIND = np.full(16, "", dtype=object)
_TARGET_OF_KIND = np.full(16, "", dtype=object)
_ACCUMULATES_OF_KIND = np.zeros(16, dtype=np.intp)
for _kind, (_source, _target, _accumulate) in DATA_MOVES.items():
    _SOURCE_OF_KIND[_kind], _TARGET_OF_KIND[_kind], _ACCUMULATES_OF_KIND[_kind] = _source, _target, _accumulate


def other_memory(kind: DataMoveKind) -> str:
    """The memory a DataMove moves to or from, besides local memory."""
    source, target, _ = DATA_MOVES[kind]
    return target if source == "local" else source


def memory_depths(arch: Architecture) -> dict[str, int]:
    return {"dram0": arch.dram0_depth, "dram1": arch.dram1_depth, "local": arch.local_depth,
            "accumulator": arch.accumulator_depth}


# ---------------------------------------------------------------------------
# Program -> text
# ---------------------------------------------------------------------------

def _mlir_string(text: str) -> str:
    """A string literal escaped the way MLIR prints it (so printed LIR equals generated LIR)."""
    return '"' + text.replace("\\", "\\5C").replace('"', "\\22") + '"'


def architecture_json(arch: Architecture) -> str:
    return json.dumps({"name": arch.name, **arch.to_json()})


# One template per op, attributes in the order MLIR prints them (sorted).
_TEMPLATES = {
    Opcode.NOOP: '"lir.noop"() : () -> ()',
    Opcode.MATMUL: ('"lir.matmul"() {{accumulate = {}, accumulator = {} : i64, accumulator_stride = {} : i64, '
                    'local = {} : i64, local_stride = {} : i64, size = {} : i64, zeroes = {}}} : () -> ()'),
    Opcode.DATA_MOVE: ('"lir.data_move"() {{accumulate = {}, address = {} : i64, local = {} : i64, '
                       'local_stride = {} : i64, size = {} : i64, source = "{}", stride = {} : i64, '
                       'target = "{}"}} : () -> ()'),
    Opcode.LOAD_WEIGHT: ('"lir.load_weight"() {{local = {} : i64, local_stride = {} : i64, size = {} : i64, '
                         'zeroes = {}}} : () -> ()'),
    Opcode.SIMD: ('"lir.simd"() {{accumulate = {}, dest = {} : i64, left = {} : i64, op = "{}", read = {} : i64, '
                  'right = {} : i64, write = {} : i64}} : () -> ()'),
    Opcode.CONFIGURE: '"lir.configure"() {{register = "{}", value = {} : i64}} : () -> ()',
}
_BOOLS = np.array(["false", "true"])


def _flag(rows: np.ndarray, bit: int) -> np.ndarray:
    return _BOOLS[((rows["flags"] & bit) != 0).astype(np.intp)]


def _strides(exponents: np.ndarray) -> np.ndarray:
    return np.left_shift(1, exponents.astype(np.int64))


def _columns(opcode: Opcode, rows: np.ndarray, arch: Architecture) -> list[np.ndarray]:
    """The template arguments of instructions of one opcode, one array per attribute."""
    if opcode == Opcode.MATMUL:
        return [_flag(rows, MatMulFlag.ACCUMULATE), rows["op1"], _strides(rows["op1_stride"]), rows["op0"],
                _strides(rows["op0_stride"]), rows["op2"] + 1, _flag(rows, MatMulFlag.ZEROES)]
    if opcode == Opcode.DATA_MOVE:
        kinds = rows["flags"]
        return [_BOOLS[_ACCUMULATES_OF_KIND[kinds]], rows["op1"], rows["op0"], _strides(rows["op0_stride"]),
                rows["op2"] + 1, _SOURCE_OF_KIND[kinds], _strides(rows["op1_stride"]), _TARGET_OF_KIND[kinds]]
    if opcode == Opcode.LOAD_WEIGHT:
        return [rows["op0"], _strides(rows["op0_stride"]), rows["op1"] + 1, _flag(rows, LoadWeightFlag.ZEROES)]
    if opcode == Opcode.SIMD:
        op, left, right, dest = unpack_simd(rows["op2"], arch.simd_registers_depth)
        read = np.where(rows["flags"] & SimdFlag.READ, rows["op1"].astype(np.int64), NONE)
        write = np.where(rows["flags"] & SimdFlag.WRITE, rows["op0"].astype(np.int64), NONE)
        return [_flag(rows, SimdFlag.ACCUMULATE), dest, left, _SIMD_NAME_OF_CODE[op], read, right, write]
    if opcode == Opcode.CONFIGURE:
        return [_CONFIG_NAME_OF_CODE[rows["op0"].astype(np.intp) & 0xF], rows["op1"]]
    return []


def program_to_lir_text(program: np.ndarray, arch: Architecture) -> str:
    """The LIR module of a program, as text `parse_module` accepts.

    The program must be one LIR can show (`_showable_checks`); fields
    out of the architecture's range are shown as they are, for the verifier.
    """
    unshowable = _messages(_showable_checks(program, arch), "program")
    if unshowable:
        raise LaminaError("\n".join(unshowable))
    lines = np.empty(len(program), dtype=object)
    for opcode, template in _TEMPLATES.items():
        (indices,) = np.nonzero(program["opcode"] == opcode)
        if indices.size == 0:
            continue
        columns = [column.tolist() for column in _columns(opcode, program[indices], arch)]
        lines[indices] = [template.format(*row) for row in zip(*columns)] if columns else template
    body = "\n".join("  " + line for line in lines.tolist())
    header = f"module attributes {{{ARCHITECTURE_ATTR} = {_mlir_string(architecture_json(arch))}}} {{"
    return f"{header}\n{body}\n}}\n" if len(program) else f"{header}\n}}\n"


def program_to_lir(program: np.ndarray, arch: Architecture, context: ir.Context,
                   source_name: str = "<lir>") -> ir.Operation:
    from .context import parse_module  # context.py lists this dialect

    return parse_module(program_to_lir_text(program, arch), context, source_name)


# ---------------------------------------------------------------------------
# Module -> program
# ---------------------------------------------------------------------------

def _stride_exponent(stride: int, name: str) -> int:
    if stride < 1 or stride & (stride - 1):
        raise ShapeError(f"{name} = {stride} is not a power of two")
    return stride.bit_length() - 1


def _size_field(size: int) -> int:
    if size < 1:
        raise ShapeError(f"size = {size} must be at least 1")
    return size - 1


def _address(value: int, name: str) -> int:
    if value < 0:
        raise ShapeError(f"{name} = {value} is negative")
    return value


def _matmul(a: dict, arch: Architecture) -> tuple:
    flags = (MatMulFlag.ACCUMULATE if a["accumulate"] else 0) | (MatMulFlag.ZEROES if a["zeroes"] else 0)
    return (Opcode.MATMUL, flags, _address(a["local"], "local"), _stride_exponent(a["local_stride"], "local_stride"),
            _address(a["accumulator"], "accumulator"),
            _stride_exponent(a["accumulator_stride"], "accumulator_stride"), _size_field(a["size"]))


def _data_move(a: dict, arch: Architecture) -> tuple:
    wanted = (a["source"], a["target"], a["accumulate"])
    kinds = [kind for kind, move in DATA_MOVES.items() if move == wanted]
    if not kinds:
        moves = ", ".join(f"{s}->{t}{' accumulate' if acc else ''}" for s, t, acc in DATA_MOVES.values())
        raise ShapeError(f"no data move from {a['source']} to {a['target']}"
                         f"{' accumulating' if a['accumulate'] else ''}; moves: {moves}")
    return (Opcode.DATA_MOVE, kinds[0], _address(a["local"], "local"),
            _stride_exponent(a["local_stride"], "local_stride"), _address(a["address"], "address"),
            _stride_exponent(a["stride"], "stride"), _size_field(a["size"]))


def _load_weight(a: dict, arch: Architecture) -> tuple:
    return (Opcode.LOAD_WEIGHT, LoadWeightFlag.ZEROES if a["zeroes"] else 0, _address(a["local"], "local"),
            _stride_exponent(a["local_stride"], "local_stride"), _size_field(a["size"]), 0, 0)


def _simd(a: dict, arch: Architecture) -> tuple:
    if a["op"] not in SIMD_OPS_BY_NAME:
        raise ShapeError(f"unknown SIMD op '{a['op']}'; ops: {', '.join(SIMD_OPS_BY_NAME)}")
    registers = arch.simd_registers_depth
    for name in ("left", "right", "dest"):
        if not 0 <= a[name] <= registers:
            raise ShapeError(f"{name} = {a[name]} is not 0 (the vector read) or a register 1..{registers}")
    for name in ("read", "write"):
        if a[name] < NONE:
            raise ShapeError(f"{name} = {a[name]} is neither an address nor -1 (none)")
    flags = ((SimdFlag.READ if a["read"] != NONE else 0) | (SimdFlag.WRITE if a["write"] != NONE else 0)
             | (SimdFlag.ACCUMULATE if a["accumulate"] else 0))
    return (Opcode.SIMD, flags, max(a["write"], 0), 0, max(a["read"], 0), 0,
            pack_simd(SIMD_OPS_BY_NAME[a["op"]], a["left"], a["right"], a["dest"], registers))


def _configure(a: dict, arch: Architecture) -> tuple:
    if a["register"] not in CONFIG_REGISTERS:
        raise ShapeError(f"unknown configure register '{a['register']}'; registers: {', '.join(CONFIG_REGISTERS)}")
    if not 0 <= a["value"] <= MAX_SHIFT:
        raise ShapeError(f"value = {a['value']} is not a rounding position 0..{MAX_SHIFT}")
    return (Opcode.CONFIGURE, 0, int(CONFIG_REGISTERS[a["register"]]), 0, a["value"], 0, 0)


_RECORDS: dict[str, Callable[[dict, Architecture], tuple]] = {
    "noop": lambda a, arch: (Opcode.NOOP, 0, 0, 0, 0, 0, 0),
    "matmul": _matmul,
    "data_move": _data_move,
    "load_weight": _load_weight,
    "simd": _simd,
    "configure": _configure,
}


def _architecture_of(module: ir.Operation) -> Architecture:
    """The architecture in `lir.architecture`; ValueError says what is wrong with it."""
    if ARCHITECTURE_ATTR not in module.attributes:
        raise ValueError(f"a LIR module needs the '{ARCHITECTURE_ATTR}' attribute (the .tarch JSON)")
    attribute = module.attributes[ARCHITECTURE_ATTR]
    if not isinstance(attribute, ir.StringAttr):
        raise ValueError(f"'{ARCHITECTURE_ATTR}' must be a string holding the .tarch JSON")
    try:
        fields = json.loads(ir.StringAttr(attribute).value)
    except json.JSONDecodeError as error:
        raise ValueError(f"'{ARCHITECTURE_ATTR}' is not valid JSON: {error.msg}") from None
    except (ValueError, RecursionError) as error:  # huge integers, deep nesting
        raise ValueError(f"'{ARCHITECTURE_ATTR}' is not valid JSON: {str(error)[:80]}") from None
    if not isinstance(fields, dict):
        raise ValueError(f"'{ARCHITECTURE_ATTR}' must hold a JSON object")
    name = str(fields.pop("name", "lir"))
    try:
        return parse_architecture(fields, name, ARCHITECTURE_ATTR)
    except LaminaError as error:
        raise ValueError(str(error)) from None


def module_architecture(module: ir.Operation) -> Architecture:
    """The architecture a LIR module names in `lir.architecture`."""
    try:
        return _architecture_of(module)
    except ValueError as error:
        raise LaminaError(f"{format_location(module.location)}: error: {error}") from None


def _convert(ops: list[ir.Operation], arch: Architecture) -> tuple[np.ndarray, list[tuple[ir.Location, str]]]:
    """Records of the ops, and the ops whose attributes do not make an instruction."""
    rows, problems = [], []
    for index, op in enumerate(ops):
        view = LIR.view(op)
        try:
            rows.append(_RECORDS[view.name](view.attrs(), arch))
        except ShapeError as error:
            problems.append((op.location, f"'{op.name}' op (instruction {index}): {error}"))
            rows.append((Opcode.NOOP, 0, 0, 0, 0, 0, 0))
    return np.array(rows, dtype=INSTRUCTION), problems


def lir_to_program(module: ir.Operation) -> tuple[np.ndarray, Architecture]:
    """The record array and architecture of a LIR module (its lir ops, in order)."""
    arch = module_architecture(module)
    program, problems = _convert(ops_of(module, LIR), arch)
    if problems:
        raise LaminaError("\n".join(f"{format_location(loc)}: error: {message}" for loc, message in problems))
    return program, arch


# ---------------------------------------------------------------------------
# Verification
# ---------------------------------------------------------------------------

Check = tuple[np.ndarray, Callable[[int], str]]  # (mask of bad instructions, message of instruction i)


def _showable_checks(program: np.ndarray, arch: Architecture) -> list[Check]:
    """What LIR needs to show every bit of an instruction: a supported opcode,
    valid flags, and zero in the fields its opcode does not use (Tensil's
    hardware ignores those only by convention)."""
    checks: list[Check] = [
        (invalid_opcodes(program), lambda i: f"opcode {program['opcode'][i]:#x} is not supported"),
        (invalid_flags(program), lambda i: f"flags {program['flags'][i]:#06b} are not valid for "
                                           f"{Opcode(program['opcode'][i]).name}"),
    ]
    opcode = program["opcode"]
    simd = opcode == Opcode.SIMD
    load_weight = opcode == Opcode.LOAD_WEIGHT
    noop = opcode == Opcode.NOOP
    for field in ("op0", "op0_stride", "op1", "op1_stride", "op2"):
        checks.append((noop & (program[field] != 0), lambda i, f=field: f"NOOP has {f} = {program[f][i]}, not 0"))
    for field in ("op0_stride", "op1_stride"):
        checks.append((simd & (program[field] != 0), lambda i, f=field: f"SIMD has {f} = {program[f][i]}, not 0"))
    checks.append((simd & ((program["flags"] & SimdFlag.READ) == 0) & (program["op1"] != 0),
                   lambda i: f"SIMD has read address {program['op1'][i]} without the read flag"))
    checks.append((simd & ((program["flags"] & SimdFlag.WRITE) == 0) & (program["op0"] != 0),
                   lambda i: f"SIMD has write address {program['op0'][i]} without the write flag"))
    for field in ("op1_stride", "op2"):
        checks.append((load_weight & (program[field] != 0),
                       lambda i, f=field: f"LOAD_WEIGHT has {f} = {program[f][i]}, not 0"))
    configure = opcode == Opcode.CONFIGURE
    checks.append((configure & ~np.isin(program["op0"], [int(r) for r in ConfigRegister]),
                   lambda i: f"CONFIGURE names register {program['op0'][i]:#x}, not one Lamina executes"))
    checks.append((configure & (program["op1"] > MAX_SHIFT),
                   lambda i: f"CONFIGURE value {program['op1'][i]} is beyond the largest rounding position {MAX_SHIFT}"))
    for field in ("op0_stride", "op1_stride", "op2"):
        checks.append((configure & (program[field] != 0),
                       lambda i, f=field: f"CONFIGURE has {f} = {program[f][i]}, not 0"))
    bits = 4 + 3 * simd_operand_bits(arch.simd_registers_depth)
    checks.append((simd & ((program["op2"] >> np.uint64(bits)) != 0),
                   lambda i: f"SIMD sub-instruction {program['op2'][i]:#x} has bits above its {bits}"))
    return checks


def _at(value, index: int):
    """Element `index` of a per-instruction array, or a value shared by all instructions."""
    return value[index] if isinstance(value, np.ndarray) else value


def _last_address(start: np.ndarray, stride_exponent: np.ndarray, size_field: np.ndarray) -> np.ndarray:
    return start.astype(np.int64) + (size_field.astype(np.int64) << stride_exponent.astype(np.int64))


def _range_checks(program: np.ndarray, arch: Architecture) -> list[Check]:
    """Every vector an instruction touches lies in its memory; strides within the stride depths."""
    opcode, flags = program["opcode"], program["flags"]
    depths = memory_depths(arch)
    matmul, data_move = opcode == Opcode.MATMUL, opcode == Opcode.DATA_MOVE
    load_weight, simd = opcode == Opcode.LOAD_WEIGHT, opcode == Opcode.SIMD
    checks: list[Check] = []

    def stride_check(mask, field, depth, what):
        checks.append((mask & (program[field] >= depth),
                       lambda i: f"{Opcode(opcode[i]).name} {what} stride 2^{program[field][i]} is beyond the "
                                 f"{depth} strides of the architecture"))

    def range_check(mask, start_field, stride_field, size_field, memory: str | tuple[np.ndarray, np.ndarray], what):
        """`memory` is a name, or per-instruction (depths, names)."""
        depth, names = (depths[memory], memory) if isinstance(memory, str) else memory
        strides = program[stride_field] if stride_field else np.zeros(len(program), np.uint8)
        sizes = program[size_field] if size_field else np.zeros(len(program), np.uint64)
        last = _last_address(program[start_field], strides, sizes)
        checks.append((mask & (last >= depth),
                       lambda i: f"{Opcode(opcode[i]).name} {what} {_at(names, i)} vectors "
                                 f"{program[start_field][i]}..{last[i]} (stride {1 << int(strides[i])}) but "
                                 f"{_at(names, i)} has {_at(depth, i)} vectors"))

    uses_local = matmul & ((flags & MatMulFlag.ZEROES) == 0)
    range_check(uses_local, "op0", "op0_stride", "op2", "local", "reads")
    range_check(matmul, "op1", "op1_stride", "op2", "accumulator", "writes")
    stride_check(matmul | data_move | load_weight, "op0_stride", arch.stride0_depth, "operand 0")
    stride_check(matmul | data_move, "op1_stride", arch.stride1_depth, "operand 1")

    other_depth = np.zeros(len(program), dtype=np.int64)
    other_name = np.full(len(program), "", dtype=object)
    for kind in DATA_MOVES:
        rows = data_move & (flags == kind)
        other_depth[rows], other_name[rows] = depths[other_memory(kind)], other_memory(kind)
    range_check(data_move, "op0", "op0_stride", "op2", "local", "moves")
    range_check(data_move, "op1", "op1_stride", "op2", (other_depth, other_name), "moves")

    loads_local = load_weight & ((flags & LoadWeightFlag.ZEROES) == 0)
    range_check(loads_local, "op0", "op0_stride", "op1", "local", "reads")
    array_rows = arch.array_size + 1  # the bias row and one row per input lane
    checks.append((load_weight & (program["op1"] >= array_rows),
                   lambda i: f"LOAD_WEIGHT pushes {program['op1'][i] + 1} vectors but the array holds {array_rows}"))

    range_check(simd & ((flags & SimdFlag.READ) != 0), "op1", None, None, "accumulator", "reads")
    range_check(simd & ((flags & SimdFlag.WRITE) != 0), "op0", None, None, "accumulator", "writes")
    registers = arch.simd_registers_depth
    _, left, right, dest = unpack_simd(program["op2"], registers)
    for name, values in (("left", left), ("right", right), ("dest", dest)):
        checks.append((simd & (values > registers),
                       lambda i, n=name, v=values: f"SIMD {n} = register {v[i]} but the architecture has "
                                                   f"{registers} registers"))
    return checks


def _messages(checks: list[Check], source: str) -> list[str]:
    return [message for mask, what in checks if (message := describe_first(mask, source, what))]


def _program_checks(program: np.ndarray, arch: Architecture) -> list[Check]:
    return _showable_checks(program, arch) + _range_checks(program, arch)


def verify_program(program: np.ndarray, arch: Architecture, source: str = "program") -> list[str]:
    """Every rule a program breaks: `source: instruction I: what (and N more instructions)`, one per rule."""
    return _messages(_program_checks(program, arch), source)


# Problems reported per rule before the rest are counted.
REPORTED_PER_RULE = 10


def verify_lir(module: ir.Operation) -> list[tuple[ir.Location, str]]:
    """Every instruction of a LIR module against its architecture, reported at the op."""
    ops = ops_of(module, LIR)
    if not ops:
        return []
    try:
        arch = _architecture_of(module)
    except ValueError as error:
        return [(module.location, str(error))]
    program, problems = _convert(ops, arch)
    if problems:
        return problems
    for mask, what in _program_checks(program, arch):
        indices = np.flatnonzero(mask)
        for index in indices[:REPORTED_PER_RULE].tolist():
            problems.append((ops[index].location, f"'{ops[index].name}' op (instruction {index}): {what(index)}"))
        if indices.size > REPORTED_PER_RULE:
            last = int(indices[REPORTED_PER_RULE - 1])
            problems[-1] = (ops[last].location,
                            f"{problems[-1][1]} (and {indices.size - REPORTED_PER_RULE} more instructions)")
    return problems

