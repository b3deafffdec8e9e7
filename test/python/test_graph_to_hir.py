"""convert-graph-to-hir and the HIR executor, against the graph interpreter.

Tolerances come from the data type (FP16BP8: LSB = 2^-8). On small graphs
whose weights and inputs lie on the fixed-point grid, the only difference
is the rounding of results (half an LSB per array pass or SIMD multiply,
times the gain of what follows): they agree within 6 LSB (measured: at
most 5.2, in the pre-scaled average pool), and a single array pass is
exact. On light models with random weights, the weights are rounded too
(He-normal weights of std 0.02-0.06 keep 3-4 significant bits), so the
default tests bound the logits' error by 6% of max |logit| on the two
shallow models, and the slow sweep over all nine puts the weights on the
grid first, isolating what the accelerator path itself rounds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import onnx
import pytest
from light_models import load_light_model, random_inputs, randomize_weights, with_logits_output
from mlir.ir import F32Type
from onnx import TensorProto, helper, numpy_helper

from lamina.target.tcu.architecture import load_architecture
from lamina.target.tcu.data_layout import vector_count
from lamina.target.tcu.fixed_point import FP16BP8
from lamina.dialects.context import check_module, make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import HIR
from lamina.dialects.irdl import ELEMENTS
from lamina.dialects.model import body_ops
from lamina.dialects.types import TensorSpec
from lamina.frontend.onnx_importer import import_model
from lamina.passes.conversion.graph_to_hir import convert_graph_to_hir, partition_report
from lamina.passes.conversion.graph_to_hir.weights import dense_filter, tile_weights
from lamina.passes.conversion.hir_to_lir.emitter import SCHEDULER_CONSTS_RESERVE
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_optimize import GraphOptimize
from lamina.runtime import graph_interpreter
from lamina.runtime.executors import EXECUTORS, executor_for
from lamina.runtime.hir_interpreter import run_hir

ULTRA96 = load_architecture("ultra96v2")
TEST_ROOT = Path(__file__).resolve().parents[1]
LSB = FP16BP8.lsb


def on_grid(array: np.ndarray) -> np.ndarray:
    """The nearest values FP16BP8 represents exactly."""
    return FP16BP8.to_float(FP16BP8.from_float(array))


# ---------------------------------------------------------------------------
# Weights as tiles.
# ---------------------------------------------------------------------------


def test_tiles_hold_the_filter_lane_by_lane_after_the_bias_of_their_channel_tile():
    rng = np.random.default_rng(0)
    filter_ = on_grid(rng.standard_normal((6, 5, 2, 1)))
    bias = on_grid(rng.standard_normal(6))
    lanes = 4
    tiled = tile_weights(filter_, bias, FP16BP8, lanes)
    per_co_t = 1 + 2 * 2 * lanes  # a bias vector, then the (kh, ci_t) tiles of N vectors, none left out
    assert tiled.image.shape == (2 * per_co_t, lanes)
    assert tiled.tile_slots == tuple(range(8))  # (co_t, kh, kw, ci_t) order
    for co_t, kh, ci_t in np.ndindex(2, 2, 2):
        start = co_t * per_co_t + 1 + (kh * 2 + ci_t) * lanes
        tile = tiled.image[start:start + lanes]
        for i, j in np.ndindex(lanes, lanes):
            co, ci = co_t * lanes + j, ci_t * lanes + i
            expected = filter_[co, ci, kh, 0] if co < 6 and ci < 5 else 0
            assert tile[i, j] == FP16BP8.from_float(expected)
    for co_t in range(2):
        expected_bias = [FP16BP8.from_float(bias[co]) if co < 6 else 0
                         for co in range(co_t * lanes, co_t * lanes + lanes)]
        assert list(tiled.image[co_t * per_co_t]) == expected_bias


def test_grouped_filters_skip_zero_tiles_and_keep_one_tile_per_channel_tile():
    filter_ = np.ones((8, 1, 3, 3), dtype=np.float32)  # depthwise over 8 channels
    dense = dense_filter(filter_, groups=8)
    assert dense.shape == (8, 8, 3, 3) and np.array_equal(dense[:, :, 1, 1], np.eye(8))
    tiled = tile_weights(dense, np.zeros(8), FP16BP8, 4)
    slots = np.array(tiled.tile_slots).reshape(2, 3, 3, 2)
    assert (slots[0, :, :, 1] == -1).all() and (slots[1, :, :, 0] == -1).all()
    assert (slots[0, :, :, 0] >= 0).all() and (slots[1, :, :, 1] >= 0).all()
    assert tiled.image.shape == (2 * (1 + 9 * 4), 4)  # per co_t: its bias vector and 9 tiles of N vectors

    nothing = tile_weights(np.zeros((4, 8, 1, 1)), np.ones(4), FP16BP8, 4)
    assert nothing.tile_slots == (0, -1)  # an all-zero filter still carries its bias
    assert list(nothing.image[0]) == [256] * 4 and nothing.image.shape == (1 + 4, 4)


# ---------------------------------------------------------------------------
# Small graphs: weights and inputs on the grid.
# ---------------------------------------------------------------------------


def onnx_model(nodes, weights: dict[str, np.ndarray], input_shape, outputs) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "case", [helper.make_tensor_value_info("x", TensorProto.FLOAT, input_shape)],
                              [helper.make_empty_tensor_value_info(name) for name in outputs],
                              [numpy_helper.from_array(value.astype(np.float32), name)
                               for name, value in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def convert_and_compare(model: onnx.ModelProto, input_shape, architecture=ULTRA96, seed=0):
    """(HIR module, its outputs, the graph interpreter's) on grid inputs."""
    feeds = {"x": on_grid(np.random.default_rng(seed).random(input_shape) * 2 - 1)}
    module = import_model(model, make_context())
    expected = graph_interpreter.run(module, feeds)
    convert_graph_to_hir(module, architecture)
    check_module(module)
    return module, run_hir(module, feeds), expected


def weights(rng, shape, scale=0.25) -> np.ndarray:
    return on_grid(rng.standard_normal(shape) * scale)


def test_one_array_pass_is_the_exact_sum_rounded_once():
    rng = np.random.default_rng(1)
    model = onnx_model([helper.make_node("Conv", ["x", "w", "b"], ["y"])],
                       {"w": weights(rng, (20, 16, 1, 1)), "b": weights(rng, (20,))}, (1, 16, 5, 5), ["y"])
    _, actual, expected = convert_and_compare(model, (1, 16, 5, 5))
    assert np.array_equal(actual["y"], on_grid(expected["y"]))


CASES = {
    "conv 3x3 padded, strided, dilated": (
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], pads=[2, 1, 0, 2], strides=[2, 1], dilations=[1, 2])],
        {"w": (24, 20, 3, 3), "b": (24,)}, (1, 20, 9, 8)),
    "grouped conv + relu": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], group=4, pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"])], {"w": (24, 5, 3, 3), "b": (24,)}, (1, 20, 6, 6)),
    "depthwise conv": (
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=20, pads=[1, 1, 1, 1], strides=[2, 2])],
        {"w": (20, 1, 3, 3), "b": (20,)}, (1, 20, 7, 7)),
    "residual add + clip": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Add", ["c", "x"], ["a"]),
         helper.make_node("Clip", ["a", "lo", "hi"], ["y"])],
        {"w": (18, 18, 3, 3), "b": (18,), "lo": (), "hi": ()}, (1, 18, 4, 4)),
    "batch norm by channel + leaky relu": (
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("BatchNormalization", ["r", "s", "bb", "m", "v"], ["n"], epsilon=0.0),
         helper.make_node("LeakyRelu", ["n"], ["y"], alpha=0.125)],
        {"s": (20,), "bb": (20,), "m": (20,), "v": (20,)}, (1, 20, 3, 3)),
    "max and average pools": (
        [helper.make_node("MaxPool", ["x"], ["m"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
         helper.make_node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], pads=[1, 0, 1, 1]),
         helper.make_node("GlobalAveragePool", ["x"], ["g"])], {}, (1, 20, 7, 7)),
    "aligned concat": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Concat", ["c", "x"], ["k"], axis=1),
         helper.make_node("Relu", ["k"], ["y"])], {"w": (16, 12, 1, 1), "b": (16,)}, (1, 12, 3, 3)),
    "misaligned concat": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Concat", ["c", "x"], ["k"], axis=1),
         helper.make_node("Relu", ["k"], ["y"])], {"w": (10, 12, 1, 1), "b": (10,)}, (1, 12, 3, 3)),
    "concat chain, misaligned and aligned inputs": (  # tile groups of select copies, then a load -> save copy
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Concat", ["c", "x", "c", "x"], ["k"], axis=1),
         helper.make_node("Relu", ["k"], ["y"])], {"w": (10, 12, 1, 1), "b": (10,)}, (1, 12, 3, 3)),
    "concat chain repeating a small input": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("Concat", ["c", "c", "c", "c", "c", "r", "c"], ["k"], axis=1),
         helper.make_node("Relu", ["k"], ["y"])], {"w": (4, 12, 1, 1), "b": (4,)}, (1, 12, 3, 3)),
    "flatten + fully-connected + softmax on the host": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Flatten", ["c"], ["f"]),
         helper.make_node("Gemm", ["f", "fw", "fb"], ["l"]), helper.make_node("Softmax", ["l"], ["y"])],
        {"w": (6, 8, 1, 1), "b": (6,), "fw": (54, 10), "fb": (10,)}, (1, 8, 3, 3)),
    "host segment between layers": (
        [helper.make_node("Conv", ["x", "w", "b"], ["c"]), helper.make_node("Transpose", ["c"], ["t"], perm=[0, 1, 3, 2]),
         helper.make_node("Conv", ["t", "w2", "b2"], ["y"])],
        {"w": (8, 8, 1, 1), "b": (8,), "w2": (8, 8, 1, 1), "b2": (8,)}, (1, 8, 3, 4)),
}


