"""The graph interpreter's kernels against onnxruntime, one op at a time.

Each test builds a one-op graph model with `GRAPH.create` and the equivalent
one-node ONNX model, runs both on the same inputs and compares. Operands the
ONNX operator takes as tensors (Slice's starts, Resize's scales, ...) are fed
to onnxruntime as inputs; the graph op carries them as attributes.
"""

from __future__ import annotations

import math

import numpy as np
import onnxruntime
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir
from onnx import helper

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import create_model
from lamina.dialects.types import TensorSpec
from lamina.runtime.graph_interpreter import run
from lamina.kernels.control_flow import REGION_KERNELS
from lamina.kernels.graph_kernels import KERNELS
from lamina.kernels.special_functions import erf
from one_op_models import one_op_model

OPSET = 21
F32 = np.float32
INT64_MIN = np.iinfo(np.int64).min
RNG = np.random.default_rng(0)


def normal(*shape, dtype=F32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def graph_result(op_name: str, operands: list[np.ndarray], result_type: TensorSpec | None = None,
                 **attrs) -> np.ndarray:
    """Run one graph op on `operands` (fed through placeholders) in the interpreter."""
    module, _context = one_op_model(op_name, operands, result_type, **attrs)
    return run(module, {f"x{i}": a for i, a in enumerate(operands)})["y"]


def _one_node_model(op_type: str, operands: list[np.ndarray | None], **attrs):
    """The ONNX model of one node and its feeds; None operands are omitted optional inputs."""
    names = [f"x{i}" if a is not None else "" for i, a in enumerate(operands)]
    fed = {name: a for name, a in zip(names, operands) if a is not None}
    graph = helper.make_graph(
        [helper.make_node(op_type, names, ["y"], **attrs)], "one_node",
        [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
         for name, a in fed.items()],
        [helper.make_empty_tensor_value_info("y")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=10), fed


def onnxruntime_result(op_type: str, operands: list[np.ndarray | None], **attrs) -> np.ndarray:
    model, fed = _one_node_model(op_type, operands, **attrs)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, fed)[0]


def assert_same(actual: np.ndarray, expected: np.ndarray, rtol=1e-5, atol=1e-5) -> None:
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def check(op_name: str, onnx_type: str, operands: list[np.ndarray], *, graph: dict | None = None,
          onnx: dict | None = None, onnx_extra: list | None = None, result_type: TensorSpec | None = None,
          rtol=1e-5, atol=1e-5) -> np.ndarray:
    """The graph op with `graph` attributes equals the ONNX node with `onnx` attributes and extra inputs."""
    actual = graph_result(op_name, operands, result_type, **(graph or {}))
    expected = onnxruntime_result(onnx_type, [*operands, *(onnx_extra or [])], **(onnx or {}))
    assert_same(actual, expected, rtol, atol)
    return actual


def i64(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def test_every_graph_op_has_a_kernel():
    """Except the training ops, which every backend lowers (test_backends.py)."""
    assert set(KERNELS) | set(REGION_KERNELS) == {name for name, op in GRAPH.ops.items() if not op.training}


# ---------------------------------------------------------------------------
# Convolutions.
# ---------------------------------------------------------------------------

CONVOLUTIONS = {
    # name: (input shape, filter shape, strides, pads, dilations, group)
    "plain": ((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "strided_padded": ((2, 3, 9, 7), (5, 3, 3, 2), (2, 3), (1, 1, 1, 1), (1, 1), 1),
    "asymmetric_pads": ((1, 2, 7, 7), (3, 2, 3, 3), (2, 2), (0, 1, 2, 0), (1, 1), 1),
    "dilated": ((1, 2, 11, 10), (3, 2, 3, 3), (1, 2), (2, 1, 2, 1), (2, 3), 1),
    "grouped": ((1, 6, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "depthwise": ((1, 4, 7, 7), (4, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),
    "depthwise_multiplier": ((1, 3, 6, 6), (6, 1, 3, 3), (1, 1), (1, 0, 1, 0), (1, 1), 3),
    "pointwise": ((2, 8, 5, 5), (16, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "1d": ((2, 3, 17), (4, 3, 5), (2,), (2, 1), (2,), 1),
    "3d": ((1, 2, 5, 6, 7), (3, 2, 3, 2, 3), (1, 2, 2), (1, 0, 1, 1, 1, 0), (1, 1, 2), 1),
}


def _check_convolution(x_shape, w_shape, strides, pads, dilations, group):
    x, w, b = normal(*x_shape), normal(*w_shape), normal(w_shape[0])
    attrs = dict(strides=strides, pads=pads, dilations=dilations, group=group)
    check("convolution", "Conv", [x, w, b], graph=attrs, onnx=attrs, rtol=1e-4)


@pytest.mark.parametrize("case", CONVOLUTIONS.values(), ids=CONVOLUTIONS.keys())
def test_convolution(case):
    _check_convolution(*case)


@st.composite
def window_cases(draw, max_rank=2):
    """A random N-D window geometry whose output is non-empty."""
    rank = draw(st.integers(1, max_rank))
    kernel = draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank))
    strides = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    dilations = draw(st.lists(st.integers(1, 2), min_size=rank, max_size=rank))
    pads = [draw(st.integers(0, k - 1)) for k in kernel * 2]
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilations)]
    sizes = [draw(st.integers(max(1, span - pads[i] - pads[rank + i]), span + 6)) for i, span in enumerate(spans)]
    return sizes, kernel, strides, pads, dilations


@settings(max_examples=25, deadline=None)
@given(case=window_cases(), channels=st.integers(1, 3), filters=st.integers(1, 3), group=st.sampled_from([1, 2]))
def test_convolution_random_geometry(case, channels, filters, group):
    sizes, kernel, strides, pads, dilations = case
    _check_convolution((2, channels * group, *sizes), (filters * group, channels, *kernel),
                       strides, pads, dilations, group)


CONV_TRANSPOSES = {
    # name: (input shape, filter shape, strides, pads, dilations, group, output_padding)
    "plain": ((1, 2, 4, 4), (2, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1, (0, 0)),
    "strided_padded": ((1, 3, 5, 4), (3, 2, 3, 3), (2, 2), (1, 0, 1, 2), (1, 1), 1, (0, 0)),
    "output_padding": ((2, 2, 3, 3), (2, 2, 3, 3), (2, 3), (1, 1, 1, 1), (1, 1), 1, (1, 2)),
    "dilated_grouped": ((1, 4, 4, 5), (4, 3, 2, 3), (2, 1), (0, 1, 0, 1), (2, 2), 2, (1, 0)),
    "1d": ((1, 2, 6), (2, 2, 4), (3,), (1, 2), (1,), 1, (0,)),
    "3d": ((1, 2, 3, 3, 2), (2, 2, 2, 3, 2), (2, 1, 2), (0, 1, 0, 1, 0, 1), (1, 1, 1), 1, (1, 0, 0)),
}


@pytest.mark.parametrize("case", CONV_TRANSPOSES.values(), ids=CONV_TRANSPOSES.keys())
def test_conv_transpose(case):
    x_shape, w_shape, strides, pads, dilations, group, output_padding = case
    x, w, b = normal(*x_shape), normal(*w_shape), normal(w_shape[1] * group)
    attrs = dict(strides=strides, pads=pads, dilations=dilations, group=group, output_padding=output_padding)
    check("conv_transpose", "ConvTranspose", [x, w, b], graph=attrs, onnx=attrs, rtol=1e-4)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), rank=st.integers(1, 2), group=st.sampled_from([1, 2]))
def test_conv_transpose_random_geometry(data, rank, group):
    ints = lambda low, high: data.draw(st.lists(st.integers(low, high), min_size=rank, max_size=rank))  # noqa: E731
    kernel, strides, dilations, sizes = ints(1, 3), ints(1, 3), ints(1, 2), ints(1, 4)
    output_padding = [data.draw(st.integers(0, s - 1)) for s in strides]  # onnxruntime's limit
    begins = [data.draw(st.integers(0, (k - 1) * d)) for k, d in zip(kernel, dilations)]
    ends = [data.draw(st.integers(0, (k - 1) * d - b)) for k, d, b in zip(kernel, dilations, begins)]
    pads = begins + ends  # at most the kernel's extent, so the output is never empty
    x, w, b = normal(1, 2 * group, *sizes), normal(2 * group, 3, *kernel), normal(3 * group)
    attrs = dict(strides=strides, pads=pads, dilations=dilations, group=group, output_padding=output_padding)
    check("conv_transpose", "ConvTranspose", [x, w, b], graph=attrs, onnx=attrs, rtol=1e-4)


# ---------------------------------------------------------------------------
# Pooling.
# ---------------------------------------------------------------------------


def _check_max_pool(x, kernel, strides, pads, dilations, ceil_mode):
    check("max_pool", "MaxPool", [x],
          graph=dict(kernel=kernel, strides=strides, pads=pads, dilations=dilations, ceil_mode=ceil_mode),
          onnx=dict(kernel_shape=kernel, strides=strides, pads=pads, dilations=dilations, ceil_mode=int(ceil_mode)))


def _check_avg_pool(x, kernel, strides, pads, ceil_mode, count_include_pad):
    check("avg_pool", "AveragePool", [x],
          graph=dict(kernel=kernel, strides=strides, pads=pads, ceil_mode=ceil_mode,
                     count_include_pad=count_include_pad),
          onnx=dict(kernel_shape=kernel, strides=strides, pads=pads, ceil_mode=int(ceil_mode),
                    count_include_pad=int(count_include_pad)))


POOLS = {
    # name: (input shape, kernel, strides, pads)
    "plain": ((1, 2, 6, 6), (2, 2), (2, 2), (0, 0, 0, 0)),
    "padded": ((2, 3, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1)),
    "asymmetric_pads": ((1, 2, 7, 6), (3, 3), (2, 1), (0, 0, 1, 2)),
    "ceil_overrun": ((1, 1, 6, 6), (3, 3), (2, 2), (1, 1, 1, 1)),
    "1d": ((1, 2, 9), (3,), (2,), (1, 0)),
    "3d": ((1, 2, 5, 6, 5), (2, 3, 2), (2, 2, 1), (1, 0, 1, 0, 1, 1)),
}


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("case", POOLS.values(), ids=POOLS.keys())
def test_max_pool(case, ceil_mode):
    shape, kernel, strides, pads = case
    _check_max_pool(normal(*shape), kernel, strides, pads, (1,) * len(kernel), ceil_mode)


@pytest.mark.parametrize("count_include_pad", [False, True])
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("case", POOLS.values(), ids=POOLS.keys())
def test_avg_pool(case, ceil_mode, count_include_pad):
    shape, kernel, strides, pads = case
    _check_avg_pool(normal(*shape), kernel, strides, pads, ceil_mode, count_include_pad)


def test_max_pool_padding_never_wins():
    x = -1 - np.abs(normal(1, 2, 5, 5))  # every element below the zero a naive pad would add
    _check_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_max_pool_integers_pad_with_their_lowest_value(dtype):
    x = (RNG.integers(0, 100, (1, 2, 5, 5)) - (50 if dtype == np.int8 else 0)).astype(dtype)
    _check_max_pool(x, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True)


def test_max_pool_dilated():
    _check_max_pool(normal(1, 2, 9, 8), (3, 2), (1, 2), (2, 1, 2, 1), (2, 3), False)


def test_ceil_mode_window_may_not_start_in_the_end_padding():
    # Size 5, kernel 2, stride 2, pads 0/1: ceil((5+1-2)/2)+1 = 3 windows, all start inside.
    x = normal(1, 1, 5)
    _check_max_pool(x, (2,), (2,), (0, 1), (1,), True)
    _check_avg_pool(x, (2,), (2,), (0, 1), True, True)


@settings(max_examples=25, deadline=None)
@given(case=window_cases(max_rank=3), ceil_mode=st.booleans())
def test_max_pool_random_geometry(case, ceil_mode):
    sizes, kernel, strides, pads, dilations = case
    _check_max_pool(normal(1, 2, *sizes), kernel, strides, pads, dilations, ceil_mode)


@settings(max_examples=25, deadline=None)
@given(case=window_cases(max_rank=3), ceil_mode=st.booleans(), count_include_pad=st.booleans())
def test_avg_pool_random_geometry(case, ceil_mode, count_include_pad):
    sizes, kernel, strides, pads, _ = case
    _check_avg_pool(normal(1, 2, *sizes), kernel, strides, pads, ceil_mode, count_include_pad)


@pytest.mark.parametrize("shape", [(2, 3, 5), (1, 4, 5, 6), (1, 2, 3, 4, 5)])
@pytest.mark.parametrize("op_name, onnx_type", [("global_avg_pool", "GlobalAveragePool"),
                                                ("global_max_pool", "GlobalMaxPool")])
def test_global_pools(op_name, onnx_type, shape):
    check(op_name, onnx_type, [normal(*shape)])


# ---------------------------------------------------------------------------
# Linear algebra and normalization.
# ---------------------------------------------------------------------------


def test_fully_connected():
    check("fully_connected", "Gemm", [normal(3, 20), normal(20, 7), normal(7)], rtol=1e-4)


@pytest.mark.parametrize("lhs, rhs", [((4, 5), (5, 3)), ((2, 3, 4, 5), (5, 6)), ((2, 1, 4, 5), (3, 5, 2))])
def test_matmul(lhs, rhs):
    check("matmul", "MatMul", [normal(*lhs), normal(*rhs)], rtol=1e-4)


def test_batch_norm():
    x = normal(2, 3, 4, 5)
    variance = np.abs(normal(3)) + 0.1
    check("batch_norm", "BatchNormalization", [x, normal(3), normal(3), normal(3), variance],
          graph=dict(epsilon=1e-3), onnx=dict(epsilon=1e-3))


@pytest.mark.parametrize("size", [1, 3, 5])
def test_lrn(size):
    attrs = dict(size=size, alpha=1e-2, beta=0.75, bias=2.0)
    check("lrn", "LRN", [normal(2, 7, 3, 4)], graph=attrs, onnx=attrs)


def lrn_by_definition(x, size, alpha, beta, bias):
    """ONNX's LRN formula, channel by channel (onnxruntime only implements odd sizes)."""
    squares = np.zeros_like(x)
    for c in range(x.shape[1]):
        low, high = max(0, c - (size - 1) // 2), min(x.shape[1] - 1, c + math.ceil((size - 1) / 2))
        squares[:, c] = (x[:, low:high + 1] ** 2).sum(axis=1)
    return (x / (bias + alpha / size * squares) ** beta).astype(x.dtype)


@pytest.mark.parametrize("size", [2, 3, 4])
def test_lrn_even_size(size):
    x = normal(1, 6, 2, 3)
    attrs = dict(size=size, alpha=1e-1, beta=0.75, bias=1.0)
    assert_same(graph_result("lrn", [x], **attrs), lrn_by_definition(x, **attrs))


@pytest.mark.parametrize("axis", [1, 2])
def test_layer_norm(axis):
    x = normal(2, 3, 4)
    check("layer_norm", "LayerNormalization", [x, normal(*x.shape[axis:]), normal(*x.shape[axis:])],
          graph=dict(axis=axis, epsilon=1e-5), onnx=dict(axis=axis, epsilon=1e-5))


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax(axis):
    check("softmax", "Softmax", [normal(3, 4, 5) * 10], graph=dict(axis=axis), onnx=dict(axis=axis))


# ---------------------------------------------------------------------------
# Element-wise ops.
# ---------------------------------------------------------------------------

BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min",
          "equal": "Equal", "less": "Less", "greater": "Greater"}


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.int32])
@pytest.mark.parametrize("op_name", BINARY)
def test_binary(op_name, dtype):
    lhs = (normal(3, 4) * 10).astype(dtype)
    rhs = (normal(3, 4) * 4).astype(dtype)
    rhs[rhs == 0] = 3
    lhs[0, :2] = rhs[0, :2]  # some equal pairs
    check(op_name, BINARY[op_name], [lhs, rhs])


def test_integer_division_truncates_toward_zero():
    lhs, rhs = i64(7, -7, 7, -7, 6, -6), i64(2, 2, -2, -2, 3, -3)
    actual = check("div", "Div", [lhs, rhs])
    assert list(actual) == [3, -3, -3, 3, 2, 2]


def test_pow():
    check("pow", "Pow", [np.abs(normal(3, 4)) + 0.1, normal(3, 4)])


def test_where():
    x = normal(3, 4)
    check("where", "Where", [x > 0, x, normal(3, 4)])


def test_sum():
    check("sum", "Sum", [normal(2, 3), normal(2, 3), normal(2, 3)])
    check("sum", "Sum", [normal(2, 3)])


UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "erf": "Erf", "exp": "Exp", "neg": "Neg",
         "abs": "Abs", "identity": "Identity"}


@pytest.mark.parametrize("op_name", UNARY)
def test_unary(op_name):
    x = normal(4, 5) * 3
    x[0, :3] = [-100.0, 100.0, 0.0]  # saturation and overflow-prone inputs
    check(op_name, UNARY[op_name], [x])


@pytest.mark.parametrize("op_name, onnx_type", [("log", "Log"), ("sqrt", "Sqrt"), ("reciprocal", "Reciprocal")])
def test_positive_domain_unary(op_name, onnx_type):
    check(op_name, onnx_type, [np.abs(normal(4, 5)) + 0.01])


@pytest.mark.parametrize("dtype", [np.int32, np.int8])
def test_integer_unary(dtype):
    x = (normal(3, 4) * 10).astype(dtype)
    for op_name in ("relu", "neg", "abs"):
        check(op_name, UNARY[op_name], [x])


def test_dropout_is_identity_at_inference():
    check("dropout", "Dropout", [normal(3, 4)], graph=dict(ratio=0.5))


def test_leaky_relu():
    check("leaky_relu", "LeakyRelu", [normal(3, 4)], graph=dict(alpha=0.1), onnx=dict(alpha=0.1))


def test_clip():
    check("clip", "Clip", [normal(3, 4)], graph=dict(min=-0.5, max=0.7),
          onnx_extra=[np.array(-0.5, F32), np.array(0.7, F32)])


def test_clip_integers_with_infinite_bounds():
    x = i64(-5, 0, 5, 2**40)
    actual = graph_result("clip", [x], min=-math.inf, max=3.0)
    assert actual.dtype == np.int64 and list(actual) == [-5, 0, 3, 3]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    check("gelu", "Gelu", [normal(4, 50) * 3], graph=dict(approximate=approximate),
          onnx=dict(approximate=approximate))


def test_erf_is_accurate_everywhere():
    x = np.concatenate([np.linspace(-7, 7, 100_001), [0.0, 1e-30, -2.999999, 3.0, 3.000001, 30.0]])
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - expected).max() < 1e-11
    assert erf(np.array([np.inf, -np.inf])).tolist() == [1.0, -1.0]
    assert np.isnan(erf(np.array([np.nan]))).all()
    assert erf(np.linspace(-3, 3, 7, dtype=F32)).dtype == F32


