"""The graph dialect's further element-wise math: trigonometric and rounding
functions, sign, modulo, bit shifts and bitwise logic (ONNX Sin ... Round,
Sign, Mod, BitShift, Bitwise*).

They register into the same table as `graph.py`'s ops and have its
element-wise traits, so constant folding, in-place buffers and the CPU path's
element-wise maps treat them like `graph.exp`. No accelerator unit computes
them: they run in host segments.
"""

from __future__ import annotations

import numpy as np

from .graph import GRAPH, POINTWISE, SYMMETRIC, _float_unary, _require, _same_as_input, _same_shape_binary
from .irdl import BOOL, STR

FLOAT_FUNCTIONS = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                   "ceil", "floor", "round")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")


def _integer_unary(ins, attrs, declared):
    _require(ins[0].dtype.kind in "iu", f"expects an integer operand, got {ins[0]}")
    return [ins[0]]


def _integer_binary(ins, attrs, declared):
    _require(ins[0].dtype.kind in "iu", f"expects integer operands, got {ins[0]}")
    return _same_shape_binary(ins, attrs, declared)


def _numeric_binary(ins, attrs, declared):
    _require(ins[0].dtype != np.bool_, f"expects numeric operands, got {ins[0]}")
    return _same_shape_binary(ins, attrs, declared)


for _name in FLOAT_FUNCTIONS:
    _summary = "round half to even" if _name == "round" else _name
    GRAPH.op(_name, f"Element-wise {_summary}.", operands=("input",), shape_fn=_float_unary, traits=POINTWISE)
GRAPH.op("sign", "-1, 0 or 1 by the sign of x (NaN stays NaN).", operands=("input",), shape_fn=_same_as_input,
         traits=POINTWISE)
GRAPH.op("mod", "Remainder of lhs / rhs: with the divisor's sign, or the dividend's when `fmod` (C fmod); "
         "x mod 0 is 0 for integers.", operands=("lhs", "rhs"), attrs={"fmod": BOOL}, shape_fn=_numeric_binary,
         traits=POINTWISE)
GRAPH.op("bit_shift", "lhs shifted left or right (arithmetic for signed types) by rhs bits; a shift that is "
         "negative or the width or more gives what the sign fill alone gives (-1 or 0).",
         operands=("lhs", "rhs"), attrs={"direction": STR}, shape_fn=_integer_binary, traits=POINTWISE,
         enums={"direction": ("left", "right")})
for _name in BITWISE:
    GRAPH.op(_name, f"Element-wise {_name.replace('_', ' ')} of integers.", operands=("lhs", "rhs"),
             shape_fn=_integer_binary, traits=SYMMETRIC)
GRAPH.op("bitwise_not", "Element-wise bitwise complement of integers.", operands=("input",),
         shape_fn=_integer_unary, traits=POINTWISE)
