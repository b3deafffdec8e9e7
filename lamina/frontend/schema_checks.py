"""What ONNX's operator schema says a node must have: required inputs and attributes given, of the right type.

Checked before any converter reads the node, so that an empty name for a
required input or an `axis` given as a float is one line naming the node,
never a converter's traceback or a silently used default.
"""

from __future__ import annotations

import onnx
from onnx import defs

_TYPE_NAMES = {value: name for name, value in onnx.AttributeProto.AttributeType.items()}


def schema_problems(node: onnx.NodeProto, opset: int) -> list[str]:
    """Required inputs left empty or missing, required attributes missing (the checker lets a Loop without its body
    through) and attributes whose type differs from the schema's."""
    try:
        schema = defs.get_schema(node.op_type, opset, node.domain)
    except defs.SchemaError:
        return []  # an unknown operator is reported as such
    problems = []
    for index, name in enumerate(node.input):
        if name == "" and index < len(schema.inputs) and _required(schema.inputs[index]):
            problems.append(f"input {index} ('{schema.inputs[index].name}') is required but given as ''")
    problems += [f"input {index} ('{parameter.name}') is required but missing"
                 for index, parameter in enumerate(schema.inputs[len(node.input):], len(node.input))
                 if _required(parameter)]
    given = {attribute.name for attribute in node.attribute}
    problems += [f"attribute '{name}' is required but missing" for name, attribute in schema.attributes.items()
                 if attribute.required and name not in given]
    for attribute in node.attribute:
        expected = schema.attributes.get(attribute.name)
        if expected is not None and attribute.type != expected.type:
            problems.append(f"attribute '{attribute.name}' is {_TYPE_NAMES.get(attribute.type, attribute.type)}, "
                            f"the operator takes {_TYPE_NAMES.get(expected.type, expected.type)}")
    return problems


def _required(parameter) -> bool:
    return parameter.option == defs.OpSchema.FormalParameterOption.Single