# ---------------------------------------------------------------------------
# Data movement.
# ---------------------------------------------------------------------------


def test_reshape():
    check("reshape", "Reshape", [normal(2, 3, 4)], result_type=TensorSpec((4, 6), F32), onnx_extra=[i64(4, 6)])


def test_broadcast():
    check("broadcast", "Expand", [normal(3, 1)], result_type=TensorSpec((2, 3, 4), F32),
          onnx_extra=[i64(2, 3, 4)])


CASTS = [
    (np.float32, np.int32), (np.float32, np.int64), (np.float32, np.bool_), (np.float32, np.uint8),
    (np.int64, np.float32), (np.bool_, np.float32), (np.int64, np.int32), (np.float32, np.float16),
    (np.float32, np.float64),
]


@pytest.mark.parametrize("source, target", CASTS)
def test_convert(source, target):
    x = np.array([-2.7, -0.5, 0.0, 0.4, 1.5, 2.9, 200.9], dtype=np.float64)
    if np.dtype(target) == np.uint8:
        x = np.abs(x)
    x = x.astype(source)
    check("convert", "Cast", [x], result_type=TensorSpec(x.shape, target),
          onnx=dict(to=helper.np_dtype_to_tensor_dtype(np.dtype(target))))


def test_transpose():
    check("transpose", "Transpose", [normal(2, 3, 4, 5)], graph=dict(perm=(2, 0, 3, 1)), onnx=dict(perm=(2, 0, 3, 1)))


