"""onnxruntime's com.microsoft QOperator ops, rewritten into standard QDQ nodes before import.

`quantize_static(..., quant_format=QuantFormat.QOperator)` writes, beside
the standard QLinearConv and QLinearMatMul, contrib ops of onnxruntime's
`com.microsoft` domain (QLinearAdd, QLinearConcat, QGemm, ...). Each
computes a float op on dequantized inputs and quantizes its result once,
which is what onnxruntime's kernels compute (its lookup tables for
QLinearSigmoid and QLinearLeakyRelu are exactly that, tabulated). So each
node becomes, in the model, DequantizeLinear per quantized input -> the
standard float op -> QuantizeLinear to the node's output, named
`<node>/<op>_<k>`, and the importer's QDQ path takes it from there (the
quantized types, `graph-fuse-qdq` for QGemm's layer). Done on the ONNX
model, before shape inference, which knows no contrib op.

QLinearReduceMean is not among them: onnxruntime's CPU provider has no
kernel for it, so there is nothing to check it against.

A node that cannot be rewritten (an attribute the op does not have, a
channels-last layout, a scale or zero point that is not a constant, an
output without its zero point) stays as it is, and the importer reports
`contrib_problems`' reason for it in one line naming the node.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .analysis import DEFAULT_DOMAINS, constant_node_value, default_opset, node_label
from .dtypes import UnsupportedElementType

CONTRIB_DOMAIN = "com.microsoft"


class _Expansion:
    """The standard nodes replacing one contrib node, and the initializers they add."""

    def __init__(self, node: onnx.NodeProto, index: int, constants: dict[str, np.ndarray]):
        self.node, self.constants = node, constants
        self.label = node_label(node, index)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []

    def input(self, index: int) -> str:
        return self.node.input[index] if index < len(self.node.input) else ""

    def attributes(self, *dropped: str) -> dict:
        return {a.name: helper.get_attribute_value(a) for a in self.node.attribute if a.name not in dropped}

    def add(self, op_type: str, inputs: list[str], **attributes) -> str:
        name = f"{self.label}/{op_type}_{len(self.nodes)}"
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attributes))
        return name

    def constant(self, suffix: str, array: np.ndarray) -> str:
        name = f"{self.label}/{suffix}"
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def dequantize(self, data: int, scale: int, zero: int, axis: int | None = None) -> str:
        """Input `data` as floats, read with the (scale, zero point) at input indices `scale`, `zero`."""
        inputs = [self.input(data), self.input(scale)] + ([self.input(zero)] if self.input(zero) else [])
        return self.add("DequantizeLinear", inputs, **({} if axis is None else {"axis": axis}))

    def quantize(self, value: str, scale: int, zero: int) -> None:
        """`value` quantized into the node's output with the (scale, zero point) at input indices `scale`, `zero`."""
        self.nodes.append(helper.make_node("QuantizeLinear", [value, self.input(scale), self.input(zero)],
                                           [self.node.output[0]], name=f"{self.label}/QuantizeLinear_{len(self.nodes)}"))


@dataclass(frozen=True)
class ContribOp:
    """A contrib op Lamina imports: its float op, the attributes it has, its inputs by role and how it expands.
    Concat's variadic inputs are described per (data, scale, zero point) triple after the output pair."""

    op_type: str
    float_op: str
    attributes: frozenset[str]
    required: tuple[int, ...]  # inputs the node must give (the others are optional)
    constant: tuple[int, ...]  # scales and zero points: compile-time constants
    output_zero: int | None  # the output's zero point, which gives the stored type (None: QGemm's is optional)
    expand: Callable[[_Expansion], None]
    notes: str = ""


def _unary(float_op: str) -> Callable[[_Expansion], None]:
    """X, X_scale, X_zero_point, Y_scale, Y_zero_point: Y = quantize(float_op(dequantize(X)))."""
    def expand(e: _Expansion) -> None:
        e.quantize(e.add(float_op, [e.dequantize(0, 1, 2)], **e.attributes("channels_last")), 3, 4)
    return expand


def _binary(float_op: str) -> Callable[[_Expansion], None]:
    """A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point (numpy broadcasting)."""
    def expand(e: _Expansion) -> None:
        e.quantize(e.add(float_op, [e.dequantize(0, 1, 2), e.dequantize(3, 4, 5)]), 6, 7)
    return expand


def _concat(e: _Expansion) -> None:
    """Y_scale, Y_zero_point, then (X, X_scale, X_zero_point) per input."""
    parts = [e.dequantize(k, k + 1, k + 2) for k in range(2, len(e.node.input), 3)]
    e.quantize(e.add("Concat", parts, **e.attributes()), 0, 1)


