"""The space-to-depth rewrite of stride-2 convolutions on few channels (graph_to_hir/space_to_depth.py).

Oracle: onnxruntime, on the original convolution and on the rewritten pair
built from the rewrite's own filters; then a compiled stem on ultra96v2
(simulator against onnxruntime, bit for bit against the HIR executor).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.model import body_ops
from lamina.driver.compiler import compile_model
from lamina.frontend.random_weights import run_onnx
from lamina.passes.conversion.graph_to_hir.space_to_depth import far_pad, packing_filter, regrouped_filter
from lamina.runtime.compare import cosine_similarity
from lamina.runtime.tcu_simulator import simulate_samples


def _model(nodes, inputs: dict[str, tuple], output: str, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "s2d",
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(value, name) for name, value in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("shape, kernel, pads", [
    ((1, 3, 32, 32), (7, 7), (3, 3, 3, 3)),   # ResNet-50's stem, smaller
    ((2, 2, 15, 17), (5, 3), (2, 1, 2, 1)),   # odd sizes, a batch, unequal kernel sides
    ((1, 1, 12, 12), (4, 4), (1, 1, 1, 1)),   # an even kernel
    ((1, 3, 14, 14), (7, 7), (3, 2, 1, 3)),   # unequal pads
])
def test_the_rewritten_pair_equals_the_convolution_in_onnxruntime(shape, kernel, pads):
    rng = np.random.default_rng(0)
    _, channels, height, width = shape
    (kh, kw), (top, left, bottom, right) = kernel, pads
    filter_ = rng.standard_normal((5, channels, kh, kw)).astype(np.float32)
    bias = rng.standard_normal(5).astype(np.float32)
    x = rng.standard_normal(shape).astype(np.float32)
    out_h, out_w = (height + top + bottom - kh) // 2 + 1, (width + left + right - kw) // 2 + 1
    original = _model([helper.make_node("Conv", ["x", "w", "b"], ["y"], strides=[2, 2], pads=list(pads))],
                      {"x": shape}, "y", {"w": filter_, "b": bias})
    far = (far_pad(height, out_h, kh, top), far_pad(width, out_w, kw, left))
    assert min(far) >= 0
    rewritten = _model([
        helper.make_node("Conv", ["x", "p", "zero"], ["s"], strides=[2, 2], pads=[top, left, *far]),
        helper.make_node("Conv", ["s", "w", "b"], ["y"])], {"x": shape}, "y",
        {"p": packing_filter(channels), "zero": np.zeros(4 * channels, np.float32),
         "w": regrouped_filter(filter_), "b": bias})
    expected = run_onnx(original, {"x": x})["y"]
    got = run_onnx(rewritten, {"x": x})["y"]
    assert got.shape == expected.shape == (shape[0], 5, out_h, out_w)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())


def _stem(seed: int = 0) -> onnx.ModelProto:
    """conv 7x7 stride 2 on 3 channels (32 filters, 2 channel tiles of 16) -> relu -> max pool 3x3 stride 2."""
    rng = np.random.default_rng(seed)
    weights = {"w": (rng.standard_normal((32, 3, 7, 7)) * np.sqrt(2 / 147)).astype(np.float32),
               "b": rng.uniform(-0.3, 0.3, 32).astype(np.float32)}
    return _model([helper.make_node("Conv", ["x", "w", "b"], ["c"], strides=[2, 2], pads=[3, 3, 3, 3]),
                   helper.make_node("Relu", ["c"], ["r"]),
                   helper.make_node("MaxPool", ["r"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
                  {"x": (1, 3, 40, 40)}, "y", weights)


@pytest.fixture(scope="module")
def compiled_stem(tmp_path_factory):
    directory = tmp_path_factory.mktemp("stem")
    onnx.save(_stem(), str(directory / "stem.onnx"))
    return compile_model(directory / "stem.onnx", "ultra96v2", directory / "out", samples=2, emit=("hir",))


def test_a_compiled_stem_is_rewritten_and_agrees_with_onnxruntime(compiled_stem):
    path = compiled_stem.outdir / "hir.mlir"
    hir = parse_module(path.read_text(), make_context(), str(path))
    kernels = [tuple(op.attributes["kernel"]) for op in body_ops(hir) if op.name == "hir.matmul"]
    assert kernels == [(2, 2), (4, 4)]
    assert compiled_stem.summary.accuracy.bit_exact
    samples = [{"x": np.random.default_rng(100 + k).random((1, 3, 40, 40), np.float32)} for k in range(3)]
    for sample, result in zip(samples, simulate_samples(compiled_stem.outdir / "model.tmodel", samples)):
        expected = run_onnx(_stem(), sample)["y"]
        assert cosine_similarity(result.outputs["y"], expected) >= 0.999


def test_the_stem_counts_the_original_multiplications_not_the_packed_ones(compiled_stem):
    """Between the original's MACs without its padding taps and with them plus the packing's one-hot lanes
    (3 per 2x2 kernel pixel of each of the 23 x 23 positions of S); the 4x4 filter on 12 channels would
    count 192 taps per output where the original has 147."""
    taps = np.array([[sum(0 <= 2 * o + k - 3 < 40 for k in range(7)) for o in range(20)]]).sum()  # rows (= columns)
    without_padding = 32 * 3 * int(taps) ** 2
    with_padding = 32 * 3 * 49 * 20 * 20
    assert without_padding <= compiled_stem.summary.macs <= with_padding + 3 * 4 * 23 * 23