def test_concat():
    check("concat", "Concat", [normal(2, 3, 2), normal(2, 1, 2)], graph=dict(axis=1), onnx=dict(axis=1))


SLICES = {
    # name: (graph starts, ends, steps), (onnx starts, ends, steps) on a [6, 5] input
    "forward": ((1, 0), (5, 5), (2, 1)), "backward_through_zero": ((5, 4), (-1, -1), (-1, -2)),
    "backward_partial": ((4, 3), (1, 0), (-2, -1)), "empty": ((3, 0), (3, 5), (1, 1)),
    "forward_to_minus_one": ((2, 0), (-1, 5), (1, 1)),  # empty: a forward slice never reaches "before 0"
}
ONNX_ENDS = {"backward_through_zero": (INT64_MIN, INT64_MIN), "forward_to_minus_one": (0, 5)}


@pytest.mark.parametrize("name", SLICES)
def test_slice(name):
    starts, ends, steps = SLICES[name]
    onnx_ends = ONNX_ENDS.get(name, ends)
    check("slice", "Slice", [normal(6, 5)], graph=dict(starts=starts, ends=ends, steps=steps),
          onnx_extra=[i64(*starts), i64(*onnx_ends), i64(0, 1), i64(*steps)])


@settings(max_examples=40, deadline=None)
@given(data=st.data(), shape=st.lists(st.integers(1, 5), min_size=1, max_size=3))
def test_slice_random(data, shape):
    starts, ends, steps, onnx_ends = [], [], [], []
    for size in shape:
        step = data.draw(st.sampled_from([-3, -2, -1, 1, 2, 3]))
        start = data.draw(st.integers(0, size - 1 if step < 0 else size))
        end = data.draw(st.integers(-1 if step < 0 else 0, size))
        starts.append(start)
        steps.append(step)
        ends.append(end)
        onnx_ends.append(INT64_MIN if end == -1 else end)
    check("slice", "Slice", [normal(*shape)], graph=dict(starts=starts, ends=ends, steps=steps),
          onnx_extra=[i64(*starts), i64(*onnx_ends), i64(*range(len(shape))), i64(*steps)])


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge"])
def test_pad(mode):
    pads = (1, 0, 2, 2, 1, 0)
    check("pad", "Pad", [normal(3, 4, 5)], graph=dict(pads=pads, mode=mode, value=1.5),
          onnx=dict(mode=mode), onnx_extra=[i64(*pads), np.array(1.5, F32)])


