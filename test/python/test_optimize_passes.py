"""The generic optimize passes keep what a model computes.

Each pass (graph-cse, graph-constant-fold, graph-remove-identity,
graph-merge-reshapes, graph-transpose-simplify, graph-sum-to-adds) runs on
small graphs built op by op, on a small ONNX model that gives every pass
something to do, and (all together) on the light models; the graph
interpreter runs each before and after.

Tolerance: the rewrites are bit-identical (they evaluate constants with the
interpreter's own kernels, move the same elements, add in the same order),
with one exception: a transpose folded into the weights of a matmul or
fully-connected layer hands the matrix product a contiguous operand instead
of a transposed view, and BLAS then sums in another order. Where that
happens, each float output may move by 1e-5 of its scale (max |before|);
observed on the light models with random weights: at most 5.6e-6 (VGG-19),
at most 1.1e-6 on every other model, 0 on squeezenet and densenet121
(nothing transposed). Tests where no transpose feeds a matmul require
equality, so they fail on any change of value.
"""

from __future__ import annotations

import collections
from typing import Callable

import numpy as np
import pytest
from mlir import ir
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.dialects.context import make_context, print_module
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops, create_model
from lamina.dialects.types import TensorSpec
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime.graph_interpreter import run
from light_models import LIGHT_MODELS, load_light_model, random_inputs, randomize_weights, with_logits_output

PASSES = ("graph-cse", "graph-constant-fold", "graph-remove-identity", "graph-merge-reshapes",
          "graph-transpose-simplify", "graph-sum-to-adds")
ALL_PASSES = f"builtin.module({','.join(PASSES)})"
SCALE_TOLERANCE = 1e-5


# ---------------------------------------------------------------------------
# Helpers.
# ---------------------------------------------------------------------------


def build_model(body: Callable[[], None]) -> ir.Operation:
    """A model whose function body `body` creates with `GRAPH.create`."""
    context = make_context()
    module, block = create_model(context)
    with context, ir.Location.unknown(), ir.InsertionPoint(block.operations[0]):  # before func.return
        body()
    return module


def placeholder(name: str, *shape: int) -> ir.Value:
    return GRAPH.create("placeholder", result_types=[TensorSpec(shape, np.float32)], name=name).result


def constant(array) -> ir.Value:
    return GRAPH.create("constant", value=np.asarray(array)).result


def save(name: str, value: ir.Value) -> None:
    GRAPH.create("save", value, name=name)


def op_counts(module: ir.Operation) -> collections.Counter:
    return collections.Counter(op.name.removeprefix("graph.") for op in body_ops(module))


