"""QDQ quantization (onnxruntime's `quantize_static` QDQ format): QuantizeLinear and DequantizeLinear.

Both become the graph dialect's own precision ops on `!quant.uniform` types,
so a QDQ model runs as the quantized graphs `graph-quantize` makes do. Scales
and zero points must be compile-time constants (they always are in QDQ
models); a DequantizeLinear of constant integers (quantized weights) reads
them as a quantized constant. Values are stored over their type's full range.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from lamina.dialects.types import QuantParams, TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter

STORED_TYPES = (np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16), np.dtype(np.int32))


def _params(n: NodeView, rank: int) -> tuple[QuantParams, np.dtype]:
    scale = n.static(1).astype(np.float64).reshape(-1)
    zero = n.static(2) if n.has_input(2) else np.zeros(1, np.uint8)
    stored = zero.dtype
    zeros = np.broadcast_to(zero.reshape(-1), scale.shape)
    axis = n.attr("axis", 1) % rank if scale.size > 1 else None
    info = np.iinfo(stored)
    return QuantParams(scale, zeros, axis, int(info.min), int(info.max)), stored


def _check(view: NodeView) -> Iterable[str]:
    zero = view.static(2) if view.has_input(2) else np.zeros(1, np.uint8)
    if zero is not None and zero.dtype not in STORED_TYPES:
        yield f"zero point of type {zero.dtype} (supported: int8, uint8, int16, int32)"
    if view.attr("block_size", 0):
        yield "blocked quantization (block_size) is not supported"


@converter("QuantizeLinear", graph_ops=("quantize",), static_inputs={1: "y_scale", 2: "y_zero_point"}, check=_check,
           notes="Per tensor or per axis; the stored type is the zero point's (default uint8).")
def convert_quantize_linear(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    params, stored = _params(n, spec.rank)
    return n.emit("quantize", data, result_type=TensorSpec(spec.shape, stored, params))


@converter("DequantizeLinear", graph_ops=("dequantize", "constant"), static_inputs={1: "x_scale", 2: "x_zero_point"},
           check=_check, notes="Per tensor or per axis; constant integer inputs become quantized constants.")
def convert_dequantize_linear(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    params, stored = _params(n, spec.rank)
    if spec.quant is None:
        known = n.static(0)
        if known is None:
            raise ValueError(f"input 0 must be QuantizeLinear's output or a constant, got {spec}")
        data = n.emit("constant", value=known, result_type=TensorSpec(spec.shape, known.dtype, params))
    return n.emit("dequantize", data, result_type=TensorSpec(spec.shape, np.float32))
