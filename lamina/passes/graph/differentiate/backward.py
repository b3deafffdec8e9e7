"""The backward pass: walk the forward ops in reverse program order, map each value to its
gradient and sum the contributions of every use (Glow's GraphGradMapper and "updateGrad" adds)."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import FLOAT_DTYPES, GRAPH
from lamina.dialects.irdl import CONSTANT, INTERFACE
from lamina.dialects.types import spec_of
from lamina.passes.graph.lowerings import Emitter

from .data_movement_rules import NoGradient
from .rules import GRADIENTS

def _differentiable(value: ir.Value) -> bool:
    return spec_of(value.type).dtype in FLOAT_DTYPES


def _needing_gradients(ops: list[ir.Operation], sources: set[ir.Value]) -> set[ir.Value]:
    """Values that depend on a source: the only ones whose gradient the update needs."""
    needed = set(sources)
    for op in ops:
        if any(operand in needed for operand in op.operands):
            needed.update(result for result in op.results if _differentiable(result))
    return needed


def backward(block: ir.Block, sources: dict[str, ir.Value], prediction: ir.Value,
             seed: ir.Value) -> dict[ir.Value, ir.Value]:
    """Emit the gradients of the loss with respect to `sources`, at the current insertion point.

    `seed` is the loss gradient at `prediction`. Returns value -> gradient
    for every value on a path from a source to the prediction. An op on such
    a path without a gradient rule is a one-line error naming it.
    """
    forward = [op.operation for op in block.operations
               if op.operation.name.startswith("graph.") and op.operation.name != "graph.save"]
    forward = forward[:_position(forward, prediction) + 1]
    needed = _needing_gradients(forward, set(sources.values()))
    grads: dict[ir.Value, ir.Value] = {prediction: seed}
    for op in reversed(forward):
        definition = GRAPH.lookup(op)
        if definition is None or definition.has(INTERFACE) or definition.has(CONSTANT) or not op.results:
            continue
        result_grad = grads.get(op.results[0])
        needs = [operand in needed for operand in op.operands]
        if result_grad is None or not any(needs):
            continue
        rule = GRADIENTS.get(definition.name)
        if rule is None:
            raise LaminaError(f"{format_location(op.location)}: error: graph.{definition.name} has no gradient, and "
                              "it lies between trained weights and the loss (freeze them or replace the op)")
        emit = Emitter(op.location)
        try:
            operand_grads = rule(GRAPH.view(op), result_grad, needs, emit)
        except NoGradient as reason:
            raise LaminaError(f"{format_location(op.location)}: error: graph.{definition.name} has no gradient "
                              f"here: {reason}") from None
        for operand, grad, need in zip(op.operands, operand_grads, needs):
            if need and grad is not None:
                grads[operand] = emit.op("add", grads[operand], grad) if operand in grads else grad
    return grads


def _position(ops: list[ir.Operation], value: ir.Value) -> int:
    """Index of the op defining `value` (the backward pass starts there)."""
    for index, op in enumerate(ops):
        if value in list(op.results):
            return index
    return -1
