"""The table of gradient rules: for each graph op, how the gradients of its operands follow
from the gradient of its result (Glow's `getGrad` per node kind).

A rule gets the forward op, the gradient of its (first) result, which of its
operands need a gradient, and an `Emitter` positioned at the end of the
training function; it returns one gradient per operand (None where none is
needed). Rules emit ordinary graph ops where the gradient is a short
expression, and the training ops of `graph_training.py` (lowered later by
every backend) where it is a kernel of its own, as Glow does.
"""

from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec, spec_of
from lamina.passes.graph.lowerings import Emitter

Gradients = list["ir.Value | None"]
Rule = Callable[[OpView, ir.Value, Sequence[bool], Emitter], Gradients]

# Graph op name -> its gradient rule.
GRADIENTS: dict[str, Rule] = {}


def gradient(*op_names: str) -> Callable[[Rule], Rule]:
    """Register the decorated function as the gradient rule of each `graph.<name>`."""

    def register(rule: Rule) -> Rule:
        for name in op_names:
            assert name in GRAPH.ops and name not in GRADIENTS, f"bad or duplicate gradient of {name}"
            GRADIENTS[name] = rule
        return rule

    return register


def spec(value: ir.Value) -> TensorSpec:
    return spec_of(value.type)


def unbroadcast(emit: Emitter, grad: ir.Value, target: TensorSpec) -> ir.Value:
    """The gradient of a value broadcast to `grad`'s shape: summed over the broadcast axes."""
    shape = spec(grad).shape
    if shape == target.shape:
        return grad
    lead = len(shape) - target.rank
    padded = (1,) * lead + tuple(target.shape)
    axes = tuple(i for i, (g, t) in enumerate(zip(shape, padded)) if t == 1 and g != 1 or i < lead)
    summed = emit.op("reduce_sum", grad, axes=axes, keepdims=True) if axes else grad
    return emit.op("reshape", summed, result_type=target) if spec(summed) != target else summed


def spread_over(emit: Emitter, grad: ir.Value, source: TensorSpec, axes: Sequence[int]) -> ir.Value:
    """A reduction's result gradient broadcast back over the reduced `axes` of `source`."""
    kept = source.with_shape(tuple(1 if i in axes else d for i, d in enumerate(source.shape)))
    reshaped = emit.op("reshape", grad, result_type=kept) if spec(grad) != kept else grad
    return emit.broadcast(reshaped, source)


def zeros(emit: Emitter, like: TensorSpec) -> ir.Value:
    return emit.splat(0.0, like)


def masked(emit: Emitter, condition: ir.Value, grad: ir.Value, *, where_true: bool = True) -> ir.Value:
    """`grad` where `condition` holds (or where it does not), zero elsewhere."""
    zero = zeros(emit, spec(grad))
    return emit.op("where", condition, grad, zero) if where_true else emit.op("where", condition, zero, grad)
