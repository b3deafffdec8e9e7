"""The buffer interpreter runs planned buffer modules in their memory regions.

Hand-written modules check what IRGen's output never shows: views at byte
offsets, instructions running in place, buffers sharing bytes at different
times, the interface rule (which public weights are inputs and outputs),
memory nobody wrote, and every error a user can meet. One test disables
verification to show that a wrong memory plan gives wrong numbers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter
from lamina.runtime.executors import executor_for
from lamina.runtime.tensor_files import load_tensors, save_tensors

PLANNED = ("buffer.activation_bytes = {activations} : i64, buffer.constant_bytes = {constants} : i64, "
           "buffer.mutable_bytes = {weights} : i64")


def module(body: str, activations: int = 0, constants: int = 0, weights: int = 0, planned: bool = True):
    """A planned module (regions of the given sizes) whose function body is `body`."""
    attributes = f" attributes {{{PLANNED.format(**locals())}}}" if planned else ""
    context = make_context()
    parsed = parse_module(f"module{attributes} {{\n  func.func @main() {{\n{body}\n    return\n  }}\n}}\n", context)
    return parsed, context


def weight(name: str, offset: int, type_: str, public: bool = True) -> str:
    return (f'"buffer.weight"() {{mutable = true, name = "{name}", offset = {offset} : i64, '
            f'public = {str(public).lower()}}} : () -> {type_}')


X = np.arange(16, dtype=np.float32).reshape(2, 8) - 7.5

# x (2x8) -> relu into `a`; y = the second half of `a` (a view at byte 32 of
# the 64-byte alloc) seen as 2x4: [[relu(x[1, :4])], [relu(x[1, 4:])]].
VIEW_AT_AN_OFFSET = f"""
    %x = {weight("x", 0, "memref<2x8xf32>")}
    %y = {weight("y", 64, "memref<2x4xf32>")}
    %a = "buffer.alloc"() {{name = "a", offset = 0 : i64}} : () -> memref<2x8xf32>
    "buffer.relu"(%a, %x) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    %v = "buffer.view"(%a) {{byte_offset = 32 : i64}} : (memref<2x8xf32>) -> memref<2x4xf32>
    "buffer.copy"(%y, %v) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<2x8xf32>) -> ()"""


def test_a_view_reads_its_bytes_of_the_root_buffer():
    parsed, _context = module(VIEW_AT_AN_OFFSET, activations=64, weights=128)
    outputs = buffer_interpreter.run(parsed, {"x": X})
    np.testing.assert_array_equal(outputs["y"], np.maximum(X[1], 0).reshape(2, 4))


def test_element_wise_instructions_run_in_place():
    # exp, then neg over the same bytes, then add of the buffer to itself.
    body = f"""
    %x = {weight("x", 0, "memref<2x8xf32>")}
    %y = {weight("y", 64, "memref<2x8xf32>")}
    %a = "buffer.alloc"() {{name = "a", offset = 0 : i64}} : () -> memref<2x8xf32>
    "buffer.exp"(%a, %x) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.neg"(%a, %a) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.add"(%a, %a, %a) : (memref<2x8xf32>, memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.copy"(%y, %a) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<2x8xf32>) -> ()"""
    parsed, _context = module(body, activations=64, weights=128)
    np.testing.assert_array_equal(buffer_interpreter.run(parsed, {"x": X})["y"], -np.exp(X) * 2)


def shared_bytes(b_offset: int) -> str:
    """exp, neg, abs through allocs a, b, c; a and c share bytes, b sits at `b_offset`."""
    return f"""
    %x = {weight("x", 0, "memref<2x8xf32>")}
    %y = {weight("y", 64, "memref<2x8xf32>")}
    %a = "buffer.alloc"() {{name = "a", offset = 0 : i64}} : () -> memref<2x8xf32>
    "buffer.exp"(%a, %x) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    %b = "buffer.alloc"() {{name = "b", offset = {b_offset} : i64}} : () -> memref<2x8xf32>
    "buffer.neg"(%b, %a) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<2x8xf32>) -> ()
    %c = "buffer.alloc"() {{name = "c", offset = 0 : i64}} : () -> memref<2x8xf32>
    "buffer.abs"(%c, %b) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.dealloc"(%b) : (memref<2x8xf32>) -> ()
    "buffer.copy"(%y, %c) : (memref<2x8xf32>, memref<2x8xf32>) -> ()
    "buffer.dealloc"(%c) : (memref<2x8xf32>) -> ()"""


def test_buffers_live_at_different_times_share_bytes():
    parsed, _context = module(shared_bytes(b_offset=64), activations=128, weights=128)
    np.testing.assert_array_equal(buffer_interpreter.run(parsed, {"x": X})["y"], np.exp(X))


def test_a_wrong_memory_plan_gives_wrong_numbers(monkeypatch):
    # `b` placed over `a` while both live: the verifier rejects the plan...
    parsed, _context = module(shared_bytes(b_offset=0), activations=128, weights=128)
    with pytest.raises(LaminaError, match="overlap"):
        buffer_interpreter.run(parsed, {"x": X})
    # ...and without verification the interpreter really computes in the
    # shared bytes: neg(exp(x)) overwrites its own input, then is freed.
    monkeypatch.setattr(buffer_interpreter, "check_module", lambda module: None)
    wrong = buffer_interpreter.run(parsed, {"x": X})["y"]
    assert not np.allclose(wrong, np.exp(X), equal_nan=True)


def test_memory_nobody_wrote_reads_as_nan_with_a_warning():
    body = f"""
    %y = {weight("y", 0, "memref<4xf32>")}
    %a = "buffer.alloc"() {{name = "scratch", offset = 0 : i64}} : () -> memref<4xf32>
    "buffer.copy"(%y, %a) : (memref<4xf32>, memref<4xf32>) -> ()
    "buffer.dealloc"(%a) : (memref<4xf32>) -> ()"""
    parsed, _context = module(body, activations=64, weights=64)
    with pytest.warns(RuntimeWarning, match="buffer 'scratch' is read before anything writes it"):
        outputs = buffer_interpreter.run(parsed, {})
    assert np.isnan(outputs["y"]).all()


def test_constants_are_loaded_into_their_region():
    body = f"""
    %c = "buffer.constant"() {{name = "c", offset = 64 : i64, value = dense<[1, -2, 3]> : tensor<3xi64>}} : () -> memref<3xi64>
    %d = "buffer.constant"() {{name = "d", offset = 0 : i64, value = dense<true> : tensor<3xi1>}} : () -> memref<3xi1>
    %y = {weight("y", 0, "memref<3xi64>")}
    %z = {weight("z", 64, "memref<3xi1>")}
    "buffer.abs"(%y, %c) : (memref<3xi64>, memref<3xi64>) -> ()
    "buffer.copy"(%z, %d) : (memref<3xi1>, memref<3xi1>) -> ()"""
    parsed, _context = module(body, constants=128, weights=128)
    outputs = buffer_interpreter.run(parsed, {})
    np.testing.assert_array_equal(outputs["y"], np.array([1, 2, 3], np.int64), strict=True)
    np.testing.assert_array_equal(outputs["z"], np.ones(3, np.bool_), strict=True)


def test_public_weights_read_first_are_inputs_and_written_ones_outputs():
    # x: read (input); s: written in place after being read (input and
    # output); u: never used (still an input, like an unused placeholder);
    # y: written (output); p: private, neither.
    body = f"""
    %x = {weight("x", 0, "memref<4xf32>")}
    %s = {weight("s", 64, "memref<4xf32>")}
    %u = {weight("u", 128, "memref<4xf32>")}
    %y = {weight("y", 192, "memref<4xf32>")}
    %p = {weight("p", 256, "memref<4xf32>", public=False)}
    "buffer.add"(%s, %s, %x) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    "buffer.copy"(%p, %s) : (memref<4xf32>, memref<4xf32>) -> ()
    "buffer.neg"(%y, %p) : (memref<4xf32>, memref<4xf32>) -> ()"""
    parsed, _context = module(body, weights=320)
    interface = buffer_interpreter.interface(parsed)
    assert list(interface.inputs) == ["x", "s", "u"]
    assert list(interface.outputs) == ["s", "y"]
    x, s = np.arange(4, dtype=np.float32), np.full(4, 10, np.float32)
    outputs = buffer_interpreter.run(parsed, {"x": x, "s": s, "u": np.zeros(4, np.float32)})
    np.testing.assert_array_equal(outputs["s"], s + x)
    np.testing.assert_array_equal(outputs["y"], -(s + x))


# ---------------------------------------------------------------------------
# Errors.
# ---------------------------------------------------------------------------


def test_an_unplanned_buffer_is_refused_at_its_location():
    body = VIEW_AT_AN_OFFSET.replace('{name = "a", offset = 0', '{name = "a", offset = -1')
    parsed, _context = module(body, activations=64, weights=128)
    with pytest.raises(LaminaError, match=r":\d+:\d+: error: buffer 'a' has no memory offset yet; run memory "
                                          r"planning \(buffer-allocate\)"):
        buffer_interpreter.run(parsed, {"x": X})


def test_irgen_output_needs_memory_planning_first():
    text = """func.func @main() {
      %0 = "graph.placeholder"() {name = "x"} : () -> tensor<4xf32>
      %1 = "graph.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
      "graph.save"(%1) {name = "y"} : (tensor<4xf32>) -> ()
      return
    }"""
    context = make_context()
    parsed = parse_module(text, context)
    run_pipeline(parsed, "builtin.module(convert-graph-to-buffer)")
    with pytest.raises(LaminaError, match=r"the module has no 'buffer.activation_bytes' attribute: it is not "
                                          r"memory-planned; run memory planning \(buffer-allocate\)"):
        buffer_interpreter.run(parsed, {"x": np.zeros(4, np.float32)})
    run_pipeline(parsed, "builtin.module(buffer-allocate)")
    x = np.array([-1, 2, -3, 4], np.float32)
    np.testing.assert_array_equal(buffer_interpreter.run(parsed, {"x": x})["y"], np.maximum(x, 0))


@pytest.mark.parametrize("inputs, message", [
    ({}, r"missing input 'x': expected float32 \[2, 8\]"),
    ({"x": X, "z": X}, r"unknown input 'z'; the model's inputs are 'x'"),
    ({"x": X.astype(np.float64)}, r"input 'x': expected float32 \[2, 8\], got float64 \[2, 8\]"),
])
def test_wrong_inputs_are_named(inputs, message):
    parsed, _context = module(VIEW_AT_AN_OFFSET, activations=64, weights=128)
    with pytest.raises(LaminaError, match=message):
        buffer_interpreter.run(parsed, inputs)


def test_a_graph_module_is_not_run():
    text = """func.func @main() {
      %0 = "graph.placeholder"() {name = "x"} : () -> tensor<4xf32>
      "graph.save"(%0) {name = "y"} : (tensor<4xf32>) -> ()
      return
    }"""
    context = make_context()
    with pytest.raises(LaminaError, match="'graph.placeholder' is not a buffer op"):
        buffer_interpreter.run(parse_module(text, context), {"x": np.zeros(4, np.float32)})


def test_a_kernel_failure_names_the_op():
    body = f"""
    %x = {weight("x", 0, "memref<3xf32>")}
    %i = "buffer.constant"() {{name = "i", offset = 0 : i64, value = dense<[0, 5]> : tensor<2xi64>}} : () -> memref<2xi64>
    %y = {weight("y", 64, "memref<2xf32>")}
    "buffer.gather"(%y, %x, %i) {{axis = 0 : i64}} : (memref<2xf32>, memref<3xf32>, memref<2xi64>) -> () loc("lookup")"""
    parsed, _context = module(body, constants=64, weights=128)
    with pytest.raises(LaminaError, match=r"node 'lookup': error: gather index 5 is out of range"):
        buffer_interpreter.run(parsed, {"x": np.zeros(3, np.float32)})


# ---------------------------------------------------------------------------
# lamina-run.
# ---------------------------------------------------------------------------


def test_lamina_run_executes_buffer_modules(tmp_path: Path):
    parsed, _context = module(VIEW_AT_AN_OFFSET, activations=64, weights=128)
    assert executor_for(parsed).run is buffer_interpreter.run
    (tmp_path / "model.mlir").write_text(str(parsed))
    save_tensors(str(tmp_path / "in.npz"), {"x": X})
    lamina_run = str(Path(sys.executable).parent / "lamina-run")
    result = subprocess.run([lamina_run, "model.mlir", "--inputs", "in.npz", "--output", "out.npz"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "outputs (buffer interpreter" in result.stdout
    np.testing.assert_array_equal(load_tensors(str(tmp_path / "out.npz"))["y"], np.maximum(X[1], 0).reshape(2, 4))
