"""HIR emission of the linear family: fully_connected and matmul, a 1x1 matmul layer over a matrix.

A flatten (a reshape placed, not computed) feeding the layer is fused: the
layer reads the image and its kernel covers the whole image.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.values import constant_view, defining_op, op_name

from .emit import HirEmitter, Temps
from .graph_values import flattened_image
from .rules import MATMUL, rule
from .weights import fully_connected_filter


@rule("fully_connected", "matmul", form=MATMUL)
def emit_linear(emitter: HirEmitter, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
    source = op.operands[0]
    window = {"kernel": (1, 1), "strides": (1, 1), "pads": (0, 0, 0, 0), "dilations": (1, 1)}
    flatten = defining_op(source)
    image = flattened_image(source) if emitter.is_placement(flatten, "reshape") else None
    if image:  # flatten -> fully-connected, fused
        source = flatten.operands[0]
        window["kernel"] = image[1:]

    def filter_and_bias() -> tuple[np.ndarray, np.ndarray]:
        weights = constant_view(op.operands[1])
        bias = constant_view(op.operands[2]) if op_name(op) == "fully_connected" else np.zeros(weights.shape[1])
        return (fully_connected_filter(weights, image) if image else fully_connected_filter(weights)), bias

    emitter.matmul(op, source, window, image, temps, filter_and_bias)
