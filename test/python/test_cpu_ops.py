"""Element-wise, reduction and data-movement ops on the CPU path, one op at a time.

Each case builds a one-op graph model (`GRAPH.create`), compiles it with
`graph-to-cpu` alone (no graph optimization, so the op itself is lowered)
and compares the JIT's output with the reference interpreter's: same dtype
and shape; integers and booleans equal; floats within 1e-5 * max(1, max
|reference|) (libm's erf/tanh/exp against NumPy's, other summation orders),
with NaNs and infinities exactly where the reference has them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamina.dialects.types import TensorSpec
from lamina.runtime import cpu_executor, graph_interpreter
from one_op_models import one_op_model

ONLY_CPU_LOWERING = "builtin.module(graph-to-cpu)"
RTOL = 1e-5
RNG = np.random.default_rng(0)
F32, I32, I64, U8, BOOL = np.float32, np.int32, np.int64, np.uint8, np.bool_


def normal(*shape, dtype=F32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def integers(*shape, low=-20, high=20, dtype=I32) -> np.ndarray:
    return RNG.integers(low, high, shape).astype(dtype)


def booleans(*shape) -> np.ndarray:
    return RNG.random(shape) > 0.5


def check(op_name: str, operands: list[np.ndarray], result: TensorSpec | None = None, **attrs) -> None:
    module, _context = one_op_model(op_name, operands, result, **attrs)
    feeds = {f"x{i}": a for i, a in enumerate(operands)}
    expected = graph_interpreter.run(module, feeds)["y"]
    actual = cpu_executor.compile_model(module, ONLY_CPU_LOWERING).run(feeds)["y"]
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if expected.dtype.kind != "f":
        np.testing.assert_array_equal(actual, expected)
        return
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(actual[~finite], expected[~finite])  # NaNs and infinities where expected
    scale = max(1.0, float(np.abs(expected[finite]).max(initial=0)))
    assert np.abs(actual[finite].astype(np.float64) - expected[finite]).max(initial=0) <= RTOL * scale


# ---------------------------------------------------------------------------
# Element-wise ops.
# ---------------------------------------------------------------------------

BINARY = ["add", "sub", "mul", "div", "max", "min", "pow", "equal", "less", "greater"]


def _with_specials(x: np.ndarray) -> np.ndarray:
    """x with a NaN, infinities, zeros and a tie against the other operand's first element."""
    x = x.copy()
    x.flat[:4] = [np.nan, np.inf, -np.inf, 0.0]
    return x


@pytest.mark.parametrize("op_name", BINARY)
def test_float_binary(op_name):
    lhs, rhs = normal(2, 3, 4), normal(2, 3, 4)
    rhs.flat[4] = lhs.flat[4]  # equal elements
    if op_name == "pow":
        lhs.flat[5], rhs.flat[5] = -2.0, 3.0  # a negative base with an integral exponent
    check(op_name, [_with_specials(lhs), rhs])


@pytest.mark.parametrize("dtype", [I32, I64, U8])
@pytest.mark.parametrize("op_name", BINARY)
def test_integer_binary(op_name, dtype):
    low = 0 if dtype == U8 else -20
    lhs, rhs = integers(3, 5, low=low, high=20, dtype=dtype), integers(3, 5, low=low, high=20, dtype=dtype)
    if op_name == "pow":
        rhs = integers(3, 5, low=0 if dtype == U8 else -2, high=4, dtype=dtype)
    if op_name == "div" and dtype != U8:
        info = np.iinfo(dtype)
        lhs.flat[:3], rhs.flat[:3] = [7, -7, info.min], [0, 2, -1]  # by zero, truncation, MIN / -1
    check(op_name, [lhs, rhs])


def test_integer_pow_of_negative_exponents():
    """Truncated like C's (int) pow: +-1 to the exponent's parity, 0 for |base| > 1; 0^-n is the
    reference's cast of +inf (the integer minimum on x86) rather than a trapping division."""
    for dtype in (I32, I64):
        base = np.array([0, 0, 1, 1, -1, -1, 2, -2, 7, 0], dtype)
        exponent = np.array([-1, -4, -3, -2, -3, -2, -1, -2, -5, 0], dtype)
        with np.errstate(invalid="ignore"):  # the reference casts +inf for 0^-n
            check("pow", [base, exponent])


@pytest.mark.parametrize("op_name", ["less", "greater", "div", "max", "min", "add", "mul"])
def test_uint8_above_127(op_name):
    """uint8 is stored as i8: elements with the sign bit set still compare and divide unsigned."""
    check(op_name, [integers(4, 6, low=0, high=256, dtype=U8), integers(4, 6, low=1, high=256, dtype=U8)])