def _softmax(e: _Expansion) -> None:
    """`opset` names the Softmax it replaces: before 13, Softmax normalizes the input flattened to 2-D at `axis`
    (in any model opset: Flatten, Softmax of the last axis, Reshape back)."""
    attributes = e.attributes("opset")
    x = e.dequantize(0, 1, 2)
    if e.attributes()["opset"] >= 13:
        e.quantize(e.add("Softmax", [x], **attributes), 3, 4)
        return
    flat = e.add("Flatten", [x], axis=attributes.get("axis", 1))
    normalized = e.add("Softmax", [flat], axis=-1)
    e.quantize(e.add("Reshape", [normalized, e.add("Shape", [x])]), 3, 4)


def _where(e: _Expansion) -> None:
    """condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale, z_zero_point."""
    e.quantize(e.add("Where", [e.input(0), e.dequantize(1, 2, 3), e.dequantize(4, 5, 6)]), 7, 8)


def _gemm(e: _Expansion) -> None:
    """A, a_scale, a_zero_point, B, b_scale, b_zero_point, C (i32 at scale alpha x a_scale x b_scale, zero point
    0), y_scale, y_zero_point: without y_scale the output is float."""
    attributes = e.attributes()
    b_scale = e.constants[e.input(4)]
    inputs = [e.dequantize(0, 1, 2), e.dequantize(3, 4, 5, axis=(0 if attributes.get("transB", 0) else 1)
                                                   if b_scale.size > 1 else None)]
    if e.input(6):
        scale = attributes.get("alpha", 1.0) * e.constants[e.input(1)].astype(np.float64) * b_scale.astype(np.float64)
        bias_scale = e.constant("bias_scale", scale.astype(np.float32).reshape(() if scale.size == 1 else (-1,)))
        inputs.append(e.add("DequantizeLinear", [e.input(6), bias_scale], **({"axis": 0} if scale.size > 1 else {})))
    product = e.add("Gemm", inputs, **attributes)
    if e.input(7):
        e.quantize(product, 7, 8)
    else:
        e.nodes[-1].output[0] = e.node.output[0]


UNARY, BINARY = ((0, 1, 3), (1, 2, 3, 4), 4), ((0, 1, 3, 4, 6), (1, 2, 4, 5, 6, 7), 7)
POOL_ATTRIBUTES = frozenset({"auto_pad", "ceil_mode", "channels_last", "count_include_pad", "dilations",
                             "kernel_shape", "pads", "strides"})
CONTRIB_OPS: dict[str, ContribOp] = {op.op_type: op for op in [
    ContribOp("QLinearAdd", "Add", frozenset(), *BINARY, _binary("Add")),
    ContribOp("QLinearMul", "Mul", frozenset(), *BINARY, _binary("Mul")),
    ContribOp("QLinearSigmoid", "Sigmoid", frozenset(), *UNARY, _unary("Sigmoid")),
    ContribOp("QLinearLeakyRelu", "LeakyRelu", frozenset({"alpha"}), *UNARY, _unary("LeakyRelu")),
    ContribOp("QLinearSoftmax", "Softmax", frozenset({"axis", "opset"}), *UNARY, _softmax,
              "`opset` < 13: the input flattened to 2-D at `axis`, as Softmax-1/11 did."),
    ContribOp("QLinearConcat", "Concat", frozenset({"axis"}), (0, 1, 2, 3), (0, 1, 3, 4), 1, _concat),
    ContribOp("QLinearAveragePool", "AveragePool", POOL_ATTRIBUTES, *UNARY, _unary("AveragePool"),
              "NCHW only (channels_last = 0)."),
    ContribOp("QLinearGlobalAveragePool", "GlobalAveragePool", frozenset({"channels_last"}), *UNARY,
              _unary("GlobalAveragePool"), "NCHW only (channels_last = 0)."),
    ContribOp("QLinearWhere", "Where", frozenset(), (0, 1, 2, 4, 5, 7), (2, 3, 5, 6, 7, 8), 8, _where),
    ContribOp("QGemm", "Gemm", frozenset({"alpha", "transA", "transB"}), (0, 1, 2, 3, 4, 5), (1, 2, 4, 5, 7, 8), None,
              _gemm, "Per-tensor or per-column B; float output without y_scale."),
]}


