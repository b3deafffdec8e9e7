"""Models and checks shared by the accelerator end-to-end tests.

`small_cnn` is the smallest model exercising every accelerator layer kind and
the host fallback: conv + relu (a matmul layer), max pool (a pool layer),
flatten + gemm (a fully-connected matmul over the whole image) and softmax
(which the array cannot compute: a host segment).

The reference (docs/accelerator.md, Results): the graph interpreter on the
optimized graph whose float constants and inputs are first rounded to the
data type (`quantized_reference`). Rounding the weights is a property of the
data type, not an error of the compiler: with FP16BP8, He-normal weights of
a 3x3x512 convolution (sigma 0.021) are only ~5 LSBs wide, so every layer
adds about 5% relative noise (ResNet-50's logits move by up to 13% of their
range; `benchmarks/results/accelerator.md` reports that error too). Against
the rounded-weights reference what is left is the accelerator's own
arithmetic: one rounding per array pass and SIMD multiply, saturation.
Outputs must agree within `ABSOLUTE_LSBS` LSBs plus `RELATIVE` of the
reference's largest magnitude, and a classifier's top-1 class must match. A
softmax of another output (probabilities the host computes from the
accelerator's logits) is held to what the logits' error implies instead:
softmax's Jacobian diag(p) - p p^T has infinity norm max 2 p_i (1 - p_i) <=
1/2, so |probabilities error| <= 1/2 |logits error| (near-tied logits turn
an error well inside the logits' tolerance into a larger share of a
probability).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from mlir import ir
from onnx import TensorProto, helper, numpy_helper

from lamina.target.tcu.fixed_point import DataType
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.model import body_ops
from lamina.runtime import graph_interpreter

ABSOLUTE_LSBS = 8
RELATIVE = 0.02


def small_cnn(seed: int = 0, channels: int = 8, size: int = 8, classes: int = 10) -> onnx.ModelProto:
    """input (1, 3, size, size) -> conv 3x3 pad 1 -> relu -> maxpool 2x2 -> flatten -> gemm -> softmax."""
    rng = np.random.default_rng(seed)
    features = channels * (size // 2) ** 2

    def he(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)

    weights = {
        "conv_w": he(channels, 3, 3, 3),
        "conv_b": rng.uniform(-0.5, 0.5, channels).astype(np.float32),
        "fc_w": he(classes, features),
        "fc_b": rng.uniform(-0.5, 0.5, classes).astype(np.float32),
    }
    nodes = [
        helper.make_node("Conv", ["input", "conv_w", "conv_b"], ["conv"], name="conv", pads=[1, 1, 1, 1],
                         kernel_shape=[3, 3]),
        helper.make_node("Relu", ["conv"], ["relu"], name="relu"),
        helper.make_node("MaxPool", ["relu"], ["pool"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool"], ["flat"], name="flatten", axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["prob"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, classes])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def quantized_reference(optimized_graph: Path, inputs: dict[str, np.ndarray],
                        data_type: DataType) -> dict[str, np.ndarray]:
    """Graph-interpreter outputs of an optimized graph module's file (its weights file beside it),
    constants and inputs rounded to `data_type`."""
    context = make_context()
    module = parse_module(optimized_graph.read_text(), context, str(optimized_graph))
    with context:
        for op in body_ops(module):
            if op.name == "graph.constant":
                value = np.array(op.attributes["value"])
                if value.dtype == np.float32:
                    rounded = data_type.to_float(data_type.from_float(value))
                    op.attributes["value"] = ir.DenseElementsAttr.get(rounded, type=op.results[0].type)
    rounded_inputs = {name: data_type.to_float(data_type.from_float(value)) for name, value in inputs.items()}
    return graph_interpreter.run(module, rounded_inputs)


def tolerance(reference: np.ndarray, data_type: DataType) -> float:
    """The largest accepted |accelerator - reference| for one output (module docstring)."""
    return ABSOLUTE_LSBS * data_type.lsb + RELATIVE * float(np.abs(reference).max())


def softmax_inputs(model: onnx.ModelProto) -> dict[str, str]:
    """Model outputs computed by a Softmax of another model output: {probabilities: logits}."""
    outputs = {output.name for output in model.graph.output}
    return {node.output[0]: node.input[0] for node in model.graph.node
            if node.op_type == "Softmax" and node.output[0] in outputs and node.input[0] in outputs}


def _error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(got.astype(np.float64) - expected).max())


def assert_matches_reference(actual: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                             data_type: DataType, softmax_of: dict[str, str] | None = None) -> None:
    """Same outputs, each within `tolerance` (a softmax of another output: within half that one's error),
    and the same top-1 class for classifier outputs."""
    assert actual.keys() == reference.keys()
    softmax_of = softmax_of or {}
    for name, expected in reference.items():
        got = actual[name]
        assert got.shape == expected.shape, name
        error = _error(got, expected)
        if name in softmax_of:
            logits = softmax_of[name]
            bound = 0.5 * _error(actual[logits], reference[logits]) + 1e-6
        else:
            bound = tolerance(expected, data_type)
        assert error <= bound, (name, error, bound)
        per_item = expected.reshape(expected.shape[0], -1)
        if per_item.shape[1] > 1:  # a classifier's scores: the same class wins
            assert (got.reshape(per_item.shape).argmax(axis=1) == per_item.argmax(axis=1)).all(), name
