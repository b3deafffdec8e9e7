"""Per-op gradient checks by central differences (Glow's GradCheckTest): delta 1e-3, allowed
error 0.01 (0.04 for convolutions), on the graph interpreter and, for composite graphs, the CPU path."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.dialects.types import TensorSpec

from gradient_check import check_gradients

RNG = np.random.default_rng(7)


def normal(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def positive(*shape):
    return RNG.uniform(0.5, 2.0, shape).astype(np.float32)


def distinct(*shape):
    """Values far apart from each other, so that maxima are unique and differences do not flip them."""
    return (RNG.permutation(int(np.prod(shape))).reshape(shape) * 0.1).astype(np.float32)


X4 = normal(2, 3)
CONV_ATTRS = {"strides": (1, 1), "pads": (1, 1, 1, 1), "dilations": (1, 1), "group": 1}


def binary(name):
    return ({"a": normal(2, 3)}, {"b": positive(2, 3)}, lambda op, v: op(name, v["a"], v["b"]))


def unary(name, data=None, **attrs):
    return ({"x": normal(2, 3) if data is None else data}, {}, lambda op, v: op(name, v["x"], **attrs))


def window(name, data, **attrs):
    return ({"x": data}, {}, lambda op, v: op(name, v["x"], **attrs))


POOL = {"strides": (2, 2), "pads": (1, 1, 1, 1), "ceil_mode": False}
CASES = {
    "add": binary("add"), "sub": binary("sub"), "mul": binary("mul"), "div": binary("div"),
    "max": ({"a": distinct(2, 3)}, {"b": distinct(2, 3) + 0.05}, lambda op, v: op("max", v["a"], v["b"])),
    "min": ({"a": distinct(2, 3)}, {"b": distinct(2, 3) + 0.05}, lambda op, v: op("min", v["a"], v["b"])),
    "pow": ({"a": positive(2, 3)}, {"b": positive(2, 3)}, lambda op, v: op("pow", v["a"], v["b"])),
    "sum": ({"a": normal(2, 3)}, {"b": normal(2, 3)}, lambda op, v: op("sum", v["a"], v["b"], v["a"])),
    "where": ({"a": normal(2, 3)}, {"b": normal(2, 3)},
              lambda op, v: op("where", op("greater", v["a"], v["b"]), v["a"], v["b"])),
    "relu": unary("relu", distinct(2, 3) - 0.25), "sigmoid": unary("sigmoid"), "tanh": unary("tanh"),
    "exp": unary("exp"), "log": unary("log", positive(2, 3)), "sqrt": unary("sqrt", positive(2, 3)),
    "reciprocal": unary("reciprocal", positive(2, 3)), "neg": unary("neg"), "abs": unary("abs", distinct(2, 3) - 0.25),
    "erf": unary("erf"), "leaky_relu": unary("leaky_relu", distinct(2, 3) - 0.25, alpha=0.1),
    "clip": unary("clip", distinct(2, 3) - 0.25, min=-0.1, max=0.3),
    "gelu": unary("gelu", approximate="none"), "swish": unary("swish"), "identity": unary("identity"),
    "softmax": unary("softmax", axis=1),
    "fully_connected": ({"x": normal(2, 4)}, {"w": normal(4, 3), "b": normal(3)},
                        lambda op, v: op("fully_connected", v["x"], v["w"], v["b"])),
    "matmul_batched": ({"x": normal(2, 3, 4)}, {"w": normal(4, 5)}, lambda op, v: op("matmul", v["x"], v["w"])),
    "max_pool_tiling": window("max_pool", distinct(1, 2, 4, 4), kernel=(2, 2), strides=(2, 2), pads=(0, 0, 0, 0),
                              dilations=(1, 1), ceil_mode=False),
    "max_pool_overlapping": window("max_pool", distinct(1, 2, 5, 5), kernel=(3, 3), **POOL, dilations=(1, 1)),
    "max_pool_ceil": window("max_pool", distinct(1, 1, 5, 5), kernel=(2, 2), strides=(2, 2), pads=(0, 0, 0, 0),
                            dilations=(1, 1), ceil_mode=True),
    "avg_pool": window("avg_pool", normal(1, 2, 5, 5), kernel=(3, 3), **POOL, count_include_pad=False),
    "avg_pool_with_pads": window("avg_pool", normal(1, 2, 5, 5), kernel=(3, 3), **POOL, count_include_pad=True),
    "global_avg_pool": window("global_avg_pool", normal(2, 3, 3, 3)),
    "global_max_pool": window("global_max_pool", distinct(2, 3, 3, 3)),
    "lrn": window("lrn", normal(1, 5, 2, 2), size=3, alpha=0.1, beta=0.75, bias=1.0),
    "batch_norm_training": ({"x": normal(3, 2, 2, 2)}, {"s": positive(2), "b": normal(2), "m": normal(2), "v": positive(2)},
                            lambda op, v: op("batch_norm", v["x"], v["s"], v["b"], v["m"], v["v"], epsilon=1e-5)),
    "layer_norm": ({"x": normal(2, 4)}, {"s": positive(4), "b": normal(4)},
                   lambda op, v: op("layer_norm", v["x"], v["s"], v["b"], axis=1, epsilon=1e-5)),
    "reshape": unary("reshape", result_type=TensorSpec((3, 2), np.float32)),
    "transpose": unary("transpose", perm=(1, 0)),
    "broadcast": ({"x": normal(3, 1)}, {}, lambda op, v: op("broadcast", v["x"], result_type=TensorSpec((2, 3, 4), np.float32))),
    "tile": unary("tile", repeats=(2, 3)),
    "concat": ({"a": normal(2, 3)}, {"b": normal(2, 2)}, lambda op, v: op("concat", v["a"], v["b"], axis=1)),
    "slice": unary("slice", normal(4, 5), starts=(1, 0), ends=(3, 4), steps=(1, 1)),
    "pad": unary("pad", pads=(1, 0, 0, 2), mode="constant", value=0.5),
    "gather": ({"i": np.array([[2, 0], [-1, 2]], dtype=np.int64)}, {"w": normal(3, 4)},
               lambda op, v: op("gather", v["w"], v["i"], axis=0)),
    "gather_axis1": ({"i": np.array([1, 1, 0], dtype=np.int64)}, {"w": normal(2, 3, 2)},
                     lambda op, v: op("gather", v["w"], v["i"], axis=1)),
    "reduce_sum": unary("reduce_sum", normal(2, 3, 4), axes=(0, 2), keepdims=False),
    "reduce_mean": unary("reduce_mean", normal(2, 3, 4), axes=(1,), keepdims=True),
    "reduce_max": unary("reduce_max", distinct(2, 3, 4), axes=(2,), keepdims=False),
    "reduce_min": unary("reduce_min", distinct(2, 3, 4), axes=(0, 1), keepdims=True),
    "reduce_prod": unary("reduce_prod", positive(2, 3), axes=(1,), keepdims=False),
}

CONVOLUTIONS = {
    "convolution": ({"x": normal(2, 2, 5, 5)}, {"w": normal(3, 2, 3, 3), "b": normal(3)}, CONV_ATTRS),
    "convolution_strided_dilated": ({"x": normal(1, 2, 7, 6)}, {"w": normal(2, 2, 2, 3), "b": normal(2)},
                                    {"strides": (2, 1), "pads": (0, 1, 1, 0), "dilations": (2, 1), "group": 1}),
    "convolution_grouped": ({"x": normal(1, 4, 4, 4)}, {"w": normal(6, 2, 3, 3), "b": normal(6)},
                            {**CONV_ATTRS, "group": 2}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_central_differences(case):
    inputs, weights, body = CASES[case]
    check_gradients(inputs, weights, body)


@pytest.mark.parametrize("case", sorted(CONVOLUTIONS))
def test_convolution_gradient(case):
    inputs, weights, attrs = CONVOLUTIONS[case]
    check_gradients(inputs, weights, lambda op, v: op("convolution", v["x"], v["w"], v["b"], **attrs), allowed=0.04)


def _layers(op, v):
    """A small CNN: convolution, batch norm (training mode), relu, max pool, avg pool, fully connected, tanh."""
    conv = op("convolution", v["x"], v["w"], v["cb"], **CONV_ATTRS)
    normalized = op("batch_norm", conv, v["s"], v["b"], v["m"], v["v"], epsilon=1e-5)
    pooled = op("max_pool", op("relu", normalized), kernel=(2, 2), strides=(2, 2), pads=(0, 0, 0, 0),
                dilations=(1, 1), ceil_mode=False)
    averaged = op("avg_pool", pooled, kernel=(2, 2), strides=(1, 1), pads=(0, 0, 0, 0), ceil_mode=False,
                  count_include_pad=True)
    flat = op("reshape", averaged, result_type=TensorSpec((2, 3), np.float32))
    return op("tanh", op("fully_connected", flat, v["fw"], v["fb"]))


def _arithmetic(op, v):
    """Element-wise ops and data movement in one graph."""
    mixed = op("div", op("mul", op("sigmoid", v["a"]), v["b"]), op("add", op("exp", v["b"]), v["b"]))
    joined = op("concat", op("sub", mixed, v["a"]), op("transpose", v["c"], perm=(1, 0)), axis=1)
    return op("softmax", op("slice", joined, starts=(0, 1), ends=(2, 5), steps=(1, 1)), axis=1)


CPU_CASES = {
    "layers": ({"x": normal(2, 2, 4, 4)},
               {"w": normal(3, 2, 3, 3), "cb": normal(3), "s": positive(3), "b": normal(3), "m": normal(3),
                "v": positive(3), "fw": normal(3, 4), "fb": normal(4)}, _layers, 0.04),
    "arithmetic": ({"a": normal(2, 3)}, {"b": normal(2, 3), "c": normal(2, 2)}, _arithmetic, 0.01),
}


@pytest.mark.parametrize("case", sorted(CPU_CASES))
@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_composite_gradients(case, target):
    inputs, weights, body, allowed = CPU_CASES[case]
    check_gradients(inputs, weights, body, target=target, allowed=allowed)
