"""What the importer knows about an ONNX model before emitting any IR.

For every value: its element type, its static shape (from ONNX shape
inference) and, when it can be computed at compile time, its data. Values
needed statically (Reshape shapes, Slice bounds, Pad pads, ...) come from
initializers, Constant nodes, Shape/Size of statically shaped tensors, and
small nodes whose inputs are all known, evaluated with ONNX's NumPy
reference implementation. Checking support and converting both read this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import onnx
from onnx.reference import ReferenceEvaluator

from lamina.dialects.types import TensorSpec

from .dtypes import SUPPORTED_DTYPES, UnsupportedElementType, is_supported, numpy_dtype, tensor_value, type_name
from .static_shapes import declared_dims, graph_inputs

# Default-domain opsets the converters are written for (older ones broadcast differently).
MIN_OPSET = 7
DEFAULT_DOMAINS = ("", "ai.onnx")

# Compile-time values are shape arithmetic and small parameters; this bound
# keeps weights built by ConstantOfShape or Transpose out of the fold.
MAX_FOLDED_ELEMENTS = 4096
NOT_FOLDABLE = frozenset({"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial",
                          "Bernoulli"})


@dataclass
class ModelAnalysis:
    """Types, static shapes and compile-time values of one shape-inferred model."""

    source: str
    model: onnx.ModelProto
    opset: int  # of the default domain; 0 when the model imports none
    element_types: dict[str, int] = field(default_factory=dict)
    non_tensors: dict[str, str] = field(default_factory=dict)  # name -> "a sequence", "an optional", ...
    specs: dict[str, TensorSpec] = field(default_factory=dict)
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    initializers: set[str] = field(default_factory=set)
    placeholders: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)
    labels: list[str] = field(default_factory=list)
    # What keeps the model as a whole, its inputs or initializers from importing: (subject, reason).
    model_problems: list[tuple[str, str]] = field(default_factory=list)
    # Inputs and initializers listed in `model_problems`: what reads them cannot import either.
    unusable: set[str] = field(default_factory=set)
    # Per node: input names read before any node or initializer defines them.
    undefined_inputs: dict[int, list[str]] = field(default_factory=dict)
    # A Loop body with a compile-time trip count (`iteration_values`).
    iteration: LoopIteration | None = None

    def unknown_shapes(self) -> list[str]:
        """Values something reads whose static shape is not known."""
        return [name for name in self.used if name not in self.specs]

    @property
    def graph(self) -> onnx.GraphProto:
        return self.model.graph

    @property
    def nodes(self):
        return self.model.graph.node


def default_opset(model: onnx.ModelProto) -> int | None:
    """The model's version of the default ONNX domain, if it imports one."""
    versions = [o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS]
    return max(versions) if versions else None


def node_label(node: onnx.NodeProto, index: int) -> str:
    """The node's name, or `<OpType>_<index>` for an unnamed node: its MLIR location name."""
    return node.name or f"{node.op_type}_{index}"


def constant_node_value(node: onnx.NodeProto) -> np.ndarray:
    """The value of a Constant node, whichever `value*` attribute holds it."""
    if len(node.attribute) != 1:
        raise UnsupportedElementType(f"a Constant needs exactly one value attribute, this one has "
                                     f"{len(node.attribute) or 'none'}")
    (attribute,) = node.attribute
    value = onnx.helper.get_attribute_value(attribute)
    if attribute.name == "value":
        return tensor_value(value)
    if attribute.name in ("value_float", "value_floats"):
        return np.array(value, dtype=np.float32)
    if attribute.name in ("value_int", "value_ints"):
        return np.array(value, dtype=np.int64)
    if attribute.name in ("value_string", "value_strings"):
        raise UnsupportedElementType("element type STRING is not supported")
    raise UnsupportedElementType(f"a Constant with '{attribute.name}' is not supported")


@dataclass(frozen=True, eq=False)
class LoopIteration:
    """A Loop body with a compile-time trip count: its iteration-number input, the trip count, and each
    carried value whose initial value is known at compile time, as (body input, initial value, body output
    giving its next value)."""

    name: str
    count: int
    carried: tuple[tuple[str, np.ndarray, str], ...] = ()


def has_subgraph(node: onnx.NodeProto) -> bool:
    return any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute)


def analyze(model: onnx.ModelProto, source: str, inference_error: str | None = None,
            iteration: LoopIteration | None = None) -> ModelAnalysis:
    """Analyse a shape-inferred model (see `static_shapes.specialize`)."""
    opset = default_opset(model)
    analysis = ModelAnalysis(source=source, model=model, opset=opset or 0, iteration=iteration)
    if opset is not None and opset < MIN_OPSET:  # the one problem: shape errors would only follow from it
        analysis.model_problems.append(("the model", f"opset {opset} is older than {MIN_OPSET}, the oldest Lamina "
                                                     f"supports; upgrade it with onnx.version_converter"))
    elif inference_error:
        analysis.model_problems.append(("the model", f"ONNX shape inference failed: {inference_error}"))
    graph = model.graph
    _record_value_types(analysis, chain(graph.input, graph.value_info, graph.output))
    _record_initializers(analysis)
    analysis.placeholders = [value.name for value in graph_inputs(graph)]
    _check_placeholders(analysis)
    defined = set(analysis.initializers) | set(analysis.placeholders)
    for index, node in enumerate(graph.node):
        analysis.labels.append(node_label(node, index))
        undefined = [name for name in node.input if name and name not in defined]
        if undefined:
            analysis.undefined_inputs[index] = undefined
        _fold(analysis, node)
        defined.update(name for name in node.output if name)
        analysis.used.update(name for name in node.input if name)
        analysis.used.update(subgraph_references(node))
    for value in graph.output:
        analysis.used.add(value.name)
        if value.name not in defined:
            analysis.model_problems.append((f"output '{value.name}'", "no node, initializer or input produces it"))
    return analysis


