"""ResNet20v2 for CIFAR-10 as ONNX: the network of Tensil's published ZCU104 compile.

The Keras `resnet_v2` of the Keras CIFAR-10 ResNet example at depth 20: a
3x3 stem of 16 filters with batch norm and ReLU, then 3 stages of
(20 - 2) / 9 = 2 pre-activation bottleneck blocks (batch norm, ReLU, 1x1
conv; batch norm, ReLU, 3x3 conv; batch norm, ReLU, 1x1 conv; the first
block of stage 0 has no batch norm and ReLU in front, and the first block
of every stage adds a 1x1 projection of its input) of 16 -> 64,
64 -> 128 (stride 2) and 128 -> 256 (stride 2) filters; then batch norm,
ReLU, an 8x8 average pool and a 10-way dense layer. Keras' softmax is left
out (the classes are the logits' argmax; in Lamina it would be a host op).
Weights are `ConstantOfShape` placeholders for `randomize_weights`
(`lamina/frontend/random_weights.py`), so no weights are stored.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lamina.target.tcu.architecture import Architecture, load_architecture

TENSIL_TRUE_MACS = 61_476_000  # Tensil's summary: 61.476 MMAC (tensil-facts §5.3), printed to 3 decimals
TENSIL_CYCLES = 291_904  # Tensil's summary on zcu104_uram, aggregate latency (tensil-facts §5.3)
STAGE_FILTERS = ((16, 64, 1), (64, 128, 2), (128, 256, 2))  # (bottleneck width, block output, first stride)
BLOCKS_PER_STAGE = (20 - 2) // 9


class _Builder:
    """ONNX nodes, with weights as ConstantOfShape placeholders for `randomize_weights`."""

    def __init__(self):
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, kind: str) -> str:
        self.count += 1
        return f"{kind}_{self.count}"

    def weight(self, shape: tuple[int, ...]) -> str:
        shape_name, output = self.name("shape"), self.name("w")
        self.initializers.append(numpy_helper.from_array(np.array(shape, np.int64), shape_name))
        self.nodes.append(helper.make_node("ConstantOfShape", [shape_name], [output], name=self.name("const"),
                                           value=helper.make_tensor("value", TensorProto.FLOAT, [1], [0.02])))
        return output

    def conv(self, x: str, cin: int, cout: int, kernel: int, stride: int = 1) -> str:
        output, pad = self.name("conv"), kernel // 2
        self.nodes.append(helper.make_node("Conv", [x, self.weight((cout, cin, kernel, kernel)), self.weight((cout,))],
                                           [output], name=output, kernel_shape=[kernel, kernel],
                                           strides=[stride, stride], pads=[pad] * 4))
        return output

    def batch_norm_relu(self, x: str, channels: int) -> str:
        parameters = []
        for role in ("scale", "bias", "mean", "var"):
            name = self.name(role)
            self.initializers.append(numpy_helper.from_array(np.ones(channels, np.float32), name))
            parameters.append(name)
        normalized, output = self.name("bn"), self.name("relu")
        self.nodes.append(helper.make_node("BatchNormalization", [x, *parameters], [normalized], name=normalized,
                                           epsilon=1e-3))
        self.nodes.append(helper.make_node("Relu", [normalized], [output], name=output))
        return output

    def add(self, a: str, b: str) -> str:
        output = self.name("add")
        self.nodes.append(helper.make_node("Add", [a, b], [output], name=output))
        return output


def resnet20v2() -> onnx.ModelProto:
    """Keras resnet_v2 at depth 20 for 32x32x3 CIFAR-10 images, as ONNX (module docstring)."""
    b = _Builder()
    x = b.batch_norm_relu(b.conv("x", 3, 16, 3), 16)
    channels = 16
    for stage, (width, out, first_stride) in enumerate(STAGE_FILTERS):
        for block in range(BLOCKS_PER_STAGE):
            first = block == 0
            stride = first_stride if first else 1
            y = x if stage == 0 and first else b.batch_norm_relu(x, channels)  # Keras: no BN/ReLU there
            y = b.conv(y, channels, width, 1, stride)
            y = b.conv(b.batch_norm_relu(y, width), width, width, 3)
            y = b.conv(b.batch_norm_relu(y, width), width, out, 1)
            shortcut = b.conv(x, channels, out, 1, stride) if first else x
            x = b.add(shortcut, y)
            channels = out
    x = b.batch_norm_relu(x, channels)
    pooled, flat, logits = b.name("pool"), b.name("flatten"), "logits"
    b.nodes.append(helper.make_node("AveragePool", [x], [pooled], name=pooled, kernel_shape=[8, 8]))
    b.nodes.append(helper.make_node("Flatten", [pooled], [flat], name=flat))
    b.nodes.append(helper.make_node("Gemm", [flat, b.weight((10, channels)), b.weight((10,))], [logits],
                                    name="dense", transB=1))
    graph = helper.make_graph(b.nodes, "resnet20v2", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                     [1, 3, 32, 32])],
                              [helper.make_tensor_value_info(logits, TensorProto.FLOAT, [1, 10])], b.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    return model


def zcu104_uram() -> Architecture:
    """Tensil's zcu104_uram.tarch (tensil-facts §1.2): zcu104 with 49,152 local and 20,480 accumulator vectors."""
    return replace(load_architecture("zcu104"), name="zcu104_uram", local_depth=49_152, accumulator_depth=20_480)