@pytest.mark.parametrize("op_name", ["add", "mul", "max", "min", "less", "greater"])
def test_boolean_arithmetic(op_name):
    """Booleans stay 0/1 bytes: add and mul are NumPy's logical or and and."""
    check(op_name, [booleans(3, 4), booleans(3, 4)])


def test_boolean_equal_and_where():
    check("equal", [booleans(4, 3), booleans(4, 3)])
    check("where", [booleans(4, 3), normal(4, 3), normal(4, 3)])
    check("where", [booleans(4, 3), integers(4, 3, dtype=I64), integers(4, 3, dtype=I64)])


def test_sum():
    check("sum", [normal(2, 5), normal(2, 5), normal(2, 5)])
    check("sum", [integers(7, dtype=I64)])


UNARY = ["relu", "sigmoid", "tanh", "erf", "exp", "log", "sqrt", "reciprocal", "neg", "abs", "swish",
         "identity"]


@pytest.mark.parametrize("op_name", UNARY)
def test_float_unary(op_name):
    x = normal(3, 17) * 4
    x.flat[:5] = [np.nan, np.inf, -np.inf, 0.0, -30.0]
    check(op_name, [x])


@pytest.mark.parametrize("op_name", ["relu", "neg", "abs", "identity"])
def test_integer_unary(op_name):
    check(op_name, [integers(4, 6, dtype=I64)])
    check(op_name, [integers(4, 6, dtype=I32)])


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_widths(dtype):
    check("gelu", [normal(4, 5, dtype=dtype)], approximate="none")
    check("sigmoid", [normal(4, 5, dtype=dtype)])
    check("div", [normal(4, 5, dtype=dtype), normal(4, 5, dtype=dtype)])


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    check("gelu", [normal(3, 9) * 3], approximate=approximate)


def test_leaky_relu_and_dropout():
    check("leaky_relu", [normal(5, 4)], alpha=0.1)
    check("dropout", [normal(5, 4)], ratio=0.5)


def test_clip():
    check("clip", [_with_specials(normal(4, 5))], min=-0.5, max=0.75)
    check("clip", [integers(4, 5, dtype=I32)], min=-3.5, max=math.inf)  # bounds rounded into the range
    check("clip", [integers(4, 5, low=0, high=255, dtype=U8)], min=-10.0, max=100.0)


CONVERSIONS = [(F32, I32), (F32, I64), (F32, np.float64), (F32, np.float16), (F32, BOOL), (F32, np.int8),
               (I32, F32), (I64, I32), (I32, I64), (BOOL, F32), (BOOL, I64), (U8, F32), (U8, I32),
               (I32, U8), (F32, U8), (I64, BOOL), (np.float16, F32)]


@pytest.mark.parametrize("source,target", CONVERSIONS, ids=[f"{np.dtype(s)}-{np.dtype(t)}" for s, t in CONVERSIONS])
def test_convert(source, target):
    x = (normal(3, 4) * 10).astype(source) if np.dtype(source).kind == "f" else None
    if x is None:
        x = booleans(3, 4) if source == BOOL else integers(3, 4, low=0, high=100, dtype=source)
    if np.dtype(target).kind == "u":
        x = np.abs(x)  # negative floats to unsigned are undefined
    check("convert", [x], TensorSpec(x.shape, target))


# ---------------------------------------------------------------------------
# Reductions and normalizations.
# ---------------------------------------------------------------------------

REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"]
AXES = [([1], True), ([0, 2], False), ([0, 1, 2], False), ([0, 1, 2], True), ([], False)]


@pytest.mark.parametrize("axes,keepdims", AXES, ids=[f"{axes}-{keep}" for axes, keep in AXES])
@pytest.mark.parametrize("op_name", REDUCTIONS)
def test_float_reductions(op_name, axes, keepdims):
    check(op_name, [normal(2, 3, 4)], axes=axes, keepdims=keepdims)


@pytest.mark.parametrize("dtype", [I32, I64, U8])
@pytest.mark.parametrize("op_name", REDUCTIONS)
def test_integer_reductions(op_name, dtype):
    x = integers(3, 5, low=0 if dtype == U8 else -50, high=50, dtype=dtype)
    check(op_name, [x], axes=[1], keepdims=False)
    if dtype == U8:  # elements with the sign bit of their i8 storage set
        check(op_name, [integers(3, 5, low=0, high=256, dtype=U8)], axes=[0, 1], keepdims=True)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_softmax(axis):
    check("softmax", [normal(2, 3, 4) * 5], axis=axis)


