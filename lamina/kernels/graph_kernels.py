"""NumPy kernels for every op of the graph dialect, in a table keyed by op name.

A kernel takes the `Node` being executed (decoded attributes, result types,
the model's inputs and outputs) and the operand arrays, and returns the
result array (`save` returns None). Semantics are ONNX's, as each op's
summary in `lamina/dialects/graph.py` states; results keep the element type of the
op's result exactly (float32 math stays float32, as in onnxruntime).

Kernels may return views of their operands: no kernel writes into an operand.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

import numpy as np

from lamina.dialects.graph import GRAPH
from lamina.dialects.op_registry import OpRegistry
from lamina.dialects.types import TensorSpec

from . import convolution, pooling, windows
from .special_functions import erf


class KernelError(ValueError):
    """The data makes an op fail at run time (an index out of range, ...)."""


@dataclass
class Node:
    """What a kernel sees of the op it executes."""

    attrs: dict
    results: list[TensorSpec]
    inputs: Mapping[str, np.ndarray] = field(default_factory=dict)  # model inputs, read by placeholder
    outputs: dict[str, np.ndarray] = field(default_factory=dict)  # model outputs, written by save
    operands: list[TensorSpec] = field(default_factory=list)  # operand types (their !quant.uniform scales)

    @property
    def result(self) -> TensorSpec:
        return self.results[0]


Kernel = Callable[..., "np.ndarray | None"]
KERNELS: OpRegistry[Kernel] = OpRegistry("kernel", GRAPH)
kernel = KERNELS.register  # @kernel("relu", ...): the decorated function is those ops' kernel


def _from_function(function):
    """A kernel from a function of the operand arrays whose keyword arguments are the op's attributes."""
    return lambda node, *operands: function(*operands, **node.attrs)


def _scalar(value, dtype: np.dtype):
    """A Python attribute value as a NumPy scalar of the tensor's dtype."""
    return np.asarray(value).astype(dtype)[()]


def _spatial_axes(x: np.ndarray) -> tuple[int, ...]:
    return tuple(range(2, x.ndim))


def _channel_vector(vector: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A per-channel [C] vector shaped to broadcast over x's N x C x ... layout."""
    return windows.per_channel(vector, x.ndim - 2)


# ---------------------------------------------------------------------------
# Sources and sinks.
# ---------------------------------------------------------------------------


@kernel("placeholder")
def _placeholder(node: Node):
    return node.inputs[node.attrs["name"]]


@kernel("save")
def _save(node: Node, x):
    node.outputs[node.attrs["name"]] = np.array(x)  # a copy the caller owns


@kernel("constant")
def _constant(node: Node):
    return node.attrs["value"].astype(node.result.dtype, copy=False)


@kernel("splat")
def _splat(node: Node):
    return np.full(node.result.shape, node.attrs["value"], dtype=node.result.dtype)


# ---------------------------------------------------------------------------
# Layers.
# ---------------------------------------------------------------------------


for _family, _names in ((convolution, ("convolution", "conv_transpose")), (pooling, ("max_pool", "avg_pool"))):
    for _name in _names:
        kernel(_name)(_from_function(getattr(_family, _name)))


@kernel("global_avg_pool")
def _global_avg_pool(node: Node, x):
    return x.mean(axis=_spatial_axes(x), keepdims=True, dtype=x.dtype)


@kernel("global_max_pool")
def _global_max_pool(node: Node, x):
    return x.max(axis=_spatial_axes(x), keepdims=True)


@kernel("fully_connected")
def _fully_connected(node: Node, x, w, b):
    return convolution.accumulates_in_f32(lambda x, w, b: x @ w + b)(x, w, b)


@kernel("matmul")
def _matmul(node: Node, lhs, rhs):
    return convolution.accumulates_in_f32(np.matmul)(lhs, rhs)


@kernel("batch_norm")
def _batch_norm(node: Node, x, scale, bias, mean, variance):
    inverse_std = scale / np.sqrt(variance + _scalar(node.attrs["epsilon"], variance.dtype))
    return (x - _channel_vector(mean, x)) * _channel_vector(inverse_std, x) + _channel_vector(bias, x)


@kernel("lrn")
def _lrn(node: Node, x):
    """y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels) ^ beta."""
    a = node.attrs
    size, channels = a["size"], x.shape[1]
    before = (size - 1) // 2
    widths = [(0, 0)] * x.ndim
    widths[1] = (before, size - 1 - before)
    squares = np.pad(x * x, widths)
    window_sum = functools.reduce(np.add, (squares[:, i:i + channels] for i in range(size)))
    alpha, beta, bias = (_scalar(a[k], x.dtype) for k in ("alpha", "beta", "bias"))
    return x / (bias + alpha / _scalar(size, x.dtype) * window_sum) ** beta


@kernel("layer_norm")
def _layer_norm(node: Node, x, scale, bias):
    axes = tuple(range(node.attrs["axis"], x.ndim))
    centered = x - x.mean(axis=axes, keepdims=True, dtype=x.dtype)
    variance = (centered * centered).mean(axis=axes, keepdims=True, dtype=x.dtype)
    return centered / np.sqrt(variance + _scalar(node.attrs["epsilon"], x.dtype)) * scale + bias


@kernel("softmax")
def _softmax(node: Node, x):
    axis = node.attrs["axis"]
    exponentials = np.exp(x - x.max(axis=axis, keepdims=True))
    return exponentials / exponentials.sum(axis=axis, keepdims=True, dtype=x.dtype)


# ---------------------------------------------------------------------------
# Element-wise arithmetic.
# ---------------------------------------------------------------------------


def _divide(lhs, rhs):
    """Float division, or C's integer division (truncating toward zero; x / 0 gives 0)."""
    if not np.issubdtype(lhs.dtype, np.integer):
        return lhs / rhs
    safe = np.where(rhs == 0, 1, rhs)
    quotient = lhs // safe
    inexact_negative = (quotient < 0) & (quotient * safe != lhs)
    return np.where(rhs == 0, 0, quotient + inexact_negative).astype(lhs.dtype)


def _power(lhs, rhs):
    """NumPy's power, except that integers to negative powers truncate like C's
    `(int) pow(x, y)` (onnxruntime) instead of raising."""
    if np.issubdtype(lhs.dtype, np.integer) and np.any(rhs < 0):
        return np.trunc(np.power(lhs.astype(np.float64), rhs.astype(np.float64))).astype(lhs.dtype)
    return np.power(lhs, rhs)


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _divide,
    "max": np.maximum, "min": np.minimum, "pow": _power,
    "equal": np.equal, "less": np.less, "greater": np.greater,
}