def test_tile():
    check("tile", "Tile", [normal(2, 3)], graph=dict(repeats=(3, 2)), onnx_extra=[i64(3, 2)])


@pytest.mark.parametrize("index_type", [np.int64, np.int32])
@pytest.mark.parametrize("axis", [0, 1])
def test_gather_with_negative_indices(axis, index_type):
    indices = np.array([[0, -1], [2, -3]], dtype=index_type)
    check("gather", "Gather", [normal(3, 4), indices], graph=dict(axis=axis), onnx=dict(axis=axis))


REDUCTIONS = {"reduce_sum": "ReduceSum", "reduce_mean": "ReduceMean", "reduce_max": "ReduceMax",
              "reduce_min": "ReduceMin", "reduce_prod": "ReduceProd"}


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axes", [(1,), (0, 2)])
@pytest.mark.parametrize("op_name", REDUCTIONS)
def test_reduction(op_name, axes, keepdims):
    check(op_name, REDUCTIONS[op_name], [normal(3, 4, 5)], graph=dict(axes=axes, keepdims=keepdims),
          onnx=dict(keepdims=int(keepdims)), onnx_extra=[i64(*axes)])


@pytest.mark.parametrize("op_name", REDUCTIONS)
def test_integer_reduction(op_name):
    x = (normal(3, 4) * 5).astype(np.int32)
    check(op_name, REDUCTIONS[op_name], [x], graph=dict(axes=(1,), keepdims=False), onnx=dict(keepdims=0),
          onnx_extra=[i64(1)])


