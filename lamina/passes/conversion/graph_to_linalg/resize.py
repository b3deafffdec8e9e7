"""Nearest resize in linalg: a gather through per-axis index tables computed at compile time."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor

from lamina.dialects.irdl import OpView
from lamina.kernels.graph_kernels import nearest_source_indices

from .builders import PARALLEL, affine_map, dense_constant, dims, empty, generic, identity_map, tensor_type
from .registry import converts
from .storage import result_type


@converts("resize_nearest")
def resize_nearest(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Each output element reads the input at per-axis source indices computed at compile time."""
    (data,) = operands
    source_type, out = tensor_type(data.type), result_type(view)
    scales = view.attr("scales")
    tables = [dense_constant(nearest_source_indices(size, out_size, scale, view.attr("coordinate_transformation_mode"),
                                                    view.attr("nearest_mode")))
              for size, out_size, scale in zip(source_type.shape, out.shape, scales)]
    rank = out.rank
    maps = [affine_map(rank, dims(axis)) for axis in range(rank)] + [identity_map(rank)]

    def gather(*indices_and_out: ir.Value) -> ir.Value:
        indices = [arith.index_cast(ir.IndexType.get(), i) for i in indices_and_out[:rank]]
        return tensor.extract(data, indices)

    (result,) = generic(tables, [empty(out)], maps, [PARALLEL] * rank, gather)
    return [result]
