"""IRGen (`convert-graph-to-buffer`) keeps what a model computes, and its output has IRGen's shape.

Numerics: the graph interpreter on a graph module and the buffer interpreter
on its IRGen output (memory-planned by `buffer-allocate`) run the same
kernels on the same data, so outputs are bit-identical (NaNs in the same
places), and the tests require it, but for one documented case: a matrix
product whose operand the graph interpreter passes as a transposed view
sums in another order in BLAS than on the buffer level's contiguous bytes.
Every graph op is covered: the graph dialect's round-trip functions run
with every value saved, besides small imported models.

Shape: on those modules and on a light model, the buffer function declares
its weights and constants first, puts each alloc right before the
instruction writing it, keeps the graph's op order, attributes and
locations, and ends with one dealloc per alloc.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from mlir import ir
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.dialects.buffer import BUFFER, NOT_INSTRUCTIONS
from lamina.dialects.context import check_module, make_context, parse_module
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops, main_function
from lamina.dialects.model import inputs as model_inputs
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter
from lamina.tools.lamina_run import random_inputs
from light_models import load_light_model

IRGEN = "builtin.module(convert-graph-to-buffer)"
IRGEN_AND_PLAN = "builtin.module(convert-graph-to-buffer,buffer-allocate)"
GRAPH_ROUND_TRIP = Path(__file__).resolve().parents[1] / "Dialect" / "graph" / "round-trip.mlir"


def graph_round_trip_functions() -> dict[str, str]:
    """The graph round-trip test's functions (every graph op), by name, as text."""
    text = "\n".join(line for line in GRAPH_ROUND_TRIP.read_text().splitlines() if not line.lstrip().startswith("//"))
    return {match.group(1): match.group(0) for match in re.finditer(r"^func\.func @(\w+)\(\) \{.*?^\}", text,
                                                                      re.MULTILINE | re.DOTALL)}


def with_every_value_saved(text: str, context: ir.Context) -> ir.Operation:
    """A model from a graph function, with a `graph.save` of each value it computes."""
    module = parse_module(text, context)
    block = main_function(module).regions[0].blocks[0]
    with context, ir.Location.unknown(), ir.InsertionPoint(block.operations[len(block.operations) - 1]):
        for index, op in enumerate(body_ops(module)):
            for result in op.results:
                GRAPH.create("save", result, name=f"value{index}")
    check_module(module)
    return module


def assert_same_outputs(actual: dict[str, np.ndarray], expected: dict[str, np.ndarray],
                        scale_tolerance: float = 0.0) -> None:
    """Same names, types and values: exactly, or each float output within `scale_tolerance` * max |expected|.

    Output order is not compared: a scheduler may move saves, and outputs are keyed by name.
    """
    assert sorted(actual) == sorted(expected)
    for name, reference in expected.items():
        assert (actual[name].shape, actual[name].dtype) == (reference.shape, reference.dtype), name
        if scale_tolerance and np.issubdtype(reference.dtype, np.floating) and reference.size:
            scale = float(np.abs(reference).max())
            np.testing.assert_allclose(actual[name], reference, rtol=0, atol=scale_tolerance * scale, err_msg=name)
        else:
            np.testing.assert_array_equal(actual[name], reference, err_msg=name, strict=True)


def assert_same_outputs_after_irgen(module: ir.Operation, inputs: dict[str, np.ndarray],
                                    scale_tolerance: float = 0.0) -> None:
    expected = graph_interpreter.run(module, inputs)
    run_pipeline(module, IRGEN_AND_PLAN)
    assert_same_outputs(buffer_interpreter.run(module, inputs), expected, scale_tolerance)


# ---------------------------------------------------------------------------
# Numerics.
# ---------------------------------------------------------------------------


# Recurrent layers (docs/control-flow.md) and profiling probes have no buffer form: IRGen refuses them.
# Quantized values do (docs/precision.md).
NO_BUFFER_FORM = {"recurrent", "profiling"}


@pytest.mark.parametrize("function", sorted(set(graph_round_trip_functions()) - NO_BUFFER_FORM))
def test_every_graph_op_computes_the_same_after_irgen(function):
    module = with_every_value_saved(graph_round_trip_functions()[function], make_context())
    assert_same_outputs_after_irgen(module, random_inputs(model_inputs(module), seed=0))


