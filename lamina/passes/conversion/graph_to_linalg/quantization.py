"""`!quant.uniform` graphs on the CPU path: stored integers through upstream linalg and arith.

Values are their stored integers (a `u8` one in an i8, `storage.py`).
- quantize: x / scale, rounded half to even (`math.roundeven`), plus the zero
  point, clamped, as the interpreter and onnxruntime compute it;
- dequantize: (stored - zero point) x scale;
- convolution and fully_connected ("accumulate"): i8 x i8 -> i32 linalg
  contractions. The input is padded with its zero point, so the zero-point
  term is zero point x the filter's sum, folded with the bias into the i32
  init at compile time; u8 inputs become i8 by flipping the top bit (zero
  point - 128). One requantization follows: i32 -> f32 x (input scale x
  weight scale / result scale) per channel, rounded, plus the result's zero point;
- every other quantized op runs its float converter on dequantized operands
  and quantizes the result (what the interpreter computes for it).
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, math

from lamina.dialects.irdl import OpView
from lamina.dialects.types import QuantParams, TensorSpec
from lamina.dialects.values import constant_value

from .builders import PARALLEL, affine_map, broadcast_along, dense_constant, dims, empty, generic, identity_map, scalar
from .convolution import convolve, padded_input
from .registry import CONVERTERS, converts
from .storage import storage_type

F32 = np.dtype(np.float32)


def is_quantized(view: OpView) -> bool:
    return any(s.quant is not None for s in (*view.operand_specs(), *view.result_specs()))


def convert_quantized(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """The linalg form of a quantized op that is not a carrier."""
    if view.definition.quantized == "accumulate":
        return [_accumulate(view, operands)]
    if view.definition.quantized is None:
        raise NotImplementedError("it has no quantized form")
    reals = [dequantize(value, spec) if spec.quant is not None else value
             for value, spec in zip(operands, view.operand_specs())]
    (result,) = CONVERTERS[view.name](_FloatView(view), reals)
    spec = view.result_specs()[0]
    return [quantize(result, spec) if spec.quant is not None else result]


class _FloatView(OpView):
    """A quantized op seen as the same op on the reals its values stand for."""

    def __init__(self, view: OpView):
        super().__init__(view.op, view.definition)

    def operand_specs(self) -> list[TensorSpec]:
        return [_real(s) for s in super().operand_specs()]

    def result_specs(self) -> list[TensorSpec]:
        return [_real(s) for s in super().result_specs()]


def _real(spec: TensorSpec) -> TensorSpec:
    return TensorSpec(spec.shape, spec.quant.expressed) if spec.quant is not None else spec


@converts("quantize")
def _quantize(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [quantize(operands[0], view.result_specs()[0])]


@converts("dequantize")
def _dequantize(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [dequantize(operands[0], view.operand_specs()[0])]


def quantize(x: ir.Value, spec: TensorSpec) -> ir.Value:
    """Stored values of `spec` nearest to float `x`."""
    params = spec.quant
    scales, zeros, channel = _per_element(params, spec.rank)

    def body(value, scale, zero, _):
        real = arith.divf(value, scale)
        return _round_and_store(real, zero, params, storage_type(spec).element_type)

    return _elementwise(storage_type(spec), x, scales, zeros, channel, body)


def dequantize(q: ir.Value, spec: TensorSpec) -> ir.Value:
    """The f32 reals stored values stand for."""
    params = spec.quant
    scales, zeros, channel = _per_element(params, spec.rank)
    result = storage_type(TensorSpec(spec.shape, params.expressed))
    unsigned = spec.dtype.kind == "u"

    def body(value, scale, zero, _):
        wide = arith.extui(ir.IntegerType.get_signless(32), value) if unsigned else \
            arith.extsi(ir.IntegerType.get_signless(32), value)
        real = arith.subf(arith.sitofp(ir.F32Type.get(), wide), zero)
        return arith.mulf(real, scale)

    return _elementwise(result, q, scales, zeros, channel, body)


def _per_element(params: QuantParams, rank: int) -> tuple[ir.Value, ir.Value, int | None]:
    """f32 scale and zero-point vectors (one element when per tensor) and the dimension they follow."""
    return (dense_constant(np.asarray(params.scales, F32)), dense_constant(np.asarray(params.zero_points, F32)),
            params.axis)


def _elementwise(result: ir.RankedTensorType, x: ir.Value, scales: ir.Value, zeros: ir.Value, channel: int | None,
                 body) -> ir.Value:
    rank = result.rank
    vector = affine_map(rank, dims(channel)) if channel is not None else \
        affine_map(rank, [ir.AffineConstantExpr.get(0)])
    (value,) = generic([x, scales, zeros], [empty(result)], [identity_map(rank), vector, vector, identity_map(rank)],
                       [PARALLEL] * rank, body)
    return value


def _round_and_store(real: ir.Value, zero: ir.Value, params: QuantParams, storage: ir.Type) -> ir.Value:
    shifted = arith.addf(math.roundeven(real), zero)
    low, high = scalar(ir.F32Type.get(), params.qmin), scalar(ir.F32Type.get(), params.qmax)
    clamped = arith.minimumf(arith.maximumf(shifted, low), high)
    wide = arith.fptosi(ir.IntegerType.get_signless(32), clamped)
    return wide if ir.IntegerType(storage).width == 32 else arith.trunci(storage, wide)


def _accumulate(view: OpView, operands: list[ir.Value]) -> ir.Value:
    data_spec, weight_spec, bias_spec = view.operand_specs()
    out_spec = view.result_specs()[0]
    weights, bias = (constant_value(view.op.operands[i]) for i in (1, 2))
    if weights is None or bias is None:
        raise NotImplementedError("a quantized layer on the CPU path needs constant weights and bias")
    if any(weight_spec.quant.zero_points) or weight_spec.dtype != np.int8 or data_spec.dtype.itemsize != 1:
        raise NotImplementedError("the CPU path runs i8/u8 data with symmetric i8 weights (weight zero point 0)")
    data, zero = operands[0], data_spec.quant.zero_points[0]
    if data_spec.dtype.kind == "u":  # u8 -> i8 with the same order: flip the top bit
        data = _flip_top_bit(data)
        zero -= 128
    layer_axis = 0 if view.name == "convolution" else 1
    product_scales = data_spec.quant.scales[0] * np.broadcast_to(np.asarray(weight_spec.quant.scales), (weights.shape[layer_axis],))
    bias_scales = np.broadcast_to(np.asarray(bias_spec.quant.scales), product_scales.shape)
    bias_products = np.rint((bias.astype(np.float64) - np.asarray(bias_spec.quant.zero_points)) * bias_scales / product_scales)
    weight_sums = np.moveaxis(weights.astype(np.int64), layer_axis, 0).reshape(len(product_scales), -1).sum(axis=1)
    init_vector = dense_constant((bias_products - zero * weight_sums).astype(np.int32))
    accumulator_type = storage_type(TensorSpec(out_spec.shape, np.int32))
    if view.name == "convolution":
        padded = padded_input(view, data, zero)
        accumulator = convolve(view, padded, operands[1], broadcast_along(init_vector, accumulator_type, 1))
    else:
        init = broadcast_along(init_vector, accumulator_type, 1)
        accumulator = linalg.matmul(data, operands[1], outs=[init])
    multipliers = np.asarray(product_scales / out_spec.quant.scales[0], F32)
    return _requantize(accumulator, multipliers, out_spec)


def _flip_top_bit(value: ir.Value) -> ir.Value:
    type_ = ir.RankedTensorType(value.type)
    top = scalar(type_.element_type, -128)
    (flipped,) = generic([value], [empty(type_)], [identity_map(type_.rank)] * 2, [PARALLEL] * type_.rank,
                         lambda element, _: arith.xori(element, top))
    return flipped


def _requantize(accumulator: ir.Value, multipliers: np.ndarray, spec: TensorSpec) -> ir.Value:
    params = spec.quant
    result = storage_type(spec)
    rank = result.rank
    vector = dense_constant(multipliers)
    zero = scalar(ir.F32Type.get(), params.zero_points[0])

    def body(value, multiplier, _):
        real = arith.mulf(arith.sitofp(ir.F32Type.get(), value), multiplier)
        return _round_and_store(real, zero, params, result.element_type)

    (value,) = generic([accumulator, vector], [empty(result)], [identity_map(rank), affine_map(rank, dims(1)),
                                                                identity_map(rank)], [PARALLEL] * rank, body)
    return value
