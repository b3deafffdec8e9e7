"""Lowerings of softmax and the smooth activations into element-wise math and reductions.

Each builds the interpreter's own formula, operation by operation, so the
lowered graph computes bit-for-bit what the op does.
"""

from __future__ import annotations

import math

from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import spec_of

from .base import Emitter, lowering


@lowering("softmax")
def softmax(op: OpView, emit: Emitter) -> ir.Value:
    """exp(x - max(x)) / sum(exp(x - max(x))) along the axis; subtracting the maximum keeps exp finite."""
    x = op.operand("input")
    spec, axes = spec_of(x.type), (op.attr("axis"),)
    maximum = emit.op("reduce_max", x, axes=axes, keepdims=True)
    exponentials = emit.op("exp", emit.op("sub", x, emit.broadcast(maximum, spec)))
    total = emit.op("reduce_sum", exponentials, axes=axes, keepdims=True)
    return emit.op("div", exponentials, emit.broadcast(total, spec))


@lowering("gelu")
def gelu(op: OpView, emit: Emitter) -> ir.Value:
    """x/2 * (1 + erf(x / sqrt 2)), or with `approximate = "tanh"`
    x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    x = op.operand("input")
    spec = spec_of(x.type)
    if op.attr("approximate") == "tanh":
        cube_term = emit.op("mul", emit.op("mul", emit.op("mul", emit.splat(0.044715, spec), x), x), x)
        inner = emit.op("mul", emit.splat(math.sqrt(2 / math.pi), spec), emit.op("add", x, cube_term))
        curve = emit.op("tanh", inner)
    else:
        curve = emit.op("erf", emit.op("div", x, emit.splat(math.sqrt(2), spec)))
    half_x = emit.op("mul", emit.splat(0.5, spec), x)
    return emit.op("mul", half_x, emit.op("add", emit.splat(1.0, spec), curve))


@lowering("swish")
def swish(op: OpView, emit: Emitter) -> ir.Value:
    """x * sigmoid(x)."""
    x = op.operand("input")
    return emit.op("mul", x, emit.op("sigmoid", x))
