"""Attribute kinds: how a Python value is stored as an MLIR attribute, and read back.

Each kind names its IRDL base constraint (what MLIR checks) and its codec;
op definitions (`irdl.OpDef.attrs`) type every attribute with one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from mlir import ir

from .types import ShapeError, TensorSpec, spec_of, to_mlir


@dataclass(frozen=True)
class AttrKind:
    """A typed attribute: its IRDL base constraint and its Python codec."""

    name: str
    irdl_base: str | None  # None: `irdl.any`, checked by `decode` in Python.
    encode: Callable[[object], ir.Attribute]
    decode: Callable[[ir.Attribute], object]


def _decode_scalar(attr: ir.Attribute):
    if isinstance(attr, ir.BoolAttr):
        return bool(ir.BoolAttr(attr).value)
    if isinstance(attr, ir.IntegerAttr):
        return int(ir.IntegerAttr(attr).value)
    if isinstance(attr, ir.FloatAttr):
        return float(ir.FloatAttr(attr).value)
    raise ShapeError(f"expected an integer or float attribute, got {attr}")


def _decode_elements(attr: ir.Attribute) -> np.ndarray:
    if not isinstance(attr, ir.DenseElementsAttr):
        raise ShapeError(f"expected dense elements, got {attr}")
    dense = ir.DenseElementsAttr(attr)
    spec = spec_of(dense.type)
    if dense.is_splat:
        scalar = _decode_scalar(dense.get_splat_value())
        return np.full(spec.shape, scalar, dtype=spec.dtype)
    return np.array(dense).reshape(spec.shape)


def elements_view(attr: ir.DenseElementsAttr) -> np.ndarray:
    """The attribute's data as a read-only view of MLIR's storage when NumPy reads that storage as the element
    type (not for splats or bit-packed i1), else a decoded copy: reading ResNet-50's weights this way costs
    nothing, where `ELEMENTS.decode` copies 100 MB."""
    dense = ir.DenseElementsAttr(attr)
    spec = spec_of(dense.type)
    if not dense.is_splat:
        view = np.asarray(dense)
        if view.dtype == spec.dtype:
            return view.reshape(spec.shape)
    return _decode_elements(dense)


def _encode_elements(value) -> ir.Attribute:
    # The explicit shape keeps 0-d arrays 0-d (the bindings would make them
    # [1]); unsigned arrays need `signless=False` to stay `ui8` rather than `i8`.
    array = np.asarray(value)
    contiguous = np.ascontiguousarray(array)  # at least 1-D: the shape comes from `array`
    return ir.DenseElementsAttr.get(contiguous, signless=array.dtype.kind != "u", shape=list(array.shape))


def _int64_value(attribute: ir.Attribute) -> int:
    """An integer attribute's value; wider than 64 bits is a ShapeError (the bindings would abort)."""
    integer = ir.IntegerAttr(attribute)
    if isinstance(integer.type, ir.IntegerType) and ir.IntegerType(integer.type).width > 64:
        raise ShapeError(f"integer attribute {str(attribute)[:60]} must have at most 64 bits")
    return int(integer.value)


I64 = AttrKind(
    "i64",
    "#builtin.integer",
    lambda v: ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(v)),
    _int64_value,
)
BOOL = AttrKind(
    "bool",
    "#builtin.integer",
    lambda v: ir.BoolAttr.get(bool(v)),
    lambda a: bool(ir.BoolAttr(a).value),
)
F32 = AttrKind(
    "f32",
    "#builtin.float",
    lambda v: ir.FloatAttr.get_f32(float(v)),
    lambda a: float(ir.FloatAttr(a).value),
)
STR = AttrKind(
    "str",
    "#builtin.string",
    lambda v: ir.StringAttr.get(str(v)),
    lambda a: ir.StringAttr(a).value,
)
I64S = AttrKind(
    "i64s",
    "#builtin.dense_array",
    lambda v: ir.DenseI64ArrayAttr.get([int(x) for x in v]),
    lambda a: tuple(int(x) for x in ir.DenseI64ArrayAttr(a)),
)
F32S = AttrKind(
    "f32s",
    "#builtin.dense_array",
    lambda v: ir.DenseF32ArrayAttr.get([float(x) for x in v]),
    lambda a: tuple(float(x) for x in ir.DenseF32ArrayAttr(a)),
)
# `irdl.any`, not `#builtin.dense_int_or_fp_elements`: a module written with its weights outside
# (`dense_resource<KEY>`) must parse before `parse_module` loads them (external_weights.py), and IRDL 22
# aborts on `any_of` attribute constraints. `decode` checks the kind, as for SCALAR.
ELEMENTS = AttrKind("elements", None, _encode_elements, _decode_elements)
# A scalar whose MLIR type must match a tensor's element type (checked by the
# op's shape function); IRDL 22 cannot say "integer or float" without crashing.
SCALAR = AttrKind("scalar", None, None, _decode_scalar)  # encoded by `encode_scalar`


def encode_scalar(value, dtype) -> ir.Attribute:
    """A scalar attribute typed like elements of `dtype`."""
    dtype = np.dtype(dtype)
    element = to_mlir(TensorSpec((), dtype)).element_type
    if dtype == np.bool_:
        return ir.BoolAttr.get(bool(value))
    if np.issubdtype(dtype, np.integer):
        return ir.IntegerAttr.get(element, int(value))
    return ir.FloatAttr.get(element, float(value))
