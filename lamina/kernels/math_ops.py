"""Kernels of `graph_math.py`'s ops: NumPy's functions, computed in the tensor's own type.

Integer division by zero is defined as in the `div` kernel: x mod 0 is 0.
Shifts by a negative amount or the type's width or more give what the sign
fill alone gives (ONNX BitShift-28; C leaves them undefined).
"""

from __future__ import annotations

import numpy as np

from lamina.dialects.graph_math import BITWISE

from .graph_kernels import Node, _from_function, kernel

FUNCTIONS = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "ceil": np.ceil, "floor": np.floor, "round": np.round, "sign": np.sign, "bitwise_not": np.invert,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}
assert set(BITWISE) <= set(FUNCTIONS)

for _name, _function in FUNCTIONS.items():
    kernel(_name)(_from_function(_function))


@kernel("mod")
def _mod(node: Node, lhs, rhs):
    with np.errstate(divide="ignore", invalid="ignore"):
        remainder = (np.fmod if node.attrs["fmod"] else np.mod)(lhs, rhs)
    if np.issubdtype(lhs.dtype, np.integer):
        remainder = np.where(rhs == 0, np.zeros((), lhs.dtype), remainder)
    return remainder.astype(lhs.dtype)


@kernel("bit_shift")
def _bit_shift(node: Node, lhs, rhs):
    bits = np.dtype(f"u{lhs.dtype.itemsize}")
    in_range = (rhs >= 0) & (rhs < lhs.dtype.itemsize * 8)
    shift = np.where(in_range, rhs, np.zeros((), rhs.dtype)).astype(bits)
    if node.attrs["direction"] == "left":  # on the bits: what passes the sign bit is dropped
        shifted, fill = np.left_shift(lhs.view(bits), shift).view(lhs.dtype), np.zeros((), lhs.dtype)
    else:
        shifted, fill = np.right_shift(lhs, shift.astype(lhs.dtype)), np.where(lhs < 0, -1, 0).astype(lhs.dtype)
    return np.where(in_range, shifted, fill).astype(lhs.dtype)