def seeded_inputs(module: ir.Operation, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {op.attributes["name"].value: rng.standard_normal(op.results[0].type.shape).astype(np.float32)
            for op in body_ops(module) if op.name == "graph.placeholder"}


def run_before_and_after(module: ir.Operation, pipeline: str, inputs: dict[str, np.ndarray]):
    before = run(module, inputs)
    run_pipeline(module, pipeline)
    return before, run(module, inputs)


def max_scaled_errors(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> dict[str, float]:
    """Per output: max |after - before| / max |before|."""
    assert after.keys() == before.keys()
    errors = {}
    for name, expected in before.items():
        assert after[name].shape == expected.shape and after[name].dtype == expected.dtype, name
        scale = float(np.abs(expected).max()) or 1.0
        errors[name] = float(np.abs(after[name].astype(np.float64) - expected).max()) / scale
    return errors


def assert_equal_outputs(before: dict[str, np.ndarray], after: dict[str, np.ndarray]) -> None:
    assert after.keys() == before.keys()
    for name, expected in before.items():
        np.testing.assert_array_equal(after[name], expected, err_msg=name, strict=True)


# ---------------------------------------------------------------------------
# Each pass on a small graph where it fires: results must be bit-identical.
# ---------------------------------------------------------------------------


def test_cse_merges_a_duplicated_branch_and_equal_constants():
    def body():
        x = placeholder("x", 2, 3)
        branches = []
        for _ in range(2):
            scale = constant(np.arange(6, dtype=np.float32).reshape(2, 3))
            relu = GRAPH.create("relu", x).result
            branches.append(GRAPH.create("mul", GRAPH.create("exp", relu).result, scale).result)
        save("y", GRAPH.create("sub", *branches).result)
        save("z", GRAPH.create("div", branches[1], branches[0]).result)
        # Same op and operand, other attribute: two values (merging them would change "rows").
        save("columns", GRAPH.create("softmax", x, axis=0).result)
        save("rows", GRAPH.create("softmax", x, axis=1).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-cse)", seeded_inputs(module))
    assert_equal_outputs(before, after)
    assert op_counts(module) == {"placeholder": 1, "constant": 1, "relu": 1, "exp": 1, "mul": 1, "sub": 1, "div": 1,
                                 "softmax": 2, "save": 4}


def test_constant_fold_computes_weights_and_shapes():
    def body():
        x = placeholder("x", 3, 2)
        weights = GRAPH.create("transpose", constant(np.arange(6, dtype=np.float32).reshape(2, 3)), perm=(1, 0))
        scale = GRAPH.create("broadcast", constant(np.float32([0.5])), result_types=[TensorSpec((3, 2), np.float32)])
        scaled = GRAPH.create("mul", weights.result, scale.result).result
        save("y", GRAPH.create("add", x, GRAPH.create("exp", scaled).result).result)
        shape = GRAPH.create("gather", constant(np.int64([3, 2, 7])), constant(np.int64([1, 0])), axis=0).result
        save("shape", GRAPH.create("concat", shape, constant(np.int64([-1])), axis=0).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-constant-fold)", seeded_inputs(module))
    assert_equal_outputs(before, after)
    assert op_counts(module) == {"placeholder": 1, "constant": 2, "add": 1, "save": 2}


def test_remove_identity_bypasses_identities_and_dropouts():
    def body():
        x = placeholder("x", 2, 3)
        kept = GRAPH.create("dropout", GRAPH.create("identity", x).result, ratio=0.5).result
        save("y", GRAPH.create("sigmoid", kept).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-remove-identity)", seeded_inputs(module))
    assert_equal_outputs(before, after)
    assert op_counts(module) == {"placeholder": 1, "sigmoid": 1, "save": 1}


def test_merge_reshapes_keeps_the_last_shape():
    def body():
        x = placeholder("x", 2, 3, 4)
        value = x
        for shape in ((24,), (4, 6), (6, 2, 2)):
            value = GRAPH.create("reshape", value, result_types=[TensorSpec(shape, np.float32)]).result
        save("y", GRAPH.create("softmax", value, axis=2).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-merge-reshapes)", seeded_inputs(module))
    assert_equal_outputs(before, after)
    assert op_counts(module)["reshape"] == 1


def test_transpose_simplify_composes_transposes():
    def body():
        x = placeholder("x", 2, 3, 4)
        value = x
        for perm in ((1, 2, 0), (0, 2, 1), (2, 0, 1)):
            value = GRAPH.create("transpose", value, perm=perm).result
        save("y", GRAPH.create("softmax", value, axis=1).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-transpose-simplify)", seeded_inputs(module))
    assert_equal_outputs(before, after)
    (transpose,) = [op for op in body_ops(module) if op.name == "graph.transpose"]
    # Result dim i of a chain is x's dim p1[p2[p3[i]]]: (1, 0, 2) after two, then (2, 1, 0).
    assert GRAPH.view(transpose).attr("perm") == (2, 1, 0)


def test_transpose_simplify_folds_transposes_into_weights():
    weights = randn(8, 16)

    def body():
        x = placeholder("x", 4, 16)
        transposed = GRAPH.create("transpose", constant(weights), perm=(1, 0)).result
        save("y", GRAPH.create("fully_connected", x, transposed, constant(randn(8))).result)

    module = build_model(body)
    before, after = run_before_and_after(module, "builtin.module(graph-transpose-simplify)", seeded_inputs(module))
    assert max(max_scaled_errors(before, after).values()) <= SCALE_TOLERANCE
    assert "transpose" not in op_counts(module)
    folded = [GRAPH.view(op).attr("value") for op in body_ops(module) if op.name == "graph.constant"]
    assert any(array.shape == (16, 8) and np.array_equal(array, weights.T) for array in folded)


def test_sum_to_adds_adds_in_the_interpreters_order():
    def body():
        values = [placeholder(name, 3, 5) for name in "abcd"]
        save("y", GRAPH.create("sum", *values).result)

    module = build_model(body)
    # Magnitudes far apart make float addition order-sensitive: a reordering would show.
    inputs = {name: (np.random.default_rng(i).standard_normal((3, 5)) * 10.0 ** (4 * i)).astype(np.float32)
              for i, name in enumerate("abcd")}
    before, after = run_before_and_after(module, "builtin.module(graph-sum-to-adds)", inputs)
    assert_equal_outputs(before, after)
    assert op_counts(module) == {"placeholder": 4, "add": 3, "save": 1}


# ---------------------------------------------------------------------------
# A small imported ONNX model that gives every pass work.
# ---------------------------------------------------------------------------


def every_pass_model():
    """Identity, duplicated relus, cancelling transposes, dropout, a reshape chain, Gemm with transB, Expand, Sum."""
    nodes = [
        helper.make_node("Identity", ["x"], ["a"], name="identity"),
        helper.make_node("Relu", ["a"], ["r1"], name="relu_1"),
        helper.make_node("Relu", ["a"], ["r2"], name="relu_2"),
        helper.make_node("Add", ["r1", "r2"], ["s"], name="add"),
        helper.make_node("Transpose", ["s"], ["t1"], perm=[0, 2, 3, 1], name="to_nhwc"),
        helper.make_node("Transpose", ["t1"], ["t2"], perm=[0, 3, 1, 2], name="to_nchw"),
        helper.make_node("Dropout", ["t2"], ["d"], name="dropout"),
        helper.make_node("Reshape", ["d", "shape_flat"], ["f1"], name="flatten"),
        helper.make_node("Reshape", ["f1", "shape_3d"], ["f2"], name="unflatten"),
        helper.make_node("Reshape", ["f2", "shape_flat"], ["flat"], name="flatten_again"),
        helper.make_node("Gemm", ["flat", "w", "b"], ["g"], transB=1, name="gemm"),
        helper.make_node("Relu", ["g"], ["gr"], name="relu_3"),
        helper.make_node("Expand", ["half", "shape_out"], ["e"], name="expand"),
        helper.make_node("Sum", ["g", "gr", "e"], ["y"], name="sum"),
    ]
    initializers = {"shape_flat": np.int64([1, 36]), "shape_3d": np.int64([1, 4, 9]), "w": randn(10, 36),
                    "b": randn(10), "half": np.float32([0.5]), "shape_out": np.int64([1, 10])}
    return make_model(nodes, {"x": randn(1, 4, 3, 3)}, ["y"], initializers, opset=13)


# What each pass must have removed from `every_pass_model`'s import.
REMOVED_BY = {
    "graph-cse": {"relu": 1},
    "graph-constant-fold": {"transpose": 1, "broadcast": 1},
    "graph-remove-identity": {"identity": 1, "dropout": 1},
    "graph-merge-reshapes": {"reshape": 2},
    "graph-transpose-simplify": {"transpose": 3},
    "graph-sum-to-adds": {"sum": 1},
}


@pytest.mark.parametrize("name", PASSES)
def test_each_pass_fires_on_an_imported_model_and_keeps_its_results(name):
    module, _context = imported(every_pass_model())
    counts = op_counts(module)
    before, after = run_before_and_after(module, f"builtin.module({name})", seeded_inputs(module))
    assert max(max_scaled_errors(before, after).values()) <= SCALE_TOLERANCE
    removed = counts - op_counts(module)
    assert {op: removed[op] for op in REMOVED_BY[name]} == REMOVED_BY[name]


@pytest.mark.parametrize("name", PASSES)
def test_each_pass_reaches_its_fixpoint_in_one_run(name):
    module, _context = imported(every_pass_model())
    run_pipeline(module, f"builtin.module({name})")
    once = print_module(module)
    run_pipeline(module, f"builtin.module({name})")
    assert print_module(module) == once


def test_all_passes_together_on_an_imported_model():
    module, _context = imported(every_pass_model())
    before, after = run_before_and_after(module, ALL_PASSES, seeded_inputs(module))
    assert max(max_scaled_errors(before, after).values()) <= SCALE_TOLERANCE
    assert op_counts(module) == {"placeholder": 1, "relu": 2, "add": 3, "reshape": 1, "constant": 2, "splat": 1,
                                 "fully_connected": 1, "save": 1}


# ---------------------------------------------------------------------------
# The light models, random weights, logits as a second output.
# ---------------------------------------------------------------------------


def check_light_model(name: str) -> None:
    model = with_logits_output(randomize_weights(load_light_model(name), seed=0))
    module = import_model(model, make_context())
    counts = op_counts(module)
    before, after = run_before_and_after(module, ALL_PASSES, random_inputs(model, seed=1))
    errors = max_scaled_errors(before, after)
    print(f"\n{name}: {len(body_ops(module))} ops (was {counts.total()}), max error / scale: {errors}")
    assert max(errors.values()) <= SCALE_TOLERANCE


# Small and fast, and between them every pass fires: dropouts (squeezenet,
# inception_v1), sums, channel-shuffle reshapes and transposes (shufflenet),
# Gemm weights transposed and splats folded (shufflenet, inception_v1).
DEFAULT_LIGHT_MODELS = ("squeezenet", "shufflenet", "inception_v1")


@pytest.mark.parametrize("name", DEFAULT_LIGHT_MODELS)
def test_passes_keep_light_model_results(name):
    check_light_model(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(LIGHT_MODELS) - set(DEFAULT_LIGHT_MODELS)))
def test_passes_keep_every_light_models_results(name):
    check_light_model(name)
