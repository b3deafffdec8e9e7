"""The CPU path's split code generation (`lamina/runtime/cpu_codegen.py`): LLVM's tools in parallel parts.

A model large enough (`MIN_FUNCTIONS` loop nests) is compiled by
`mlir-translate | llvm-split | opt | llc` into objects, its large constants
into a data object (`llvm-mc`), linked into a shared library the executor
loads. Here the thresholds are lowered so that a small model takes that
path; its outputs are compared with onnxruntime's at 1 and 3 threads, with
1 worker (one part) and 2 (four parts, at most two pipelines at a time). A
failing tool is a one-line error naming it, and no process outlives it; an
unusable cache directory is one line and the compile goes on. Without the
tools or a linker those tests are skipped, saying what is missing, and the
test that does run checks the fallback: the ExecutionEngine, with a one-line note.
"""

from __future__ import annotations

import dataclasses
import subprocess
import time

import pytest
from mlir import ir
from onnx import helper

from importer_models import imported, make_model, randn, run_onnxruntime
from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_codegen, cpu_executor, cpu_object_cache

from test_cpu_path import assert_close

needs_tools = pytest.mark.skipif(cpu_codegen.tools() is None,
                                 reason=f"split code generation needs LLVM's tools and a linker: {cpu_codegen.search()}")


@pytest.fixture
def split(monkeypatch, tmp_path):
    """Every model takes the split path, constants of 64 bytes and more go to the data object; no disk cache."""
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, "off")
    monkeypatch.setattr(cpu_codegen, "MIN_FUNCTIONS", 0)
    monkeypatch.setattr(cpu_codegen, "DATA_MIN_BYTES", 64)
    cpu_executor.forget_compiled_models()
    yield
    cpu_executor.forget_compiled_models()


def _model():
    """A blocked 3x3 convolution + ReLU, a 3x3 max pool (window loops LLVM unrolls), then a 1x1 convolution
    + residual add."""
    x, r = randn(1, 16, 20, 20), randn(1, 24, 9, 9)
    feeds = {"x": x, "r": r}
    weights = {"w3": randn(32, 16, 3, 3), "w1": randn(24, 32, 1, 1), "b": randn(32)}
    nodes = [helper.make_node("Conv", ["x", "w3", "b"], ["c"], name="conv3", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["a"], name="relu"),
             helper.make_node("MaxPool", ["a"], ["p"], name="pool", kernel_shape=[3, 3], strides=[2, 2]),
             helper.make_node("Conv", ["p", "w1"], ["d"], name="conv1"),
             helper.make_node("Add", ["d", "r"], ["y"], name="add")]
    onnx_model = make_model(nodes, feeds, ["y"], weights)
    module, context = imported(onnx_model)
    return onnx_model, module, context, feeds


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("threads", [1, 3])
@needs_tools
def test_a_split_compiled_model_matches_onnxruntime(split, monkeypatch, workers, threads):
    monkeypatch.setenv(cpu_executor.THREADS_VARIABLE, str(workers))  # the cores the tools may use
    onnx_model, module, _context, feeds = _model()
    compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(threads))
    assert isinstance(compiled.engine, cpu_object_cache.SharedObjectEngine)
    assert_close(compiled.run(feeds), run_onnxruntime(onnx_model, feeds))


def _lowered():
    _onnx_model, module, _context, _feeds = _model()
    with make_context():
        lowered = ir.Module.parse(str(module))
    run_pipeline(lowered.operation, cpu_executor.cpu_pipeline(1))
    return lowered


@needs_tools
def test_large_constants_become_external_and_small_ones_stay(split, monkeypatch):
    monkeypatch.setattr(cpu_codegen, "DATA_MIN_BYTES", 24 * 32 * 4)  # the 3x3 and 1x1 filters, not the bias
    lowered = _lowered()
    constants = dict(cpu_codegen._extract_constants(lowered))
    assert sorted(len(data) for data in constants.values()) == [24 * 32 * 4, 32 * 16 * 9 * 4]
    text = str(lowered)
    for name in constants:
        assert f"llvm.mlir.global external hidden constant @{name}() {{addr_space = 0 : i32, alignment = 64" in text
    assert "private constant @__constant_32xf32(dense<" in text  # the bias, under the threshold


@needs_tools
def test_a_failing_tool_is_one_line_naming_it(split, monkeypatch):
    broken = dataclasses.replace(cpu_codegen.tools(), opt="/bin/false")
    monkeypatch.setattr(cpu_codegen, "tools", lambda: broken)
    _onnx_model, module, _context, _feeds = _model()
    with pytest.raises(LaminaError, match=r"^the CPU code generator's opt failed \(exit 1\)") as error:
        cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert "\n" not in str(error.value)


