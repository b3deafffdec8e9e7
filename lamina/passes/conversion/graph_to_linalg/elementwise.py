"""Element-wise graph ops as `linalg.generic` ops with `arith`/`math` bodies.

The graph broadcasts explicitly, so every operand of an element-wise op has
the result's shape and one identity-mapped generic suffices. Bodies follow
the reference kernels (`lamina/kernels/graph_kernels.py`) for every element type.
Elements are in their CPU storage form (`storage.py`: booleans as i8,
unsigned integers as signless ones), so `Scalars` knows each value's graph dtype and picks the signed,
unsigned or boolean arith op accordingly.
"""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, math

from lamina.dialects.irdl import OpView
from lamina.dialects.types import element_type

from .builders import map_elements, scalar
from .registry import converts
from .storage import result_type, storage_dtype, stored

# ---------------------------------------------------------------------------
# Scalar arithmetic on the stored elements of one graph dtype.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Scalars:
    """Builds `arith`/`math` ops on elements of graph dtype `dtype` as they are stored.

    Booleans are i8 0/1 bytes: `truth` turns one into an i1 for `select`,
    `from_truth` turns an i1 back into a stored boolean.
    """

    dtype: np.dtype

    @property
    def kind(self) -> str:
        """'f' float, 'i' signed, 'u' unsigned, 'b' boolean (NumPy's kind letters)."""
        return np.dtype(self.dtype).kind

    @property
    def element(self) -> ir.Type:
        return element_type(storage_dtype(self.dtype))

    def stored(self, value):
        """A Python number cast to `dtype` (as NumPy's astype does), as its stored bits read."""
        return stored(value, self.dtype)[()]

    def constant(self, value) -> ir.Value:
        return scalar(self.element, self.stored(value))

    def add(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """For booleans NumPy's logical or, which keeps stored booleans 0 or 1."""
        return {"f": arith.addf, "b": arith.ori}.get(self.kind, arith.addi)(a, b)

    def sub(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return arith.subf(a, b) if self.kind == "f" else arith.subi(a, b)

    def mul(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """For booleans NumPy's logical and."""
        return {"f": arith.mulf, "b": arith.andi}.get(self.kind, arith.muli)(a, b)

    def max(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """NaN-propagating for floats, like NumPy's maximum."""
        return {"f": arith.maximumf, "u": arith.maxui, "b": arith.maxui}.get(self.kind, arith.maxsi)(a, b)

    def min(self, a: ir.Value, b: ir.Value) -> ir.Value:
        return {"f": arith.minimumf, "u": arith.minui, "b": arith.minui}.get(self.kind, arith.minsi)(a, b)

    def compare(self, predicate: str, a: ir.Value, b: ir.Value) -> ir.Value:
        """An i1: `predicate` is eq, ne, lt, gt or ge; ordered for floats (NaN compares false except ne)."""
        if self.kind == "f":
            names = {"eq": "OEQ", "ne": "UNE", "lt": "OLT", "gt": "OGT", "ge": "OGE"}
            return arith.cmpf(getattr(arith.CmpFPredicate, names[predicate]), a, b)
        signed = self.kind == "i"
        names = {"eq": "eq", "ne": "ne", "lt": "slt" if signed else "ult", "gt": "sgt" if signed else "ugt",
                 "ge": "sge" if signed else "uge"}
        return arith.cmpi(getattr(arith.CmpIPredicate, names[predicate]), a, b)

    def div(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """Float division, or C's integer division: truncating, x / 0 = 0 and MIN / -1 wraps (no trap)."""
        if self.kind == "f":
            return arith.divf(a, b)
        zero, one = self.constant(0), self.constant(1)
        by_zero = self.compare("eq", b, zero)
        if self.kind == "u":
            return arith.select(by_zero, zero, arith.divui(a, arith.select(by_zero, one, b)))
        by_minus_one = self.compare("eq", b, self.constant(-1))
        safe = arith.select(arith.ori(by_zero, by_minus_one), one, b)
        quotient = arith.select(by_minus_one, arith.subi(zero, a), arith.divsi(a, safe))
        return arith.select(by_zero, zero, quotient)

    def pow(self, a: ir.Value, b: ir.Value) -> ir.Value:
        """`math.powf`, or `math.ipowi` (wrapping) with negative exponents handled here, as the kernel does.

        A negative exponent truncates a^b toward zero like C's (int) pow:
        a^b for a = +-1 (a to the exponent's parity), 0 for |a| > 1, and for
        a = 0 the integer minimum (what the kernel's cast of +inf gives on
        x86). `math.ipowi` only ever sees exponents >= 0: upstream's outlined
        implementation divides by zero for 0^-n, which traps.
        """
        if self.kind == "f":
            return math.powf(a, b)
        if self.kind != "i":
            wide = ir.IntegerType.get_signless(64)  # unsigned: exact modulo 2^width through i64
            if self.element == wide:
                return math.ipowi(a, b)
            return arith.trunci(self.element, math.ipowi(arith.extui(wide, a), arith.extui(wide, b)))
        zero, one = self.constant(0), self.constant(1)
        negative = self.compare("lt", b, zero)
        power = math.ipowi(a, arith.select(negative, arith.andi(b, one), b))
        unit = arith.ori(self.compare("eq", a, one), self.compare("eq", a, self.constant(-1)))
        reciprocal = arith.select(self.compare("eq", a, zero), self.constant(np.iinfo(self.dtype).min), zero)
        return arith.select(negative, arith.select(unit, power, reciprocal), power)

    def neg(self, x: ir.Value) -> ir.Value:
        return arith.negf(x) if self.kind == "f" else arith.subi(self.constant(0), x)

    def abs(self, x: ir.Value) -> ir.Value:
        """|x|; for signed integers a select (math.absi on n-D vectors has no LLVM lowering)."""
        if self.kind == "f":
            return math.absf(x)
        if self.kind == "i":
            return arith.select(self.compare("lt", x, self.constant(0)), self.neg(x), x)
        return x

    def truth(self, x: ir.Value) -> ir.Value:
        """A stored boolean (or any value: nonzero is true) as an i1."""
        return self.compare("ne", x, self.constant(0))

    @staticmethod
    def from_truth(condition: ir.Value) -> ir.Value:
        """An i1 as a stored boolean."""
        return arith.extui(ir.IntegerType.get_signless(8), condition)

    def cast(self, x: ir.Value, target: np.dtype) -> ir.Value:
        """C-style conversion to graph dtype `target` (NumPy's astype; to bool: nonzero)."""
        target_kind = np.dtype(target).kind
        element = Scalars(target).element
        if target_kind == "b":
            return self.from_truth(self.truth(x))
        if x.type == element and self.kind != "f":
            return x  # same bits: bool -> i8/ui8, iN <-> uiN
        unsigned_source = self.kind in "ub"
        if self.kind == "f" and target_kind == "f":
            if ir.FloatType(element).width > ir.FloatType(x.type).width:
                return arith.extf(element, x)
            return x if element == x.type else arith.truncf(element, x)
        if self.kind == "f":
            return arith.fptoui(element, x) if target_kind == "u" else arith.fptosi(element, x)
        if target_kind == "f":
            return arith.uitofp(element, x) if unsigned_source else arith.sitofp(element, x)
        source_width, target_width = ir.IntegerType(x.type).width, ir.IntegerType(element).width
        if target_width > source_width:
            return arith.extui(element, x) if unsigned_source else arith.extsi(element, x)
        return arith.trunci(element, x)

    def sigmoid(self, x: ir.Value) -> ir.Value:
        """1 / (1 + e^-x) as the kernel computes it: e = exp(-|x|) never overflows."""
        one = self.constant(1)
        e = math.exp(arith.negf(math.absf(x)))
        denominator = arith.addf(one, e)
        positive = self.compare("ge", x, self.constant(0))
        return arith.select(positive, arith.divf(one, denominator), arith.divf(e, denominator))


def operand_scalars(op: OpView, index: int = 0) -> Scalars:
    return Scalars(op.operand_specs()[index].dtype)


# ---------------------------------------------------------------------------
# Converters.
# ---------------------------------------------------------------------------


def _map(op: OpView, operands: list[ir.Value], body) -> list[ir.Value]:
    return [map_elements(result_type(op), operands, body)]


BINARY = {
    "add": Scalars.add, "sub": Scalars.sub, "mul": Scalars.mul, "div": Scalars.div,
    "max": Scalars.max, "min": Scalars.min, "pow": Scalars.pow,
}
COMPARISONS = {"equal": "eq", "less": "lt", "greater": "gt"}


@converts(*BINARY)
def _binary(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, function = operand_scalars(op), BINARY[op.name]
    return _map(op, operands, lambda a, b: function(s, a, b))


@converts(*COMPARISONS)
def _comparison(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, predicate = operand_scalars(op), COMPARISONS[op.name]
    return _map(op, operands, lambda a, b: s.from_truth(s.compare(predicate, a, b)))


@converts("where")
def _where(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    condition = operand_scalars(op, 0)
    return _map(op, operands, lambda c, a, b: arith.select(condition.truth(c), a, b))


@converts("sum")
def _sum(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    if len(operands) == 1:
        return operands
    s = operand_scalars(op)

    def body(*elements):
        total = elements[0]
        for element in elements[1:]:
            total = s.add(total, element)
        return total

    return _map(op, operands, body)


def _gelu_erf(s: Scalars, x: ir.Value) -> ir.Value:
    half_x = arith.mulf(s.constant(0.5), x)
    return arith.mulf(half_x, arith.addf(s.constant(1), math.erf(arith.divf(x, s.constant(pymath.sqrt(2))))))


def _gelu_tanh(s: Scalars, x: ir.Value) -> ir.Value:
    cube = arith.mulf(arith.mulf(x, x), x)
    inner = arith.mulf(s.constant(pymath.sqrt(2 / pymath.pi)), arith.addf(x, arith.mulf(s.constant(0.044715), cube)))
    return arith.mulf(arith.mulf(s.constant(0.5), x), arith.addf(s.constant(1), math.tanh(inner)))


UNARY = {
    "relu": lambda s, x: s.max(x, s.constant(0)),
    "sigmoid": Scalars.sigmoid,
    "tanh": lambda s, x: math.tanh(x),
    "erf": lambda s, x: math.erf(x),
    "exp": lambda s, x: math.exp(x),
    "log": lambda s, x: math.log(x),
    "sqrt": lambda s, x: math.sqrt(x),
    "reciprocal": lambda s, x: arith.divf(s.constant(1), x),
    "neg": Scalars.neg,
    "abs": Scalars.abs,
    "swish": lambda s, x: arith.mulf(x, s.sigmoid(x)),
}


@converts(*UNARY)
def _unary(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, function = operand_scalars(op), UNARY[op.name]
    return _map(op, operands, lambda x: function(s, x))


@converts("identity", "dropout")
def _identity(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return operands


@converts("leaky_relu")
def _leaky_relu(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, alpha = operand_scalars(op), op.attr("alpha")
    return _map(op, operands,
                lambda x: arith.select(s.compare("ge", x, s.constant(0)), x, arith.mulf(s.constant(alpha), x)))


@converts("hard_sigmoid")
def _hard_sigmoid(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, alpha, beta = operand_scalars(op), op.attr("alpha"), op.attr("beta")
    return _map(op, operands, lambda x: s.max(s.constant(0), s.min(s.constant(1), s.add(s.mul(s.constant(alpha), x),
                                                                                          s.constant(beta)))))


@converts("gelu")
def _gelu(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, function = operand_scalars(op), _gelu_tanh if op.attr("approximate") == "tanh" else _gelu_erf
    return _map(op, operands, lambda x: function(s, x))


@converts("clip")
def _clip(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, low, high = operand_scalars(op), op.attr("min"), op.attr("max")
    if s.kind != "f":  # f32 bounds (maybe infinite) into the integer range, as the kernel does
        info = np.iinfo(s.dtype)
        low = max(pymath.ceil(max(low, info.min)), info.min)
        high = min(pymath.floor(min(high, info.max)), info.max)
    return _map(op, operands, lambda x: s.min(s.max(x, s.constant(low)), s.constant(high)))


@converts("convert")
def _convert(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    s, target = operand_scalars(op), op.result_specs()[0].dtype
    if s.dtype == target:
        return operands
    return _map(op, operands, lambda x: s.cast(x, target))