@pytest.mark.parametrize("axis", [1, 2])
def test_layer_norm(axis):
    x = normal(2, 3, 4)
    check("layer_norm", [x, normal(*x.shape[axis:]), normal(*x.shape[axis:])], axis=axis, epsilon=1e-5)


def test_batch_norm():
    check("batch_norm", [normal(2, 3, 4, 5), normal(3), normal(3), normal(3), np.abs(normal(3))], epsilon=1e-5)


# ---------------------------------------------------------------------------
# Data movement.
# ---------------------------------------------------------------------------

RESHAPES = [(6, 4), (24,), (4, 3, 2), (1, 24, 1), (2, 1, 12)]


@pytest.mark.parametrize("shape", RESHAPES, ids=str)
def test_reshape(shape):
    check("reshape", [normal(2, 3, 4)], TensorSpec(shape, F32))


def test_reshape_to_and_from_scalars():
    check("reshape", [normal(1, 1)], TensorSpec((), F32))
    check("reshape", [np.array(3.0, F32)], TensorSpec((1, 1), F32))


def test_transpose():
    check("transpose", [normal(2, 3, 4)], perm=[2, 0, 1])
    check("transpose", [booleans(2, 3)], perm=[1, 0])


def test_boolean_and_uint8_data_movement():
    check("concat", [booleans(2, 3), booleans(1, 3)], axis=0)
    check("gather", [booleans(4, 3), np.array([3, -1], I64)], axis=0)
    check("pad", [booleans(2, 3)], pads=[1, 0, 0, 2], mode="constant", value=1.0)
    check("reshape", [booleans(1, 1)], TensorSpec((), BOOL))
    check("broadcast", [integers(3, 1, low=0, high=256, dtype=U8)], TensorSpec((2, 3, 4), U8))


BROADCASTS = [((3, 1), (2, 3, 4)), ((1,), (2, 3)), ((1, 1), (3, 2)), ((4,), (2, 3, 4)), ((2, 1, 4), (2, 3, 4)),
              ((), (2, 2)), ((2, 3), (2, 3))]


@pytest.mark.parametrize("source,target", BROADCASTS, ids=[f"{s}-{t}" for s, t in BROADCASTS])
def test_broadcast(source, target):
    check("broadcast", [normal(*source)], TensorSpec(target, F32))


def test_concat():
    check("concat", [normal(2, 3, 4), normal(2, 1, 4)], axis=1)
    check("concat", [integers(2, 3, dtype=I64), integers(5, 3, dtype=I64)], axis=0)


SLICES = {
    "forward": dict(starts=[0, 1, 1], ends=[2, 3, 4], steps=[1, 1, 2]),
    "backward": dict(starts=[1, 2, 3], ends=[-1, 0, 0], steps=[-1, -1, -2]),
    "mixed": dict(starts=[0, 2, 0], ends=[2, -1, 4], steps=[1, -2, 3]),
}


@pytest.mark.parametrize("case", SLICES)
def test_slice(case):
    check("slice", [normal(2, 3, 4)], **SLICES[case])


def test_tile():
    check("tile", [normal(2, 3, 4)], repeats=[2, 1, 3])
    check("tile", [integers(3, dtype=I64)], repeats=[1])


PADS = {
    "constant": dict(pads=[0, 1, 2, 1, 2, 3], mode="constant", value=1.5),
    "reflect": dict(pads=[0, 1, 2, 1, 2, 3], mode="reflect", value=0.0),
    "edge": dict(pads=[1, 0, 3, 0, 2, 1], mode="edge", value=0.0),
    "reflect_wider_than_input": dict(pads=[0, 5, 7, 0, 7, 5], mode="reflect", value=0.0),
}


@pytest.mark.parametrize("case", PADS)
def test_pad(case):
    check("pad", [normal(2, 3, 4)], **PADS[case])


def test_pad_integers_with_the_cast_value():
    check("pad", [integers(3, 4, low=0, high=255, dtype=U8)], pads=[1, 1, 1, 1], mode="constant", value=200.0)


def test_gather():
    check("gather", [normal(2, 3, 4), np.array([[0, -1], [2, 1]], I64)], axis=1)
    check("gather", [normal(2, 3, 4), np.array(-4, I32)], axis=2)
    check("gather", [integers(5, 2, dtype=I64), np.array([4, 0, 0], I64)], axis=0)