def test_a_small_cnn_computes_the_same_after_irgen():
    # conv -> relu -> pool -> flatten (a view) -> gemm -> softmax, and a
    # residual add reading the conv's output after the pool: buffers that
    # the memory plan may not share.
    x = randn(1, 3, 8, 8)
    weights = {"w": randn(4, 3, 3, 3), "b": randn(4), "fc_w": randn(10, 64), "fc_b": randn(10)}
    model = make_model([
        helper.make_node("Conv", ["x", "w", "b"], ["conv"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("Add", ["relu", "conv"], ["residual"], name="residual"),
        helper.make_node("MaxPool", ["residual"], ["pool"], kernel_shape=[2, 2], strides=[2, 2], name="pool"),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flat"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], transB=1, name="fc"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax"),
    ], {"x": x}, ["probabilities", "logits"], weights)
    module, _context = imported(model)
    # The one freedom left is memory layout: the graph interpreter hands the
    # fully-connected layer a transposed view of fc_w (transB), the buffer
    # level its transposed bytes, and BLAS sums in another order (observed:
    # 1.2e-7 of the logits' scale alone, 3.8e-6 of the probabilities' under a
    # loaded suite). A shared buffer read after it was overwritten is off by O(1).
    assert_same_outputs_after_irgen(module, {"x": x}, scale_tolerance=1e-5)


def test_concat_and_reshape_of_inputs_compute_the_same_after_irgen():
    a, b = randn(2, 3), randn(2, 5)
    model = make_model([
        helper.make_node("Concat", ["a", "b"], ["ab"], axis=1),
        helper.make_node("Concat", ["ab", "a"], ["aba"], axis=1),
        helper.make_node("Reshape", ["aba", "shape"], ["flat"]),
        helper.make_node("Reshape", ["a", "shape"], ["a_flat"]),
    ], {"a": a, "b": b}, ["flat", "a_flat", "ab"], {"shape": np.array([-1], np.int64)})
    module, _context = imported(model)
    assert_same_outputs_after_irgen(module, {"a": a, "b": b})


# ---------------------------------------------------------------------------
# The shape of IRGen's output.
# ---------------------------------------------------------------------------


def graph_module(name: str) -> ir.Operation:
    """A graph round-trip function with every value saved, or a light model."""
    functions = graph_round_trip_functions()
    if name in functions:
        return with_every_value_saved(functions[name], make_context())
    return import_model(load_light_model(name), make_context())


# One alloc right before each instruction: not region ops (their IRGen: graph-to-buffer-control-flow.mlir).
@pytest.mark.parametrize("name", [*sorted(set(graph_round_trip_functions()) - NO_BUFFER_FORM - {"control_flow"}),
                                  "squeezenet"])
def test_irgen_output_has_glow_irgen_shape(name):
    module = graph_module(name)
    graph_ops = body_ops(module)
    computations = [op for op in graph_ops if GRAPH.lookup(op).name not in NOT_INSTRUCTIONS]
    expected_names = [op.name.replace("graph.", "buffer.") for op in computations]
    expected_attributes = [_attributes(op) for op in computations]
    expected_locations = [str(op.location) for op in computations]
    interface = [GRAPH.view(op).attr("name") for op in graph_ops if op.name in ("graph.placeholder", "graph.save")]
    constants = sum(op.name == "graph.constant" for op in graph_ops)

    del graph_ops, computations  # erased by IRGen
    run_pipeline(module, IRGEN)
    program = body_ops(module)
    kinds = [BUFFER.lookup(op).name for op in program]  # fails on any op left that is not a buffer op
    declarations = len(interface) + constants
    assert set(kinds[:declarations]) <= {"weight", "constant"}
    assert [BUFFER.view(op).attr("name") for op in program[:declarations] if op.name == "buffer.weight"] == interface
    assert not {"weight", "constant"} & set(kinds[declarations:])

    allocs = [op for op in program if op.name == "buffer.alloc"]
    instructions = [program[program.index(alloc) + 1] for alloc in allocs]
    assert [op.operands[0] for op in instructions] == [alloc.result for alloc in allocs]
    assert [op.name for op in instructions] == expected_names
    assert [_attributes(op) for op in instructions] == expected_attributes
    assert [str(op.location) for op in instructions] == expected_locations
    assert [str(op.location) for op in allocs] == expected_locations
    assert all(BUFFER.view(op).attr("offset") == -1 for op in program if "offset" in op.attributes)

    deallocs = program[len(program) - len(allocs):]
    assert [op.name for op in deallocs] == ["buffer.dealloc"] * len(allocs)
    assert [op.operands[0] for op in deallocs] == [alloc.result for alloc in allocs]
    assert kinds.count("dealloc") == len(allocs)


def _attributes(op: ir.Operation) -> dict[str, str]:
    return {name: str(op.attributes[name]) for name in op.attributes}
