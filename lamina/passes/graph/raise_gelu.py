"""graph-raise-gelu: the exported arithmetic of GELU (erf or tanh form) -> gelu."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

from lamina.dialects.types import spec_of
from lamina.dialects.values import defining_op, has_one_use, op_name, producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fused_location, replace_each, scalar_operand

# Exporters write the constants in float32: compare them with this relative tolerance.
CONSTANT_TOLERANCE = 1e-6
# GELU's products nest at most three ops deep (x * (x * x) * 0.044715); looking
# no deeper keeps matching linear in a long chain of muls.
MAX_PRODUCT_DEPTH = 3


@register_pass
@dataclass(frozen=True)
class GraphRaiseGelu(Pass):
    """Replace the arithmetic of GELU by `gelu`:

      0.5 * x * (1 + erf(x / sqrt(2)))                          -> gelu{approximate = "none"}
      0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))   -> gelu{approximate = "tanh"}

    in the forms exporters write (PyTorch's pre-opset-20 GELU, Hugging Face's
    and TensorFlow's gelu): products are matched as a whole, so any order and
    grouping of the factors matches, x / c as x * (1/c), constants multiplied
    together (x * (0.5 * (1 + erf(x * 0.7071...)))), x^3 as pow(x, 3) or
    x * x * x. Constants are scalars (splats or broadcast constants) equal to
    the exact ones within a relative 1e-6 (float32 rounding); any other
    constant stays arithmetic. Legal when every intermediate value has no
    user outside the pattern (x may have any). Results change by float
    rounding only; the gelu takes the fused location of the matched ops.
    """

    name = "graph-raise-gelu"
    summary = "Raise the erf and tanh forms of GELU's arithmetic into gelu"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"mul"}, _raised_gelu)


@dataclass
class _Product:
    """A value as `constant` times the product of `factors`, and the ops that say so."""

    constant: float = 1.0
    factors: list[ir.Value] = field(default_factory=list)
    ops: list[ir.Operation] = field(default_factory=list)

    def matches(self, constant: float, factors: list[ir.Value]) -> bool:
        return _close(self.constant, constant) and self.factors == factors


def _raised_gelu(mul: ir.Operation) -> ir.Value | None:
    if not np.issubdtype(spec_of(mul.results[0].type).dtype, np.floating):
        return None
    outer = _product(mul.results[0], root=True)
    if not _close(outer.constant, 0.5) or len(outer.factors) != 2:
        return None
    for x, other in (outer.factors, outer.factors[::-1]):
        for match in (_erf_form, _tanh_form):
            matched = match(x, other)
            if matched is not None:
                approximate, ops = matched
                return create_before(mul, "gelu", x, approximate=approximate, loc=fused_location(outer.ops + ops))
    return None


def _erf_form(x: ir.Value, factor: ir.Value) -> tuple[str, list[ir.Operation]] | None:
    """Whether `factor` is 1 + erf(x / sqrt(2)): ("none", its ops)."""
    one_plus = _one_plus(factor, "erf")
    if one_plus is None:
        return None
    scaled, ops = one_plus
    return ("none", ops + scaled.ops) if scaled.matches(1 / math.sqrt(2), [x]) else None


def _tanh_form(x: ir.Value, factor: ir.Value) -> tuple[str, list[ir.Operation]] | None:
    """Whether `factor` is 1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)): ("tanh", its ops)."""
    one_plus = _one_plus(factor, "tanh")
    if one_plus is None:
        return None
    scaled, ops = one_plus
    if len(scaled.factors) != 1 or not _close(scaled.constant, math.sqrt(2 / math.pi)):
        return None
    inner = scaled.factors[0]
    add = producer(inner, "add")
    if add is None or not has_one_use(inner):
        return None
    for linear, cubic in (add.operands, add.operands[::-1]):
        cube = _product(cubic)
        if linear == x and cube.matches(0.044715, [x, x, x]):
            return "tanh", ops + scaled.ops + [add] + cube.ops
    return None


def _one_plus(value: ir.Value, function: str) -> tuple[_Product, list[ir.Operation]] | None:
    """If `value` is 1 + function(argument) (either order) used once: the argument as a product and the two ops."""
    add = producer(value, "add")
    if add is None or not has_one_use(value):
        return None
    for term, one in (add.operands, add.operands[::-1]):
        applied = producer(term, function)
        if applied is not None and has_one_use(term) and _close(scalar_operand(one), 1.0):
            return _product(applied.operands[0]), [add, applied]
    return None


def _product(value: ir.Value, root: bool = False, depth: int = 0) -> _Product:
    """`value` as a constant times factors, through muls, divisions by constants and
    small integer powers whose results are used once (`root` may be used more)."""
    op = defining_op(value)
    name = op_name(op) if op is not None else None
    if name not in ("mul", "div", "pow") or not (root or has_one_use(value)) or depth == MAX_PRODUCT_DEPTH:
        return _Product(factors=[value])
    lhs, rhs = op.operands
    scalar = scalar_operand(rhs)
    if name == "pow":
        if scalar not in (2.0, 3.0):
            return _Product(factors=[value])
        return _Product(factors=[lhs] * int(scalar), ops=[op])
    if name == "div":
        if scalar is None or scalar == 0:
            return _Product(factors=[value])
        inner = _product(lhs, depth=depth + 1)
        return _Product(inner.constant / scalar, inner.factors, inner.ops + [op])
    product = _Product(ops=[op])
    for operand in (lhs, rhs):
        constant = scalar_operand(operand)
        part = _Product(constant) if constant is not None else _product(operand, depth=depth + 1)
        product = _Product(product.constant * part.constant, product.factors + part.factors, product.ops + part.ops)
    return product


def _close(value: float | None, expected: float) -> bool:
    return value is not None and math.isclose(value, expected, rel_tol=CONSTANT_TOLERANCE)
