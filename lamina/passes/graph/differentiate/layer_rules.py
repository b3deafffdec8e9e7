"""Gradient rules of the layer ops: matrix products, convolution, pooling, softmax and the reductions."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.passes.graph.lowerings import Emitter

from .rules import Gradients, gradient, masked, spec, spread_over, unbroadcast


def _multi_result(emit: Emitter, name: str, operands, needs, **attrs) -> Gradients:
    """A training op producing one gradient per operand; only the needed ones are handed out
    (graph-dce erases the rest once the op is lowered)."""
    op = GRAPH.create(name, *operands, loc=emit.loc, **attrs)
    return [result if need else None for result, need in zip(op.results, needs)]


@gradient("fully_connected")
def fully_connected(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return _multi_result(emit, "fully_connected_grad", [op.operand("input"), op.operand("weights"), grad], needs)


@gradient("convolution")
def convolution(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return _multi_result(emit, "convolution_grad", [op.operand("input"), op.operand("filter"), grad], needs,
                         **op.attrs())


@gradient("max_pool")
def max_pool(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("max_pool_grad", op.operand("input"), op.op.results[0], grad, **op.attrs())]


@gradient("avg_pool")
def avg_pool(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("avg_pool_grad", op.operand("input"), grad, **op.attrs())]


@gradient("softmax")
def softmax(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("softmax_grad", op.op.results[0], grad, axis=op.attr("axis"))]


def _swap_last(emit: Emitter, value: ir.Value) -> ir.Value:
    rank = spec(value).rank
    return emit.op("transpose", value, perm=(*range(rank - 2), rank - 1, rank - 2))


@gradient("matmul")
def matmul(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """dA = dY B^T, dB = A^T dY, each summed over the batch dimensions it was broadcast along."""
    lhs, rhs = op.operand("lhs"), op.operand("rhs")
    lhs_grad = unbroadcast(emit, emit.op("matmul", grad, _swap_last(emit, rhs)), spec(lhs)) if needs[0] else None
    rhs_grad = unbroadcast(emit, emit.op("matmul", _swap_last(emit, lhs), grad), spec(rhs)) if needs[1] else None
    return [lhs_grad, rhs_grad]


@gradient("reduce_sum", "reduce_mean")
def reduce_sum(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    source, axes = spec(op.operand("input")), op.attr("axes")
    spread = spread_over(emit, grad, source, axes)
    if op.name == "reduce_sum":
        return [spread]
    count = 1
    for axis in axes:
        count *= source.shape[axis]
    return [emit.op("mul", spread, emit.splat(1.0 / count, source))]


@gradient("reduce_max", "reduce_min")
def reduce_extremum(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """The gradient goes to the elements equal to the extremum (each of them on ties)."""
    x, axes = op.operand("input"), op.attr("axes")
    source = spec(x)
    hit = emit.op("equal", x, spread_over(emit, op.op.results[0], source, axes))
    return [masked(emit, hit, spread_over(emit, grad, source, axes))]


@gradient("reduce_prod")
def reduce_prod(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """d prod = prod / x_i (inputs are assumed non-zero)."""
    x, axes = op.operand("input"), op.attr("axes")
    source = spec(x)
    product = spread_over(emit, op.op.results[0], source, axes)
    return [emit.op("div", emit.op("mul", spread_over(emit, grad, source, axes), product), x)]
