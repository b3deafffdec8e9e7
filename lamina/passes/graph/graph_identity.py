"""Which graph a profile belongs to: node output names and the graph's hash.

Glow keys a profile by node output names and stamps it with a hash of the
function (`GraphPreLowerHash`) so that quantizing a different graph fails.
Here a node output is named `<ONNX node name>:<result number>` (the op's
location), a placeholder by its input name, and duplicates get `.1`, `.2`
suffixes in program order; the hash covers every op's name, operands, types,
attributes and location names, constants by a digest of their bytes.
"""

from __future__ import annotations

import hashlib

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import CONSTANT
from lamina.dialects.model import body_ops
from lamina.passes.conversion.naming import UniqueNames, location_name

def output_names(module: ir.Operation) -> dict[ir.Value, str]:
    """The profile name of every value a graph op computes (placeholders included, constants not)."""
    names: dict[ir.Value, str] = {}
    unique = UniqueNames()
    for index, op in enumerate(body_ops(module)):
        definition = GRAPH.lookup(op)
        if definition is None or definition.has(CONSTANT) or not definition.results:  # known, or no output
            continue
        if definition.name == "placeholder":
            base = GRAPH.view(op).attr("name")
        else:
            base = location_name(op.location) or f"{definition.name}#{index}"
        for number, result in enumerate(op.results):
            names[result] = unique.fresh(base if definition.name == "placeholder" else f"{base}:{number}")
    return names


def graph_hash(module: ir.Operation) -> str:
    """A hex digest that changes when the graph's structure, types, weights or names change."""
    digest = hashlib.sha256()
    numbering: dict[ir.Value, str] = {}
    for index, op in enumerate(body_ops(module)):
        for number, result in enumerate(op.results):
            numbering[result] = f"{index}.{number}"
        operands = ",".join(numbering.get(value, "?") for value in op.operands)
        types = ",".join(str(r.type) for r in op.results)
        digest.update(f"{op.name}({operands})->{types}@{location_name(op.location)}|".encode())
        for name, attribute in sorted(op.attributes.items()):
            digest.update(f"{name}=".encode())
            digest.update(_attribute_bytes(attribute))
    return digest.hexdigest()


def _attribute_bytes(attribute: ir.Attribute) -> bytes:
    if isinstance(attribute, ir.DenseElementsAttr):
        dense = ir.DenseElementsAttr(attribute)
        if not dense.is_splat:
            return str(dense.type).encode() + hashlib.sha256(np.ascontiguousarray(np.array(dense)).tobytes()).digest()
    return str(attribute).encode()
