"""What a model must satisfy before Lamina reads any of it: ONNX's own rules, strictly.

ONNX's protobuf lets a file say things twice or say nothing useful, and the
reference tools silently pick one reading. Lamina refuses instead, with one
line naming the node, attribute or tensor:

- an attribute the operator's schema does not have (with a did-you-mean:
  `Axis` for `axis` would otherwise fall back to the default), or one given twice;
- two initializers of one name;
- a tensor holding both `raw_data` and typed data, or data that does not
  match its dims;
- input shapes (`--input-shape`) that are not positive int64 dims;
- anything `onnx.checker.check_model(full_check=True)` rejects, with its reason.

`validate_model` runs the structural checks before anything else reads the
model. The checker runs last (`check_with_onnx_checker`), on the model as
shape inference and `--input-shape` completed it, once Lamina's own, more
specific checks (unsupported operators, missing shapes) have passed: like
onnxruntime, Lamina lets graph outputs leave out the type inference gives them.
"""

from __future__ import annotations

import difflib

import numpy as np
import onnx
from onnx import helper

from lamina.dialects.diagnostics import LaminaError

from .analysis import MIN_OPSET

# Dims above this cannot be a tensor Lamina allocates; int64 is MLIR's limit.
MAX_DIM = (1 << 63) - 1

# TensorProto field holding each data type's typed (not raw) data
_TENSOR_TYPES = frozenset(helper.get_all_tensor_dtypes()) - {onnx.TensorProto.UNDEFINED}
_TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
_DEFAULT_DOMAINS = ("", "ai.onnx")


def validate_model(model: onnx.ModelProto, source: str) -> None:
    """Raise a LaminaError naming the first thing about `model` that ONNX's rules forbid."""
    graph = model.graph
    opsets = {entry.domain: entry.version for entry in model.opset_import}
    newest = onnx.defs.onnx_opset_version()
    default = opsets.get("", opsets.get("ai.onnx", 0))
    if default > newest:
        raise LaminaError(f"{source}: opset {default} is newer than the newest ONNX release Lamina knows ({newest})")
    for value in (*graph.input, *graph.output, *graph.value_info):
        if not isinstance(value.name, str):
            raise LaminaError(f"{source}: a graph input, output or value_info name is not UTF-8 text")
        if value.type.HasField("tensor_type") and value.type.tensor_type.elem_type not in _TENSOR_TYPES:
            raise LaminaError(f"{source}: value '{value.name}': element type {value.type.tensor_type.elem_type} "
                              f"is not an ONNX tensor type")
    _check_initializers(graph, source)
    if default < MIN_OPSET:
        return  # older schemas are not Lamina's to check: the model's one problem says "opset N is older than 7"
    for index, node in enumerate(graph.node):
        _check_node(node, index, opsets, source)


def check_with_onnx_checker(model: onnx.ModelProto, source: str,
                            known: dict[str, tuple[tuple[int, ...], int]] | None = None) -> None:
    """`onnx.checker.check_model(full_check=True)`; its rejection is a LaminaError with its reason.

    The checker sees the model without the value_info shape inference added
    (the checker infers again), and with graph outputs typed from `known`
    (name -> (shape, ONNX element type), what Lamina's analysis proved) where
    the model leaves their type or shape out, as onnxruntime allows.
    """
    model = _with_output_types(model, known or {})
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as error:
        raise LaminaError(f"{source}: the ONNX checker rejects the model: {_first_line(error)}") from None
    except (ValueError, RuntimeError) as error:  # e.g. a model over 2 GB without its path
        raise LaminaError(f"{source}: the ONNX checker cannot check the model: {_first_line(error)}") from None


def _with_output_types(model: onnx.ModelProto, known: dict[str, tuple[tuple[int, ...], int]]) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    del copy.graph.value_info[:]
    for output in copy.graph.output:
        tensor_type = output.type.tensor_type
        if output.name not in known or (tensor_type.elem_type and tensor_type.HasField("shape")):
            continue
        shape, element_type = known[output.name]
        tensor_type.elem_type = tensor_type.elem_type or element_type
        if not tensor_type.HasField("shape"):
            tensor_type.shape.SetInParent()
            for dim in shape:
                tensor_type.shape.dim.add(dim_value=dim)
    return copy


def check_input_shapes(input_shapes: dict[str, tuple[int, ...]] | None, source: str) -> None:
    """`--input-shape` dims fit in int64 (negative ones are refused where shapes are fixed, naming the input)."""
    for name, dims in (input_shapes or {}).items():
        for dim in dims:
            if dim > MAX_DIM:
                raise LaminaError(f"{source}: --input-shape {name}: dimension {dim} is larger than 2^63 - 1")


def _first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return lines[0][:300] if lines else type(error).__name__


def _node_label(node: onnx.NodeProto, index: int) -> str:
    return f"node '{node.name}' ({node.op_type})" if node.name else f"node {index} ({node.op_type})"


