"""graph-to-buffers scales with the model: no pass redoes whole-program work per rewrite.

Not timed (timings flake on a loaded machine): each test counts the work
that used to grow with the model. A 512-input Concat took over 600 s in
`buffer-eliminate-copies` (one analysis per eliminated copy, each walking
ever longer view chains) and a 5,000-Relu chain 83 s in `buffer-inplace`
(each rewrite scanned a buffer's growing list of uses for its dealloc); both
also paid Python's import machinery on every op wrap. Figures:
benchmarks/buffer_scaling.py.
"""

from __future__ import annotations

import importlib.abc
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

from lamina.dialects import buffer_analysis
from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.passes.buffer import eliminate_copies, inplace, rewriting
from lamina.passes import pass_manager
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_to_buffers import GraphToBuffers
from lamina.runtime import buffer_interpreter, graph_interpreter


def _concat(count: int) -> onnx.ModelProto:
    inputs = [f"x{i}" for i in range(count)]
    graph = helper.make_graph(
        [helper.make_node("Relu", [name], [f"r{name}"]) for name in inputs] +
        [helper.make_node("Concat", [f"r{name}" for name in inputs], ["y"], axis=1)], "concat",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 2, 2, 2]) for name in inputs],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2 * count, 2, 2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _relu_chain(count: int) -> onnx.ModelProto:
    names = ["x", *(f"r{i}" for i in range(count - 1)), "y"]
    graph = helper.make_graph([helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(count)], "chain",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 2, 2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _to_buffers(model: onnx.ModelProto):
    context = make_context()
    graph = import_model(model, context)
    buffers = import_model(model, context)
    run_pipeline(buffers, f"builtin.module({GraphToBuffers.name})")
    return graph, buffers


def _same_results(graph, buffers, model: onnx.ModelProto) -> None:
    rng = np.random.default_rng(0)
    feeds = {value.name: rng.standard_normal([d.dim_value for d in value.type.tensor_type.shape.dim])
             .astype(np.float32) for value in model.graph.input}
    expected = graph_interpreter.run(graph, feeds)
    actual = buffer_interpreter.run(buffers, feeds)
    for name, value in expected.items():
        np.testing.assert_allclose(actual[name], value, rtol=1e-6)


def _count_calls(monkeypatch, module, name: str) -> list:
    """A list that grows by one per call of `module.name` (still called)."""
    calls, real = [], getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or real(*args, **kwargs))
    return calls


def test_copy_elimination_analyzes_a_concat_log_times(monkeypatch):
    analyses = _count_calls(monkeypatch, eliminate_copies, "analyze_program")
    model = _concat(32)
    graph, buffers = _to_buffers(model)
    assert len(analyses) <= 10, f"{len(analyses)} analyses for 32 concat inputs (was one per copy)"
    assert sum(op.name == "buffer.copy" for op in buffer_analysis.analyze(buffers)[0]) == 0
    _same_results(graph, buffers, model)


def test_inplace_finds_deallocs_once_per_pass(monkeypatch):
    lookups = _count_calls(monkeypatch, inplace, "deallocs_by_buffer")
    scans = _count_calls(monkeypatch, rewriting, "dealloc_of")
    model = _relu_chain(200)
    graph, buffers = _to_buffers(model)
    assert len(lookups) == 1, "one dealloc table per buffer-inplace run"
    assert len(scans) < 50, f"{len(scans)} dealloc scans for a chain of 200 Relu (one per rewrite before)"
    _same_results(graph, buffers, model)


class _CountDialectImports(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.names = []

    def find_spec(self, name, path=None, target=None):
        if name.startswith("mlir.dialects."):
            self.names.append(name)
        return None


def test_wrapping_lamina_ops_does_not_import():
    finder = _CountDialectImports()
    sys.meta_path.insert(0, finder)
    try:
        _to_buffers(_relu_chain(20))
    finally:
        sys.meta_path.remove(finder)
    lamina = [name for name in finder.names if name.split(".")[2] in ("graph", "buffer", "hir", "lir")]
    assert lamina == []


def test_graph_to_buffers_verifies_once_not_after_each_pass(monkeypatch):
    """The semantic verifier after each of the pipeline's 13 passes was most of its time on a
    5,000-Relu chain (56.8 s); a named pipeline is now checked once, at its end."""
    calls = _count_calls(monkeypatch, pass_manager, "verify_module")
    graph, buffers = _to_buffers(_relu_chain(20))
    assert len(calls) == 1
    _same_results(graph, buffers, _relu_chain(20))
