"""Writes the small ONNX models the lit tests in test/Import import.

Usage: make_models.py NAME OUT.onnx, NAME one of the functions in MODELS.
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

node = helper.make_node
RNG = np.random.default_rng(0)


def _model(nodes, inputs, outputs, initializers=(), opset=17, domains=()):
    graph = helper.make_graph(
        nodes, "lit",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name, shape in inputs],
        [helper.make_empty_tensor_value_info(name) for name in outputs],
        [numpy_helper.from_array(np.asarray(value), name) for name, value in initializers],
    )
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(domain, 1) for domain in domains]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _weights(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def conv():
    """A named Conv with SAME_UPPER padding and no bias, then an unnamed Relu."""
    return _model([node("Conv", ["x", "w"], ["c"], name="conv1", auto_pad="SAME_UPPER", strides=[2, 2]),
                   node("Relu", ["c"], ["y"])],
                  [("x", [1, 3, 8, 8])], ["y"], [("w", _weights(4, 3, 3, 3))])


def gemm():
    """Gemm as a fully-connected layer (transB), and one that is not (alpha)."""
    return _model([node("Gemm", ["x", "w", "b"], ["fc"], name="fc", transB=1),
                   node("Gemm", ["fc", "v"], ["y"], name="scaled", alpha=0.5)],
                  [("x", [2, 8])], ["y"], [("w", _weights(4, 8)), ("b", _weights(4)), ("v", _weights(4, 3))])


def elementwise():
    """Broadcasting Add, a variadic Sum and a three-input Concat."""
    return _model([node("Add", ["a", "b"], ["s"], name="add"),
                   node("Sum", ["s", "a", "b"], ["t"], name="sum"),
                   node("Concat", ["t", "s", "a"], ["y"], name="concat", axis=-1)],
                  [("a", [3, 1]), ("b", [4])], ["y"])


def softmax_opset9():
    """Opset 9 Softmax on a 3-D tensor: coerced to 2-D."""
    return _model([node("Softmax", ["x"], ["y"], name="softmax", axis=1)], [("x", [2, 3, 4])], ["y"], opset=9)


def shape_ops():
    """Shape, ConstantOfShape and a Reshape whose target is computed from the input's shape."""
    return _model([node("Shape", ["x"], ["shape"], name="shape"),
                   node("ConstantOfShape", ["shape"], ["ones"], name="ones",
                        value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
                   node("Add", ["x", "ones"], ["sum"], name="add"),
                   node("ReduceProd", ["shape"], ["count"], name="count", keepdims=1),
                   node("Reshape", ["sum", "count"], ["y"], name="flatten")],
                  [("x", [2, 3])], ["y"], opset=13)


def unsupported():
    """Three nodes Lamina cannot import, and one that only follows from them."""
    return _model([node("Unique", ["x"], ["u"], name="unique"),
                   node("Relu", ["u"], ["r"], name="after_unique"),
                   node("Resize", ["x", "", "s"], ["z"], name="bilinear", mode="linear",
                        coordinate_transformation_mode="tf_crop_and_resize"),
                   node("Custom", ["x"], ["c"], name="custom", domain="com.example")],
                  [("x", [1, 1, 2, 2])], ["r", "z", "c"], [("s", np.array([1, 1, 2, 2], np.float32))],
                  domains=["com.example"])


def dynamic():
    """An input with a symbolic batch dimension."""
    model = _model([node("Relu", ["x"], ["y"])], [("x", [1, 3])], ["y"])
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
    return model


MODELS = {f.__name__: f for f in (conv, gemm, elementwise, softmax_opset9, shape_ops, unsupported, dynamic)}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit(f"usage: make_models.py {{{','.join(MODELS)}}} OUT.onnx")
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
