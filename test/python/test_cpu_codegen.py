"""The CPU path's split code generation (`lamina/runtime/cpu_codegen.py`): LLVM's tools in parallel parts.

A model large enough (`MIN_FUNCTIONS` loop nests) is compiled by
`mlir-translate | llvm-split | opt | llc` into objects, its large constants
into a data object (`llvm-mc`), linked into a shared library the executor
loads. Here the thresholds are lowered so that a small model takes that
path; its outputs are compared with onnxruntime's at 1 and 3 threads, in
1 and 2 parts. A failing tool is a one-line error naming it.
"""

from __future__ import annotations

import dataclasses

import pytest
from mlir import ir
from onnx import helper

from importer_models import imported, make_model, randn, run_onnxruntime
from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_codegen, cpu_executor, cpu_object_cache

from test_cpu_path import assert_close

pytestmark = pytest.mark.skipif(cpu_codegen.tools() is None, reason="no LLVM tools or no linker")


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


def test_large_constants_become_external_and_small_ones_stay(split, monkeypatch):
    monkeypatch.setattr(cpu_codegen, "DATA_MIN_BYTES", 24 * 32 * 4)  # the 3x3 and 1x1 filters, not the bias
    lowered = _lowered()
    constants = dict(cpu_codegen._extract_constants(lowered))
    assert sorted(len(data) for data in constants.values()) == [24 * 32 * 4, 32 * 16 * 9 * 4]
    text = str(lowered)
    for name in constants:
        assert f"llvm.mlir.global external hidden constant @{name}() {{addr_space = 0 : i32, alignment = 64" in text
    assert "private constant @__constant_32xf32(dense<" in text  # the bias, under the threshold


def test_a_failing_tool_is_one_line_naming_it(split, monkeypatch):
    broken = dataclasses.replace(cpu_codegen.tools(), opt="/bin/false")
    monkeypatch.setattr(cpu_codegen, "tools", lambda: broken)
    _onnx_model, module, _context, _feeds = _model()
    with pytest.raises(LaminaError, match=r"^the CPU code generator's opt failed \(exit 1\)") as error:
        cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert "\n" not in str(error.value)


def test_a_failing_link_is_one_line(split, monkeypatch):
    monkeypatch.setattr(cpu_object_cache, "linker", lambda: ["/bin/false"])
    _onnx_model, module, _context, _feeds = _model()
    with pytest.raises(LaminaError, match=r"^the CPU code generator's linker failed \(exit 1\)") as error:
        cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert "\n" not in str(error.value)


def test_a_split_compiled_model_is_kept_in_the_cache(split, monkeypatch, tmp_path):
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(cpu_object_cache, "MIN_COMPILE_SECONDS", 0.0)
    onnx_model, module, _context, feeds = _model()
    cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert [p.suffix for p in tmp_path.iterdir()] == [cpu_object_cache.SUFFIX]  # the library; no scratch left
    cpu_executor.forget_compiled_models()
    loaded = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert_close(loaded.run(feeds), run_onnxruntime(onnx_model, feeds))