for _name, _function in BINARY.items():
    kernel(_name)(_from_function(_function))


@kernel("where")
def _where(node: Node, condition, lhs, rhs):
    return np.where(condition, lhs, rhs)


@kernel("sum")
def _sum(node: Node, *operands):
    return functools.reduce(np.add, operands)


# ---------------------------------------------------------------------------
# Activations and unary math.
# ---------------------------------------------------------------------------


def _sigmoid(x):
    """1 / (1 + e^-x), without overflow for large |x|."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


UNARY = {
    "relu": lambda x: np.maximum(x, 0), "sigmoid": _sigmoid, "tanh": np.tanh, "erf": erf,
    "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "reciprocal": lambda x: 1 / x,
    "neg": np.negative, "abs": np.abs, "identity": lambda x: x, "swish": lambda x: x * _sigmoid(x),
    "dropout": lambda x, ratio: x,  # inference mode
}

for _name, _function in UNARY.items():
    kernel(_name)(_from_function(_function))


@kernel("leaky_relu")
def _leaky_relu(node: Node, x):
    return np.where(x >= 0, x, _scalar(node.attrs["alpha"], x.dtype) * x)


@kernel("clip")
def _clip(node: Node, x):
    low, high = node.attrs["min"], node.attrs["max"]
    if np.issubdtype(x.dtype, np.integer):  # f32 bounds (maybe infinite) into the integer range
        info = np.iinfo(x.dtype)
        low, high = max(math.ceil(max(low, info.min)), info.min), min(math.floor(min(high, info.max)), info.max)
    return np.clip(x, _scalar(low, x.dtype), _scalar(high, x.dtype))


@kernel("hard_sigmoid")
def _hard_sigmoid(node: Node, x):
    alpha, beta = (_scalar(node.attrs[name], x.dtype) for name in ("alpha", "beta"))
    return np.clip(alpha * x + beta, _scalar(0, x.dtype), _scalar(1, x.dtype))


@kernel("gelu")
def _gelu(node: Node, x):
    half, one = _scalar(0.5, x.dtype), _scalar(1, x.dtype)
    if node.attrs["approximate"] == "tanh":
        inner = _scalar(math.sqrt(2 / math.pi), x.dtype) * (x + _scalar(0.044715, x.dtype) * x * x * x)
        return half * x * (one + np.tanh(inner))
    return half * x * (one + erf(x / _scalar(math.sqrt(2), x.dtype)))


# ---------------------------------------------------------------------------
# Data movement.
# ---------------------------------------------------------------------------


@kernel("reshape")
def _reshape(node: Node, x):
    return x.reshape(node.result.shape)


@kernel("broadcast")
def _broadcast(node: Node, x):
    return np.broadcast_to(x, node.result.shape)


@kernel("convert")
def _convert(node: Node, x):
    return x.astype(node.result.dtype)


@kernel("transpose")
def _transpose(node: Node, x):
    return np.transpose(x, node.attrs["perm"])


@kernel("concat")
def _concat(node: Node, lhs, rhs):
    return np.concatenate((lhs, rhs), axis=node.attrs["axis"])


@kernel("slice")
def _slice(node: Node, x):
    a = node.attrs

    def dimension(start: int, end: int, step: int) -> slice:
        # end -1 means "through index 0": only a negative step can get there.
        return slice(start, None if end == -1 and step < 0 else max(end, 0), step)

    return x[tuple(map(dimension, a["starts"], a["ends"], a["steps"]))]


@kernel("pad")
def _pad(node: Node, x):
    a = node.attrs
    pads = a["pads"]
    widths = list(zip(pads[:x.ndim], pads[x.ndim:]))
    if a["mode"] == "constant":
        return np.pad(x, widths, mode="constant", constant_values=_scalar(a["value"], x.dtype))
    return np.pad(x, widths, mode=a["mode"])


@kernel("tile")
def _tile(node: Node, x):
    return np.tile(x, node.attrs["repeats"])


def _wrapped_indices(op_name: str, axis: int, indices: np.ndarray, size: int) -> np.ndarray:
    """Indices along `axis` with negative ones counted from the end; out-of-range ones are an error."""
    if indices.size and (indices.min() < -size or indices.max() >= size):
        bad = indices[(indices < -size) | (indices >= size)].flat[0]
        raise KernelError(f"{op_name} index {bad} is out of range for axis {axis} of size {size}")
    return np.where(indices < 0, indices + size, indices)


@kernel("gather")
def _gather(node: Node, x, indices):
    axis = node.attrs["axis"]
    return np.take(x, _wrapped_indices("gather", axis, indices, x.shape[axis]), axis=axis)


@kernel("gather_elements")
def _gather_elements(node: Node, x, indices):
    axis = node.attrs["axis"]
    return np.take_along_axis(x, _wrapped_indices("gather_elements", axis, indices, x.shape[axis]), axis=axis)


def _mean(x, axes, keepdims):
    if np.issubdtype(x.dtype, np.integer):  # the exact sum, then C's truncating division
        total = x.sum(axis=axes, keepdims=keepdims, dtype=np.int64)
        return _divide(total, np.int64(math.prod(x.shape[i] for i in axes))).astype(x.dtype)
    return x.mean(axis=axes, keepdims=keepdims, dtype=x.dtype)


REDUCTIONS = {  # sums and products accumulate in the tensor's own type, as onnxruntime does
    "reduce_sum": lambda x, axes, keepdims: x.sum(axis=axes, keepdims=keepdims, dtype=x.dtype),
    "reduce_mean": _mean,
    "reduce_max": lambda x, axes, keepdims: x.max(axis=axes, keepdims=keepdims),
    "reduce_min": lambda x, axes, keepdims: x.min(axis=axes, keepdims=keepdims),
    "reduce_prod": lambda x, axes, keepdims: x.prod(axis=axes, keepdims=keepdims, dtype=x.dtype),
}

for _name, _function in REDUCTIONS.items():
    kernel(_name)(_from_function(_function))


@kernel("resize_nearest")
def _resize_nearest(node: Node, x):
    a = node.attrs
    y = x
    for axis, (size, out, scale) in enumerate(zip(x.shape, node.result.shape, a["scales"])):
        if size != out or scale != 1.0:
            indices = nearest_source_indices(size, out, scale, a["coordinate_transformation_mode"],
                                             a["nearest_mode"])
            y = np.take(y, indices, axis=axis)
    return y


def nearest_source_indices(size: int, out: int, scale: float, transformation: str, rounding: str) -> np.ndarray:
    """For each output index along one axis, the input index Resize(nearest) reads.

    Coordinates are computed in float32, as onnxruntime does, so ties such as
    x.5 land on the same side.
    """
    f32 = np.float32
    resized = np.arange(out, dtype=f32)
    scale = f32(scale)
    if transformation == "asymmetric":
        original = resized / scale
    elif transformation == "align_corners":
        original = resized * f32(size - 1) / f32(out - 1) if out > 1 else np.zeros(out, f32)
    elif transformation == "pytorch_half_pixel" and out == 1:
        original = np.zeros(out, f32)
    else:  # half_pixel, or pytorch_half_pixel with out > 1
        original = (resized + f32(0.5)) / scale - f32(0.5)
    floor = np.floor(original)
    fraction = original - floor
    rounded = {
        "floor": floor,
        "ceil": np.ceil(original),
        "round_prefer_floor": np.where(fraction > 0.5, floor + 1, floor),
        "round_prefer_ceil": np.where(fraction >= 0.5, floor + 1, floor),
    }[rounding]
    return np.clip(rounded, 0, size - 1).astype(np.int64)


# The precision ops' kernels (quantize, dequantize, profile) live with the quantized execution rules.
from . import quantization  # noqa: E402,F401  (registers them; imports this module's table)
# Recurrent layers, in their own module.
from . import recurrent  # noqa: E402,F401 - registers the kernels of graph.rnn, graph.gru, graph.lstm
# Further element-wise math and the index ops, in their family files.
from . import indexing, math_ops, sampling  # noqa: E402,F401 - register their kernels
