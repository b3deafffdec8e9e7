"""The graph dialect's precision ops: quantize, dequantize (Glow's QuantizeNode and
DequantizeNode) and the profiling probe of Glow's Profile mode (docs/precision.md).

Scales and zero points live in the `!quant.uniform` types, not in attributes,
so the shape functions check the types.
"""

from __future__ import annotations

from .graph import FLOAT_DTYPES, GRAPH, MODEL_INTERFACE, _declared, _require
from .irdl import STR


def _quantize(ins, attrs, declared):
    (result,) = _declared(declared)
    _require(ins[0].dtype in FLOAT_DTYPES and ins[0].quant is None, f"quantize expects a float operand, got {ins[0]}")
    _require(result.quant is not None and result.shape == ins[0].shape,
             f"quantize yields a !quant.uniform tensor of the operand's shape, got {result}")
    return [result]


def _dequantize(ins, attrs, declared):
    (result,) = _declared(declared)
    _require(ins[0].quant is not None, f"dequantize expects a !quant.uniform operand, got {ins[0]}")
    _require(result.quant is None and result.shape == ins[0].shape and result.dtype == ins[0].quant.expressed,
             f"dequantize yields {ins[0].quant.expressed} of the operand's shape, got {result}")
    return [result]


def _profile(ins, attrs, declared):
    _require(attrs["name"] != "", "profile needs a non-empty name")
    _require(ins[0].quant is None and ins[0].dtype in FLOAT_DTYPES, f"profile records float values, got {ins[0]}")
    return []


# Precision conversions (Glow's QuantizeNode, DequantizeNode); scales live in the `!quant.uniform` types.
GRAPH.op("quantize", "Rounds reals to the result's !quant.uniform type (round half to even, clamped).",
         operands=("input",), shape_fn=_quantize, quantized="carrier")
GRAPH.op("dequantize", "The reals a !quant.uniform tensor stands for: (stored - zero_point) * scale.",
         operands=("input",), shape_fn=_dequantize, quantized="carrier")

# Glow's Profile mode: a probe recording a value's range (`graph-profile-instrument`, `lamina-profile`).
GRAPH.op("profile", "Records the values of `input` as node output `name`; the interpreter reports them.",
         operands=("input",), results=(), attrs={"name": STR}, shape_fn=_profile)

# Ops dead-code elimination keeps: the interface and the profiling probes of Glow's Profile mode.
KEPT_WITHOUT_USES = MODEL_INTERFACE | {"profile"}
