"""Operators without a converter, replaced by their ONNX function bodies.

Many ONNX operators (Mish, HardSwish, CastLike, LogSoftmax, GroupNormalization,
the Reduce-L1/L2/LogSumExp family, ...) are defined by the standard itself as
a function of simpler operators. When Lamina has no converter for such an
operator, the importer inlines the standard's body instead, the way Glow
lowers a high-level node into nodes it already runs: the model then imports
whenever every operator of the body does, at every level, and errors name the
original node (`<node>/<body op>_<k>`).

Context-dependent bodies (CastLike, LogSoftmax, ...) need their inputs' types,
so expansion runs on a shape-inferred model and shape inference runs again
afterwards.
"""

from __future__ import annotations

from typing import Collection

import onnx
import onnx.inliner
from onnx import defs, helper

from lamina.dialects.diagnostics import LaminaError

from .analysis import DEFAULT_DOMAINS, default_opset, has_subgraph, node_label

EXPANDED_DOMAIN = "lamina.expanded"
# Bodies may call operators that have bodies themselves (Mish -> Softplus).
MAX_EXPANSION_ROUNDS = 4


def expand_functions(model: onnx.ModelProto, converted: Collection[str], known: Collection[str],
                     refused: Collection[int] = (), source: str = "the model") -> onnx.ModelProto | None:
    """`model` with every expandable node inlined, except nodes of a `converted` operator (unless their
    converter `refused` the node, by index: LayerNormalization asked for its Mean output) and nodes whose
    outputs are all `known` at compile time (they fold); None when there is no node to expand."""
    opset = default_opset(model)
    if opset is None:
        return None
    types = {value.name: value.type for value in (*model.graph.input, *model.graph.value_info, *model.graph.output)}
    for tensor in model.graph.initializer:
        types[tensor.name] = helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    functions = []
    for index, node in enumerate(copy.graph.node):
        if (node.domain not in DEFAULT_DOMAINS or (node.op_type in converted and index not in refused)
                or has_subgraph(node) or all(name in known for name in node.output if name)):
            continue
        body = _function_body(node, opset, types)
        if body is None:
            continue
        label = node_label(node, index)
        _fill_default_attributes(node, opset)
        body.domain, body.name = EXPANDED_DOMAIN, f"f{index}_{node.op_type}"
        for position, inner in enumerate(body.node):
            inner.name = f"{label}/{inner.op_type}_{position}"
        node.domain, node.op_type = body.domain, body.name
        functions.append(body)
    if not functions:
        return None
    copy.functions.extend(functions)
    copy.opset_import.append(helper.make_opsetid(EXPANDED_DOMAIN, 1))
    try:
        inlined = onnx.inliner.inline_local_functions(copy, convert_version=True)
    except RuntimeError as error:  # its version converter asserts on models it cannot parse (IR version 1)
        lines = str(error).strip().splitlines() or [type(error).__name__]
        raise LaminaError(f"{source}: ONNX's function inliner cannot expand {', '.join(f.name for f in functions)}: "
                          f"{lines[0].split('failed: ')[-1][:300]}") from None
    del inlined.opset_import[:]
    inlined.opset_import.extend(o for o in model.opset_import)
    return inlined


def _fill_default_attributes(node: onnx.NodeProto, opset: int) -> None:
    """Give `node` every attribute default its schema has: a body's attribute reference to an absent
    attribute would otherwise fall back to the inner operator's default, which may differ."""
    given = {attribute.name for attribute in node.attribute}
    for name, schema_attribute in defs.get_schema(node.op_type, opset, "").attributes.items():
        default = schema_attribute.default_value
        if name not in given and default.name:
            node.attribute.append(default)


def _function_body(node: onnx.NodeProto, opset: int, types: dict[str, onnx.TypeProto]) -> onnx.FunctionProto | None:
    """The standard's body of `node` at the model's opset, or None when there is none, it needs unknown
    input types, or it has nested subgraphs (Range's Loop: reported as the operator itself)."""
    try:
        schema = defs.get_schema(node.op_type, opset, "")
    except defs.SchemaError:
        return None
    body = onnx.FunctionProto()
    if schema.has_function:
        versions = [v for v in schema.function_opset_versions if v <= opset]
        if not versions:
            return None
        body.ParseFromString(schema.get_function_with_opset_version(max(versions)))
        return None if any(map(has_subgraph, body.node)) else body
    if not schema.has_context_dependent_function:
        return None
    versions = [v for v in schema.context_dependent_function_opset_versions if v <= opset]
    given = [name for name in node.input if name]
    if not versions or any(name not in types for name in given):
        return None
    input_types = [types[name].SerializeToString() if name else onnx.TypeProto().SerializeToString()
                   for name in node.input]
    try:
        serialized = schema.get_context_dependent_function_with_opset_version(
            max(versions), node.SerializeToString(), input_types)
    except Exception:  # noqa: BLE001 - ONNX's builder refuses cases it cannot express; the node stays unsupported
        return None
    body.ParseFromString(serialized)
    return body if body.node and not any(map(has_subgraph, body.node)) else None
