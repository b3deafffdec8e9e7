"""Tensor types as plain Python values, and their mapping to MLIR builtin types.

Shape functions, the importer and the interpreters reason about `TensorSpec`
(a static shape and a NumPy dtype) rather than MLIR type handles, so they stay
ordinary Python that is easy to test without a context.
"""

from __future__ import annotations

import math
import weakref

from dataclasses import dataclass, field

import numpy as np
from mlir import ir
from mlir.dialects import quant

from lamina import LaminaError

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
    np.dtype(np.uint16): lambda: ir.IntegerType.get_unsigned(16),
    np.dtype(np.uint32): lambda: ir.IntegerType.get_unsigned(32),
    np.dtype(np.uint64): lambda: ir.IntegerType.get_unsigned(64),
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
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "i1": np.dtype(np.bool_),
}


class UnsupportedType(LaminaError, ValueError):
    """An element type or tensor type Lamina cannot represent."""


class ShapeError(LaminaError, ValueError):
    """A shape function rejected an op's operand or result types or attributes."""


@dataclass(frozen=True)
class QuantParams:
    """An upstream `!quant.uniform` element type: real = (stored - zero_point) * scale.

    One scale and zero point per tensor (`axis` None) or per index of `axis`.
    The stored integer type is the owning `TensorSpec`'s dtype; values are
    clamped to [qmin, qmax] (a narrow range such as [-127, 127] is allowed).
    """

    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    axis: int | None
    qmin: int
    qmax: int
    expressed: np.dtype = np.dtype(np.float32)

    def __post_init__(self):
        object.__setattr__(self, "scales", tuple(float(s) for s in self.scales))
        object.__setattr__(self, "zero_points", tuple(int(z) for z in self.zero_points))
        object.__setattr__(self, "expressed", np.dtype(self.expressed))

    def broadcast(self, values, rank: int) -> np.ndarray:
        """Scales or zero points shaped to broadcast against a tensor of `rank` dims."""
        array = np.asarray(values)
        if self.axis is None:
            return array.reshape(())
        return array.reshape([-1 if d == self.axis else 1 for d in range(rank)])

    def element_type(self, storage: np.dtype) -> ir.Type:
        storage_type = ir.IntegerType.get_signless(np.dtype(storage).itemsize * 8)
        flags = quant.QuantizedType.FLAG_SIGNED if np.dtype(storage).kind == "i" else 0
        expressed = element_type(self.expressed)
        if self.axis is None:
            return quant.UniformQuantizedType.get(flags, storage_type, expressed, self.scales[0],
                                                  self.zero_points[0], self.qmin, self.qmax)
        return quant.UniformQuantizedPerAxisType.get(flags, storage_type, expressed, list(self.scales),
                                                     list(self.zero_points), self.axis, self.qmin, self.qmax)


