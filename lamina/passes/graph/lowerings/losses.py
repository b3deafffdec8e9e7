"""Lowerings of the losses, their gradients and the SGD update into ordinary graph ops.

Glow lowers Regression to a no-op for inference and to a subtraction for
training; here the loss ops exist only in training functions, so they always
lower (`OpDef.training`), as does SGD (Glow: "backends do not need to
implement ... SGD").
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import spec_of

from .base import Emitter, lowering


def _one_hot(emit: Emitter, labels: ir.Value, logits: ir.Value) -> ir.Value:
    """[batch, classes] with 1.0 where the class is the sample's label: labels compared with 0..classes-1."""
    spec, label_spec = spec_of(logits.type), spec_of(labels.type)
    batch, classes = spec.shape
    column = emit.op("reshape", labels, result_type=label_spec.with_shape((batch, 1)))
    classes_row = emit.constant(np.arange(classes, dtype=label_spec.dtype).reshape(1, classes))
    grid = label_spec.with_shape((batch, classes))
    hit = emit.op("equal", emit.broadcast(column, grid), emit.broadcast(classes_row, grid))
    return emit.op("where", hit, emit.splat(1.0, spec), emit.splat(0.0, spec))


def _mean_of_all(emit: Emitter, value: ir.Value) -> ir.Value:
    return emit.op("reduce_mean", value, axes=tuple(range(spec_of(value.type).rank)), keepdims=False)


@lowering("softmax_cross_entropy")
def softmax_cross_entropy(op: OpView, emit: Emitter) -> ir.Value:
    """mean(logsumexp(x) - x[label]), with the row maximum subtracted first so exp stays finite."""
    x, labels = op.operand("logits"), op.operand("labels")
    spec = spec_of(x.type)
    maximum = emit.op("reduce_max", x, axes=(1,), keepdims=True)
    shifted = emit.op("sub", x, emit.broadcast(maximum, spec))
    log_total = emit.op("log", emit.op("reduce_sum", emit.op("exp", shifted), axes=(1,), keepdims=True))
    picked = emit.op("reduce_sum", emit.op("mul", shifted, _one_hot(emit, labels, x)), axes=(1,), keepdims=True)
    return _mean_of_all(emit, emit.op("sub", log_total, picked))


@lowering("softmax_cross_entropy_grad")
def softmax_cross_entropy_grad(op: OpView, emit: Emitter) -> ir.Value:
    """(softmax(x) - onehot(labels)) / batch (Glow's SoftMaxGrad, for a batch-mean loss)."""
    x, labels = op.operand("logits"), op.operand("labels")
    spec = spec_of(x.type)
    difference = emit.op("sub", emit.op("softmax", x, axis=1), _one_hot(emit, labels, x))
    return emit.op("mul", difference, emit.splat(1.0 / spec.shape[0], spec))


@lowering("mean_squared_error")
def mean_squared_error(op: OpView, emit: Emitter) -> ir.Value:
    difference = emit.op("sub", op.operand("prediction"), op.operand("target"))
    return _mean_of_all(emit, emit.op("mul", difference, difference))


@lowering("mean_squared_error_grad")
def mean_squared_error_grad(op: OpView, emit: Emitter) -> ir.Value:
    """2 (prediction - target) / elements (Glow's RegressionGrad, for a mean loss)."""
    prediction = op.operand("prediction")
    spec = spec_of(prediction.type)
    difference = emit.op("sub", prediction, op.operand("target"))
    return emit.op("mul", difference, emit.splat(2.0 / spec.num_elements, spec))


@lowering("sgd")
def sgd(op: OpView, emit: Emitter) -> list[ir.Value]:
    """g = gradient / batch_size [+ l2 * w] [+ l1 * sign(w)]; v' = momentum * v + g; w' = w - lr * v'.

    Terms whose factor is zero (or one, for the batch size) are left out;
    with momentum zero the velocity is just g and nobody needs to keep it.
    """
    gradient, weight, velocity = op.operand("gradient"), op.operand("weight"), op.operand("velocity")
    spec = spec_of(weight.type)
    attrs = op.attrs()
    step = gradient
    if attrs["batch_size"] != 1:
        step = emit.op("mul", step, emit.splat(1.0 / attrs["batch_size"], spec))
    if attrs["l2_decay"]:
        step = emit.op("add", step, emit.op("mul", weight, emit.splat(attrs["l2_decay"], spec)))
    if attrs["l1_decay"]:
        zero = emit.splat(0.0, spec)
        sign = emit.op("sub", emit.op("convert", emit.op("greater", weight, zero), result_type=spec),
                       emit.op("convert", emit.op("less", weight, zero), result_type=spec))
        step = emit.op("add", step, emit.op("mul", sign, emit.splat(attrs["l1_decay"], spec)))
    if attrs["momentum"]:
        step = emit.op("add", emit.op("mul", velocity, emit.splat(attrs["momentum"], spec)), step)
    updated = emit.op("sub", weight, emit.op("mul", step, emit.splat(attrs["learning_rate"], spec)))
    return [updated, step]
