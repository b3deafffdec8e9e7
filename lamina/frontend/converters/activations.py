"""One-input element-wise operators: activations, unary math, Clip, Dropout, Cast."""

from __future__ import annotations

import math
from typing import Iterable

from ..dtypes import is_supported, numpy_dtype, type_name
from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter, register

UNARY = {"Relu": "relu", "Neg": "neg", "Abs": "abs", "Identity": "identity"}
FLOAT_UNARY = {"Sigmoid": "sigmoid", "Tanh": "tanh", "Erf": "erf", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
               "Reciprocal": "reciprocal"}

for _onnx_op, _graph_op in UNARY.items():
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, n.input(0)), graph_ops=(_graph_op,))
for _onnx_op, _graph_op in FLOAT_UNARY.items():
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, n.input(0)), graph_ops=(_graph_op,),
             notes="Floating-point element types.")


@converter("LeakyRelu", graph_ops=("leaky_relu",), notes="`alpha`.")
def convert_leaky_relu(n: NodeEmitter):
    return n.emit("leaky_relu", n.input(0), alpha=n.attr("alpha", 0.01))


@converter("HardSigmoid", graph_ops=("hard_sigmoid",), notes="`alpha`, `beta`.")
def convert_hard_sigmoid(n: NodeEmitter):
    return n.emit("hard_sigmoid", n.input(0), alpha=n.attr("alpha", 0.2), beta=n.attr("beta", 0.5))


def _exponential_linear(n: NodeEmitter, alpha: float, gamma: float = 1.0):
    """gamma * where(x > 0, x, alpha * (exp(x) - 1)): Elu (gamma 1) and Selu."""
    x = n.input(0)
    spec = n.spec(x)
    negative = n.emit("mul", n.splat(spec, alpha), n.emit("sub", n.emit("exp", x), n.splat(spec, 1.0)))
    result = n.emit("where", n.emit("greater", x, n.splat(spec, 0.0)), x, negative)
    return result if gamma == 1.0 else n.emit("mul", n.splat(spec, gamma), result)


EXPONENTIAL_LINEAR_OPS = ("greater", "where", "exp", "sub", "mul", "splat")
# Before opset 22, Elu, Selu, PRelu and Softplus have no ONNX function body to import through.
register("Elu", lambda n: _exponential_linear(n, n.attr("alpha", 1.0)), graph_ops=EXPONENTIAL_LINEAR_OPS,
         notes="`alpha`: where(x > 0, x, alpha * (exp(x) - 1)).")
register("Selu", lambda n: _exponential_linear(n, n.attr("alpha", 1.67326319217681884765625),
                                               n.attr("gamma", 1.05070102214813232421875)),
         graph_ops=EXPONENTIAL_LINEAR_OPS, notes="`alpha`, `gamma`: gamma * where(x > 0, x, alpha * (exp(x) - 1)).")


@converter("Softplus", graph_ops=("relu", "abs", "neg", "exp", "add", "log", "splat"),
           notes="relu(x) + log(1 + exp(-|x|)), which never overflows.")
def convert_softplus(n: NodeEmitter):
    x = n.input(0)
    spec = n.spec(x)
    tail = n.emit("log", n.emit("add", n.splat(spec, 1.0), n.emit("exp", n.emit("neg", n.emit("abs", x)))))
    return n.emit("add", n.emit("relu", x), tail)


@converter("PRelu", graph_ops=("less", "where", "mul", "splat", "broadcast"),
           notes="where(x < 0, slope * x, x), the slope broadcast to x (unidirectionally).")
def convert_prelu(n: NodeEmitter):
    x = n.input(0)
    spec = n.spec(x)
    slope = n.broadcast(n.input(1), spec.shape)
    return n.emit("where", n.emit("less", x, n.splat(spec, 0.0)), n.emit("mul", slope, x), x)


@converter("Gelu", graph_ops=("gelu",), notes="`approximate` 'none' (erf) or 'tanh'.")
def convert_gelu(n: NodeEmitter):
    return n.emit("gelu", n.input(0), approximate=n.attr("approximate", "none"))


@converter("Clip", graph_ops=("clip", "max", "min", "broadcast", "identity"),
           notes="Bounds as attributes (before opset 11) or inputs; a missing bound is infinite. Constant bounds on "
                 "floating-point data give `graph.clip`; other bounds or element types give `graph.max`/`graph.min` "
                 "with the bound broadcast.")
def convert_clip(n: NodeEmitter):
    data = n.input(0)
    if n.opset < 11:
        return n.emit("clip", data, min=n.attr("min", -math.inf), max=n.attr("max", math.inf))
    given = [index for index in (1, 2) if n.has_input(index)]
    if n.spec(data).dtype.kind == "f" and all(n.static(index) is not None for index in given):
        low = n.static(1).item() if n.has_input(1) else -math.inf
        high = n.static(2).item() if n.has_input(2) else math.inf
        return n.emit("clip", data, min=low, max=high)
    if not given:
        return n.emit("identity", data)
    result = data
    for index in given:
        result = n.emit("max" if index == 1 else "min", result, n.broadcast(n.input(index), n.spec(data).shape))
    return result


def _check_dropout(view: NodeView) -> Iterable[str]:
    training = view.static(2)
    if training is not None and bool(training.item()):
        yield "training_mode = true is not supported (inference only)"


@converter("Dropout", graph_ops=("dropout", "identity", "splat"), static_inputs={2: "training_mode"},
           check=_check_dropout,
           notes="Inference mode: `graph.dropout` keeping a constant ratio (an identity when the ratio is only known "
                 "at run time); a used mask output is an all-true splat. training_mode = true is unsupported.")
def convert_dropout(n: NodeEmitter):
    ratio = _dropout_ratio(n)
    output = n.emit("identity", n.input(0)) if ratio is None else n.emit("dropout", n.input(0), ratio=ratio)
    mask = n.splat(n.output_spec(1), 1) if n.output_used(1) else None
    return [output, mask]


def _dropout_ratio(n: NodeEmitter) -> float | None:
    """The drop ratio; None when an input gives it only at run time."""
    if n.opset < 12:
        return n.attr("ratio", 0.5)
    if not n.has_input(1):
        return 0.5
    ratio = n.static(1)
    return None if ratio is None else ratio.item()


def _check_cast(view: NodeView) -> Iterable[str]:
    target = view.attr("to")
    if not is_supported(target):
        yield f"casting to element type {type_name(target)} is not supported"


@converter("Cast", graph_ops=("convert",), check=_check_cast, notes="To f32, f64, f16, i64, i32, i8, ui8 or bool.")
def convert_cast(n: NodeEmitter):
    data = n.input(0)
    return n.emit("convert", data, result_type=n.spec(data).with_dtype(numpy_dtype(n.attr("to"))))

