"""ONNX element types as NumPy dtypes, limited to what the graph dialect carries."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

_DTYPES = {
    TensorProto.FLOAT: np.dtype(np.float32),
    TensorProto.DOUBLE: np.dtype(np.float64),
    TensorProto.FLOAT16: np.dtype(np.float16),
    TensorProto.INT64: np.dtype(np.int64),
    TensorProto.INT32: np.dtype(np.int32),
    TensorProto.INT16: np.dtype(np.int16),
    TensorProto.INT8: np.dtype(np.int8),
    TensorProto.UINT64: np.dtype(np.uint64),
    TensorProto.UINT32: np.dtype(np.uint32),
    TensorProto.UINT16: np.dtype(np.uint16),
    TensorProto.UINT8: np.dtype(np.uint8),
    TensorProto.BOOL: np.dtype(np.bool_),
}

SUPPORTED_DTYPES = frozenset(_DTYPES.values())


class UnsupportedElementType(ValueError):
    """An ONNX element type the graph dialect has no type for."""


def type_name(code: int) -> str:
    """`FLOAT`, `STRING`, ...: the ONNX spelling, for messages."""
    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"element type {code}"


def numpy_dtype(code: int) -> np.dtype:
    """The dtype of ONNX element type `code`; UnsupportedElementType if there is none."""
    try:
        return _DTYPES[code]
    except KeyError:
        raise UnsupportedElementType(f"element type {type_name(code)} is not supported") from None


def is_supported(code: int) -> bool:
    return code in _DTYPES


def tensor_value(tensor: TensorProto) -> np.ndarray:
    """A TensorProto's data (including external data already loaded) as an array."""
    numpy_dtype(tensor.data_type)
    return numpy_helper.to_array(tensor)

