"""What inside a node's nested subgraphs (If branches, Loop and Scan bodies) Lamina could not convert.

A model refused for its If or Loop would otherwise be fixed in one place only
to fail on the next: the refusal lists the subgraphs' unknown operators and
domains too, recursively, each with the node that uses it.
"""

from __future__ import annotations

from typing import Collection, Iterator

import onnx
from onnx import defs

from .analysis import DEFAULT_DOMAINS


def subgraph_problems(node: onnx.NodeProto, opset: int, converted: Collection[str]) -> list[str]:
    """One line per node inside `node`'s subgraphs whose operator has no converter and no ONNX function body
    (once, when two branches share it)."""
    return list(dict.fromkeys(f"inside it, node '{inner.name or inner.op_type}' ({inner.op_type}): {reason}"
                              for inner in _nested_nodes(node) for reason in _reasons(inner, opset, converted)))


def _nested_nodes(node: onnx.NodeProto) -> Iterator[onnx.NodeProto]:
    for attribute in node.attribute:
        graphs = [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs)
        for graph in graphs:
            for inner in graph.node:
                yield inner
                yield from _nested_nodes(inner)


def _reasons(node: onnx.NodeProto, opset: int, converted: Collection[str]) -> list[str]:
    if node.domain not in DEFAULT_DOMAINS:
        return [f"operator domain '{node.domain}' is not supported"]
    if node.op_type in converted or any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                                        for a in node.attribute):
        return []
    try:
        schema = defs.get_schema(node.op_type, opset, "")
    except defs.SchemaError:
        return ["operator not supported"]
    return [] if schema.has_function or schema.has_context_dependent_function else ["operator not supported"]
