"""Small float CNNs and their onnxruntime `quantize_static` QDQ versions, built by the tests (no stored weights)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnx.version_converter
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.quantization.profile import write_profile
from lamina.runtime.profiler import profile_graph


def float_cnn(seed: int = 0) -> onnx.ModelProto:
    """conv 3x3 + relu + maxpool + conv 1x1 + relu + global average pool + gemm: He-scaled so activations stay O(1)."""
    rng = np.random.default_rng(seed)

    def he(*shape):
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    weights = {
        "w1": he(8, 3, 3, 3), "b1": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "w2": he(16, 8, 1, 1), "b2": (rng.standard_normal(16) * 0.1).astype(np.float32),
        "w3": he(10, 16).T.copy(), "b3": (rng.standard_normal(10) * 0.1).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2"),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc"),
    ]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(array, name) for name, array in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def float_conv_matmul(seed: int = 0) -> onnx.ModelProto:
    """conv 3x3 + relu + maxpool + conv 1x1, flattened, times a constant matrix: what onnxruntime's
    QOperator format writes with standard ops only (QLinearConv, QLinearMatMul)."""
    rng = np.random.default_rng(seed)
    weights = {
        "w1": (rng.standard_normal((8, 3, 3, 3)) * np.sqrt(2 / 27)).astype(np.float32),
        "b1": (rng.standard_normal(8) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((4, 8, 1, 1)) * np.sqrt(2 / 8)).astype(np.float32),
        "b2": (rng.standard_normal(4) * 0.1).astype(np.float32),
        "shape": np.array([1, 256], np.int64),
        "m": (rng.standard_normal((256, 10)) * np.sqrt(1 / 256)).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2"),
        helper.make_node("Reshape", ["c2", "shape"], ["f"], name="flatten"),
        helper.make_node("MatMul", ["f", "m"], ["y"], name="matmul"),
    ]
    graph = helper.make_graph(
        nodes, "conv_matmul", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [numpy_helper.from_array(array, name) for name, array in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def calibration_inputs(count: int, seed: int = 1) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [{"x": rng.random((1, 3, 16, 16), dtype=np.float32)} for _ in range(count)]


def quantize_model(model: onnx.ModelProto, directory: Path, per_channel: bool,
                   samples: list[dict[str, np.ndarray]], operators: bool = False) -> Path:
    """`model` quantized by onnxruntime's quantize_static, int8 activations and weights, in QDQ format
    (or QOperator's QLinear* ops with `operators`)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.remaining = iter(samples)

        def get_next(self):
            return next(self.remaining, None)

    float_path = directory / "float.onnx"
    quantized_path = directory / f"{'qop' if operators else 'qdq'}_{per_channel}.onnx"
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    if opset < 13:  # per-axis DequantizeLinear needs opset 13
        model = onnx.version_converter.convert_version(model, 13)
    onnx.save(model, float_path)
    quantize_static(str(float_path), str(quantized_path), Reader(),
                    quant_format=QuantFormat.QOperator if operators else QuantFormat.QDQ,
                    per_channel=per_channel, activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    return quantized_path


def output_step(model: onnx.ModelProto) -> float:
    """The scale of the DequantizeLinear producing the model's output: one quantization step."""
    producer = next(n for n in model.graph.node if n.output[0] == model.graph.output[0].name)
    scale = next(i for i in model.graph.initializer if i.name == producer.input[1])
    return float(numpy_helper.to_array(scale))


def graph_quantized_cnn(tmp_path, options: str):
    """float_cnn optimized, profiled on 16 samples and quantized with `options`."""
    context = make_context()
    module = import_model(float_cnn(), context)
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference})")
    text = print_module(module, debug_info=True)
    write_profile(profile_graph(module, calibration_inputs(16)), tmp_path / "p.yaml")
    quantized = parse_module(text, context, "cnn.mlir")
    run_pipeline(quantized, f"builtin.module(graph-quantize{{profile={tmp_path / 'p.yaml'} {options}}})")
    return quantized
