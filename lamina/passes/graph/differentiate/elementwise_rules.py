"""Gradient rules of the element-wise ops (Glow: Add, Sub, Mul, Div, Relu, Sigmoid, Tanh grads)."""

from __future__ import annotations

import math

from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.passes.graph.lowerings import Emitter

from .rules import Gradients, gradient, masked, spec


def _result(op: OpView) -> ir.Value:
    return op.op.results[0]


@gradient("add")
def add(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [grad, grad]


@gradient("sum")
def sum_(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [grad] * len(needs)


@gradient("identity", "dropout")
def identity(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """Dropout is the identity here: the training function runs it in inference mode."""
    return [grad]


@gradient("sub")
def sub(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [grad, emit.op("neg", grad) if needs[1] else None]


@gradient("neg")
def neg(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("neg", grad)]


@gradient("mul")
def mul(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    lhs, rhs = op.operand("lhs"), op.operand("rhs")
    return [emit.op("mul", grad, rhs) if needs[0] else None, emit.op("mul", grad, lhs) if needs[1] else None]


@gradient("div")
def div(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """d(a/b) = da / b - db * (a/b) / b."""
    rhs = op.operand("rhs")
    lhs_grad = emit.op("div", grad, rhs)
    rhs_grad = emit.op("neg", emit.op("div", emit.op("mul", grad, _result(op)), rhs)) if needs[1] else None
    return [lhs_grad if needs[0] else None, rhs_grad]


@gradient("max", "min")
def extremum(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """The gradient goes to the operand that was chosen (lhs on ties)."""
    lhs, rhs = op.operand("lhs"), op.operand("rhs")
    rhs_won = emit.op("less" if op.name == "max" else "greater", lhs, rhs)
    return [masked(emit, rhs_won, grad, where_true=False), masked(emit, rhs_won, grad)]


@gradient("pow")
def pow_(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """d(a^b) = b a^(b-1) da + a^b ln(a) db."""
    lhs, rhs = op.operand("lhs"), op.operand("rhs")
    lhs_grad = rhs_grad = None
    if needs[0]:
        lowered = emit.op("pow", lhs, emit.op("sub", rhs, emit.splat(1.0, spec(rhs))))
        lhs_grad = emit.op("mul", grad, emit.op("mul", rhs, lowered))
    if needs[1]:
        rhs_grad = emit.op("mul", grad, emit.op("mul", _result(op), emit.op("log", lhs)))
    return [lhs_grad, rhs_grad]


@gradient("where")
def where(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    condition = op.operand("condition")
    return [None, masked(emit, condition, grad) if needs[1] else None,
            masked(emit, condition, grad, where_true=False) if needs[2] else None]


@gradient("equal", "less", "greater")
def comparison(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """A comparison's i1 result carries no gradient."""
    return [None, None]


@gradient("relu", "sigmoid", "tanh")
def from_output(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """relu_grad, sigmoid_grad, tanh_grad: training ops reading the forward output."""
    return [emit.op(f"{op.name}_grad", _result(op), grad)]


@gradient("exp")
def exp(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("mul", grad, _result(op))]


@gradient("log")
def log(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("div", grad, op.operand("input"))]


@gradient("sqrt")
def sqrt(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """d sqrt(x) = dx / (2 sqrt(x))."""
    y = _result(op)
    return [emit.op("div", grad, emit.op("mul", y, emit.splat(2.0, spec(y))))]


@gradient("reciprocal")
def reciprocal(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    y = _result(op)
    return [emit.op("neg", emit.op("mul", grad, emit.op("mul", y, y)))]


@gradient("abs")
def abs_(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    x = op.operand("input")
    negative = emit.op("less", x, emit.splat(0.0, spec(x)))
    return [emit.op("where", negative, emit.op("neg", grad), grad)]


@gradient("erf")
def erf(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """d erf(x) = 2 / sqrt(pi) exp(-x^2) dx."""
    x = op.operand("input")
    bell = emit.op("exp", emit.op("neg", emit.op("mul", x, x)))
    return [emit.op("mul", grad, emit.op("mul", bell, emit.splat(2 / math.sqrt(math.pi), spec(x))))]


@gradient("leaky_relu")
def leaky_relu(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    x = op.operand("input")
    negative = emit.op("less", x, emit.splat(0.0, spec(x)))
    return [emit.op("where", negative, emit.op("mul", grad, emit.splat(op.attr("alpha"), spec(x))), grad)]


@gradient("clip")
def clip(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """The gradient passes where the input lies inside [min, max]."""
    x = op.operand("input")
    below = emit.op("less", x, emit.splat(op.attr("min"), spec(x)))
    above = emit.op("greater", x, emit.splat(op.attr("max"), spec(x)))
    return [masked(emit, above, masked(emit, below, grad, where_true=False), where_true=False)]


@gradient("convert")
def convert(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    source = spec(op.operand("input"))
    return [emit.op("convert", grad, result_type=source) if spec(grad) != source else grad]
