"""Graph inputs whose values decide shapes, and binding them to values.

Lamina's graph level is static: a Reshape's shape, a Squeeze's axes or a
Pad's pads must be known when the model is imported. When such an operand is
computed from a graph input (ONNX's node tests feed `axes` as an input), a
caller that has the input's value can bind it: the input becomes an
initializer and the model is specialized for that value, as a JIT would
specialize on it. `lamina/runtime/onnx_backend.py` does this at run time.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import onnx
from onnx import numpy_helper

from .function_expansion import MAX_EXPANSION_ROUNDS, expand_functions
from .registry import CONVERTERS
from .static_shapes import graph_inputs, infer_shapes

# Operators that read only their input's shape, never its values.
_SHAPE_READERS = frozenset({"Shape", "Size"})


def value_inputs(model: onnx.ModelProto) -> list[str]:
    """Graph inputs that a converter's compile-time operand (shape, axes, pads, ...) or bindable one (a Loop's
    trip count) is computed from, looking through the function bodies of operators without a converter
    (ReduceSumSquare's axes are its body's ReduceSum axes)."""
    nodes = _expanded_nodes(model)
    producers = {name: node for node in nodes for name in node.output if name}
    wanted = [node.input[index] for node in nodes if node.op_type in CONVERTERS
              for index in (*CONVERTERS[node.op_type].static_inputs, *CONVERTERS[node.op_type].bindable_inputs)
              if index < len(node.input) and node.input[index]]
    seen: set[str] = set()
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        producer = producers.get(name)
        if producer is not None and producer.op_type not in _SHAPE_READERS:
            wanted.extend(value for value in producer.input if value)
    return [value.name for value in graph_inputs(model.graph)
            if value.name in seen and value.type.HasField("tensor_type")]  # a sequence cannot be bound


def _expanded_nodes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    """The model's nodes with every operator lacking a converter replaced by its function body, as far as
    the bodies expand without compile-time values."""
    expanded = model
    for _ in range(MAX_EXPANSION_ROUNDS):
        try:
            more = expand_functions(infer_shapes(expanded)[0], CONVERTERS, known=())
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError):
            break  # the importer reports why; binding stays as the unexpanded nodes say
        if more is None:
            break
        expanded = more
    return list(expanded.graph.node)


def bind_inputs(model: onnx.ModelProto, values: Mapping[str, np.ndarray]) -> onnx.ModelProto:
    """A copy of `model` in which each input named in `values` is an initializer holding that value."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    kept = [value for value in copy.graph.input if value.name not in values]
    del copy.graph.input[:]
    copy.graph.input.extend(kept)
    copy.graph.initializer.extend(numpy_helper.from_array(np.asarray(array), name) for name, array in values.items())
    return copy
