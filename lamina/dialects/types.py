"""Tensor types as plain Python values, and their mapping to MLIR builtin types.

Shape functions, the importer and the interpreters reason about `TensorSpec`
(a static shape and a NumPy dtype) rather than MLIR type handles, so they stay
ordinary Python that is easy to test without a context.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.errors import LaminaError

# Element types Lamina's graph level carries, keyed by NumPy dtype.
_ELEMENT_TYPES = {
    np.dtype(np.float32): lambda: ir.F32Type.get(),
    np.dtype(np.float64): lambda: ir.F64Type.get(),
    np.dtype(np.float16): lambda: ir.F16Type.get(),
    np.dtype(np.int64): lambda: ir.IntegerType.get_signless(64),
    np.dtype(np.int32): lambda: ir.IntegerType.get_signless(32),
    np.dtype(np.int16): lambda: ir.IntegerType.get_signless(16),
    np.dtype(np.int8): lambda: ir.IntegerType.get_signless(8),
    np.dtype(np.uint8): lambda: ir.IntegerType.get_unsigned(8),
    np.dtype(np.bool_): lambda: ir.IntegerType.get_signless(1),
}

_DTYPE_BY_TYPE_STR = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f16": np.dtype(np.float16),
    "i64": np.dtype(np.int64),
    "i32": np.dtype(np.int32),
    "i16": np.dtype(np.int16),
    "i8": np.dtype(np.int8),
    "ui8": np.dtype(np.uint8),
    "i1": np.dtype(np.bool_),
}


class UnsupportedType(LaminaError, ValueError):
    """An element type or tensor type Lamina cannot represent."""


@dataclass(frozen=True)
class TensorSpec:
    """A statically shaped tensor type: what every graph value has."""

    shape: tuple[int, ...]
    dtype: np.dtype

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.num_elements * self.dtype.itemsize

    def with_shape(self, shape) -> "TensorSpec":
        return TensorSpec(tuple(shape), self.dtype)

    def with_dtype(self, dtype) -> "TensorSpec":
        return TensorSpec(self.shape, np.dtype(dtype))

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        element = dtype_to_mlir_name(self.dtype)
        return f"tensor<{dims}x{element}>" if dims else f"tensor<{element}>"


def dtype_to_mlir_name(dtype) -> str:
    for name, known in _DTYPE_BY_TYPE_STR.items():
        if known == np.dtype(dtype):
            return name
    raise UnsupportedType(f"element type {np.dtype(dtype)} is not supported")


def element_type(dtype) -> ir.Type:
    """The MLIR element type for a NumPy dtype (needs an active context)."""
    try:
        return _ELEMENT_TYPES[np.dtype(dtype)]()
    except KeyError:
        raise UnsupportedType(f"element type {np.dtype(dtype)} is not supported") from None


def dtype_of(element: ir.Type) -> np.dtype:
    """The NumPy dtype of an MLIR element type."""
    try:
        return _DTYPE_BY_TYPE_STR[str(element)]
    except KeyError:
        raise UnsupportedType(f"element type {element} is not supported") from None


def to_mlir(spec: TensorSpec) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(spec.shape), element_type(spec.dtype))


def to_memref(spec: TensorSpec) -> ir.MemRefType:
    """The identity-layout memref holding a tensor of `spec`: a buffer-level value."""
    return ir.MemRefType.get(list(spec.shape), element_type(spec.dtype), loc=ir.Location.unknown())


def _identity_layout(memref: ir.MemRefType) -> bool:
    layout = memref.layout
    return isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(memref.rank, memref.context)


# By the type's text, not the type: holding types would keep their contexts (and their constants) alive.
_SPECS: dict[str, TensorSpec] = {}  # a verifier asks for the same few types thousands of times
_SPECS_LIMIT = 1 << 16


def spec_of(type_: ir.Type) -> TensorSpec:
    """The `TensorSpec` of a statically shaped ranked tensor or memref type."""
    key = str(type_)
    spec = _SPECS.get(key)
    if spec is None:
        spec = _uncached_spec_of(type_)
        if len(_SPECS) >= _SPECS_LIMIT:
            _SPECS.clear()
        _SPECS[key] = spec
    return spec


def _uncached_spec_of(type_: ir.Type) -> TensorSpec:
    if not isinstance(type_, (ir.RankedTensorType, ir.MemRefType)):
        raise UnsupportedType(f"expected a ranked tensor or memref type, got {type_}")
    if not type_.has_static_shape:
        raise UnsupportedType(f"expected a static shape, got {type_}")
    if isinstance(type_, ir.MemRefType) and not _identity_layout(type_):
        raise UnsupportedType(f"expected an identity-layout memref, got {type_}")
    return TensorSpec(tuple(type_.shape), dtype_of(type_.element_type))