def case_model(case: str, seed: int) -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """A case of CASES with grid weights; every value nothing reads is an output."""
    nodes, shapes, input_shape = CASES[case]
    rng = np.random.default_rng(seed)
    values = {name: weights(rng, shape) for name, shape in shapes.items()}
    if "v" in values:  # a variance of 1 keeps the batch norm on the grid
        values["v"] = np.ones_like(values["v"])
    if "lo" in values:
        values["lo"], values["hi"] = np.float32(-0.5), np.float32(1.5)
    outputs = {node.output[0] for node in nodes} - {operand for node in nodes for operand in node.input}
    return onnx_model(nodes, values, input_shape, sorted(outputs)), input_shape


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_small_graphs_agree_within_a_few_lsb(case: str):
    _, actual, expected = convert_and_compare(*case_model(case, seed=2))
    for name, value in expected.items():
        np.testing.assert_allclose(actual[name], value, rtol=0, atol=6 * LSB, err_msg=name)


def test_saturation_is_the_data_types():
    """Sums beyond FP16BP8's range saturate at its maximum, as the hardware does."""
    model = onnx_model([helper.make_node("Conv", ["x", "w", "b"], ["y"])],
                       {"w": np.full((4, 4, 1, 1), 100.0), "b": np.zeros(4)}, (1, 4, 2, 2), ["y"])
    feeds = {"x": np.ones((1, 4, 2, 2), np.float32)}
    module = import_model(model, make_context())
    convert_graph_to_hir(module, ULTRA96)
    assert (run_hir(module, feeds)["y"] == FP16BP8.to_float(FP16BP8.maximum)).all()