def _check_node(node: onnx.NodeProto, index: int, opsets: dict[str, int], source: str) -> None:
    texts = (node.op_type, node.domain, node.name, *node.input, *node.output, *(a.name for a in node.attribute))
    if not all(isinstance(text, str) for text in texts):  # protobuf hands invalid UTF-8 over as bytes
        raise LaminaError(f"{source}: node {index}: a name, op type or domain is not UTF-8 text")
    where = f"{source}: {_node_label(node, index)}"
    names = [attribute.name for attribute in node.attribute]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise LaminaError(f"{where}: attribute '{repeated[0]}' is given twice")
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.TENSOR:
            _check_tensor(attribute.t, f"{where}, attribute '{attribute.name}'")
    domain = "" if node.domain in _DEFAULT_DOMAINS else node.domain
    version = opsets.get(domain, opsets.get("ai.onnx")) if domain == "" else opsets.get(domain)
    if version is None:
        return  # the checker reports a domain without an opset
    try:
        schema = onnx.defs.get_schema(node.op_type, version, domain)
    except onnx.defs.SchemaError:
        return  # unknown operators are the checker's and the importer's to report
    known = sorted(schema.attributes)
    for name in names:
        if name not in schema.attributes:
            raise LaminaError(f"{where}: unknown attribute '{name}'{_did_you_mean(name, known)}; "
                              f"{node.op_type} (opset {version}) has {', '.join(known) or 'no attributes'}")


def _did_you_mean(name: str, known: list[str]) -> str:
    lowered = {candidate.lower(): candidate for candidate in known}
    if name.lower() in lowered:
        return f" (did you mean '{lowered[name.lower()]}'?)"
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _check_initializers(graph: onnx.GraphProto, source: str) -> None:
    seen = set()
    for index, tensor in enumerate(graph.initializer):
        if not isinstance(tensor.name, str):
            raise LaminaError(f"{source}: initializer {index}: its name is not UTF-8 text")
        where = f"{source}: initializer '{tensor.name}'"
        if tensor.name in seen:
            raise LaminaError(f"{where} is defined twice")
        seen.add(tensor.name)
        _check_tensor(tensor, where)


def _check_tensor(tensor: onnx.TensorProto, where: str) -> None:
    """One source of data, as many elements as the dims say (external data is checked when loaded)."""
    if any(dim < 0 or dim > MAX_DIM for dim in tensor.dims):
        raise LaminaError(f"{where}: dims {list(tensor.dims)} must be non-negative")
    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        return
    typed = [field for field in _TYPED_FIELDS if len(getattr(tensor, field))]
    if tensor.HasField("raw_data") and typed:
        raise LaminaError(f"{where}: holds both raw_data and {typed[0]}; a tensor has one source of data")
    if len(typed) > 1:
        raise LaminaError(f"{where}: holds both {typed[0]} and {typed[1]}; a tensor has one source of data")
    expected = int(np.prod(tensor.dims, dtype=object)) if tensor.dims else 1
    if tensor.data_type in (onnx.TensorProto.UNDEFINED,) or tensor.data_type not in helper.get_all_tensor_dtypes():
        raise LaminaError(f"{where}: data type {tensor.data_type} is not an ONNX tensor type")
    if tensor.HasField("raw_data"):
        if tensor.data_type == onnx.TensorProto.STRING:
            raise LaminaError(f"{where}: string tensors cannot use raw_data")
        bits = _bits(tensor.data_type)
        if bits is not None and len(tensor.raw_data) * 8 != _padded_bits(expected, bits):
            raise LaminaError(f"{where}: raw_data has {len(tensor.raw_data)} bytes but dims {list(tensor.dims)} "
                              f"need {_padded_bits(expected, bits) // 8}")
        return
    if typed:
        stored = len(getattr(tensor, typed[0]))
        per_element = 2 if tensor.data_type in (onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128) else 1
        if _bits(tensor.data_type) in (4, 2):
            return  # packed sub-byte types: the checker's business
        if stored != expected * per_element:
            raise LaminaError(f"{where}: {typed[0]} has {stored} values but dims {list(tensor.dims)} "
                              f"need {expected * per_element}")
    elif expected:
        raise LaminaError(f"{where}: dims {list(tensor.dims)} need {expected} elements but the tensor holds no data")


def _bits(data_type: int) -> int | None:
    try:
        return helper.tensor_dtype_to_np_dtype(data_type).itemsize * 8 if data_type not in _SUB_BYTE else \
            _SUB_BYTE[data_type]
    except (KeyError, TypeError, ValueError):
        return None


def _padded_bits(elements: int, bits: int) -> int:
    """Bits of raw_data holding `elements` values of `bits` each, padded to whole bytes."""
    return -(-elements * bits // 8) * 8


_SUB_BYTE = {getattr(onnx.TensorProto, name): bits for name, bits in
             (("INT4", 4), ("UINT4", 4), ("FLOAT4E2M1", 4), ("INT2", 2), ("UINT2", 2)) if hasattr(onnx.TensorProto, name)}
