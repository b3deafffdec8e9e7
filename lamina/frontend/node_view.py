"""Read access to one ONNX node: attributes, input/output types, compile-time values.

Support checks receive a `NodeView`; converters receive its subclass
`NodeEmitter`, so both read a node the same way.
"""

from __future__ import annotations

import numpy as np
import onnx

from lamina.dialects.types import TensorSpec

from .analysis import ModelAnalysis


class NodeView:
    """One node of an analysed model."""

    def __init__(self, analysis: ModelAnalysis, index: int):
        self.analysis = analysis
        self.index = index
        self.node: onnx.NodeProto = analysis.nodes[index]
        self.label = analysis.labels[index]

    @property
    def op_type(self) -> str:
        return self.node.op_type

    @property
    def opset(self) -> int:
        return self.analysis.opset

    def attr(self, name: str, default=None):
        """An attribute as a Python value (strings decoded, lists as lists), or `default`."""
        for attribute in self.node.attribute:
            if attribute.name == name:
                value = onnx.helper.get_attribute_value(attribute)
                if isinstance(value, bytes):
                    return value.decode("utf-8")
                return list(value) if isinstance(value, (list, tuple)) else value
        return default

    # -- inputs --------------------------------------------------------------

    def has_input(self, index: int) -> bool:
        """Whether optional input `index` is given (ONNX leaves absent ones empty)."""
        return index < len(self.node.input) and self.node.input[index] != ""

    def input_name(self, index: int) -> str:
        return self.node.input[index]

    def input_spec(self, index: int) -> TensorSpec | None:
        return self.analysis.specs.get(self.node.input[index]) if self.has_input(index) else None

    def static(self, index: int) -> np.ndarray | None:
        """The compile-time value of input `index`, or None when absent or not known."""
        return self.analysis.constants.get(self.node.input[index]) if self.has_input(index) else None

    def static_ints(self, index: int) -> list[int] | None:
        value = self.static(index)
        return None if value is None else [int(v) for v in value.reshape(-1)]

    def attr_or_input(self, name: str, index: int) -> list[int] | None:
        """Integers that older opsets give as attribute `name` and newer ones as input `index`."""
        value = self.attr(name)
        return [int(v) for v in value] if value is not None else self.static_ints(index)

    # -- outputs -------------------------------------------------------------

    @property
    def output_count(self) -> int:
        return len(self.node.output)

    def output_spec(self, index: int) -> TensorSpec | None:
        return self.analysis.specs.get(self.node.output[index])

    def output_used(self, index: int) -> bool:
        """Whether output `index` exists and some node or graph output reads it."""
        return index < len(self.node.output) and self.node.output[index] in self.analysis.used
