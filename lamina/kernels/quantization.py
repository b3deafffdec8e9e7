"""Execution of graph ops on `!quant.uniform` tensors, around the float kernels.

Stored integers travel as NumPy arrays of the stored type; the scales come
from the op's operand and result types. The semantics are Glow's and
onnxruntime's:

- quantize: round half to even of x / scale, plus the zero point, clamped;
  dequantize: (stored - zero point) x scale, in the expressed float type;
- "accumulate" ops (convolution, fully_connected): exact integer products of
  (stored - zero point) summed onto the i32 bias, then one rounding to the
  result's scale with multiplier input scale x weight scale / result scale;
- every other quantized op computes on the reals its operands stand for and
  rounds its result to its own scale (for "same_scale" ops that is exact).

`evaluate` is the one entry point: the interpreter and constant folding use it.
"""

from __future__ import annotations

import numpy as np

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import QuantParams, TensorSpec

from .graph_kernels import KERNELS, KernelError, Node, kernel

def evaluate(name: str, node: Node, *operands: np.ndarray):
    """The result of graph op `name` on `operands`, quantized or not."""
    quantized = any(s.quant is not None for s in (*node.operands, *node.results))
    kind = GRAPH.ops[name].quantized
    if not quantized or kind == "carrier":
        return KERNELS[name](node, *operands)
    if kind is None:
        raise KernelError(f"graph.{name} has no quantized form")
    if kind == "accumulate":
        return _accumulate(name, node, operands)
    return _on_reals(name, node, operands)


def quantize(x: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Stored values of `spec` nearest to x (ONNX QuantizeLinear: x / scale in float32, ties to even)."""
    params = spec.quant
    scale = params.broadcast(np.asarray(params.scales, np.float32), x.ndim)
    zero = params.broadcast(np.asarray(params.zero_points, np.float64), x.ndim)
    stored = np.rint(x.astype(np.float32) / scale).astype(np.float64) + zero
    return np.clip(stored, params.qmin, params.qmax).astype(spec.dtype)


def dequantize(q: np.ndarray, params: QuantParams) -> np.ndarray:
    """The reals stored values stand for, in the expressed type."""
    scale = params.broadcast(np.asarray(params.scales, params.expressed), q.ndim)
    zero = params.broadcast(np.asarray(params.zero_points, np.int32), q.ndim)
    return (q.astype(np.int32) - zero).astype(params.expressed) * scale


@kernel("quantize")
def _quantize(node: Node, x):
    return quantize(x, node.result)


@kernel("dequantize")
def _dequantize(node: Node, q):
    return dequantize(q, node.operands[0].quant)


def _float_node(node: Node, dtype) -> Node:
    results = [TensorSpec(r.shape, dtype if r.quant is not None else r.dtype) for r in node.results]
    operands = [TensorSpec(o.shape, dtype if o.quant is not None else o.dtype) for o in node.operands]
    return Node(node.attrs, results, node.inputs, node.outputs, operands)


def _on_reals(name: str, node: Node, operands) -> np.ndarray:
    reals = [dequantize(x, spec.quant) if spec.quant is not None else x for x, spec in zip(operands, node.operands)]
    expressed = next(s.quant.expressed for s in (*node.operands, *node.results) if s.quant is not None)
    result = np.asarray(KERNELS[name](_float_node(node, expressed), *reals))
    return quantize(result, node.result) if node.result.quant is not None else result


def _accumulate(name: str, node: Node, operands) -> np.ndarray:
    """i8 x i8 -> i32 products onto the bias, then one rounding (exact in float64 below 2**53)."""
    data_spec, weight_spec, bias_spec = node.operands
    result = node.result
    if None in (data_spec.quant, weight_spec.quant, bias_spec.quant, result.quant):
        raise KernelError(f"graph.{name} on !quant.uniform values needs quantized input, weights, bias and result")
    data, weights, bias = operands
    centered_data = _centered(data, data_spec.quant)
    centered_weights = _centered(weights, weight_spec.quant)
    product_scale = _per_output_channel(data_spec.quant.scales[0] * np.asarray(weight_spec.quant.scales),
                                        weight_spec.quant, name)
    bias_in_products = _centered(bias, bias_spec.quant) * (np.asarray(bias_spec.quant.scales) / product_scale)
    float_node = Node(node.attrs, [TensorSpec(result.shape, np.float64)], operands=[])
    accumulator = np.asarray(KERNELS[name](float_node, centered_data, centered_weights, bias_in_products))
    channel_shape = [-1 if d == 1 else 1 for d in range(accumulator.ndim)]
    multiplier = (product_scale / result.quant.scales[0]).reshape(channel_shape) if product_scale.size > 1 \
        else product_scale.reshape(()) / result.quant.scales[0]
    stored = np.rint(accumulator * multiplier) + result.quant.zero_points[0]
    return np.clip(stored, result.quant.qmin, result.quant.qmax).astype(result.dtype)


def _centered(q: np.ndarray, params: QuantParams) -> np.ndarray:
    return q.astype(np.float64) - params.broadcast(np.asarray(params.zero_points, np.float64), q.ndim)


def _per_output_channel(scales: np.ndarray, weights: QuantParams, name: str) -> np.ndarray:
    """Product scales per output channel: a filter's axis 0, fully_connected weights' axis 1."""
    output_axis = 0 if name == "convolution" else 1
    if weights.axis is not None and weights.axis != output_axis:
        raise KernelError(f"graph.{name} weights are quantized per axis {weights.axis}; "
                          f"only per output channel (axis {output_axis}) is supported")
    return np.asarray(scales, np.float64)


# `graph.profile` reports what it saw beside the model's outputs, under this prefix.
PROFILE_PREFIX = "profile:"


@kernel("profile")
def _profile(node: Node, x):
    node.outputs[PROFILE_PREFIX + node.attrs["name"]] = np.array(x)
