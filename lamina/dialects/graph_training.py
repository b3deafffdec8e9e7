"""The graph dialect's training ops: gradients, losses and the SGD update (Glow's XGrad and SGD nodes).

`graph-differentiate` emits them; every one is marked `training`, so every
backend's `should_lower` asks for its lowering (`lamina/passes/graph/lowerings/
gradients.py`, `losses.py`) and no executor has a kernel of its own for it, as
Glow's backends "do not need to implement DivGrad, ReLUGrad or SGD". Gradient
ops take the forward op's operands and/or result plus the gradient of the
result, and produce one gradient per differentiable operand.

Ops whose gradient is a short expression of ordinary ops (add, matmul,
reshape, slice, ...) get no op here: the differentiation rule emits the
expression directly.
"""

from __future__ import annotations

import numpy as np

from .graph import FLOAT_DTYPES, GRAPH, INDEX_DTYPES, WINDOW, _convolution, _fully_connected, _pool, _require
from .irdl import BOOL, F32, I64, I64S
from .types import TensorSpec

LOSS_DTYPE = np.dtype(np.float32)


def _gradient_of_output(ins, attrs, declared):
    """(output, grad) -> the gradient of the op's input, which has the output's type."""
    output, grad = ins
    _require(output == grad, f"the gradient must have the output's type {output}, got {grad}")
    _require(output.dtype in FLOAT_DTYPES, f"expects floating-point operands, got {output}")
    return [output]


def _softmax_grad(ins, attrs, declared):
    _require(0 <= attrs["axis"] < ins[0].rank, f"axis {attrs['axis']} out of range for {ins[0]}")
    return _gradient_of_output(ins, attrs, declared)


def _matches_forward(grad: TensorSpec, forward: TensorSpec) -> None:
    _require(grad == forward, f"the gradient must have the forward result's type {forward}, got {grad}")


def _fully_connected_grad(ins, attrs, declared):
    data, weights, grad = ins
    (result,) = _fully_connected([data, weights, weights.with_shape((weights.shape[1],))], attrs, None)
    _matches_forward(grad, result)
    return [data, weights, weights.with_shape((weights.shape[1],))]


def _convolution_grad(ins, attrs, declared):
    data, filt, grad = ins
    bias = filt.with_shape((filt.shape[0],))
    (result,) = _convolution([data, filt, bias], attrs, None)
    _matches_forward(grad, result)
    return [data, filt, bias]


def _pool_grad(ins, attrs, declared):
    data, *outputs, grad = ins
    (result,) = _pool([data], attrs, None)
    _matches_forward(grad, result)
    for output in outputs:
        _matches_forward(output, result)
    return [data]


def _loss_operands(prediction: TensorSpec, target: TensorSpec, integer_labels: bool) -> None:
    _require(prediction.dtype == LOSS_DTYPE, f"the prediction must be f32, got {prediction}")
    if integer_labels:
        _require(prediction.rank == 2, f"softmax cross-entropy expects [batch, classes] logits, got {prediction}")
        _require(target.dtype in INDEX_DTYPES and target.shape == prediction.shape[:1],
                 f"labels must be i64 or i32 [{prediction.shape[0]}], got {target}")
    else:
        _require(target == prediction, f"targets must have the prediction's type {prediction}, got {target}")


def _loss(integer_labels: bool, gradient: bool):
    """The shape function of a loss (a float32 scalar) or of its gradient (the prediction's type)."""

    def shape_fn(ins, attrs, declared):
        _loss_operands(*ins, integer_labels=integer_labels)
        return [ins[0]] if gradient else [TensorSpec((), LOSS_DTYPE)]

    return shape_fn


def _sgd(ins, attrs, declared):
    gradient, weight, velocity = ins
    _require(gradient == weight == velocity,
             f"gradient, weight and velocity must share one type, got {gradient}, {weight}, {velocity}")
    _require(weight.dtype in FLOAT_DTYPES, f"expects a floating-point weight, got {weight}")
    _require(attrs["batch_size"] >= 1, f"batch_size must be >= 1, got {attrs['batch_size']}")
    _require(0.0 <= attrs["momentum"] < 1.0, f"momentum must be in [0, 1), got {attrs['momentum']}")
    return [weight, weight]


def _training_op(name: str, summary: str, **kwargs) -> None:
    GRAPH.op(name, summary, training=True, **kwargs)


for _name, _formula in [("relu", "grad where output > 0, else 0"), ("sigmoid", "grad * output * (1 - output)"),
                        ("tanh", "grad * (1 - output^2)")]:
    _training_op(f"{_name}_grad", f"Gradient of {_name} from its output: {_formula}.", operands=("output", "grad"),
                 results=("input_grad",), shape_fn=_gradient_of_output)
_training_op("softmax_grad", "Gradient of softmax from its output y: y * (grad - sum(grad * y)) along `axis`.",
             operands=("output", "grad"), results=("input_grad",), attrs={"axis": I64}, shape_fn=_softmax_grad)
_training_op("fully_connected_grad", "Gradients of fully_connected: grad x weights^T, input^T x grad, sum of grad.",
             operands=("input", "weights", "grad"), results=("input_grad", "weights_grad", "bias_grad"),
             shape_fn=_fully_connected_grad)
_training_op("convolution_grad", "Gradients of convolution with respect to its input, filter and bias.",
             operands=("input", "filter", "grad"), results=("input_grad", "filter_grad", "bias_grad"),
             attrs={**WINDOW, "group": I64}, shape_fn=_convolution_grad)
_training_op("max_pool_grad", "Gradient of max_pool: each output's gradient goes to the first maximum of its window.",
             operands=("input", "output", "grad"), results=("input_grad",), attrs={"kernel": I64S, **WINDOW, "ceil_mode": BOOL},
             shape_fn=_pool_grad)
_training_op("avg_pool_grad", "Gradient of avg_pool: each output's gradient spread evenly over its window "
             "(`input` gives the result type only).", operands=("input", "grad"), results=("input_grad",),
             attrs={"kernel": I64S, "strides": I64S, "pads": I64S, "ceil_mode": BOOL, "count_include_pad": BOOL},
             shape_fn=_pool_grad)
_training_op("softmax_cross_entropy", "Mean over the batch of -log softmax(logits)[label] (f32 scalar).",
             operands=("logits", "labels"), shape_fn=_loss(integer_labels=True, gradient=False))
_training_op("softmax_cross_entropy_grad", "Gradient of softmax_cross_entropy: (softmax(logits) - onehot) / batch.",
             operands=("logits", "labels"), shape_fn=_loss(integer_labels=True, gradient=True))
_training_op("mean_squared_error", "Mean of (prediction - target)^2 over every element (f32 scalar; Glow's "
             "Regression).", operands=("prediction", "target"), shape_fn=_loss(integer_labels=False, gradient=False))
_training_op("mean_squared_error_grad", "Gradient of mean_squared_error: 2 (prediction - target) / elements.",
             operands=("prediction", "target"), shape_fn=_loss(integer_labels=False, gradient=True))
_training_op("sgd", "One SGD step (torch.optim.SGD's formulation): g = gradient / batch_size + l2_decay * weight + "
             "l1_decay * sign(weight); velocity' = momentum * velocity + g; weight' = weight - learning_rate * "
             "velocity'.", operands=("gradient", "weight", "velocity"), results=("updated_weight", "updated_velocity"),
             attrs={"learning_rate": F32, "momentum": F32, "l1_decay": F32, "l2_decay": F32, "batch_size": I64},
             shape_fn=_sgd)