RESIZE_SCALES = [(1.0, 1.0, 2.0, 3.0), (1.0, 1.0, 0.5, 0.6), (1.0, 1.0, 1.7, 0.75), (1.0, 1.0, 3.0, 1.0)]


@pytest.mark.parametrize("scales", RESIZE_SCALES)
@pytest.mark.parametrize("rounding", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
@pytest.mark.parametrize("transformation", ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
def test_resize_nearest(transformation, rounding, scales):
    x = normal(1, 2, 4, 5)
    check("resize_nearest", "Resize", [x],
          graph=dict(scales=scales, coordinate_transformation_mode=transformation, nearest_mode=rounding),
          onnx=dict(mode="nearest", coordinate_transformation_mode=transformation, nearest_mode=rounding),
          onnx_extra=[None, np.array(scales, F32)])


def test_resize_to_one_element():
    x = normal(1, 1, 3, 4)
    for transformation in ("align_corners", "pytorch_half_pixel"):
        check("resize_nearest", "Resize", [x],
              graph=dict(scales=(1.0, 1.0, 0.34, 0.25), coordinate_transformation_mode=transformation,
                         nearest_mode="round_prefer_floor"),
              onnx=dict(mode="nearest", coordinate_transformation_mode=transformation),
              onnx_extra=[None, np.array((1.0, 1.0, 0.34, 0.25), F32)])


def _run_sources(build) -> np.ndarray:
    context = make_context()
    module, block = create_model(context)
    with context, ir.Location.unknown(), ir.InsertionPoint.at_block_terminator(block):
        GRAPH.create("save", build().result, name="y")
    return run(module, {})["y"]


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.bool_, np.float16])
def test_constant_and_splat(dtype):
    value = (normal(2, 3) * 4).astype(dtype)
    constant = _run_sources(lambda: GRAPH.create("constant", value=value))
    assert constant.dtype == value.dtype and (constant == value).all()
    splat = _run_sources(lambda: GRAPH.create("splat", value=value.flat[0],
                                              result_types=[TensorSpec((2, 2), dtype)]))
    assert splat.dtype == value.dtype and (splat == value.flat[0]).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_types_are_preserved(dtype):
    x, w, b = normal(1, 2, 5, 5, dtype=dtype), normal(3, 2, 3, 3, dtype=dtype), normal(3, dtype=dtype)
    attrs = dict(strides=(1, 1), pads=(1, 1, 1, 1), dilations=(1, 1), group=1)
    assert graph_result("convolution", [x, w, b], **attrs).dtype == dtype
    for op_name in ("sigmoid", "erf", "softmax", "gelu"):
        extra = {"softmax": dict(axis=1), "gelu": dict(approximate="none")}.get(op_name, {})
        assert graph_result(op_name, [x], **extra).dtype == dtype


