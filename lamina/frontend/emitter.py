"""Emitting the graph module: placeholders, one converter call per node, saves.

Every op created for a node carries `loc("<node name>")`; initializers become
`graph.constant` at their first use, named after the initializer.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import ShapeError
from lamina.dialects.model import create_model
from lamina.dialects.types import TensorSpec, UnsupportedType, spec_of

from .analysis import ModelAnalysis
from .node_view import NodeView
from .registry import CONVERTERS


class NodeEmitter(NodeView):
    """A node being converted: its inputs as IR values, and builders for graph ops."""

    def __init__(self, builder: "ModuleBuilder", index: int):
        super().__init__(builder.analysis, index)
        self._builder = builder

    @property
    def builder(self) -> "ModuleBuilder":
        """The builder emitting this node (subgraphs emit their regions through it)."""
        return self._builder

    def input(self, index: int) -> ir.Value:
        return self._builder.value(self.node.input[index])

    def inputs(self) -> list[ir.Value]:
        """The values of every given input, in order."""
        return [self._builder.value(name) for name in self.node.input if name]

    # -- building ------------------------------------------------------------

    @staticmethod
    def spec(value: ir.Value) -> TensorSpec:
        return spec_of(value.type)

    @staticmethod
    def emit(op_name: str, *operands: ir.Value, result_type: TensorSpec | None = None, **attrs) -> ir.Value:
        """Create `graph.<op_name>` and return its result; the type is inferred unless given."""
        result_types = None if result_type is None else [result_type]
        return GRAPH.create(op_name, *operands, result_types=result_types, **attrs).result

    def constant(self, array: np.ndarray) -> ir.Value:
        return self.emit("constant", value=np.asarray(array))

    def splat(self, spec: TensorSpec, value) -> ir.Value:
        return self.emit("splat", result_type=spec, value=value)

    def reshape(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        spec = self.spec(value)
        return value if spec.shape == tuple(shape) else self.emit("reshape", value, result_type=spec.with_shape(shape))

    def broadcast(self, value: ir.Value, shape: Sequence[int]) -> ir.Value:
        spec = self.spec(value)
        return value if spec.shape == tuple(shape) else self.emit("broadcast", value, result_type=spec.with_shape(shape))

    def broadcast_together(self, values: Sequence[ir.Value]) -> list[ir.Value]:
        """NumPy (multidirectional) broadcasting made explicit."""
        try:
            shape = np.broadcast_shapes(*(self.spec(v).shape for v in values))
        except ValueError:
            shown = ", ".join(str(self.spec(v)) for v in values)
            raise ShapeError(f"operands {shown} do not broadcast together") from None
        return [self.broadcast(v, shape) for v in values]

    def chain(self, op_name: str, values: Sequence[ir.Value], **attrs) -> ir.Value:
        """A variadic ONNX op as a left-to-right chain of binary graph ops; one value is an identity."""
        first, *rest = values
        if not rest:
            return self.emit("identity", first)
        result = first
        for value in rest:
            result = self.emit(op_name, result, value, **attrs)
        return result

    def transpose(self, value: ir.Value, perm: Sequence[int]) -> ir.Value:
        return self.emit("transpose", value, perm=list(perm))

    def convert(self, value: ir.Value, dtype) -> ir.Value:
        spec = self.spec(value)
        return value if spec.dtype == np.dtype(dtype) else self.emit("convert", value, result_type=spec.with_dtype(dtype))


class ModuleBuilder:
    """Builds the graph module of an analysed, supported model."""

    def __init__(self, analysis: ModelAnalysis, context: ir.Context):
        self.analysis = analysis
        self.context = context
        self._values: dict[str, ir.Value] = {}

    def build(self) -> ir.Operation:
        module, block = create_model(self.context, source=self.analysis.source)
        with self.context, ir.Location.unknown(), ir.InsertionPoint.at_block_terminator(block):
            for name in self.analysis.placeholders:
                self._values[name] = GRAPH.create("placeholder", result_types=[self.analysis.specs[name]], name=name,
                                                  loc=ir.Location.name(name)).result
            for index in range(len(self.analysis.nodes)):
                self._convert(NodeEmitter(self, index))
            for output in self.analysis.graph.output:
                GRAPH.create("save", self.value(output.name), name=output.name, loc=ir.Location.name(output.name))
        return module

    def value(self, name: str) -> ir.Value:
        """The IR value of ONNX value `name`; an initializer becomes a constant on first use."""
        if name not in self._values:
            value = self.analysis.constants[name]  # only initializers are not yet emitted here
            self._values[name] = GRAPH.create("constant", value=value, loc=ir.Location.name(name)).result
        return self._values[name]

    def _convert(self, node: NodeEmitter) -> None:
        with ir.Location.name(node.label):
            try:
                results = self._results(node)
            except (ShapeError, UnsupportedType) as error:
                raise LaminaError(f"{self.analysis.source}: node '{node.label}' ({node.op_type}): {error}") from None
        for index, name in enumerate(node.node.output):
            value = results[index] if index < len(results) else None
            if value is None:
                assert not node.output_used(index), f"{node.label}: converter produced no value for used '{name}'"
                continue
            expected = self.analysis.specs.get(name)
            if expected is not None and spec_of(value.type) != expected:
                raise LaminaError(f"{self.analysis.source}: node '{node.label}' ({node.op_type}): output '{name}' "
                                  f"is {spec_of(value.type)} but ONNX shape inference says {expected}")
            self._values[name] = value

    def _results(self, node: NodeEmitter) -> list[ir.Value | None]:
        converter = CONVERTERS.get(node.op_type)
        if converter is None:  # not convertible but fully known at compile time (see `support`)
            return [node.constant(self.analysis.constants[name]) if node.output_used(i) else None
                    for i, name in enumerate(node.node.output)]
        try:
            results = converter.convert(node)
        except LaminaError:
            raise
        except (ValueError, TypeError, IndexError, KeyError, ArithmeticError) as error:
            # A converter meeting attribute or constant values it does not expect (a Clip bound that is
            # not a scalar): name the node rather than show a traceback.
            raise LaminaError(f"{self.analysis.source}: node '{node.label}' ({node.op_type}): cannot convert: "
                              f"{str(error)[:200] or type(error).__name__}") from None
        return [results] if isinstance(results, ir.Value) else list(results)