# ---------------------------------------------------------------------------
# Partition, memory, text.
# ---------------------------------------------------------------------------


def test_partition_report_lists_segments():
    module, _, _ = convert_and_compare(*case_model("host segment between layers", seed=3))
    assert partition_report(module) == (
        "segment 0: accelerator, 1 layer: matmul x1, save x1\n"
        "segment 1: host, transpose x1; reads Conv_0; writes Transpose_1\n"
        "segment 2: accelerator, 1 layer: matmul x1, save x1\n")


def test_vars_reuse_dead_space_and_inputs_come_first():
    rng = np.random.default_rng(4)
    nodes = [helper.make_node("Conv", [source, "w", "b"], [result], name=result)
             for source, result in [("x", "c1"), ("c1", "c2"), ("c2", "c3"), ("c3", "y")]]
    model = onnx_model(nodes, {"w": weights(rng, (16, 16, 1, 1)), "b": weights(rng, (16,))}, (1, 16, 4, 4), ["y"])
    module, _, _ = convert_and_compare(model, (1, 16, 4, 4))
    bases = {HIR.view(op).attr("name"): HIR.view(op).attr("base") for op in body_ops(module) if op.name == "hir.vars"}
    size = vector_count((1, 16, 4, 4), 16)
    assert bases["x"] == 0
    assert bases["c1"] == bases["c3"] == size  # c1 is dead once c2 is written
    assert bases["c2"] == 2 * size and bases["y"] == 2 * size  # y, the output, reuses c2's space after c3
    consts = [op for op in body_ops(module) if op.name == "hir.consts"]
    assert len(consts) == 1  # one weights object for the four convolutions


