"""Wide and deep graphs compile in work proportional to their size (issue 17).

The times are in `benchmarks/buffer_scaling.py`; these tests check, at a
modest size, what made them super-linear: an N-input Concat (a chain of
binary concats) copied each link's whole output into the next, and every
pass of a named pipeline re-ran the whole-module verifier.
"""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from lamina.dialects import context as dialect_context
from lamina.dialects.context import make_context, print_module
from lamina.driver.compiler import compile_model
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_to_buffers import GraphToBuffers


def ragged_concat(count: int) -> onnx.ModelProto:
    """A Concat of `count` inputs of 3 and 5 channels, so most inputs straddle a channel tile."""
    names = ["x" if index % 3 else "z" for index in range(count)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2]),
              helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 5, 2, 2])]
    graph = helper.make_graph([helper.make_node("Concat", names, ["c"], axis=1), helper.make_node("Relu", ["c"], ["y"])],
                              "ragged", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """count -> the compile summary, for a Concat of 32 and of 64 inputs."""
    summaries = {}
    for count in (32, 64):
        workdir = tmp_path_factory.mktemp(f"concat{count}")
        onnx.save(ragged_concat(count), workdir / "model.onnx")
        summaries[count] = compile_model(workdir / "model.onnx", "ultra96v2", workdir / "out").summary
    return summaries


def test_a_wide_concat_is_exact_on_the_simulated_accelerator(compiled):
    """Select copies into tile groups, load -> save copies into views: onnxruntime is the oracle."""
    for summary in compiled.values():
        (output,) = summary.accuracy.outputs
        assert output.cosine_min > 0.99999 and output.sqnr_db > 60, output


def test_a_wide_concat_compiles_to_a_program_linear_in_its_inputs(compiled):
    """Twice the inputs, at most about twice the instructions and weights (quadratic before: each link
    of the chain copied everything before it)."""
    small, large = compiled[32], compiled[64]
    assert len(large.program) <= 2.2 * len(small.program)
    assert large.consts_vectors <= 2.2 * small.consts_vectors


def relu_chain(count: int) -> onnx.ModelProto:
    names = ["x", *(f"r{i}" for i in range(count - 1)), "y"]
    graph = helper.make_graph([helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(count)], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def test_graph_to_buffers_verifies_once_not_after_each_pass(monkeypatch):
    module = import_model(relu_chain(20), make_context())
    calls = []
    original = dialect_context.verify_module
    monkeypatch.setattr("lamina.passes.pass_manager.verify_module",
                        lambda op: calls.append(1) or original(op))
    run_pipeline(module, f"builtin.module({GraphToBuffers.name})")
    assert len(calls) == 1
    text = print_module(module)
    assert "buffer.relu" in text and "graph.relu" not in text
