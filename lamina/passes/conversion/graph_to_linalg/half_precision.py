"""f16 contractions on the CPU path sum in f32 and round to f16 once.

The graph interpreter does the same (`kernels.convolution.accumulates_in_f32`),
as Glow's interpreter and onnxruntime's CPU kernels do: summed in f16, a
3x3x512 convolution keeps about 7 bits. The operands are extended to f32
(constants at compile time), the op's own converter builds the f32
contraction, which `linalg-convolution-to-matmuls` and `cpu-vectorize`
treat like any f32 one, and one `arith.truncf` generic rounds the result.
"""

from __future__ import annotations

import functools

import numpy as np
from mlir import ir
from mlir.dialects import arith

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec

from .builders import PARALLEL, RetypedView, empty, generic, identity_map, tensor_type

F16 = np.dtype(np.float16)


def accumulates_in_f32(converter):
    """Wrap a contraction's converter: f16 operands and result become f32 around it."""
    @functools.wraps(converter)
    def convert(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
        if not any(spec.dtype == F16 for spec in (*view.operand_specs(), *view.result_specs())):
            return converter(view, operands)
        f32 = ir.F32Type.get()
        wide = [float_cast(value, f32) if spec.dtype == F16 else value
                for value, spec in zip(operands, view.operand_specs())]
        results = converter(RetypedView(view, _widened), wide)
        return [float_cast(value, ir.F16Type.get()) if spec.dtype == F16 else value
                for value, spec in zip(results, view.result_specs())]
    return convert


def _widened(spec: TensorSpec) -> TensorSpec:
    return spec.with_dtype(np.float32) if spec.dtype == F16 else spec


def float_cast(value: ir.Value, element: ir.Type) -> ir.Value:
    """`value` converted to the float type `element`: a dense constant at compile time, else one generic
    (`arith.extf` or `arith.truncf`, round to nearest even)."""
    type_ = tensor_type(value.type)
    result_type = ir.RankedTensorType.get(list(type_.shape), element)
    owner = value.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "arith.constant" and \
            isinstance(owner.operation.attributes["value"], ir.DenseFPElementsAttr):
        attr = ir.DenseFPElementsAttr(owner.operation.attributes["value"])
        dtype = np.float32 if isinstance(element, ir.F32Type) else np.float16
        array = np.full(type_.shape, ir.FloatAttr(attr.get_splat_value()).value, dtype) if attr.is_splat else \
            np.array(attr).astype(dtype)
        return arith.constant(result_type, ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=element,
                                                                    shape=list(type_.shape)))
    widen = ir.FloatType(element).width > ir.FloatType(type_.element_type).width
    cast = arith.extf if widen else arith.truncf
    (result,) = generic([value], [empty(result_type)],
                        [identity_map(type_.rank)] * 2, [PARALLEL] * type_.rank,
                        lambda element_, _: cast(element, element_))
    return result