def test_converted_text_round_trips_and_runs_through_lamina_run_dispatch():
    model, input_shape = case_model("flatten + fully-connected + softmax on the host", seed=5)
    module, actual, _ = convert_and_compare(model, input_shape)
    reparsed = parse_module(print_module(module), make_context())
    executor = executor_for(reparsed)
    assert executor is EXECUTORS["hir"]
    assert executor.input_types(reparsed) == {"x": TensorSpec(input_shape, np.float32)}
    feeds = {"x": on_grid(np.random.default_rng(0).random(input_shape) * 2 - 1)}
    np.testing.assert_array_equal(executor.run(reparsed, feeds)["y"], actual["y"])


def test_a_layer_too_large_for_dram1_even_when_split_is_an_error():
    model = onnx_model([helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv")],
                       {"w": np.ones((64, 64, 3, 3)), "b": np.zeros(64)}, (1, 64, 3, 3), ["y"])
    module = import_model(model, make_context())
    small = dataclasses.replace(ULTRA96, dram1_depth=SCHEDULER_CONSTS_RESERVE + 500)
    # one output channel tile: 4 input channel tiles x 9 pixels of 16 vectors, and its bias vector
    with pytest.raises(LaminaError, match=r"DRAM1 \(Consts\): the layer at .*conv.* needs 577 vectors for the weights "
                                          r"of one output channel tile, architecture 'ultra96v2' has room for 500 "
                                          r"per page .* 77 too many"):
        convert_graph_to_hir(module, small)


def test_layers_larger_than_dram1_are_split_and_paged():
    rng = np.random.default_rng(9)
    model = onnx_model([helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                        helper.make_node("Relu", ["c"], ["r"]),
                        helper.make_node("Conv", ["r", "w2", "b2"], ["y"], name="conv2")],
                       {"w": weights(rng, (64, 64, 3, 3)), "b": weights(rng, (64,)),
                        "w2": weights(rng, (32, 64, 1, 1)), "b2": weights(rng, (32,))}, (1, 64, 5, 5), ["y"])
    small = dataclasses.replace(ULTRA96, dram1_depth=SCHEDULER_CONSTS_RESERVE + 1200)
    module, paged, _ = convert_and_compare(model, (1, 64, 5, 5), small)
    _, whole, _ = convert_and_compare(model, (1, 64, 5, 5))
    np.testing.assert_array_equal(paged["y"], whole["y"])  # output channels are independent: exact
    consts = [HIR.view(op) for op in body_ops(module) if op.name == "hir.consts"]
    # conv: 4 channel tiles of 577 vectors, two per part; conv2's 130 vectors do not fit with a part
    assert sorted((c.attr("page"), c.attr("base"), len(c.attr("value"))) for c in consts) == \
        [(1, 0, 1154), (2, 0, 1154), (3, 0, 130)]


def test_the_pass_runs_in_pipelines_after_graph_optimize():
    model, _ = case_model("residual add + clip", seed=6)
    module = import_model(model, make_context())
    stages = GraphOptimize(backend="accelerator").stages()
    run_pipeline(module, f"builtin.module({','.join(stages)},convert-graph-to-hir{{arch=ultra96v2}})")
    assert {op.name for op in body_ops(module)} <= {f"hir.{name}" for name in HIR.ops}


# ---------------------------------------------------------------------------
# Light models with random weights.
# ---------------------------------------------------------------------------

# Weights beyond ultra96v2's 2 M-vector DRAM1 (AlexNet, ZFNet, VGG-19) are
# measured on the same array with a larger DRAM1.
ROOMY = dataclasses.replace(ULTRA96, dram1_depth=2 ** 24)
FAST = ("squeezenet", "shufflenet")
ALL = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50", "shufflenet", "squeezenet",
       "vgg19", "zfnet512")


