"""The CPU path's infrastructure and its linear and window ops, against the reference interpreter.

Each case is a one-node ONNX model, imported, compiled with `graph-to-cpu`
alone (no graph optimization, so the op itself is what gets lowered) and run
by the ExecutionEngine. Tolerance: max |cpu - reference| <= 1e-4 * max(1, max
|reference|) (float32, different summation orders).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.dialects.diagnostics import LaminaError
from lamina.runtime import cpu_executor, graph_interpreter

ONLY_CPU_LOWERING = "builtin.module(graph-to-cpu)"
RTOL = 1e-4


def assert_close(actual: dict, reference: dict) -> None:
    assert actual.keys() == reference.keys()
    for name, expected in reference.items():
        assert actual[name].shape == expected.shape and actual[name].dtype == expected.dtype, name
        scale = max(1.0, float(np.abs(expected).max(initial=0)))
        assert np.abs(actual[name].astype(np.float64) - expected).max(initial=0) <= RTOL * scale, name


def check_node(op_type: str, inputs: dict, initializers: dict | None = None, **attrs) -> None:
    node = helper.make_node(op_type, [*inputs, *(initializers or {})], ["y"], name="n", **attrs)
    module, _context = imported(make_model([node], inputs, ["y"], initializers))
    compiled = cpu_executor.compile_model(module, ONLY_CPU_LOWERING)
    assert_close(compiled.run(inputs), graph_interpreter.run(module, inputs))


CONVOLUTIONS = {
    "plain": dict(w=(4, 3, 3, 3), kernel_shape=[3, 3]),
    "padded_strided": dict(w=(4, 3, 3, 3), pads=[1, 0, 2, 1], strides=[2, 1]),
    "dilated": dict(w=(2, 3, 3, 2), dilations=[2, 1], pads=[1, 1, 1, 1]),
    "grouped": dict(w=(6, 1, 3, 3), group=3, pads=[1, 1, 1, 1], x=(1, 3, 7, 7)),
    "group_of_two": dict(w=(4, 3, 1, 1), group=2, x=(2, 6, 5, 5)),
    "conv1d": dict(w=(4, 3, 3), x=(1, 3, 9), strides=[2], pads=[1, 1]),
    # Depthwise (a vectorized tap sum), grouped (batch matmuls, 11 filters per group padded to 16),
    # 1x1 on unpadded positions with a tail, batches and dilations (image by image, tap offsets).
    "depthwise": dict(w=(5, 1, 3, 3), group=5, pads=[1, 1, 1, 1], x=(1, 5, 9, 9)),
    "depthwise_strided": dict(w=(5, 1, 3, 3), group=5, pads=[1, 1, 1, 1], strides=[2, 2], x=(1, 5, 9, 9)),
    "depthwise_dilated_batched": dict(w=(4, 1, 3, 3), group=4, pads=[2, 2, 2, 2], dilations=[2, 2], x=(2, 4, 8, 8)),
    "channel_multiplier": dict(w=(6, 1, 3, 3), group=3, pads=[1, 0, 1, 0], x=(1, 3, 7, 7)),
    "many_groups": dict(w=(44, 3, 1, 1), group=4, x=(1, 12, 14, 14)),
    "grouped_strided": dict(w=(12, 2, 3, 3), group=3, strides=[2, 2], pads=[1, 1, 1, 1], x=(1, 6, 11, 11)),
    "pointwise_tail": dict(w=(8, 16, 1, 1), x=(1, 16, 14, 14)),
    "dilated_strided": dict(w=(4, 3, 3, 3), dilations=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], x=(1, 3, 11, 11)),
}


@pytest.mark.parametrize("case", CONVOLUTIONS, ids=list(CONVOLUTIONS))
def test_convolution(case):
    attrs = dict(CONVOLUTIONS[case])
    w = randn(*attrs.pop("w"))
    x = randn(*attrs.pop("x", (1, 3, 8, 8)))
    check_node("Conv", {"x": x}, {"w": w, "b": randn(w.shape[0])}, **attrs)


def test_fully_connected_and_matmuls():
    check_node("Gemm", {"x": randn(3, 5)}, {"w": randn(5, 4), "b": randn(4)})
    check_node("MatMul", {"a": randn(3, 5), "b": randn(5, 2)})
    check_node("MatMul", {"a": randn(2, 3, 5), "b": randn(2, 5, 4)})
    check_node("MatMul", {"a": randn(2, 1, 3, 5), "b": randn(3, 5, 4)})


POOLS = {
    "max": ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    "max_ceil": ("MaxPool", dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
    "max_dilated": ("MaxPool", dict(kernel_shape=[2, 2], dilations=[2, 2])),
    "avg_exclude_pad": ("AveragePool", dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
    "avg_include_pad_ceil": ("AveragePool", dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 0],
                                                 count_include_pad=1, ceil_mode=1)),
    "global_avg": ("GlobalAveragePool", {}),
    "global_max": ("GlobalMaxPool", {}),
    "lrn": ("LRN", dict(size=3, alpha=1e-3, beta=0.75, bias=2.0)),
}


@pytest.mark.parametrize("case", POOLS, ids=list(POOLS))
def test_window_ops(case):
    op_type, attrs = POOLS[case]
    check_node(op_type, {"x": randn(2, 3, 8, 7)}, **attrs)


def test_window_ops_in_one_and_three_dimensions():
    check_node("MaxPool", {"x": randn(1, 2, 9)}, kernel_shape=[3], strides=[2])
    check_node("AveragePool", {"x": randn(1, 2, 4, 5, 6)}, kernel_shape=[2, 2, 3], pads=[1, 0, 0, 1, 1, 1])


def test_uint8_max_pools():
    """ui8 is stored as i8: max pools compare unsigned (a generic, not the signed named op)."""
    rng = np.random.default_rng(0)
    check_node("MaxPool", {"x": rng.integers(0, 256, (1, 2, 5, 6)).astype(np.uint8)}, kernel_shape=[2, 2],
               pads=[1, 1, 1, 1])
    check_node("MaxPool", {"x": rng.integers(0, 256, (1, 2, 9)).astype(np.uint8)}, kernel_shape=[3], strides=[2])


def test_boolean_and_uint8_constants():
    """Initializers of bool and uint8 become i8 constants with the same bytes."""
    rng = np.random.default_rng(1)
    x = {"x": rng.integers(0, 256, (2, 3)).astype(np.uint8)}
    check_node("Max", x, {"c": rng.integers(0, 256, (2, 3)).astype(np.uint8)})
    check_node("Equal", {"x": rng.random((2, 3)) > 0.5}, {"c": np.array([[True, False, True]] * 2)})


def test_resize_nearest():
    scales = np.array([1, 1, 2, 1.5], np.float32)
    check_node("Resize", {"x": randn(1, 2, 3, 4)}, {"roi": np.array([], np.float32), "scales": scales},
               mode="nearest")


def test_compiled_models_are_cached_and_inputs_checked():
    x = {"x": randn(1, 3, 4, 4)}
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])
    module, _context = imported(make_model([node], x, ["y"]))
    first = cpu_executor.compile_model(module, ONLY_CPU_LOWERING)
    assert cpu_executor.compile_model(module, ONLY_CPU_LOWERING) is first
    with pytest.raises(LaminaError, match="input 'x': expected"):
        first.run({"x": randn(1, 3, 4, 5)})


def test_missing_lowerings_are_reported_together_at_their_nodes(monkeypatch):
    from lamina.passes.conversion.graph_to_linalg import registry

    monkeypatch.delitem(registry.CONVERTERS, "max_pool")
    x = {"x": randn(1, 1, 4, 4)}
    nodes = [helper.make_node("MaxPool", ["x"], ["p"], name="pool_a", kernel_shape=[2, 2]),
             helper.make_node("MaxPool", ["p"], ["y"], name="pool_b", kernel_shape=[2, 2])]
    module, _context = imported(make_model(nodes, x, ["y"]))
    with pytest.raises(LaminaError) as error:
        cpu_executor.compile_model(module, ONLY_CPU_LOWERING)
    message = str(error.value)
    assert "pool_a" in message and "pool_b" in message and "'graph.max_pool' has no CPU (linalg) lowering" in message


def _write_model(tmp_path, nodes, inputs) -> str:
    module, _context = imported(make_model(nodes, inputs, ["y"]))
    path = tmp_path / "model.mlir"
    path.write_text(str(module))
    return str(path)


def test_lamina_run_target_cpu(tmp_path, capsys):
    from lamina.runtime.tensor_files import load_tensors, save_tensors
    from lamina.tools import lamina_run

    x = {"x": randn(1, 2, 6, 6)}
    path = _write_model(tmp_path, [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])], x)
    save_tensors(str(tmp_path / "in.npz"), x)
    for target, output in ((["--target", "cpu"], "cpu.npz"), ([], "reference.npz")):
        assert lamina_run.main([path, "--inputs", str(tmp_path / "in.npz"), "--output", str(tmp_path / output),
                                *target]) == 0
    assert "CPU, upstream MLIR" in capsys.readouterr().out
    assert_close(load_tensors(str(tmp_path / "cpu.npz")), load_tensors(str(tmp_path / "reference.npz")))


def test_lamina_run_falls_back_to_the_interpreter_only_when_asked(tmp_path, capsys, monkeypatch):
    from lamina.passes.conversion.graph_to_linalg import registry
    from lamina.tools import lamina_run

    monkeypatch.delitem(registry.CONVERTERS, "max_pool")
    path = _write_model(tmp_path, [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2])],
                        {"x": randn(1, 2, 6, 6)})
    assert lamina_run.main([path, "--target", "cpu"]) != 0
    assert "'graph.max_pool' has no CPU (linalg) lowering" in capsys.readouterr().err
    assert lamina_run.main([path, "--target", "cpu", "--fallback", "interpreter"]) == 0
    captured = capsys.readouterr()
    assert "running the graph interpreter" in captured.err and "y  float32 [1, 2, 5, 5]" in captured.out
