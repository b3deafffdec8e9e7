"""The fold passes (weights absorb batch-norm and per-channel arithmetic) and
the raise passes (exported arithmetic back into fully_connected, layer_norm,
gelu, swish) on small ONNX models written the way exporters write them, and
on the light models.

Each case checks that the pass fired or did not (the ops left) and that the
interpreter's outputs before and after agree. Tolerance: |after - before| <=
1e-5 * max|before| + 1e-5 * |before|; folding rounds constants once more
and raising reassociates float arithmetic, nothing else may change.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from onnx import helper

from importer_models import graph_ops, imported, make_model, randn
from light_models import (LIGHT_MODELS, load_light_model, onnxruntime_outputs, random_inputs, randomize_weights,
                          with_logits_output)
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime.graph_interpreter import run

FOLD_AND_RAISE = ("graph-raise-fully-connected,graph-raise-layer-norm,graph-raise-gelu,graph-raise-swish,"
                  "graph-fold-arithmetic,graph-fold-batch-norm")


def assert_close(after: dict, before: dict) -> None:
    assert after.keys() == before.keys()
    for name, expected in before.items():
        scale = float(np.abs(expected).max()) if expected.size else 0.0
        np.testing.assert_allclose(after[name], expected, rtol=1e-5, atol=1e-5 * scale, err_msg=name)


def optimized(model, passes: str, inputs: dict) -> Counter:
    """Run `passes` on the imported model; check the outputs against the
    unoptimized model's and onnxruntime's (node by node: its own fusions are
    off); the graph ops left, by name."""
    module, context = imported(model)
    before = run(module, inputs)
    assert_close(before, onnxruntime_outputs(model, inputs))
    run_pipeline(module, f"builtin.module({passes})")
    assert_close(run(module, inputs), before)
    return Counter(graph_ops(module))


def node(op_type: str, inputs: list[str], output: str, **attrs):
    return helper.make_node(op_type, inputs, [output], name=output, **attrs)


def scalar(value: float) -> np.ndarray:
    return np.array(value, dtype=np.float32)


def positive(*shape) -> np.ndarray:
    return np.random.default_rng(1).uniform(0.5, 1.5, shape).astype(np.float32)


# ---------------------------------------------------------------------------
# graph-fold-batch-norm
# ---------------------------------------------------------------------------

def batch_norm_parameters(channels: int) -> dict:
    return {"scale": randn(channels), "beta": randn(channels), "mean": randn(channels),
            "var": positive(channels)}


BN_INPUTS = ["scale", "beta", "mean", "var"]


@pytest.mark.parametrize("group", [1, 3])
def test_batch_norm_folds_into_convolution(group):
    x = randn(1, 3, 8, 8)
    model = make_model(
        [node("Conv", ["x", "w", "b"], "conv", pads=[1, 1, 1, 1], group=group),
         node("BatchNormalization", ["conv", *BN_INPUTS], "y", epsilon=1e-3)],
        {"x": x}, ["y"], {"w": randn(6, 3 // group, 3, 3), "b": randn(6), **batch_norm_parameters(6)})
    ops = optimized(model, "graph-fold-batch-norm", {"x": x})
    assert ops["batch_norm"] == 0 and ops["convolution"] == 1
    assert ops["constant"] == 2, "the folded filter and bias replace the old constants"


def test_batch_norm_folds_into_fully_connected():
    x = randn(4, 5)
    model = make_model(
        [node("Gemm", ["x", "w", "b"], "fc"), node("BatchNormalization", ["fc", *BN_INPUTS], "y")],
        {"x": x}, ["y"], {"w": randn(5, 3), "b": randn(3), **batch_norm_parameters(3)})
    ops = optimized(model, "graph-fold-batch-norm", {"x": x})
    assert ops["batch_norm"] == 0 and ops["fully_connected"] == 1


def test_batch_norm_stays_when_the_convolution_has_another_user():
    x = randn(1, 3, 8, 8)
    model = make_model(
        [node("Conv", ["x", "w"], "conv"), node("BatchNormalization", ["conv", *BN_INPUTS], "y")],
        {"x": x}, ["y", "conv"], {"w": randn(4, 3, 1, 1), **batch_norm_parameters(4)})
    ops = optimized(model, "graph-fold-batch-norm", {"x": x})
    assert ops["batch_norm"] == 1


def test_batch_norm_with_a_runtime_scale_stays():
    x, scale = randn(1, 3, 8, 8), randn(4)
    parameters = batch_norm_parameters(4)
    del parameters["scale"]
    model = make_model(
        [node("Conv", ["x", "w"], "conv"), node("BatchNormalization", ["conv", *BN_INPUTS], "y")],
        {"x": x, "scale": scale}, ["y"], {"w": randn(4, 3, 1, 1), **parameters})
    ops = optimized(model, "graph-fold-batch-norm", {"x": x, "scale": scale})
    assert ops["batch_norm"] == 1


# ---------------------------------------------------------------------------
# graph-fold-arithmetic
# ---------------------------------------------------------------------------

def conv_then(nodes, constants: dict, channels: int = 4):
    """A 1x1 convolution of x [1, 3, 5, 5] into `channels`, then `nodes` (reading "conv", writing "y")."""
    x = randn(1, 3, 5, 5)
    model = make_model([node("Conv", ["x", "w", "b"], "conv"), *nodes], {"x": x}, ["y"],
                       {"w": randn(channels, 3, 1, 1), "b": randn(channels), **constants})
    return model, {"x": x}


def test_mul_add_chain_folds_into_the_convolution():
    model, inputs = conv_then([node("Mul", ["conv", "s"], "scaled"), node("Add", ["c", "scaled"], "y")],
                              {"s": randn(4, 1, 1), "c": randn(4, 1, 1)})
    ops = optimized(model, "graph-fold-arithmetic", inputs)
    assert ops["mul"] == ops["add"] == ops["broadcast"] == 0 and ops["convolution"] == 1


def test_sub_div_and_scalar_constants_fold():
    model, inputs = conv_then(
        [node("Sub", ["conv", "c"], "shifted"), node("Div", ["shifted", "d"], "divided"),
         node("Mul", ["divided", "two"], "doubled"), node("Sub", ["c", "doubled"], "y")],
        {"c": randn(1, 4, 1, 1), "d": positive(4, 1, 1), "two": scalar(2.0)})
    ops = optimized(model, "graph-fold-arithmetic", inputs)
    assert ops["sub"] == ops["div"] == ops["mul"] == 0 and ops["convolution"] == 1


def test_mul_add_fold_into_a_batch_norm_that_follows_no_layer():
    # DenseNet's pattern: BatchNormalization (after a pool), then Mul and Add of unsqueezed [C] constants.
    x = randn(1, 4, 6, 6)
    model = make_model(
        [node("MaxPool", ["x"], "pool", kernel_shape=[2, 2]), node("BatchNormalization", ["pool", *BN_INPUTS], "bn"),
         node("Unsqueeze", ["s", "axes"], "s3"), node("Mul", ["bn", "s3"], "scaled"),
         node("Unsqueeze", ["c", "axes"], "c3"), node("Add", ["scaled", "c3"], "y")],
        {"x": x}, ["y"], {"s": randn(4), "c": randn(4), "axes": np.array([1, 2]), **batch_norm_parameters(4)})
    ops = optimized(model, "graph-fold-arithmetic", {"x": x})
    assert ops["mul"] == ops["add"] == 0 and ops["batch_norm"] == 1


def test_per_column_mul_folds_into_fully_connected():
    x = randn(2, 5)
    model = make_model([node("Gemm", ["x", "w", "b"], "fc"), node("Mul", ["fc", "s"], "y")],
                       {"x": x}, ["y"], {"w": randn(5, 3), "b": randn(3), "s": randn(3)})
    ops = optimized(model, "graph-fold-arithmetic", {"x": x})
    assert ops["mul"] == 0 and ops["fully_connected"] == 1


@pytest.mark.parametrize("constants, outputs", [
    ({"s": randn(1, 1, 5, 5)}, ["y"]),  # varies along space, not only along channels
    ({"s": randn(4, 1, 1)}, ["y", "conv"]),  # the convolution has another user
], ids=["spatial-constant", "shared-convolution"])
def test_arithmetic_that_is_not_a_per_channel_affine_of_a_private_layer_stays(constants, outputs):
    x = randn(1, 3, 5, 5)
    model = make_model([node("Conv", ["x", "w"], "conv"), node("Mul", ["conv", "s"], "y")],
                       {"x": x}, outputs, {"w": randn(4, 3, 1, 1), **constants})
    ops = optimized(model, "graph-fold-arithmetic", {"x": x})
    assert ops["mul"] == 1


def test_division_by_a_constant_with_a_zero_stays():
    divisor = positive(4, 1, 1)
    divisor[2] = 0
    model, inputs = conv_then([node("Div", ["conv", "d"], "y")], {"d": divisor})
    module, context = imported(model)
    run_pipeline(module, "builtin.module(graph-fold-arithmetic)")
    assert Counter(graph_ops(module))["div"] == 1


# ---------------------------------------------------------------------------
# graph-raise-fully-connected
# ---------------------------------------------------------------------------

def test_matmul_plus_bias_becomes_fully_connected():
    x = randn(2, 5)
    model = make_model([node("MatMul", ["x", "w"], "product"), node("Add", ["product", "b"], "y")],
                       {"x": x}, ["y"], {"w": randn(5, 3), "b": randn(3)})
    ops = optimized(model, "graph-raise-fully-connected", {"x": x})
    assert ops["fully_connected"] == 1 and ops["matmul"] == ops["add"] == ops["broadcast"] == 0


def test_row_bias_first_is_reshaped_to_the_bias_vector():
    x = randn(2, 5)
    model = make_model([node("MatMul", ["x", "w"], "product"), node("Add", ["b", "product"], "y")],
                       {"x": x}, ["y"], {"w": randn(5, 3), "b": randn(1, 3)})
    ops = optimized(model, "graph-raise-fully-connected", {"x": x})
    assert ops["fully_connected"] == 1 and ops["reshape"] == 1 and ops["add"] == 0


@pytest.mark.parametrize("bias", [randn(2, 3), randn(2, 1)], ids=["per-element", "per-row"])
def test_a_bias_that_differs_between_rows_stays_an_add(bias):
    x = randn(2, 5)
    model = make_model([node("MatMul", ["x", "w"], "product"), node("Add", ["product", "b"], "y")],
                       {"x": x}, ["y"], {"w": randn(5, 3), "b": bias})
    ops = optimized(model, "graph-raise-fully-connected", {"x": x})
    assert ops["matmul"] == 1 and ops["fully_connected"] == 0


def test_matmul_of_two_activations_stays():
    x, w = randn(2, 5), randn(5, 3)
    model = make_model([node("MatMul", ["x", "w"], "product"), node("Add", ["product", "b"], "y")],
                       {"x": x, "w": w}, ["y"], {"b": randn(3)})
    ops = optimized(model, "graph-raise-fully-connected", {"x": x, "w": w})
    assert ops["matmul"] == 1 and ops["fully_connected"] == 0


# ---------------------------------------------------------------------------
# graph-raise-layer-norm
# ---------------------------------------------------------------------------

def layer_norm_nodes(axes: list[int], opset: int, square: str = "Pow", divide: str = "Div",
                     affine: bool = True) -> list:
    """LayerNorm as PyTorch exports it before opset 17 (and its square / reciprocal variants)."""
    def reduce_mean(data, output):
        if opset >= 18:
            return node("ReduceMean", [data, "axes"], output)
        return node("ReduceMean", [data], output, axes=axes)

    nodes = [reduce_mean("x", "mean"), node("Sub", ["x", "mean"], "centered")]
    nodes.append(node("Pow", ["centered", "two"], "square") if square == "Pow"
                 else node("Mul", ["centered", "centered"], "square"))
    nodes += [reduce_mean("square", "variance"), node("Add", ["variance", "eps"], "shifted"),
              node("Sqrt", ["shifted"], "std")]
    if divide == "Div":
        nodes.append(node("Div", ["centered", "std"], "normalized" if affine else "y"))
    else:
        nodes += [node("Reciprocal", ["std"], "inverse"),
                  node("Mul", ["inverse", "centered"], "normalized" if affine else "y")]
    if affine:
        nodes += [node("Mul", ["normalized", "gamma"], "scaled"), node("Add", ["scaled", "beta"], "y")]
    return nodes


def layer_norm_model(axes: list[int], opset: int = 13, shape=(2, 3, 8), two=scalar(2.0), **variant):
    x = randn(*shape)
    normalized = shape[axes[0]:]
    constants = {"two": two, "eps": scalar(1e-5), "gamma": randn(*normalized), "beta": randn(*normalized),
                 "axes": np.array(axes)}
    return make_model(layer_norm_nodes(axes, opset, **variant), {"x": x}, ["y"], constants, opset=opset), {"x": x}


@pytest.mark.parametrize("axes, opset, variant", [
    ([-1], 13, {}),
    ([1, 2], 18, {}),
    ([-1], 13, {"square": "Mul", "divide": "Reciprocal"}),
    ([-1], 13, {"affine": False}),
    ([-1], 13, {"two": np.array(2)}),  # an int64 exponent, converted to float
], ids=["pytorch-last-axis", "two-axes-opset18", "mul-square-reciprocal", "no-scale-no-bias", "integer-exponent"])
def test_exported_layer_norm_becomes_one_op(axes, opset, variant):
    model, inputs = layer_norm_model(axes, opset, **variant)
    ops = optimized(model, "graph-raise-layer-norm", inputs)
    assert ops["layer_norm"] == 1
    assert not ops.keys() & {"reduce_mean", "sub", "pow", "sqrt", "div", "mul", "add", "reciprocal"}


def test_layer_norm_over_a_leading_axis_stays():
    model, inputs = layer_norm_model([1], shape=(2, 3, 8))  # statistics over axis 1 of 3: not trailing axes
    ops = optimized(model, "graph-raise-layer-norm", inputs)
    assert ops["layer_norm"] == 0 and ops["reduce_mean"] == 2


def test_layer_norm_whose_centered_value_is_also_an_output_stays():
    model, inputs = layer_norm_model([-1])
    model.graph.output.append(helper.make_empty_tensor_value_info("centered"))
    ops = optimized(model, "graph-raise-layer-norm", inputs)
    assert ops["layer_norm"] == 0


def test_layer_norm_without_its_epsilon_constant_stays():
    model, inputs = layer_norm_model([-1])
    eps = np.full((2, 3, 1), 1e-5, np.float32)
    eps[0, 0, 0] = 1e-3  # not one scalar
    model.graph.initializer.remove(next(t for t in model.graph.initializer if t.name == "eps"))
    model.graph.initializer.append(helper.make_tensor("eps", 1, eps.shape, eps.reshape(-1)))
    ops = optimized(model, "graph-raise-layer-norm", inputs)
    assert ops["layer_norm"] == 0


# ---------------------------------------------------------------------------
# graph-raise-gelu
# ---------------------------------------------------------------------------

GELU_ERF_FORMS = {
    # PyTorch's GELU before opset 20: mul(mul(x, add(erf(div(x, sqrt2)), 1)), 0.5).
    "pytorch": [node("Div", ["x", "sqrt2"], "scaled"), node("Erf", ["scaled"], "erf"),
                node("Add", ["erf", "one"], "one_plus"), node("Mul", ["x", "one_plus"], "product"),
                node("Mul", ["product", "half"], "y")],
    # Hugging Face's gelu: x * 0.5 * (1.0 + erf(x / sqrt(2.0))).
    "huggingface": [node("Mul", ["x", "half"], "half_x"), node("Div", ["x", "sqrt2"], "scaled"),
                    node("Erf", ["scaled"], "erf"), node("Add", ["one", "erf"], "one_plus"),
                    node("Mul", ["half_x", "one_plus"], "y")],
    # TensorFlow's: x * (0.5 * (1.0 + erf(x * 0.7071...))).
    "tensorflow-cdf": [node("Mul", ["x", "inv_sqrt2"], "scaled"), node("Erf", ["scaled"], "erf"),
                       node("Add", ["erf", "one"], "one_plus"), node("Mul", ["half", "one_plus"], "cdf"),
                       node("Mul", ["x", "cdf"], "y")],
}

GELU_TANH_FORMS = {
    # Hugging Face's gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3)))).
    "huggingface-pow": [node("Mul", ["half", "x"], "half_x"), node("Pow", ["x", "three"], "cube"),
                        node("Mul", ["kappa", "cube"], "kappa_cube"), node("Add", ["x", "kappa_cube"], "inner"),
                        node("Mul", ["beta", "inner"], "argument"), node("Tanh", ["argument"], "tanh"),
                        node("Add", ["one", "tanh"], "one_plus"), node("Mul", ["half_x", "one_plus"], "y")],
    # PyTorch's tanh GELU before opset 20: the cube as x * (x * x).
    "pytorch-products": [node("Mul", ["x", "x"], "square"), node("Mul", ["x", "square"], "cube"),
                         node("Mul", ["cube", "kappa"], "kappa_cube"), node("Add", ["kappa_cube", "x"], "inner"),
                         node("Mul", ["inner", "beta"], "argument"), node("Tanh", ["argument"], "tanh"),
                         node("Add", ["tanh", "one"], "one_plus"), node("Mul", ["x", "one_plus"], "product"),
                         node("Mul", ["half", "product"], "y")],
}

GELU_CONSTANTS = {"sqrt2": math.sqrt(2), "inv_sqrt2": 1 / math.sqrt(2), "one": 1.0, "half": 0.5, "three": 3.0,
                  "kappa": 0.044715, "beta": math.sqrt(2 / math.pi)}


def gelu_model(nodes, **overrides):
    x = randn(2, 16) * 3
    constants = {name: scalar(value) for name, value in {**GELU_CONSTANTS, **overrides}.items()}
    used = {name for n in nodes for name in n.input}
    return make_model(nodes, {"x": x}, ["y"], {k: v for k, v in constants.items() if k in used}), {"x": x}


def gelu_ops(module) -> list[str]:
    return [GRAPH.view(op).attr("approximate") for op in body_ops(module) if op.name == "graph.gelu"]


@pytest.mark.parametrize("form, approximate", [*((f, "none") for f in GELU_ERF_FORMS),
                                               *((f, "tanh") for f in GELU_TANH_FORMS)])
def test_exported_gelu_becomes_one_op(form, approximate):
    model, inputs = gelu_model({**GELU_ERF_FORMS, **GELU_TANH_FORMS}[form])
    ops = optimized(model, "graph-raise-gelu", inputs)
    assert ops["gelu"] == 1 and set(ops) <= {"placeholder", "gelu", "save"}
    module, context = imported(model)
    run_pipeline(module, "builtin.module(graph-raise-gelu)")
    assert gelu_ops(module) == [approximate]


@pytest.mark.parametrize("form, overrides", [
    ("pytorch", {"sqrt2": 1.5}),
    ("huggingface", {"half": 0.6}),
    ("huggingface-pow", {"kappa": 0.05}),
    ("huggingface-pow", {"three": 2.0}),
])
def test_almost_gelu_with_a_wrong_constant_stays(form, overrides):
    model, inputs = gelu_model({**GELU_ERF_FORMS, **GELU_TANH_FORMS}[form], **overrides)
    ops = optimized(model, "graph-raise-gelu", inputs)
    assert ops["gelu"] == 0


def test_gelu_whose_erf_is_also_an_output_stays():
    model, inputs = gelu_model(GELU_ERF_FORMS["pytorch"])
    model.graph.output.append(helper.make_empty_tensor_value_info("erf"))
    ops = optimized(model, "graph-raise-gelu", inputs)
    assert ops["gelu"] == 0 and ops["erf"] == 1


# ---------------------------------------------------------------------------
# graph-raise-swish
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("order", [["x", "gate"], ["gate", "x"]])
def test_x_times_sigmoid_x_becomes_swish(order):
    x = randn(2, 8) * 4
    model = make_model([node("Sigmoid", ["x"], "gate"), node("Mul", order, "y")], {"x": x}, ["y"])
    ops = optimized(model, "graph-raise-swish", {"x": x})
    assert ops["swish"] == 1 and ops["sigmoid"] == ops["mul"] == 0


@pytest.mark.parametrize("outputs, gated", [(["y", "gate"], "x"), (["y"], "z")],
                         ids=["sigmoid-also-an-output", "sigmoid-of-another-value"])
def test_swish_needs_a_private_sigmoid_of_the_same_value(outputs, gated):
    x, z = randn(2, 8), randn(2, 8)
    model = make_model([node("Sigmoid", [gated], "gate"), node("Mul", ["x", "gate"], "y")],
                       {"x": x, "z": z}, outputs)
    ops = optimized(model, "graph-raise-swish", {"x": x, "z": z})
    assert ops["swish"] == 0 and ops["mul"] == 1


# ---------------------------------------------------------------------------
# Light models, with random weights.
# ---------------------------------------------------------------------------

def conv_fed_batch_norms(module) -> int:
    return sum(1 for op in body_ops(module)
               if op.name == "graph.batch_norm" and op.operands[0].owner.name == "graph.convolution")


def check_light_model(name: str, passes: str) -> Counter:
    """Outputs (and logits) unchanged by `passes`; the ops before and after."""
    model = with_logits_output(randomize_weights(load_light_model(name), seed=0))
    inputs = random_inputs(model, seed=0)
    module, context = imported(model)
    before = run(module, inputs)
    folded = conv_fed_batch_norms(module)
    ops_before = Counter(graph_ops(module))
    run_pipeline(module, f"builtin.module({passes})")
    assert_close(run(module, inputs), before)
    assert conv_fed_batch_norms(module) == 0
    ops_after = Counter(graph_ops(module))
    assert ops_after["batch_norm"] == ops_before["batch_norm"] - folded
    return ops_after


@pytest.mark.parametrize("name, batch_norms_left", [("resnet50", 0), ("densenet121", 62), ("inception_v2", 0)])
def test_batch_norms_fold_into_the_light_models_weights(name, batch_norms_left):
    ops = check_light_model(name, "graph-fold-arithmetic,graph-fold-batch-norm")
    assert ops["batch_norm"] == batch_norms_left  # DenseNet's follow concats and pools
    assert ops["mul"] == ops["add"] == 0  # DenseNet's and Inception-v2's batch-norm-as-Mul/Add


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_fold_and_raise_passes_keep_every_light_models_results(name):
    check_light_model(name, FOLD_AND_RAISE)
