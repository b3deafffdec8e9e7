"""Small builders every graph-to-linalg converter shares.

They create upstream ops at the current insertion point and location (the
driver sets both to the graph op being converted), on builtin tensor types.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.dialects.types import TensorSpec

from .storage import storage_type, stored

PARALLEL = "parallel"
REDUCTION = "reduction"

Body = Callable[..., ir.Value]


def tensor_type(type_: ir.Type) -> ir.RankedTensorType:
    """A converted value's type (always a ranked tensor) with its shape and element type."""
    return ir.RankedTensorType(type_)


def is_float(element: ir.Type) -> bool:
    return isinstance(element, (ir.F16Type, ir.F32Type, ir.F64Type, ir.BF16Type))


def scalar_attr(element: ir.Type, value) -> ir.Attribute:
    """A float or integer attribute of one element type."""
    if is_float(element):
        return ir.FloatAttr.get(element, float(value))
    return ir.IntegerAttr.get(element, int(value))


def scalar(element: ir.Type, value) -> ir.Value:
    """An `arith.constant` of one element type (float or integer, incl. i1)."""
    return arith.constant(element, scalar_attr(element, value))


def empty(type_: ir.RankedTensorType) -> ir.Value:
    return tensor.empty(list(type_.shape), type_.element_type)


def filled(type_: ir.RankedTensorType, value) -> ir.Value:
    """A tensor of `type_` with every element `value` (an init for reductions)."""
    return linalg.fill(scalar(type_.element_type, value), outs=[empty(type_)])


def dense_constant(array: np.ndarray) -> ir.Value:
    """A compile-time array of a graph dtype as an `arith.constant` tensor of its storage type."""
    array = np.asarray(array)
    type_ = storage_type(TensorSpec(array.shape, array.dtype))
    elements = np.atleast_1d(stored(array))  # the bindings want >= 1-D; the explicit shape keeps 0-d
    return arith.constant(type_, ir.DenseElementsAttr.get(elements, type=type_.element_type, shape=list(type_.shape)))


def splat_constant(spec: TensorSpec, value) -> ir.Value:
    """A tensor of `spec` with every element `value` (cast as NumPy's astype does), as a splat constant."""
    type_ = storage_type(spec)
    element = scalar_attr(type_.element_type, stored(value, spec.dtype)[()])
    return arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, element))


def dims(*positions: int) -> list[ir.AffineExpr]:
    return [ir.AffineDimExpr.get(p) for p in positions]


def affine_map(num_dims: int, exprs: Sequence[ir.AffineExpr]) -> ir.AffineMap:
    return ir.AffineMap.get(num_dims, 0, list(exprs))


def identity_map(rank: int) -> ir.AffineMap:
    return ir.AffineMap.get_identity(rank)


def generic(inputs: Sequence[ir.Value], inits: Sequence[ir.Value], maps: Sequence[ir.AffineMap],
            iterators: Sequence[str], body: Body) -> list[ir.Value]:
    """A `linalg.generic` whose region yields `body(*input_elements, *init_elements)`.

    `body` returns one value per init (a single value when there is one init).
    """
    op = linalg.GenericOp_(
        list(inputs), list(inits),
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{kind}>") for kind in iterators]),
    )
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(block):
        yielded = body(*block.arguments)
        linalg.YieldOp(list(yielded) if isinstance(yielded, (list, tuple)) else [yielded])
    return list(op.results)


def map_elements(result_type: ir.RankedTensorType, inputs: Sequence[ir.Value], body: Body) -> ir.Value:
    """An element-wise `linalg.generic`: result[i] = body(input0[i], input1[i], ...).

    Every input has the result's shape (the graph broadcasts explicitly).
    """
    rank = result_type.rank
    maps = [identity_map(rank)] * (len(inputs) + 1)
    (result,) = generic(inputs, [empty(result_type)], maps, [PARALLEL] * rank,
                        lambda *args: body(*args[:len(inputs)]))
    return result


def to_float(value: ir.Value, element: ir.Type) -> ir.Value:
    """A float tensor converted element-wise to float type `element` (wider: exact; narrower: rounded)."""
    source = tensor_type(value.type)
    if source.element_type == element:
        return value
    widen = ir.FloatType(element).width > ir.FloatType(source.element_type).width
    convert = arith.extf if widen else arith.truncf
    return map_elements(ir.RankedTensorType.get(source.shape, element), [value], lambda x: convert(element, x))


def broadcast_along(vector: ir.Value, result_type: ir.RankedTensorType, dim: int) -> ir.Value:
    """A [size] vector repeated over every other dimension of `result_type` (a bias as an init)."""
    rank = result_type.rank
    (result,) = generic([vector], [empty(result_type)], [affine_map(rank, dims(dim)), identity_map(rank)],
                        [PARALLEL] * rank, lambda element, _: element)
    return result


def pad(value: ir.Value, low: Sequence[int], high: Sequence[int], padding) -> ir.Value:
    """`tensor.pad` with a constant; returns `value` itself when nothing is padded."""
    if not any(low) and not any(high):
        return value
    source = ir.RankedTensorType(value.type)
    shape = [size + lo + hi for size, lo, hi in zip(source.shape, low, high)]
    result_type = ir.RankedTensorType.get(shape, source.element_type)
    op = tensor.PadOp(result_type, value, [], [], list(low), list(high))
    block = op.regions[0].blocks.append(*([ir.IndexType.get()] * source.rank))
    with ir.InsertionPoint(block):
        tensor.YieldOp(scalar(source.element_type, padding))
    return op.result


def add(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """Scalar sum of floats or signless integers (accumulations in region bodies)."""
    return arith.addf(lhs, rhs) if is_float(lhs.type) else arith.addi(lhs, rhs)


def multiply(lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return arith.mulf(lhs, rhs) if is_float(lhs.type) else arith.muli(lhs, rhs)


def multiply_accumulate(lhs: ir.Value, rhs: ir.Value, accumulator: ir.Value) -> ir.Value:
    """The body of a contraction: accumulator + lhs * rhs."""
    return add(accumulator, multiply(lhs, rhs))