@needs_tools
def test_a_failing_link_is_one_line(split, monkeypatch):
    monkeypatch.setattr(cpu_object_cache, "linker", lambda: ["/bin/false"])
    _onnx_model, module, _context, _feeds = _model()
    with pytest.raises(LaminaError, match=r"^the CPU code generator's linker failed \(exit 1\)") as error:
        cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert "\n" not in str(error.value)


@needs_tools
def test_a_split_compiled_model_is_kept_in_the_cache(split, monkeypatch, tmp_path):
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(cpu_object_cache, "MIN_COMPILE_SECONDS", 0.0)
    onnx_model, module, _context, feeds = _model()
    cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert [p.suffix for p in tmp_path.iterdir()] == [cpu_object_cache.SUFFIX]  # the library; no scratch left
    cpu_executor.forget_compiled_models()
    loaded = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert_close(loaded.run(feeds), run_onnxruntime(onnx_model, feeds))


class _Recorded(subprocess.Popen):
    """Popen that keeps every process it starts, and how many other llc processes ran at each llc's start."""
    started: list[subprocess.Popen] = []
    overlaps: list[int] = []

    def __init__(self, command, *args, **kwargs):
        if "llc" in str(command[0]):
            _Recorded.overlaps.append(sum(1 for p in _Recorded.started if "llc" in str(p.args[0]) and p.poll() is None))
        super().__init__(command, *args, **kwargs)
        _Recorded.started.append(self)


@pytest.fixture
def recorded(monkeypatch):
    _Recorded.started, _Recorded.overlaps = [], []
    monkeypatch.setattr(cpu_codegen.subprocess, "Popen", _Recorded)
    return _Recorded


@needs_tools
def test_at_most_one_pipeline_per_worker_runs_at_a_time(split, monkeypatch, recorded):
    monkeypatch.setenv(cpu_executor.THREADS_VARIABLE, "2")
    _onnx_model, module, _context, _feeds = _model()
    cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert len(recorded.overlaps) == 2 * cpu_codegen.PARTS_PER_WORKER  # four parts
    assert max(recorded.overlaps) <= 1  # each llc started beside at most one other


@needs_tools
def test_a_failure_kills_and_waits_for_every_other_process(split, monkeypatch, tmp_path, recorded):
    slow = tmp_path / "slow-llc"
    slow.write_text("#!/bin/sh\nexec sleep 60\n")
    slow.chmod(0o755)
    broken = dataclasses.replace(cpu_codegen.tools(), llc=str(slow), assembler="/bin/false")
    monkeypatch.setattr(cpu_codegen, "tools", lambda: broken)
    monkeypatch.setenv(cpu_executor.THREADS_VARIABLE, "2")
    _onnx_model, module, _context, _feeds = _model()
    start = time.monotonic()
    with pytest.raises(LaminaError, match=r"^the CPU code generator's llvm-mc failed \(exit 1\)"):
        cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert time.monotonic() - start < 30  # not waiting for the sleeping llc processes
    assert all(process.returncode is not None for process in recorded.started)


@needs_tools
def test_an_unusable_cache_directory_is_one_line_and_the_compile_goes_on(split, monkeypatch, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, str(blocker / "sub"))
    monkeypatch.setattr(cpu_object_cache, "MIN_COMPILE_SECONDS", 0.0)
    onnx_model, module, _context, feeds = _model()
    compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert_close(compiled.run(feeds), run_onnxruntime(onnx_model, feeds))
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith(f"lamina: could not write the CPU cache entry in {blocker / 'sub'} (")
                         for line in lines)


def test_without_the_tools_a_large_model_runs_on_the_execution_engine_with_a_note(split, monkeypatch, capsys):
    monkeypatch.setattr(cpu_codegen, "search", lambda: "no linker (ld or cc) on PATH")
    cpu_codegen.note_fallback.cache_clear()
    onnx_model, module, _context, feeds = _model()
    compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert not isinstance(compiled.engine, cpu_object_cache.SharedObjectEngine)
    assert_close(compiled.run(feeds), run_onnxruntime(onnx_model, feeds))
    assert capsys.readouterr().err == ("lamina: no linker (ld or cc) on PATH: large models compile with MLIR's "
                                       "ExecutionEngine (one thread)\n")
    cpu_codegen.note_fallback.cache_clear()