def put_constants_on_the_grid(module) -> None:
    """Round every float constant to FP16BP8, so that only activations are rounded differently."""
    with module.context:
        for op in body_ops(module):
            if op.name == "graph.constant" and op.result.type.element_type == F32Type.get():
                op.attributes["value"] = ELEMENTS.encode(on_grid(GRAPH.view(op).attr("value")))


def light_errors(name: str, grid: bool) -> dict[str, tuple[float, float, bool]]:
    """Logits -> (max error, max |expected|, top-1 agrees) of HIR against the graph interpreter.

    Only the logits: a softmax (run on the host, exactly) turns a logit error
    e into a relative probability error of about e. `grid`: weights and
    inputs rounded to FP16BP8 first (the graph then computes what the
    accelerator would with exact activations).
    """
    model = with_logits_output(randomize_weights(load_light_model(name), seed=0))
    feeds = random_inputs(model, seed=0)
    module = import_model(model, make_context())
    run_pipeline(module, f"builtin.module({','.join(GraphOptimize(backend='accelerator').stages()[:-1])})")
    if grid:
        put_constants_on_the_grid(module)
        feeds = {name: on_grid(value) for name, value in feeds.items()}
    softmaxes = [node for node in model.graph.node if node.op_type == "Softmax"]
    logits = {softmaxes[-1].input[0]} if softmaxes else {output.name for output in model.graph.output}
    expected = graph_interpreter.run(module, feeds)
    convert_graph_to_hir(module, ROOMY)
    actual = run_hir(module, feeds)
    return {key: (float(np.abs(actual[key] - value).max()), float(np.abs(value).max()),
                  bool(actual[key].argmax() == value.argmax())) for key, value in expected.items() if key in logits}


@pytest.mark.parametrize("name", FAST)
def test_light_models_agree_with_the_graph_interpreter(name: str):
    """As they are: weights rounded to FP16BP8 too (measured: 3.7% and 3.9% of max |logit|)."""
    for output, (error, largest, same_class) in light_errors(name, grid=False).items():
        assert error <= 0.06 * largest, f"{output}: error {error:.3g} of max {largest:.3g}"
        assert same_class, f"{output}: top-1 class differs"


# With weights on the grid only activation rounding differs. Measured (max
# error / max |logit|): ResNet-50 0.6%, AlexNet 0.6%, SqueezeNet 0.7%,
# ShuffleNet 0.8%, ZFNet 1.1%, Inception v1 1.1%, v2 2.3%; DenseNet-121 21%: its unfolded batch norms
# multiply by per-channel scales up to ~20 (channels of small variance),
# which scales every rounding error before them alike.
GRID_TOLERANCE = {"densenet121": 0.25}


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
def test_light_models_with_grid_weights_agree_closely(name: str):
    """(As they are, the deep ones differ by up to ~45% and Inception's top-1
    changes: He-normal weights of std 0.02-0.06 keep 3-4 significant bits in
    FP16BP8.)"""
    tolerance = GRID_TOLERANCE.get(name, 0.05)
    for output, (error, largest, same_class) in light_errors(name, grid=True).items():
        assert error <= tolerance * largest, f"{output}: error {error:.3g} of max {largest:.3g}"
        assert same_class, f"{output}: top-1 class differs"


def test_outputs_no_layer_names_come_from_a_last_host_segment():
    text = (TEST_ROOT / "Conversion" / "graph-to-hir" / "outputs.mlir").read_text()
    module = parse_module(text, make_context())
    feeds = {"x": on_grid(np.linspace(-1, 1, 4, dtype=np.float32).reshape(1, 4))}
    expected = graph_interpreter.run(module, feeds)
    convert_graph_to_hir(module, ULTRA96)
    actual = run_hir(module, feeds)
    assert list(actual) == ["same_as_x", "y", "z", "k"]
    for name, value in expected.items():
        np.testing.assert_array_equal(actual[name], value, err_msg=name)
