"""Forward ops that compute differently while training: batch normalization uses the batch's
statistics and updates the running averages (Glow: BatchNormalization + MeanVarNormalization).

The rewrite is ordinary differentiable ops, so the backward pass flows
through it with the element-wise and reduction rules.
"""

from __future__ import annotations

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.passes.graph.lowerings import Emitter
from lamina.dialects.values import producer
from lamina.passes.graph.rewriting import replace_op

from .rules import spec


def _per_channel(emit: Emitter, vector: ir.Value, like) -> ir.Value:
    """A [C] vector broadcast over an N x C x ... tensor."""
    channels = like.shape[1]
    column = spec(vector).with_shape((1, channels, *[1] * (like.rank - 2)))
    return emit.broadcast(emit.op("reshape", vector, result_type=column), like)


def batch_norm_for_training(op: OpView, momentum: float) -> None:
    """Replace an inference batch_norm by its training form, in place.

    y = (x - mean_B) / sqrt(var_B + eps) * scale + bias, with mean_B and var_B
    (biased) over batch and space. When mean and variance are placeholders
    (weights the module keeps), their running averages are saved back under
    the same names as torch updates them: (1 - m) * running + m * batch, the
    variance unbiased by n / (n - 1).
    """
    x = op.operand("input")
    like = spec(x)
    axes = (0, *range(2, like.rank))
    emit = Emitter(op.op.location)
    with op.op.location, ir.InsertionPoint(op.op):
        mean = emit.op("reduce_mean", x, axes=axes, keepdims=True)
        centered = emit.op("sub", x, emit.broadcast(mean, like))
        variance = emit.op("reduce_mean", emit.op("mul", centered, centered), axes=axes, keepdims=True)
        stddev = emit.op("sqrt", emit.op("add", variance, emit.splat(op.attr("epsilon"), spec(variance))))
        normalized = emit.op("div", centered, emit.broadcast(stddev, like))
        scaled = emit.op("mul", normalized, _per_channel(emit, op.operand("scale"), like))
        result = emit.op("add", scaled, _per_channel(emit, op.operand("bias"), like))
        count = like.num_elements // like.shape[1]
        for statistic, batch_value, factor in (("mean", mean, 1.0), ("variance", variance, count / max(count - 1, 1))):
            _save_running_average(emit, op.operand(statistic), batch_value, momentum * factor, momentum)
    replace_op(op.op, [result])


def _save_running_average(emit: Emitter, running: ir.Value, batch_value: ir.Value, batch_factor: float,
                          momentum: float) -> None:
    placeholder = producer(running, "placeholder")
    if placeholder is None:
        return  # a constant statistic (frozen): nothing to update
    vector = spec(running)
    batch_vector = emit.op("reshape", batch_value, result_type=vector)
    updated = emit.op("add", emit.op("mul", running, emit.splat(1.0 - momentum, vector)),
                      emit.op("mul", batch_vector, emit.splat(batch_factor, vector)))
    GRAPH.create("save", updated, name=GRAPH.view(placeholder).attr("name"), loc=emit.loc)