def _inputs(op: ContribOp, node: onnx.NodeProto, indices: tuple[int, ...]) -> list[int]:
    """`indices` of `op` for this node: QLinearConcat's per-triple ones repeat for every triple given."""
    if op.op_type != "QLinearConcat":
        return list(indices)
    triples = range(2, max(len(node.input), 5), 3)
    return [*(k for k in indices if k < 2), *(start + k - 2 for start in triples for k in indices if k >= 2)]


def _softmax_problems(node: onnx.NodeProto, opset: int) -> list[str]:
    """QLinearSoftmax's required `opset`: the flattening form (< 13) is written in any model; the one-axis form
    only where the model's Softmax has it."""
    given = [helper.get_attribute_value(a) for a in node.attribute if a.name == "opset"]
    if not given:
        return ["the required attribute 'opset' is missing"]
    if given[0] >= 13 > opset:
        return ["opset >= 13 (Softmax of one axis) needs a model of default opset 13 or later"]
    return []


def contrib_problems(node: onnx.NodeProto, constants: dict[str, np.ndarray] | set[str], opset: int) -> list[str]:
    """Why the com.microsoft `node` is not rewritten; empty when it is. `constants`: the names of the model's
    compile-time constant values (initializers, Constant outputs); `opset`: the model's default opset."""
    op = CONTRIB_OPS.get(node.op_type)
    if op is None:
        return [f"com.microsoft operator not supported (supported: {', '.join(sorted(CONTRIB_OPS))})"]
    unknown = sorted(a.name for a in node.attribute if a.name not in op.attributes)
    if unknown:
        return [f"unknown attribute '{unknown[0]}'; {node.op_type} has {', '.join(sorted(op.attributes)) or 'none'}"]
    if op.op_type == "QLinearConcat" and (len(node.input) - 2) % 3:
        return ["inputs after the output's scale and zero point must come in (data, scale, zero point) triples"]
    missing = [index for index in _inputs(op, node, op.required) if index >= len(node.input) or not node.input[index]]
    if missing:
        return [f"input {missing[0]} is missing"]
    if any(a.name == "channels_last" and helper.get_attribute_value(a) for a in node.attribute):
        return ["channels_last = 1 (NHWC) is not supported; only NCHW"]
    variable = [node.input[index] for index in _inputs(op, node, op.constant)
                if index < len(node.input) and node.input[index] and node.input[index] not in constants]
    if variable:
        return [f"scale or zero point '{variable[0]}' must be a compile-time constant"]
    if op.output_zero is not None and (len(node.input) <= op.output_zero or not node.input[op.output_zero]):
        return ["the output's zero point must be given (its type is the stored type)"]
    if node.op_type == "QLinearSoftmax":
        return _softmax_problems(node, opset)
    if node.op_type == "QGemm" and len(node.input) > 7 and node.input[7] and (len(node.input) < 9 or not node.input[8]):
        return ["y_scale without y_zero_point (its type is the stored type)"]
    return []


def model_constants(graph: onnx.GraphProto) -> dict[str, np.ndarray]:
    """Initializers and Constant node outputs of `graph`, by name (a malformed Constant is not one: the
    importer reports it)."""
    values = {tensor.name: numpy_helper.to_array(tensor) for tensor in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant" and node.domain in DEFAULT_DOMAINS and node.output:
            try:
                values[node.output[0]] = constant_node_value(node)
            except UnsupportedElementType:
                continue
    return values


def rewrite_contrib_ops(model: onnx.ModelProto) -> onnx.ModelProto | None:
    """A copy of `model` with every com.microsoft node `contrib_problems` accepts rewritten into standard QDQ
    nodes (module docstring); None when there is none."""
    nodes = model.graph.node
    if not any(node.domain == CONTRIB_DOMAIN for node in nodes):
        return None
    constants = model_constants(model.graph)
    opset = default_opset(model) or 0
    rewritable = [index for index, node in enumerate(nodes)
                  if node.domain == CONTRIB_DOMAIN and not contrib_problems(node, constants, opset)]
    if not rewritable:
        return None
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    replaced: list[onnx.NodeProto] = []
    for index, node in enumerate(nodes):
        if index not in rewritable:
            replaced.append(node)
            continue
        expansion = _Expansion(node, index, constants)
        CONTRIB_OPS[node.op_type].expand(expansion)
        replaced.extend(expansion.nodes)
        copy.graph.initializer.extend(expansion.initializers)
    del copy.graph.node[:]
    copy.graph.node.extend(replaced)
    if not any(node.domain == CONTRIB_DOMAIN for node in replaced):
        kept = [o for o in copy.opset_import if o.domain != CONTRIB_DOMAIN]
        del copy.opset_import[:]
        copy.opset_import.extend(kept)
    return copy
