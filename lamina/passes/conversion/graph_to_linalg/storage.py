"""How graph values are stored on the CPU path: booleans as i8, unsigned integers as signless ones.

`arith` computes on signless integers only, and upstream's memref-to-LLVM
lowering cannot store i1 elements (it asserts, aborting the process), so a
graph `i1` lives as i8 bytes holding 0 or 1 (NumPy's own bool layout) and a
`ui8`..`ui64` as the same bits in the signless integer of its width. Every
other element type is stored as it is. The signedness an unsigned type loses
is carried by the converters (`elementwise.Scalars` picks unsigned ops from
the graph dtype), and the executor passes bool and unsigned arrays as views
of the same bytes.

Everything that meets a graph type on the CPU path goes through
`storage_dtype`: the function signature, constants, each converted op's
result type and the executor's marshalling.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec, spec_of, to_mlir

def storage_dtype(dtype) -> np.dtype:
    """The dtype holding a graph dtype's elements on the CPU path (bool as int8, uintN as intN)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return np.dtype(np.int8)
    return np.dtype(f"i{dtype.itemsize}") if dtype.kind == "u" else dtype


def storage_type(graph_type: TensorSpec | ir.Type) -> ir.RankedTensorType:
    """The builtin tensor type holding a graph tensor type (or spec) on the CPU path."""
    spec = graph_type if isinstance(graph_type, TensorSpec) else spec_of(graph_type)
    return to_mlir(spec.with_dtype(storage_dtype(spec.dtype)))


def stored(array, dtype=None) -> np.ndarray:
    """An array (or number, cast to `dtype` as NumPy's astype does) as its stored elements: same bytes."""
    array = np.asarray(array) if dtype is None else np.asarray(array).astype(dtype)
    return np.asarray(array, order="C").view(storage_dtype(array.dtype))  # keeps 0-d arrays 0-d


def result_type(op: OpView, index: int = 0) -> ir.RankedTensorType:
    """The stored type of the op's result `index`: what its converter must produce."""
    return storage_type(op.result_specs()[index])
