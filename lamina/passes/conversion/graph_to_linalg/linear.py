"""Fully-connected layers and matrix products as linalg contractions.

Named linalg ops where one matches (`matmul`, `batch_matmul`): the CPU
pipeline rewrites and vectorizes those. Broadcasting batched products use
one `linalg.generic`. The bias is broadcast into the output first, so the
contraction accumulates onto it and no separate add is needed. Half-precision
products accumulate in f32 and round once, as NumPy's float16 matmul does
(the reference kernel); a half-precision bias is then added in f16.
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, linalg

from lamina.dialects.irdl import OpView

from .builders import (PARALLEL, REDUCTION, affine_map, broadcast_along, dims, filled, generic, map_elements,
                       multiply_accumulate, tensor_type, to_float)
from .registry import converts
from .storage import result_type


def _half_in_f32(operands: list[ir.Value], out: ir.RankedTensorType,
                 product: Callable[[ir.Value, ir.Value, ir.RankedTensorType], ir.Value]) -> ir.Value:
    """`product(lhs, rhs, out)`, computed on f32 copies and rounded once when `out` is f16."""
    if not isinstance(out.element_type, ir.F16Type):
        return product(*operands, out)
    f32 = ir.F32Type.get()
    result = product(*(to_float(v, f32) for v in operands), ir.RankedTensorType.get(out.shape, f32))
    return to_float(result, out.element_type)


@converts("fully_connected")
def fully_connected(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, weights, bias = operands
    out = result_type(view)
    if isinstance(out.element_type, ir.F16Type):
        product = _half_in_f32([data, weights], out, _product)
        return [map_elements(out, [product, broadcast_along(bias, out, 1)], arith.addf)]
    return [linalg.matmul(data, weights, outs=[broadcast_along(bias, out, 1)])]


@converts("matmul")
def matmul(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [_half_in_f32(operands, result_type(view), _product)]


def _product(lhs: ir.Value, rhs: ir.Value, out: ir.RankedTensorType) -> ir.Value:
    """lhs x rhs into a new tensor of `out`: matmul, batch_matmul or a broadcasting generic."""
    lhs_shape, rhs_shape = list(tensor_type(lhs.type).shape), list(tensor_type(rhs.type).shape)
    init = filled(out, 0)
    if len(lhs_shape) == len(rhs_shape) == 2:
        return linalg.matmul(lhs, rhs, outs=[init])
    if len(lhs_shape) == len(rhs_shape) == 3 and lhs_shape[0] == rhs_shape[0]:
        return linalg.batch_matmul(lhs, rhs, outs=[init])
    return _broadcast_matmul(lhs, rhs, init)


def _broadcast_matmul(lhs: ir.Value, rhs: ir.Value, init: ir.Value) -> ir.Value:
    """Batched product whose batch dimensions broadcast (NumPy matmul), as one generic.

    Loops: the result's batch dims, i, j, then k. An operand's batch dim of
    size 1 (or one it lacks) is read at index 0.
    """
    result_shape = list(tensor_type(init.type).shape)
    batch = len(result_shape) - 2
    i, j, k = batch, batch + 1, batch + 2
    num_dims = batch + 3

    def operand_map(shape: list[int], rows: int, cols: int) -> ir.AffineMap:
        own_batch = len(shape) - 2
        exprs = [ir.AffineConstantExpr.get(0) if size == 1 and result_shape[batch - own_batch + b] != 1
                 else ir.AffineDimExpr.get(batch - own_batch + b)
                 for b, size in enumerate(shape[:own_batch])]
        return affine_map(num_dims, [*exprs, *dims(rows, cols)])

    maps = [operand_map(list(tensor_type(lhs.type).shape), i, k),
            operand_map(list(tensor_type(rhs.type).shape), k, j),
            affine_map(num_dims, dims(*range(batch), i, j))]
    (result,) = generic([lhs, rhs], [init], maps, [PARALLEL] * (batch + 2) + [REDUCTION], multiply_accumulate)
    return result
