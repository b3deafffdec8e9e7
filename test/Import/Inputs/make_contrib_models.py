"""Write a small model with an onnxruntime com.microsoft QOperator op (contrib-quantized.mlir)."""

import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def qlinear_add(channels_last: int | None = None) -> onnx.ModelProto:
    """QuantizeLinear(x), QuantizeLinear(z) -> QLinearAdd (or QLinearGlobalAveragePool of x) -> DequantizeLinear."""
    params = {"s": np.float32(0.02), "zp": np.int8(3), "t": np.float32(0.03), "zt": np.int8(-5),
              "ys": np.float32(0.05), "yz": np.int8(0)}
    if channels_last is None:
        op = helper.make_node("QLinearAdd", ["xq", "s", "zp", "zq", "t", "zt", "ys", "yz"], ["yq"], name="add",
                              domain="com.microsoft")
    else:
        op = helper.make_node("QLinearGlobalAveragePool", ["xq", "s", "zp", "ys", "yz"], ["yq"], name="gap",
                              domain="com.microsoft", channels_last=channels_last)
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["xq"], name="qx"),
             helper.make_node("QuantizeLinear", ["z", "t", "zt"], ["zq"], name="qz"), op,
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dqy")]
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 2, 2, 2]) for name in ("x", "z")]
    graph = helper.make_graph(nodes, "contrib", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(np.asarray(value), name) for name, value in params.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])


MODELS = {"add": qlinear_add, "nhwc": lambda: qlinear_add(channels_last=1)}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in MODELS:
        sys.exit(f"usage: make_contrib_models.py {{{','.join(MODELS)}}} OUT.onnx")
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
