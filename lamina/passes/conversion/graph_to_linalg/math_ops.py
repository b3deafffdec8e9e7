"""`graph_math.py`'s ops as element-wise `linalg.generic`s with `math`/`arith` bodies.

Half-precision functions compute in f32 and round back, as NumPy's float16
loops do (libm has no f16 entry points). Integer remainders and shifts guard
the cases where `arith` is undefined (a zero divisor, MIN mod -1, a shift by
the width or more) and give the kernel's results.
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, math

from lamina.dialects.irdl import OpView

from .elementwise import Scalars, _map, operand_scalars
from .registry import converts

FUNCTIONS: dict[str, Callable[[ir.Value], ir.Value]] = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin, "acos": math.acos, "atan": math.atan,
    "sinh": math.sinh, "cosh": math.cosh, "asinh": math.asinh, "acosh": math.acosh, "atanh": math.atanh,
    "ceil": math.ceil, "floor": math.floor, "round": math.roundeven,
}
BITWISE = {"bitwise_and": arith.andi, "bitwise_or": arith.ori, "bitwise_xor": arith.xori}


def in_f32(x: ir.Value, function: Callable[..., ir.Value], *more: ir.Value) -> ir.Value:
    """`function` of float operands, computed in f32 when they are f16."""
    if not isinstance(x.type, ir.F16Type):
        return function(x, *more)
    f32 = ir.F32Type.get()
    return arith.truncf(x.type, function(*(arith.extf(f32, value) for value in (x, *more))))


@converts(*FUNCTIONS)
def _function(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    function = FUNCTIONS[op.name]
    return _map(op, operands, lambda x: in_f32(x, function))


@converts("sign")
def _sign(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s = operand_scalars(op)

    def sign(x: ir.Value) -> ir.Value:
        one, zero = s.constant(1), s.constant(0)
        if s.kind in "ub":
            return arith.select(s.compare("ne", x, zero), one, zero)
        negative = arith.select(s.compare("lt", x, zero), s.constant(-1), x)  # 0 and NaN stay
        return arith.select(s.compare("gt", x, zero), one, negative)

    return _map(op, operands, sign)


def _remainder(s: Scalars, a: ir.Value, b: ir.Value, fmod: bool) -> ir.Value:
    """a mod b as the kernel: C's fmod, or with the divisor's sign; integer x mod 0 is 0."""
    if s.kind == "f":
        remainder = in_f32(a, arith.remf, b)
        divisor = b
    else:
        zero, one = s.constant(0), s.constant(1)
        by_zero = s.compare("eq", b, zero)
        if s.kind == "u":
            return arith.select(by_zero, zero, arith.remui(a, arith.select(by_zero, one, b)))
        divisor = arith.select(arith.ori(by_zero, s.compare("eq", b, s.constant(-1))), one, b)  # x mod -1 is 0
        remainder = arith.select(by_zero, zero, arith.remsi(a, divisor))
    if fmod:
        return remainder
    zero = s.constant(0)
    differs = arith.xori(s.compare("lt", remainder, zero), s.compare("lt", divisor, zero))
    return arith.select(arith.andi(s.compare("ne", remainder, zero), differs), s.add(remainder, divisor), remainder)


@converts("mod")
def _mod(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, fmod = operand_scalars(op), op.attr("fmod")
    return _map(op, operands, lambda a, b: _remainder(s, a, b, fmod))


@converts("bit_shift")
def _bit_shift(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, left = operand_scalars(op), op.attr("direction") == "left"
    width = ir.IntegerType(s.element).width

    def shift(a: ir.Value, b: ir.Value) -> ir.Value:
        zero = s.constant(0)
        in_range = arith.cmpi(arith.CmpIPredicate.ult, b, s.constant(width))  # a negative b is huge unsigned
        amount = arith.select(in_range, b, zero)
        if left:
            return arith.select(in_range, arith.shli(a, amount), zero)
        if s.kind == "u":
            return arith.select(in_range, arith.shrui(a, amount), zero)
        fill = arith.select(s.compare("lt", a, zero), s.constant(-1), zero)
        return arith.select(in_range, arith.shrsi(a, amount), fill)

    return _map(op, operands, shift)


@converts(*BITWISE)
def _bitwise(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    function = BITWISE[op.name]
    return _map(op, operands, function)


@converts("bitwise_not")
def _bitwise_not(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s = operand_scalars(op)
    return _map(op, operands, lambda x: arith.xori(x, s.constant(-1)))
