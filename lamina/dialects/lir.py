"""The `lir` dialect: a processing-unit program as MLIR, one op per instruction.

The module body is the instruction sequence, in order, and the module
attribute `lir.architecture` holds the `.tarch` object (with its name) so the
text is self-contained. Ops take no operands and produce no results; their
attributes are the instruction's fields in people's units: addresses in
vectors, strides and sizes in vectors, memories named (`dram0`, `dram1`,
`local`, `accumulator`), SIMD ops by name, -1 for "no SIMD read/write".

This module is the op table. What ties the ops to the TCU's instruction
set (program records to text and back, the checks against the
architecture) is `lir_program.py`, the only part of the dialect that imports
`lamina.target`; the module verifier loads it when a module holds LIR ops.
"""

from __future__ import annotations

from mlir import ir

from .irdl import BOOL, I64, STR, DialectDef
from .values import ops_of

LIR = DialectDef("lir", "Processing-unit instructions, one op per instruction, in program order")

ARCHITECTURE_ATTR = "lir.architecture"
NONE = -1  # a SIMD read or write address meaning "no read" / "no write"

LIR.op("noop", "Does nothing for one cycle.", results=())
LIR.op("matmul", "For i < size: accumulator[accumulator + i·accumulator_stride] (+)= the array applied to "
       "local[local + i·local_stride] (a zero vector with `zeroes`); `accumulate` adds with saturation.",
       results=(), attrs={"local": I64, "local_stride": I64, "accumulator": I64, "accumulator_stride": I64,
                          "size": I64, "accumulate": BOOL, "zeroes": BOOL})
LIR.op("data_move", "For i < size: copies one vector between local[local + i·local_stride] and the other memory at "
       "address + i·stride, from `source` to `target` (dram0, dram1, local, accumulator); `accumulate` adds into "
       "the accumulators with saturation.",
       results=(), attrs={"source": STR, "target": STR, "local": I64, "local_stride": I64, "address": I64,
                          "stride": I64, "size": I64, "accumulate": BOOL})
LIR.op("load_weight", "Pushes local vectors local + (size−1)·local_stride down to local into the array (zero rows "
       "with `zeroes`); the last pushed is the bias row.",
       results=(), attrs={"local": I64, "local_stride": I64, "size": I64, "zeroes": BOOL})
LIR.op("simd", "One vector: reads accumulator[read] unless read = -1, computes `op`(left, right) per lane (source 0 "
       "is the vector read, k ≥ 1 register k), stores the result into register `dest` if dest ≥ 1, and writes (or "
       "with `accumulate` adds) it to accumulator[write] unless write = -1.",
       results=(), attrs={"op": STR, "left": I64, "right": I64, "dest": I64, "read": I64, "write": I64,
                          "accumulate": BOOL})
LIR.op("configure", "Sets a configuration register: `register` array_shift (MatMul rounding position) or "
       "simd_shift (SIMD Multiply rounding position) to `value`.",
       results=(), attrs={"register": STR, "value": I64})


def _verify_module(module: ir.Operation) -> list[tuple[ir.Location, str]]:
    """The instruction checks (lir_program.py); the target description loads only when a module holds LIR ops."""
    if not ops_of(module, LIR):
        return []
    from .lir_program import verify_lir

    return verify_lir(module)


LIR.module_verifier = _verify_module