# ---------------------------------------------------------------------------
# Whole models and errors.
# ---------------------------------------------------------------------------

MODEL = """
module {
  func.func @main() {
    %x = "graph.placeholder"() {name = "in/x"} : () -> tensor<2x3xf32>
    %c = "graph.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
    %s = "graph.add"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %r = "graph.relu"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "graph.save"(%r) {name = "out/relu"} : (tensor<2x3xf32>) -> ()
    "graph.save"(%s) {name = "out/sum"} : (tensor<2x3xf32>) -> ()
    return
  }
}
"""


def _parse(text: str) -> ir.Operation:
    return parse_module(text, make_context(), "model.mlir")


def test_runs_a_parsed_model_with_several_outputs():
    x = np.array([[-5, 0, 1], [-4, -6, 2]], dtype=F32)
    outputs = run(_parse(MODEL), {"in/x": x})
    assert list(outputs) == ["out/relu", "out/sum"]
    np.testing.assert_array_equal(outputs["out/sum"], x + [[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(outputs["out/relu"], [[0, 2, 4], [0, 0, 8]])


@pytest.mark.parametrize("inputs, message", [
    ({}, "missing input 'in/x': expected float32 [2, 3]"),
    ({"in/x": np.zeros((2, 3), F32), "y": np.zeros(1, F32)}, "unknown input 'y'; the model's inputs are 'in/x'"),
    ({"in/x": np.zeros((3, 2), F32)}, "input 'in/x': expected float32 [2, 3], got float32 [3, 2]"),
    ({"in/x": np.zeros((2, 3))}, "input 'in/x': expected float32 [2, 3], got float64 [2, 3]"),
])
def test_wrong_inputs_are_named(inputs, message):
    with pytest.raises(LaminaError) as error:
        run(_parse(MODEL), inputs)
    assert str(error.value) == message


def test_ops_of_other_dialects_are_rejected_with_their_location():
    text = MODEL.replace('%r = "graph.relu"(%s)', '%r = "arith.negf"(%s)')
    with pytest.raises(LaminaError, match=r"^model.mlir:7:10: error: 'arith.negf' is not a graph op"):
        run(_parse(text), {"in/x": np.zeros((2, 3), F32)})


def test_invalid_ir_is_rejected_before_running():
    text = MODEL.replace('{name = "out/sum"}', "")
    with pytest.raises(LaminaError, match=r"model.mlir:\d+:\d+: error: .*name"):
        run(_parse(text), {"in/x": np.zeros((2, 3), F32)})


def test_gather_index_out_of_range_names_the_node():
    context = make_context()
    module, block = create_model(context)
    with context, ir.Location.unknown(), ir.InsertionPoint.at_block_terminator(block):
        data = GRAPH.create("placeholder", result_types=[TensorSpec((3,), F32)], name="data")
        indices = GRAPH.create("constant", value=i64(0, 3))
        gather = GRAPH.create("gather", data.result, indices.result, axis=0, loc=ir.Location.name("Gather_7"))
        GRAPH.create("save", gather.result, name="y")
    with pytest.raises(LaminaError, match=r"^node 'Gather_7': error: gather index 3 is out of range for axis 0"):
        run(module, {"data": np.zeros(3, F32)})


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_pow_with_negative_exponents_truncates_like_onnxruntime(dtype):
    base = np.array([2, -3, 4, 1, -1, -2], dtype)
    exponent = np.array([-1, -1, 2, -2, -3, -1], dtype)
    check("pow", "Pow", [base, exponent])
