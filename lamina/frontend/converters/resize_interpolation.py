"""Linear and cubic Resize as matmuls with constant interpolation matrices, one per resized axis.

ONNX's linear and cubic modes (every coordinate transformation but
tf_crop_and_resize, `cubic_coeff_a`, `exclude_outside`, `antialias`) are
separable and linear in the data: resizing axis k is `W @ x` along k for an
(out x in) matrix W. W is computed at import by ONNX's reference
implementation resizing the identity matrix along its first axis, so it
follows the standard exactly; the graph then holds matmuls, which run
everywhere (and map onto a matmul unit) instead of a new interpolation op.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from onnx import helper
from onnx.reference import ReferenceEvaluator

from ..emitter import NodeEmitter

# Attributes of the Resize node that shape the interpolation weights.
_WEIGHT_ATTRIBUTES = ("mode", "coordinate_transformation_mode", "cubic_coeff_a", "exclude_outside", "antialias")


def interpolation_matrix(n: NodeEmitter, size: int, scale: float | None, target: int | None) -> np.ndarray:
    """The (out x in) matrix resizing an axis of `size` by `scale` (or to `target`), with `n`'s attributes."""
    attributes = {name: n.attr(name) for name in _WEIGHT_ATTRIBUTES if n.attr(name) is not None}
    if n.opset < 11:  # Resize-10 is Resize-11's asymmetric mode
        attributes["coordinate_transformation_mode"] = "asymmetric"
    identity = np.eye(size, dtype=np.float32)
    if target is None:
        node = helper.make_node("Resize", ["x", "roi", "scales"], ["y"], **attributes)
        feeds = {"x": identity, "roi": np.zeros(0, np.float32), "scales": np.array([scale, 1.0], np.float32)}
    else:
        node = helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], **attributes)
        feeds = {"x": identity, "roi": np.zeros(0, np.float32), "scales": np.zeros(0, np.float32),
                 "sizes": np.array([target, size], np.int64)}
    (weights,) = ReferenceEvaluator(node, opsets={"": max(n.opset, 11)}).run(None, feeds)
    return np.asarray(weights, np.float32)


def resize_by_matmuls(n: NodeEmitter, data: ir.Value, matrices: dict[int, np.ndarray]) -> ir.Value:
    """`data` with each axis in `matrices` contracted with its (out x in) matrix."""
    for axis, weights in matrices.items():
        rank = n.spec(data).rank
        if axis == rank - 1:
            data = n.emit("matmul", data, n.constant(weights.T.copy()))
        elif axis == rank - 2:
            data = n.emit("matmul", n.constant(weights), data)
        else:
            order = [d for d in range(rank) if d != axis] + [axis]
            moved = n.emit("matmul", n.transpose(data, order), n.constant(weights.T.copy()))
            data = n.transpose(moved, list(np.argsort(order)))
    return data
