"""Threaded CPU code gives the reference interpreter's outputs, as the single-threaded code does.

`graph-to-cpu{threads=N}` shares the register tiles of every vectorized
convolution and matmul out to N blocks run by MLIR's async runtime. Each
case is compiled with 1 and 3 threads (3 splits most tile counts unevenly)
and both are compared with the graph interpreter (the oracle for the
lowering, itself checked against onnxruntime and ONNX's node suite).
`LAMINA_NUM_THREADS` picks the default.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.dialects.diagnostics import LaminaError
from lamina.runtime import cpu_executor, graph_interpreter

from test_cpu_path import CONVOLUTIONS, assert_close

CASES = ("plain", "grouped", "depthwise_strided", "many_groups", "pointwise_tail")


def _convolution_model(case: str):
    attrs = dict(CONVOLUTIONS[case])
    x = randn(*attrs.pop("x", (1, 3, 10, 8)))
    w = randn(*attrs.pop("w"))
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    module, context = imported(make_model([node], {"x": x}, ["y"], {"w": w}))
    return module, context, {"x": x}


@pytest.mark.parametrize("case", CASES)
def test_threaded_convolutions_match_the_interpreter(case):
    module, _context, feeds = _convolution_model(case)
    reference = graph_interpreter.run(module, feeds)
    for threads in (1, 3):
        compiled = cpu_executor.compile_model(module, f"builtin.module(graph-to-cpu{{threads={threads}}})")
        assert_close(compiled.run(feeds), reference)


def test_threaded_matmul_over_many_tiles_matches_the_interpreter():
    a, b = randn(16, 40), randn(40, 320)
    node = helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")
    module, _context = imported(make_model([node], {"a": a}, ["y"], {"b": b}))
    compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(2))
    assert_close(compiled.run({"a": a}), graph_interpreter.run(module, {"a": a}))


FORGET_THEN_RUN = """
import sys
sys.path.insert(0, {tests!r})
from test_cpu_threads import _convolution_model
from lamina.runtime import cpu_executor
module, _context, feeds = _convolution_model("plain")
cpu_executor.compile_model(module, "builtin.module(graph-to-cpu{{threads=3}})").run(feeds)
cpu_executor.forget_compiled_models()
import gc; gc.collect()
module, _context, feeds = _convolution_model("grouped")
cpu_executor.compile_model(module, "builtin.module(graph-to-cpu{{threads=3}})").run(feeds)
"""


def test_a_forgotten_threaded_model_leaves_the_thread_pool_to_the_next(monkeypatch):
    """Dropping a compiled model must not take MLIR's process-wide async runtime with it (it segfaulted)."""
    monkeypatch.setenv("LAMINA_CPU_CACHE", "off")  # compile both models, as a first run does
    script = FORGET_THEN_RUN.format(tests=str(Path(__file__).parent))
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]


def test_lamina_num_threads_sets_the_default(monkeypatch):
    monkeypatch.setenv(cpu_executor.THREADS_VARIABLE, "3")
    assert cpu_executor.default_threads() == 3
    monkeypatch.delenv(cpu_executor.THREADS_VARIABLE)
    assert cpu_executor.default_threads() >= 1


@pytest.mark.parametrize("text", ["0", "two", "-1", ""])
def test_a_bad_thread_count_is_one_line_naming_the_variable(monkeypatch, text):
    monkeypatch.setenv(cpu_executor.THREADS_VARIABLE, text)
    with pytest.raises(LaminaError, match=r"^LAMINA_NUM_THREADS=.*expected a whole number of threads") as error:
        cpu_executor.default_threads()
    assert "\n" not in str(error.value)


def test_blocked_convolutions_with_epilogues_match_the_interpreter():
    """Convolutions large enough for position blocks (an scf.forall, shared out by the threads) with fused
    epilogues: a 3x3 one + ReLU, and a 1x1 one + residual add + ReLU (whose positions are the output's)."""
    x, r = randn(1, 16, 40, 40), randn(1, 64, 40, 40)
    w3, w1, b = randn(64, 16, 3, 3), randn(64, 16, 1, 1), randn(64)
    nodes = [helper.make_node("Conv", ["x", "w3", "b"], ["c3"], name="conv3", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c3"], ["y"], name="relu3"),
             helper.make_node("Conv", ["x", "w1", "b"], ["c1"], name="conv1"),
             helper.make_node("Add", ["c1", "r"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["z"], name="relu1")]
    feeds = {"x": x, "r": r}
    module, _context = imported(make_model(nodes, feeds, ["y", "z"], {"w3": w3, "w1": w1, "b": b}))
    reference = graph_interpreter.run(module, feeds)
    for threads in (1, 3):
        compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(threads))
        assert_close(compiled.run(feeds), reference)
