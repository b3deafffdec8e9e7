"""Importing an ONNX subgraph (If branches, Loop and Scan bodies) into a region.

A subgraph is analysed as a model of its own: its inputs get the static
types the enclosing op gives them, and every value it reads from an
enclosing graph (an outer-scope reference) becomes one more input of that
model, or an initializer when its value is known at compile time, so shape
inference and folding see it. When emitted, the region uses the enclosing
graph's IR value for each outer-scope reference directly: MLIR regions see
the values that dominate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import onnx
from mlir import ir
from onnx import helper, numpy_helper
from onnx.helper import np_dtype_to_tensor_dtype as onnx_type_code

from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph_control_flow import create_yield
from lamina.dialects.irdl import ShapeError
from lamina.dialects.types import TensorSpec

from .analysis import LoopIteration, ModelAnalysis, outer_references
from .emitter import ModuleBuilder, NodeEmitter
from .node_view import NodeView
from .registry import CONVERTERS
from .static_shapes import infer_shapes
from .support import find_unsupported


@dataclass
class Subgraph:
    """One graph attribute of a node, analysed with its arguments' types."""

    attribute: str
    analysis: ModelAnalysis
    outer: list[str]  # outer-scope names it reads, in first-use order

    @property
    def output_names(self) -> list[str]:
        return [value.name for value in self.analysis.graph.output]

    def output_specs(self) -> list[TensorSpec | None]:
        return [self.analysis.specs.get(name) for name in self.output_names]

    def problems(self) -> list[str]:
        return [f"{self.attribute}: {problem}" for problem in find_unsupported(self.analysis)]


def subgraph(view: NodeView, attribute: str, arguments: list[TensorSpec], trip_count: int | None = None,
             initial: list | None = None) -> Subgraph:
    """Analyse `view`'s graph attribute `attribute` whose inputs have the types `arguments`.

    `trip_count`: a Loop body's compile-time trip count; its first input is then the iteration number,
    which takes the values 0 .. trip_count - 1 (`iteration_values`). `initial`: the compile-time values
    (None: unknown) of its carried values before the first iteration.

    Raises ShapeError when it reads a value no enclosing graph defines or
    does not take exactly `len(arguments)` inputs.
    """
    from .onnx_importer import analyze_model  # the importer imports the converters, which import this

    graph: onnx.GraphProto = view.attr(attribute)
    if len(graph.input) != len(arguments):
        raise ShapeError(f"{attribute} takes {len(graph.input)} inputs, the node gives it {len(arguments)}")
    parent = view.analysis
    visible = _visible_names(view)
    outer = outer_references(graph)
    undefined = [name for name in outer if name not in visible]
    if undefined:
        raise ShapeError(f"{attribute} reads '{undefined[0]}', which no enclosing graph defines before this node")
    unknown = [name for name in outer if name not in parent.specs]
    if unknown:
        raise ShapeError(f"{attribute} reads '{unknown[0]}', whose shape is unknown")
    copy = onnx.GraphProto()
    copy.CopyFrom(graph)
    for value, spec in zip(copy.input, arguments):
        value.type.CopyFrom(helper.make_tensor_type_proto(onnx_type_code(spec.dtype), spec.shape))
    for name in outer:
        if name in parent.constants:
            copy.initializer.append(numpy_helper.from_array(parent.constants[name], name))
        else:
            spec = parent.specs[name]
            copy.input.append(helper.make_tensor_value_info(name, onnx_type_code(spec.dtype), spec.shape))
    model = helper.make_model(copy, opset_imports=list(parent.model.opset_import))
    model.ir_version = parent.model.ir_version
    source = f"{parent.source}: node '{view.label}' ({view.op_type}) {attribute}"
    carried = tuple((copy.input[2 + i].name, value, copy.output[1 + i].name)
                    for i, value in enumerate(initial or []) if value is not None)
    iteration = None if trip_count is None else LoopIteration(copy.input[0].name, trip_count, carried)
    return Subgraph(attribute, analyze_model(model, source, iteration), outer)


def _visible_names(view: NodeView) -> set[str]:
    """Values defined before `view`'s node in its graph and the graphs enclosing it."""
    analysis = view.analysis
    names = set(analysis.placeholders) | analysis.initializers
    for node in analysis.nodes[:view.index]:
        names.update(name for name in node.output if name)
    return names


class RegionBuilder(ModuleBuilder):
    """Emits a subgraph into a region's block; outer-scope names resolve in the enclosing builder."""

    def __init__(self, part: Subgraph, parent: ModuleBuilder, arguments: dict[str, ir.Value]):
        super().__init__(part.analysis, parent.context)
        self._parent = parent
        self._outer = set(part.outer)
        self._values.update(arguments)

    def value(self, name: str) -> ir.Value:
        if name in self._outer and name not in self._values:
            return self._parent.value(name)
        return super().value(name)

    def emit(self, block: ir.Block, adjust=None) -> None:
        """The subgraph's nodes into `block`, then the yield of its outputs (each through `adjust`)."""
        with ir.InsertionPoint(block):
            for index in range(len(self.analysis.nodes)):
                self._convert(NodeEmitter(self, index))
            outputs = [self.value(name) for name in (value.name for value in self.analysis.graph.output)]
            create_yield([adjust(i, v) if adjust else v for i, v in enumerate(outputs)])


def emit_region(node: NodeEmitter, region: ir.Region, part: Subgraph, argument_specs: list[TensorSpec],
                adjust=None) -> None:
    """Fill `region` with `part`, whose block takes arguments of `argument_specs`."""
    from lamina.dialects.types import to_mlir

    block = region.blocks.append(*[to_mlir(spec) for spec in argument_specs])
    names = [value.name for value in part.analysis.graph.input[:len(argument_specs)]]
    RegionBuilder(part, node.builder, dict(zip(names, block.arguments))).emit(block, adjust)


def materialize_outer(node: NodeEmitter, parts: list[Subgraph]) -> None:
    """Create, before the op, the IR values of the outer names its regions read (initializers among them)."""
    for part in parts:
        for name in part.outer:
            node.builder.value(name)


def refine_control_flow(model: onnx.ModelProto, analysis: ModelAnalysis) -> tuple[onnx.ModelProto, str | None] | None:
    """Shape inference again, with the output types ONNX left unknown that converters derive
    (`Converter.output_specs`: control flow, a Slice at a loop's iteration number).

    Returns None when no node has an output type to add.
    """
    learned = {}
    for index, node in enumerate(analysis.nodes):
        unknown = [name for name in node.output if name and name not in analysis.specs]
        converter = CONVERTERS.get(node.op_type)
        if converter is None or converter.output_specs is None or not unknown:
            continue
        try:
            specs = converter.output_specs(NodeView(analysis, index))
        except (ShapeError, LaminaError):
            continue  # the support check reports it
        for name, spec in zip(node.output, specs):
            if name in unknown and spec is not None:
                learned[name] = helper.make_tensor_value_info(name, onnx_type_code(spec.dtype), spec.shape)
    if not learned:
        return None
    refined = onnx.ModelProto()
    refined.CopyFrom(model)
    kept = [value for value in refined.graph.value_info if value.name not in learned]
    del refined.graph.value_info[:]
    refined.graph.value_info.extend([*kept, *learned.values()])
    for value in refined.graph.output:
        if value.name in learned:
            value.CopyFrom(learned[value.name])
    return infer_shapes(refined)
