"""Random convolutions and matmuls through the whole accelerator path equal a NumPy fixed-point model exactly.

Each example is a one-node ONNX model (a Conv with random odd sizes,
strides, asymmetric pads, dilations and groups, or a Gemm) compiled by
`compile_model` (import, graph-optimize, HIR, scheduler, LIR, encoding,
the three files) and run by the simulator from those files alone. The
expected output is `numpy_conv`: the float weights, bias and input rounded
to the data type as the compiler converts them, then integer arithmetic in
the rounding order of the HIR contract (docs/accelerator.md). Equality is
exact: any difference is a compiler or simulator error.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

from lamina.target.tcu.architecture import load_architecture
from lamina.driver.compiler import compile_model
from lamina.runtime.tcu_simulator import simulate

from test_scheduler import numpy_conv

# An 8-lane and a 12-lane array (not a power of two: channel tiles and runs are uneven).
ARCHITECTURES = ("arty-a7", "pynq-z1")


@st.composite
def conv_cases(draw):
    groups = draw(st.sampled_from(["dense", "two", "depthwise"]))
    per_group_in = draw(st.integers(1, 9))
    if groups == "depthwise":
        group_count = ci = co = draw(st.integers(1, 14))
    else:
        group_count = 2 if groups == "two" else 1
        ci, co = group_count * per_group_in, group_count * draw(st.integers(1, 9))
    kernel = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilations = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, min(2, (k - 1) * d))) for k, d in zip(kernel * 2, dilations * 2))
    size = (draw(st.integers(1, 13)), draw(st.integers(1, 13)))
    # The padded input holds at least one (dilated) window.
    assume(all(size[i] + pads[i] + pads[i + 2] >= (kernel[i] - 1) * dilations[i] + 1 for i in range(2)))
    return dict(arch=draw(st.sampled_from(ARCHITECTURES)), ci=ci, co=co, groups=group_count, size=size,
                kernel=kernel, strides=strides, pads=pads, dilations=dilations, seed=draw(st.integers(0, 2**16)))


def conv_model(case: dict, rng: np.random.Generator):
    """A one-Conv ONNX model with random float weights and bias (ONNX pads order: begins, then ends)."""
    kh, kw = case["kernel"]
    weights = rng.normal(0, 0.5, (case["co"], case["ci"] // case["groups"], kh, kw)).astype(np.float32)
    bias = rng.normal(0, 1, case["co"]).astype(np.float32)
    top, left, bottom, right = case["pads"]
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", kernel_shape=[kh, kw],
                            strides=list(case["strides"]), pads=[top, left, bottom, right],
                            dilations=list(case["dilations"]), group=case["groups"])
    model = one_node_model(node, (1, case["ci"], *case["size"]), {"w": weights, "b": bias})
    return model, weights, bias


def one_node_model(node, input_shape, initializers):
    graph = helper.make_graph([node], "one_node", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(value, name) for name, value in initializers.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def dense_filters(weights: np.ndarray, groups: int) -> np.ndarray:
    """Grouped filters (co, ci/groups, kh, kw) as the block-diagonal dense (co, ci, kh, kw) they compute."""
    co, per_in = weights.shape[:2]
    dense = np.zeros((co, per_in * groups, *weights.shape[2:]), weights.dtype)
    per_out = co // groups
    for g in range(groups):
        dense[g * per_out:(g + 1) * per_out, g * per_in:(g + 1) * per_in] = weights[g * per_out:(g + 1) * per_out]
    return dense


def simulate_compiled(model, arch_name: str, x: np.ndarray) -> np.ndarray:
    """Compile `model` into a scratch directory and run the files on the simulator; output `y`."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "model.onnx"
        source.write_bytes(model.SerializeToString())
        compile_model(source, arch_name, Path(scratch) / "out")
        return simulate(Path(scratch) / "out" / "model.tmodel", {"x": x}).outputs["y"]


def expected_output(x, filters, bias, arch_name: str, **window) -> np.ndarray:
    """`numpy_conv` on the data type's rounding of the float operands, as floats."""
    arch = load_architecture(arch_name)
    data_type = arch.data_type
    result = numpy_conv(data_type.from_float(x).astype(np.int64), data_type.from_float(filters).astype(np.int64),
                        data_type.from_float(bias).astype(np.int64), window["strides"], window["pads"],
                        window["dilations"], arch.array_size, data_type)
    return data_type.to_float(result)


def check_conv(case: dict) -> None:
    rng = np.random.default_rng(case["seed"])
    model, weights, bias = conv_model(case, rng)
    x = rng.uniform(-2, 2, (1, case["ci"], *case["size"])).astype(np.float32)
    # `numpy_conv` takes the ONNX pads order (top, left, bottom, right), as HIR does.
    expected = expected_output(x, dense_filters(weights, case["groups"]), bias, case["arch"], strides=case["strides"],
                               pads=case["pads"], dilations=case["dilations"])
    np.testing.assert_array_equal(simulate_compiled(model, case["arch"], x), expected)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_cases())
def test_convolutions_equal_the_numpy_fixed_point_model(case):
    check_conv(case)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv_cases())
def test_convolution_sweep(case):
    check_conv(case)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.integers(1, 5), features=st.integers(1, 40), outputs=st.integers(1, 30),
       arch=st.sampled_from(ARCHITECTURES), seed=st.integers(0, 2**16))
def test_matmuls_equal_the_numpy_fixed_point_model(batch, features, outputs, arch, seed):
    """Gemm (x · Wᵀ + b) becomes a fully-connected layer: a 1x1 matmul over the (batch, features) matrix."""
    rng = np.random.default_rng(seed)
    weights = rng.normal(0, 0.5, (outputs, features)).astype(np.float32)
    bias = rng.normal(0, 1, outputs).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="gemm", transB=1)
    model = one_node_model(node, (batch, features), {"w": weights, "b": bias})
    x = rng.uniform(-2, 2, (batch, features)).astype(np.float32)
    expected = expected_output(x[:, :, None, None], weights[:, :, None, None], bias, arch, strides=(1, 1),
                               pads=(0, 0, 0, 0), dilations=(1, 1))
    np.testing.assert_array_equal(simulate_compiled(model, arch, x), expected[:, :, 0, 0])
