"""graph-fuse-qdq: dequantize -> float layer -> quantize as one quantized layer, as onnxruntime runs QDQ models.

A model in onnxruntime's QDQ format computes each layer between a
DequantizeLinear of its quantized input and a QuantizeLinear of its output,
with weights and bias that DequantizeLinear computes from integers; the
importer folds those into float constants. onnxruntime fuses the pattern
into one integer layer (QLinearConv, its QDQ selectors). This pass does the
same on the graph, so the layer accumulates i8 x i8 products in i32 and
rounds once, like a layer `graph-quantize` makes.

The integers are recovered from the float constants, and the rewrite
happens only where that is exact: weights must be k x scale for integers
|k| <= 127 whose largest magnitude is 127 (onnxruntime's symmetric int8
weights, per tensor or per output channel: scale = max |w| / 127), the bias
an i32 multiple of input scale x weight scale (its DequantizeLinear's
scale). Weights quantized otherwise (u8, asymmetric) leave the layer in
float, as it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.backends import BackendName, backend_named
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import QuantParams, TensorSpec, spec_of
from lamina.dialects.values import constant_value, defining_op, has_one_use, op_name, producer
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from .quantize import quantized_constant
from .rewriting import fused_location, replace_each

# A recovered integer must give back the float constant within this relative error (float32 rounding of k x scale).
EXACT = 1e-6
STORED_DATA = (np.dtype(np.int8), np.dtype(np.uint8))
# Layers with weights per output channel that compute quantized by accumulating (convolution, fully_connected).
LAYERS = frozenset(name for name, definition in GRAPH.ops.items()
                   if definition.quantized == "accumulate" and definition.channel_weights is not None)


@register_pass
@dataclass(frozen=True)
class GraphFuseQdq(Pass):
    """Replace `quantize(layer(dequantize(x), W, b))` by a quantized layer on `x`, where a convolution or
    fully-connected layer's float weights and bias are exactly symmetric int8 and i32 multiples of their
    scales (module docstring) and the backend runs the layer quantized.

    Not firing: float inputs or outputs, per-axis activations, a layer result read by anything but the
    quantize, weights that are not onnxruntime's symmetric int8 ones.
    """

    name = "graph-fuse-qdq"
    summary = "Fuse dequantize -> convolution/fully_connected -> quantize into a quantized layer (QDQ models)"

    backend: BackendName = option("reference", "the backend that must run the layer quantized")

    def run(self, op: ir.Operation) -> None:
        backend = backend_named(self.backend)
        replace_each(op, {"quantize"}, lambda quantize: _fused(quantize, backend))


def _fused(quantize: ir.Operation, backend) -> ir.Value | None:
    layer = defining_op(quantize.operands[0])
    if layer is None or op_name(layer) not in LAYERS or not has_one_use(layer.results[0]):
        return None
    dequantize = producer(layer.operands[0], "dequantize")
    output = spec_of(quantize.results[0].type)
    if dequantize is None or not _per_tensor(output) or not _per_tensor(spec_of(dequantize.operands[0].type)):
        return None
    view = GRAPH.view(layer)
    axis = view.definition.channel_weights[1]  # the weights' output-channel axis
    weights = _weight_format(layer.operands[1], axis)
    if weights is None or backend.why_not_quantized(view) is not None:
        return None
    stored_weights, weight_params = weights
    channels = stored_weights.shape[axis]
    data = dequantize.operands[0]
    bias_scales = spec_of(data.type).quant.scales[0] * np.broadcast_to(np.asarray(weight_params.scales), (channels,))
    stored_bias = _stored_bias(layer.operands[2], bias_scales)
    if stored_bias is None:
        return None
    info = np.iinfo(np.int32)
    bias_params = QuantParams(bias_scales, [0] * channels, 0, int(info.min), int(info.max))
    location = fused_location([dequantize, layer, quantize])
    with ir.InsertionPoint(quantize), location:
        operands = [data, quantized_constant(stored_weights, weight_params, location),
                    quantized_constant(stored_bias, bias_params, location)]
        return GRAPH.create(view.name, *operands, result_types=[output], loc=location, **view.attrs()).result


def _dequantized_constant(value: ir.Value) -> tuple[np.ndarray, QuantParams] | None:
    """(stored integers, format) when `value` is a dequantize of a quantized constant (what QDQ imports)."""
    dequantize = producer(value, "dequantize")
    stored = constant_value(dequantize.operands[0]) if dequantize is not None else None
    return None if stored is None else (stored, spec_of(dequantize.operands[0].type).quant)


def _weight_format(value: ir.Value, axis: int) -> tuple[np.ndarray, QuantParams] | None:
    """The weights as symmetric int8 (stored, format), per tensor or per index of `axis`: a dequantized
    int8 constant with zero point 0, or float constants that are such integers exactly; else None."""
    known = _dequantized_constant(value)
    if known is not None:
        stored, params = known
        symmetric = stored.dtype == np.int8 and not any(params.zero_points) and params.axis in (None, axis)
        return (stored, params) if symmetric else None
    weights = constant_value(value)
    params = recovered_weight_params(weights, axis) if weights is not None else None
    if params is None:
        return None
    scales = params.broadcast(np.asarray(params.scales), weights.ndim)
    return np.rint(weights.astype(np.float64) / scales).astype(np.int8), params


def _stored_bias(value: ir.Value, scales: np.ndarray) -> np.ndarray | None:
    """The bias as i32 multiples of `scales` (input scale x weight scale), if it is exactly that."""
    known = _dequantized_constant(value)
    if known is not None:
        stored, params = known
        same = stored.dtype == np.int32 and not any(params.zero_points) and \
            np.allclose(np.broadcast_to(np.asarray(params.scales), scales.shape), scales, rtol=EXACT, atol=0)
        return stored if same else None
    bias = constant_value(value)
    if bias is None:
        return None
    stored = np.rint(bias.astype(np.float64) / scales)
    exact = np.allclose(stored * scales, bias, rtol=EXACT, atol=EXACT * np.abs(scales).max())
    return stored.astype(np.int32) if exact and (np.abs(stored) <= np.iinfo(np.int32).max).all() else None


def _per_tensor(spec: TensorSpec) -> bool:
    return spec.quant is not None and spec.quant.axis is None and spec.dtype in STORED_DATA


def recovered_weight_params(weights: np.ndarray, axis: int) -> QuantParams | None:
    """The symmetric int8 format (per tensor, else per index of `axis`) in which `weights` are exactly
    integers k x scale with max |k| = 127; None if neither is."""
    moved = np.moveaxis(weights.astype(np.float64), axis, 0).reshape(weights.shape[axis], -1)
    for ranges, per_axis in ((np.full(len(moved), np.abs(moved).max(initial=0.0)), None),
                             (np.abs(moved).max(axis=1, initial=0.0), axis)):
        if not (ranges > 0).all():
            continue
        scales = ranges / 127
        stored = np.rint(moved / scales[:, None])
        if np.allclose(stored * scales[:, None], moved, rtol=EXACT, atol=0):
            kept = scales if per_axis is not None else scales[:1]
            return QuantParams(kept, [0] * len(kept), per_axis, -127, 127)
    return None
