"""Nodes whose value is known at compile time: Constant, ConstantOfShape, Shape, Size.

They still become graph ops (a constant or a splat); removing what nothing
reads is the optimizer's job.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from lamina.dialects.types import TensorSpec

from ..analysis import constant_node_value
from ..dtypes import UnsupportedElementType, tensor_value
from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter


def _known_output(n: NodeEmitter):
    """The node's output, computed by the analysis, as a constant."""
    return n.constant(n.analysis.constants[n.node.output[0]])


def _check_constant(view: NodeView) -> Iterable[str]:
    try:
        constant_node_value(view.node)
    except UnsupportedElementType as error:
        yield str(error)


SHAPE_NOTE = "A `graph.constant` of i64: the input's shape is static."

converter("Constant", graph_ops=("constant",), check=_check_constant,
          notes="Every `value*` form except strings and `sparse_value`.")(_known_output)
converter("Shape", graph_ops=("constant",), notes=f"`start` and `end`. {SHAPE_NOTE}")(_known_output)
converter("Size", graph_ops=("constant",), notes=SHAPE_NOTE)(_known_output)


@converter("ConstantOfShape", graph_ops=("splat",), static_inputs={0: "shape"},
           notes="A `graph.splat` of the `value` attribute (default f32 0).")
def convert_constant_of_shape(n: NodeEmitter):
    value = n.attr("value")
    fill = np.zeros(1, np.float32) if value is None else tensor_value(value).reshape(-1)
    return n.splat(TensorSpec(tuple(n.static_ints(0)), fill.dtype), fill[0].item())


converter("Range", graph_ops=("constant",), static_inputs={0: "start", 1: "limit", 2: "delta"},
          notes="Constant `start`, `limit` and `delta` (the result's length depends on them): a `graph.constant`."
          )(_known_output)


@converter("EyeLike", graph_ops=("constant",),
           notes="`k`, `dtype`: a `graph.constant` (only the input's static shape is read).")
def convert_eye_like(n: NodeEmitter):
    rows, columns = n.input_spec(0).shape
    return n.constant(np.eye(rows, columns, k=n.attr("k", 0), dtype=n.output_spec(0).dtype))