def _record_value_types(analysis: ModelAnalysis, values) -> None:
    for value in values:
        kind = value.type.WhichOneof("value")
        if kind != "tensor_type":
            if kind is not None:
                analysis.non_tensors[value.name] = _KIND_NAMES.get(kind, kind)
            continue
        code = value.type.tensor_type.elem_type
        analysis.element_types[value.name] = code
        dims = declared_dims(value)
        if is_supported(code) and dims is not None and all(isinstance(d, int) for d in dims):
            analysis.specs[value.name] = TensorSpec(tuple(dims), numpy_dtype(code))


_KIND_NAMES = {"sequence_type": "a sequence", "map_type": "a map", "optional_type": "an optional",
               "sparse_tensor_type": "a sparse tensor"}


def _record_initializers(analysis: ModelAnalysis) -> None:
    for tensor in analysis.graph.initializer:
        analysis.initializers.add(tensor.name)
        analysis.element_types[tensor.name] = tensor.data_type
        try:
            array = tensor_value(tensor)
        except UnsupportedElementType as error:
            analysis.model_problems.append((f"initializer '{tensor.name}'", str(error)))
            analysis.unusable.add(tensor.name)
            continue
        analysis.constants[tensor.name] = array
        analysis.specs[tensor.name] = TensorSpec(array.shape, array.dtype)
    for sparse in analysis.graph.sparse_initializer:
        analysis.model_problems.append((f"initializer '{sparse.values.name}'", "sparse initializers are not supported"))
        analysis.unusable.add(sparse.values.name)


def _check_placeholders(analysis: ModelAnalysis) -> None:
    for name in analysis.placeholders:
        code = analysis.element_types.get(name)
        if name in analysis.non_tensors:
            analysis.model_problems.append((f"input '{name}'", f"{analysis.non_tensors[name]}, not a tensor"))
            analysis.unusable.add(name)
        elif code is not None and not is_supported(code):
            analysis.model_problems.append((f"input '{name}'", f"element type {type_name(code)} is not supported"))
            analysis.unusable.add(name)


def _fold(analysis: ModelAnalysis, node: onnx.NodeProto) -> None:
    """Record the node's outputs in `constants` when they are known at compile time."""
    if node.domain not in DEFAULT_DOMAINS or has_subgraph(node) or analysis.opset < MIN_OPSET:
        return
    values = _static_shape_value(analysis, node) if node.op_type in ("Shape", "Size") else _evaluate(analysis, node)
    for name, value in zip(node.output, values or ()):
        value = np.asarray(value)
        spec = analysis.specs.get(name)
        if spec is not None:
            if spec.shape == value.shape:
                analysis.constants[name] = value.astype(spec.dtype, copy=False)  # the reference may widen types
        elif name and value.dtype in SUPPORTED_DTYPES:
            analysis.constants[name] = value
            analysis.specs[name] = TensorSpec(value.shape, value.dtype)


def _static_shape_value(analysis: ModelAnalysis, node: onnx.NodeProto) -> list[np.ndarray] | None:
    spec = analysis.specs.get(node.input[0])
    if spec is None:
        return None
    if node.op_type == "Size":
        return [np.array(spec.num_elements, dtype=np.int64)]
    attrs = {a.name: a.i for a in node.attribute}
    return [np.array(spec.shape[attrs.get("start", 0):attrs.get("end", spec.rank)], dtype=np.int64)]


def _evaluate(analysis: ModelAnalysis, node: onnx.NodeProto) -> list[np.ndarray] | None:
    if node.op_type == "Constant":
        try:
            return [constant_node_value(node)]
        except UnsupportedElementType:
            return None  # the support check reports it
    if node.op_type in NOT_FOLDABLE or not all(name in analysis.constants for name in node.input if name):
        return None
    for name in node.output:
        spec = analysis.specs.get(name)
        if spec is not None and spec.num_elements > MAX_FOLDED_ELEMENTS:
            return None
    feeds = {name: analysis.constants[name] for name in node.input if name}
    try:
        outputs = ReferenceEvaluator(node, opsets={"": analysis.opset}).run(None, feeds)
    except Exception:  # noqa: BLE001 - folding is best effort: an unevaluated node simply stays unknown
        return None
    if any(np.asarray(v).size > MAX_FOLDED_ELEMENTS for v in outputs):
        return None
    return outputs


def subgraph_references(node: onnx.NodeProto) -> list[str]:
    """Names the node's subgraphs (If branches, Loop and Scan bodies) read from enclosing graphs."""
    names: list[str] = []
    for attribute in node.attribute:
        graphs = [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)
        for graph in graphs:
            names.extend(name for name in outer_references(graph) if name not in names)
    return names


def outer_references(graph: onnx.GraphProto) -> list[str]:
    """Names `graph` (nested subgraphs included) reads without defining them, in first-use order."""
    defined = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
    names: list[str] = []
    for node in graph.node:
        read = [*node.input, *subgraph_references(node)]
        names.extend(name for name in read if name and name not in defined and name not in names)
        defined.update(node.output)
    names.extend(value.name for value in graph.output if value.name not in defined and value.name not in names)
    return names
