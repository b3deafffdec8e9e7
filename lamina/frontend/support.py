"""Deciding, before emitting anything, what in a model Lamina cannot import.

Every node is checked (domain, subgraphs, op type, element types, static
shapes, compile-time inputs, the converter's own limits) so that one error
can list all the problems at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import DEFAULT_DOMAINS, MIN_OPSET, ModelAnalysis, has_subgraph
from .contrib_quantized import CONTRIB_DOMAIN, contrib_problems, model_constants
from .dtypes import is_supported, type_name
from .node_view import NodeView
from .registry import CONVERTERS, Converter
from .schema_checks import schema_problems
from .subgraph_problems import subgraph_problems


@dataclass(frozen=True)
class Unsupported:
    """One reason a model cannot be imported, about a node or a model value."""

    subject: str  # "node 'conv1' (Conv)", "input 'x'", "initializer 'w'"
    reason: str

    def __str__(self) -> str:
        return f"{self.subject}: {self.reason}"


def find_unsupported(analysis: ModelAnalysis) -> list[Unsupported]:
    """Every problem in the model, model values first, then nodes in order.

    A node reading the output of a node already listed is only checked for
    problems of its own (its operator); its shapes follow from the listed one.
    """
    problems = [Unsupported(subject, reason) for subject, reason in analysis.model_problems]
    blocked = set(analysis.unusable)
    for index in range(len(analysis.nodes)):
        view = NodeView(analysis, index)
        downstream = any(name in blocked for name in view.node.input)
        reasons = node_problems(view, check_shapes=not downstream)
        if reasons:
            problems.append(Unsupported(f"node '{view.label}' ({view.op_type})", "; ".join(reasons)))
        if reasons or downstream:
            blocked.update(view.node.output)
    return problems


def node_problems(view: NodeView, check_shapes: bool = True) -> list[str]:
    """Why this node cannot be converted; empty when it can.

    Without `check_shapes`, only what does not depend on the node's inputs
    (domain, subgraphs, operator) is checked.
    """
    node = view.node
    if node.domain == CONTRIB_DOMAIN:  # what the importer's rewrite left (contrib_quantized.py)
        return contrib_problems(node, model_constants(view.analysis.graph), view.opset) or ["not rewritten into QDQ nodes"]
    if node.domain not in DEFAULT_DOMAINS:
        return [f"operator domain '{node.domain}' is not supported"]
    if not view.opset:
        return ["the model imports no version of the default ONNX domain"]
    if view.opset < MIN_OPSET:
        return []  # the model's problem says why
    if has_subgraph(node) and node.op_type not in CONVERTERS:
        return ["nested subgraphs are supported in If, Loop and Scan only",
                *subgraph_problems(node, view.opset, CONVERTERS)]
    undefined = view.analysis.undefined_inputs.get(view.index)
    if undefined:
        return [f"input '{name}' is not defined by an earlier node, initializer or graph input" for name in undefined]
    malformed = schema_problems(node, view.opset)
    if malformed:
        return malformed
    converter = CONVERTERS.get(node.op_type)
    if converter is None:
        if all(name in view.analysis.constants for i, name in enumerate(node.output) if view.output_used(i)):
            return []  # evaluated at compile time: becomes graph.constant
        return ["operator not supported"]
    if not check_shapes:
        return []
    used_outputs = [name for i, name in enumerate(node.output) if view.output_used(i)]
    if has_subgraph(node) or converter.output_specs:  # outputs typed by the converter: its problems explain more
        return (_type_problems(view) or _unknown_shapes(view, "input", node.input) or _non_constant(view, converter)
                or list(converter.check(view) if converter.check else ()))
    return (_type_problems(view) or _unknown_shapes(view, "input", node.input) or _non_constant(view, converter)
            or _unknown_shapes(view, "output", used_outputs) or list(converter.check(view) if converter.check else ()))


def _non_constant(view: NodeView, converter: Converter) -> list[str]:
    return [f"input '{view.input_name(index)}' ({role}) must be a compile-time constant"
            for index, role in converter.static_inputs.items() if view.has_input(index) and view.static(index) is None]


def _type_problems(view: NodeView) -> list[str]:
    """Values that are not tensors of an element type Lamina supports."""
    analysis = view.analysis
    unsupported_types: dict[str, list[str]] = {}
    for name in [name for name in (*view.node.input, *view.node.output) if name]:
        if name in analysis.non_tensors:
            return [f"'{name}' is {analysis.non_tensors[name]}, not a tensor"]
        code = analysis.element_types.get(name)
        if code is not None and not is_supported(code):
            unsupported_types.setdefault(type_name(code), []).append(f"'{name}'")
    return [f"element type {type_} ({', '.join(names)}) is not supported" for type_, names in unsupported_types.items()]


def _unknown_shapes(view: NodeView, role: str, names) -> list[str]:
    return [f"the shape of {role} '{name}' is unknown after shape inference (a dynamic shape)"
            for name in names if name and name not in view.analysis.specs]