@dataclass(frozen=True)
class TensorSpec:
    """A statically shaped tensor type: what every graph value has.

    A quantized tensor's dtype is its stored integer type and `quant` its
    scales. `quant` takes no part in equality: shape rules compare shapes and
    stored types, and an op that changes the scale (a convolution, an add)
    takes its result's scale from the declared result type.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    quant: QuantParams | None = field(default=None, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        object.__setattr__(self, "dtype", np.dtype(self.dtype))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)  # not np.prod: verifiers ask this of every operand, and it is 25x faster

    @property
    def nbytes(self) -> int:
        return self.num_elements * self.dtype.itemsize

    def with_shape(self, shape) -> "TensorSpec":
        return TensorSpec(tuple(shape), self.dtype, self.quant)

    def with_dtype(self, dtype) -> "TensorSpec":
        return TensorSpec(self.shape, np.dtype(dtype))

    def with_quant(self, quant: QuantParams | None, dtype=None) -> "TensorSpec":
        return TensorSpec(self.shape, self.dtype if dtype is None else dtype, quant)

    def __str__(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        element = dtype_to_mlir_name(self.dtype)
        if self.quant is not None:
            element = _quant_text(self.quant, element)
        return f"tensor<{dims}x{element}>" if dims else f"tensor<{element}>"


def _quant_text(params: QuantParams, storage: str) -> str:
    bounds = f"{storage}<{params.qmin}:{params.qmax}>"
    expressed = dtype_to_mlir_name(params.expressed)
    pairs = ",".join(f"{s:g}:{z}" for s, z in zip(params.scales, params.zero_points))
    if params.axis is None:
        return f"!quant.uniform<{bounds}:{expressed}, {pairs}>"
    return f"!quant.uniform<{bounds}:{expressed}:{params.axis}, {{{pairs}}}>"


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
    """The NumPy dtype of an MLIR element type (a quantized one's stored type)."""
    if isinstance(element, (quant.UniformQuantizedType, quant.UniformQuantizedPerAxisType)):
        stored = dtype_of(element.storage_type)
        return stored if element.is_signed else np.dtype(f"u{stored.name}")
    try:
        return _DTYPE_BY_TYPE_STR[str(element)]
    except KeyError:
        raise UnsupportedType(f"element type {element} is not supported") from None


def quant_params(element: ir.Type) -> QuantParams | None:
    """The scales of a `!quant.uniform` element type; None for other types."""
    if isinstance(element, quant.UniformQuantizedType):
        return QuantParams((element.scale,), (element.zero_point,), None, element.storage_type_min,
                           element.storage_type_max, dtype_of(element.expressed_type))
    if isinstance(element, quant.UniformQuantizedPerAxisType):
        return QuantParams(element.scales, element.zero_points, element.quantized_dimension,
                           element.storage_type_min, element.storage_type_max, dtype_of(element.expressed_type))
    if isinstance(element, quant.QuantizedType):
        raise UnsupportedType(f"element type {element} is not supported (only !quant.uniform)")
    return None


def to_mlir(spec: TensorSpec) -> ir.RankedTensorType:
    element = spec.quant.element_type(spec.dtype) if spec.quant is not None else element_type(spec.dtype)
    return ir.RankedTensorType.get(list(spec.shape), element)


# A memref cannot have a `!quant.uniform` element type (MLIR's memref element types exclude it), so a
# quantized buffer is a memref of its stored integers whose memory space, a dictionary, holds the type:
# `memref<4xi8, {quant = !quant.uniform<i8:f32, 0.5:3>}>`. Types stay self-describing at the buffer level, so
# buffer passes that compare types never mix two scales.
QUANT_KEY = "quant"


def to_memref(spec: TensorSpec) -> ir.MemRefType:
    """The identity-layout memref holding a tensor of `spec`: a buffer-level value (see QUANT_KEY)."""
    space = None
    if spec.quant is not None:
        space = ir.DictAttr.get({QUANT_KEY: ir.TypeAttr.get(spec.quant.element_type(spec.dtype))})
    return ir.MemRefType.get(list(spec.shape), element_type(spec.dtype), memory_space=space,
                             loc=ir.Location.unknown())


def _memref_element(memref: ir.MemRefType) -> ir.Type:
    """A memref's element type, or the `!quant.uniform` type its memory space holds (QUANT_KEY)."""
    space = memref.memory_space
    if space is None:
        return memref.element_type
    if not isinstance(space, ir.DictAttr) or QUANT_KEY not in space or not isinstance(space[QUANT_KEY], ir.TypeAttr):
        raise UnsupportedType(f"expected a memref in the default memory space or {{{QUANT_KEY} = !quant.uniform}}, "
                              f"got {memref}")
    element = ir.TypeAttr(space[QUANT_KEY]).value
    if quant_params(element) is None or dtype_of(element) != dtype_of(memref.element_type):
        raise UnsupportedType(f"memref {memref}: its memory space must hold a !quant.uniform type stored as its "
                              "element type")
    return element


def _identity_layout(memref: ir.MemRefType) -> bool:
    layout = memref.layout
    return isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(memref.rank, memref.context)


# Per context, by the type's hash (its uniqued storage pointer, fixed while the context lives): a verifier
# asks for the same few types thousands of times, and keying by the type's text cost more than the rest of
# the lookup. Holding types would keep their contexts (and their constants) alive, hence the weak keys.
_SPECS: "weakref.WeakKeyDictionary[ir.Context, dict[int, TensorSpec]]" = weakref.WeakKeyDictionary()


def spec_of(type_: ir.Type) -> TensorSpec:
    """The `TensorSpec` of a statically shaped ranked tensor or memref type."""
    context = type_.context
    specs = _SPECS.get(context)
    if specs is None:
        specs = _SPECS[context] = {}
    key = hash(type_)
    spec = specs.get(key)
    if spec is None:
        spec = specs[key] = _uncached_spec_of(type_)
    return spec


def _uncached_spec_of(type_: ir.Type) -> TensorSpec:
    if not isinstance(type_, (ir.RankedTensorType, ir.MemRefType)):
        raise UnsupportedType(f"expected a ranked tensor or memref type, got {type_}")
    if not type_.has_static_shape:
        raise UnsupportedType(f"expected a static shape, got {type_}")
    if isinstance(type_, ir.MemRefType) and not _identity_layout(type_):
        raise UnsupportedType(f"expected an identity-layout memref, got {type_}")
    element = _memref_element(type_) if isinstance(type_, ir.MemRefType) else type_.element_type
    return TensorSpec(tuple(type_.shape), dtype_of(element), quant_params(element))
