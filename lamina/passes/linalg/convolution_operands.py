"""The operands of `linalg-convolution-to-matmuls`: constant filters rearranged at compile time (taps
first, widened to the accumulator's type), zero paddings and group views seen through.

Kept apart from the rewrite itself because each reads an operand's producer
(an `arith.constant`, a `tensor.pad`, an `expand_shape`) rather than building
matmuls.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.passes.conversion.graph_to_linalg.builders import is_float, sign_extended, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import collapse


def constant_elements(value: ir.Value) -> ir.DenseElementsAttr | None:
    """The elements of a dense `arith.constant` (through reshapes: same elements in order), else None."""
    owner = value.owner
    while isinstance(owner, ir.OpView) and owner.operation.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        owner = owner.operation.operands[0].owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "arith.constant":
        attr = owner.operation.attributes["value"]
        if isinstance(attr, ir.DenseElementsAttr):
            return ir.DenseElementsAttr(attr)
    return None


def taps_first(filter_: ir.Value, rows: int | None = None) -> ir.Value:
    """A [..., kh, kw] filter as [kh, kw, ...]: each tap a contiguous block ([filters, channels] for a
    convolution, [groups, filters, channels] grouped, [channels] depthwise).

    A constant filter (the usual case: weights) is transposed at compile time,
    and a grouped one padded with zero filters to `rows` filters per group.
    """
    filter_type = tensor_type(filter_.type)
    shape = list(filter_type.shape)
    lead, kernel = shape[:-2], shape[-2:]
    if len(lead) == 3 and rows is not None:
        lead[1] = rows
    transposed = ir.RankedTensorType.get([*kernel, *lead], filter_type.element_type)
    rank = len(shape)
    order = [rank - 2, rank - 1, *range(rank - 2)]
    attr = constant_elements(filter_)
    if attr is not None:
        if attr.is_splat and lead == shape[:-2]:
            return arith.constant(transposed, ir.DenseElementsAttr.get_splat(transposed, attr.get_splat_value()))
        array = constant_array(attr, shape)
        array = np.ascontiguousarray(array.transpose(order))
        if list(array.shape) != [*kernel, *lead]:
            widths = [(0, 0)] * rank
            widths[3] = (0, lead[1] - array.shape[3])
            array = np.pad(array, widths)
        return arith.constant(transposed, ir.DenseElementsAttr.get(array, type=filter_type.element_type))
    transpose = linalg.transpose(filter_, outs=[tensor.empty([*kernel, *shape[:-2]], filter_type.element_type)],
                                 permutation=order)
    return transpose.results[0]


def constant_array(attr: ir.DenseElementsAttr, shape: list[int]) -> np.ndarray:
    """A dense float or integer constant's elements as an array of `shape`."""
    if attr.is_splat:
        splat = attr.get_splat_value()
        if is_float(splat.type):
            return np.full(shape, ir.FloatAttr(splat).value, np.float32)
        return np.full(shape, ir.IntegerAttr(splat).value, np.dtype(f"int{ir.IntegerType(splat.type).width}"))
    dense = ir.DenseFPElementsAttr(attr) if is_float(attr.type.element_type) else ir.DenseIntElementsAttr(attr)
    return np.array(dense).reshape(shape)


def widened(value: ir.Value, wide: ir.Type) -> ir.Value:
    """An integer tensor sign-extended to the accumulator's type `wide` (a constant at compile time); a
    tensor of that type already is returned as it is."""
    type_ = tensor_type(value.type)
    if type_.element_type == wide:
        return value
    result_type = ir.RankedTensorType.get(type_.shape, wide)
    attr = constant_elements(value)
    if attr is not None:
        array = constant_array(attr, list(type_.shape)).astype(f"int{ir.IntegerType(wide).width}")
        return arith.constant(result_type, ir.DenseElementsAttr.get(array, type=wide))
    return sign_extended(value, wide)


def is_zero(attr: ir.Attribute) -> bool:
    """Whether a scalar constant is 0 (float or integer: a zero padding of either kind)."""
    if isinstance(attr, ir.FloatAttr):
        return ir.FloatAttr(attr).value == 0.0
    return isinstance(attr, ir.IntegerAttr) and ir.IntegerAttr(attr).value == 0


def zero_padding(value: ir.Value) -> tuple[ir.Value, tuple[int, int]]:
    """The unpadded input and its (top, left) padding when `value` is a static zero `tensor.pad` of
    spatial dims only; else `value` itself, unpadded."""
    owner = value.owner
    if not (isinstance(owner, ir.OpView) and owner.operation.name == "tensor.pad"):
        return value, (0, 0)
    op = owner.operation
    low, high = (list(ir.DenseI64ArrayAttr(op.attributes[n])) for n in ("static_low", "static_high"))
    yielded = list(op.regions[0].blocks[0].operations)[-1].operands[0]
    constant = yielded.owner
    if (len(op.operands) != 1 or any(low[:2]) or any(high[:2]) or min(low + high) < 0
            or not (isinstance(constant, ir.OpView) and constant.operation.name == "arith.constant")
            or not is_zero(constant.operation.attributes["value"])):
        return value, (0, 0)
    return op.operands[0], (low[2], low[3])


def ungrouped(value: ir.Value) -> ir.Value:
    """[n, groups, channels, h, w] as [n, groups x channels, h, w] (the expand_shape's source if it is one)."""
    n, group, per_group, height, width = tensor_type(value.type).shape
    owner = value.owner
    if (isinstance(owner, ir.OpView) and owner.operation.name == "tensor.expand_shape"
            and tensor_type(owner.operation.operands[0].type).shape == [n, group * per_group, height, width]):
        return owner.operation.operands[0]
    return collapse(value, [n, group * per_group, height, width], [[0], [1, 2], [3], [4]])
