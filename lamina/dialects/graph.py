"""The `graph` dialect: Glow's high-level node graph as MLIR ops on tensors.

A model is one `func.func` (no arguments, no results) whose body reads its
inputs from `graph.placeholder` ops and writes its outputs with `graph.save`,
as Glow's functions read and write placeholders. Constants are
`graph.constant` (dense elements, any size) and `graph.splat` (one value
repeated). Data layout is ONNX's: NCHW activations, OIHW filters.

Element-wise ops take operands of one shape: broadcasting is explicit, by
`graph.broadcast`, so every later level sees the real shapes. All shapes are
static. Every op's result types follow from a shape function in this file;
`verify_op` checks them, and builders infer them.
"""

from __future__ import annotations

import math

import numpy as np

from .irdl import (BOOL, BOUNDED, COMMUTATIVE, CONSTANT, ELEMENTS, ELEMENTWISE, F32, FORWARDING, I64, I64S, IN_PLACE,
                   INTERFACE, LAYER, SCALAR, STORAGE, STR, DialectDef, ShapeError)
from .types import TensorSpec

GRAPH = DialectDef("graph", "Glow-style high-level graph over tensors")

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16))
INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))

# ---------------------------------------------------------------------------
# Shape-function helpers.
# ---------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)


def _declared(declared, count: int = 1) -> list[TensorSpec]:
    _require(declared is not None and len(declared) == count, f"needs {count} explicit result type(s)")
    return declared


def _same_as_input(ins, attrs, declared):
    return [ins[0]]


def _float_unary(ins, attrs, declared):
    _require(ins[0].dtype in FLOAT_DTYPES, f"expects a floating-point operand, got {ins[0]}")
    return [ins[0]]


def _same_shape_binary(ins, attrs, declared):
    lhs, rhs = ins
    _require(lhs == rhs, f"operands must have the same type (broadcast explicitly), got {lhs} and {rhs}")
    return [lhs]


def _comparison(ins, attrs, declared):
    lhs, rhs = ins
    _require(lhs == rhs, f"operands must have the same type (broadcast explicitly), got {lhs} and {rhs}")
    return [lhs.with_dtype(np.bool_)]


def _axis(axis: int, rank: int, what: str = "axis") -> int:
    _require(0 <= axis < rank, f"{what} {axis} out of range for rank {rank} (axes are normalized, non-negative)")
    return axis


def _spatial_rank(data: TensorSpec, what: str) -> int:
    _require(data.rank >= 3, f"{what} expects an N x C x spatial... input, got {data}")
    return data.rank - 2


def _check_window_attrs(k: int, attrs: dict, names: tuple[str, ...]) -> None:
    for name in names:
        expected = 2 * k if name == "pads" else k
        _require(len(attrs[name]) == expected, f"'{name}' needs {expected} values, got {len(attrs[name])}")
    _require(all(s >= 1 for s in attrs["strides"]), "strides must be >= 1")
    _require(all(p >= 0 for p in attrs["pads"]), "pads must be >= 0")
    if "dilations" in attrs:
        _require(all(d >= 1 for d in attrs["dilations"]), "dilations must be >= 1")


def window_output_size(size: int, kernel: int, stride: int, pad_begin: int, pad_end: int,
                       dilation: int = 1, ceil_mode: bool = False) -> int:
    """Output length of a sliding window (ONNX/PyTorch rule for ceil mode)."""
    span = dilation * (kernel - 1) + 1
    padded = size + pad_begin + pad_end - span
    _require(padded >= 0, f"window of extent {span} does not fit input of size {size} with pads {pad_begin},{pad_end}")
    if not ceil_mode:
        return padded // stride + 1
    out = math.ceil(padded / stride) + 1
    if (out - 1) * stride >= size + pad_begin:  # the last window must start inside the input
        out -= 1
    return out


# ---------------------------------------------------------------------------
# Shape functions of the layer ops.
# ---------------------------------------------------------------------------


def _convolution(ins, attrs, declared):
    data, filt, bias = ins
    k = _spatial_rank(data, "convolution")
    _check_window_attrs(k, attrs, ("strides", "pads", "dilations"))
    group = attrs["group"]
    _require(filt.rank == data.rank, f"filter rank must equal input rank, got {filt} for {data}")
    _require(group >= 1 and data.shape[1] % group == 0 and filt.shape[0] % group == 0,
             f"group {group} must divide input channels {data.shape[1]} and filters {filt.shape[0]}")
    _require(filt.shape[1] * group == data.shape[1],
             f"filter expects {filt.shape[1] * group} input channels, input has {data.shape[1]}")
    _require(bias.shape == (filt.shape[0],), f"bias must be [{filt.shape[0]}], got {bias}")
    _check_bias_type(data, filt, bias)
    spatial = [
        window_output_size(data.shape[2 + i], filt.shape[2 + i], attrs["strides"][i],
                           attrs["pads"][i], attrs["pads"][k + i], attrs["dilations"][i])
        for i in range(k)
    ]
    return [data.with_shape((data.shape[0], filt.shape[0], *spatial))]


def _check_bias_type(data: TensorSpec, weights: TensorSpec, bias: TensorSpec) -> None:
    """Float layers share one element type; quantized ones take i8/i16 data and weights and an i32 bias."""
    if data.quant is None and weights.quant is None:
        _require(data.dtype == weights.dtype == bias.dtype, "input, filter and bias must share an element type")
        return
    _require(data.quant is not None and weights.quant is not None,
             f"a quantized layer needs quantized input and weights, got {data} and {weights}")
    _require(bias.dtype == np.int32 and bias.quant is not None, f"a quantized layer needs an i32 quantized bias, got {bias}")


def _conv_transpose(ins, attrs, declared):
    data, filt, bias = ins
    k = _spatial_rank(data, "conv_transpose")
    _check_window_attrs(k, attrs, ("strides", "pads", "dilations", "output_padding"))
    group = attrs["group"]
    _require(filt.rank == data.rank, f"filter rank must equal input rank, got {filt} for {data}")
    _require(group >= 1 and filt.shape[0] == data.shape[1],
             f"filter must have {data.shape[1]} input channels first, got {filt}")
    _require(data.shape[1] % group == 0, f"group {group} must divide input channels {data.shape[1]}")
    out_channels = filt.shape[1] * group
    _require(bias.shape == (out_channels,), f"bias must be [{out_channels}], got {bias}")
    spatial = []
    for i in range(k):
        s, d = attrs["strides"][i], attrs["dilations"][i]
        size = (s * (data.shape[2 + i] - 1) + attrs["output_padding"][i] + (filt.shape[2 + i] - 1) * d + 1
                - attrs["pads"][i] - attrs["pads"][k + i])
        _require(size > 0, f"output size {size} on spatial axis {i} is not positive")
        spatial.append(size)
    return [data.with_shape((data.shape[0], out_channels, *spatial))]


def _pool(ins, attrs, declared):
    (data,) = ins
    k = _spatial_rank(data, "pooling")
    names = ("kernel", "strides", "pads") + (("dilations",) if "dilations" in attrs else ())
    _check_window_attrs(k, attrs, names)
    dilations = attrs.get("dilations", (1,) * k)
    spatial = [
        window_output_size(data.shape[2 + i], attrs["kernel"][i], attrs["strides"][i], attrs["pads"][i],
                           attrs["pads"][k + i], dilations[i], attrs["ceil_mode"])
        for i in range(k)
    ]
    return [data.with_shape((*data.shape[:2], *spatial))]


def _global_pool(ins, attrs, declared):
    (data,) = ins
    k = _spatial_rank(data, "global pooling")
    return [data.with_shape((*data.shape[:2], *([1] * k)))]


def _fully_connected(ins, attrs, declared):
    data, weights, bias = ins
    _require(data.rank == 2 and weights.rank == 2, f"expects 2-D input and weights, got {data} and {weights}")
    _require(data.shape[1] == weights.shape[0], f"input has {data.shape[1]} features, weights expect {weights.shape[0]}")
    _require(bias.shape == (weights.shape[1],), f"bias must be [{weights.shape[1]}], got {bias}")
    _check_bias_type(data, weights, bias)
    return [data.with_shape((data.shape[0], weights.shape[1]))]


def _matmul(ins, attrs, declared):
    lhs, rhs = ins
    _require(lhs.rank >= 2 and rhs.rank >= 2, f"operands need rank >= 2, got {lhs} and {rhs}")
    _require(lhs.shape[-1] == rhs.shape[-2], f"contracting sizes differ: {lhs} and {rhs}")
    _require(lhs.dtype == rhs.dtype, "operands must share an element type")
    batch = _broadcast_shapes(lhs.shape[:-2], rhs.shape[:-2])
    return [lhs.with_shape((*batch, lhs.shape[-2], rhs.shape[-1]))]


def _broadcast_shapes(a, b) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise ShapeError(f"shapes {tuple(a)} and {tuple(b)} do not broadcast") from None


def _per_channel(data: TensorSpec, params: list[TensorSpec], what: str) -> None:
    _require(data.rank >= 2, f"{what} expects an N x C x ... input, got {data}")
    for p in params:
        _require(p.shape == (data.shape[1],), f"{what} parameters must be [{data.shape[1]}], got {p}")


def _batch_norm(ins, attrs, declared):
    data, *params = ins
    _per_channel(data, params, "batch_norm")
    return [data]


def _lrn(ins, attrs, declared):
    (data,) = ins
    _require(data.rank >= 3, f"lrn expects an N x C x ... input, got {data}")
    _require(attrs["size"] >= 1, "size must be >= 1")
    return [data]


def _layer_norm(ins, attrs, declared):
    data, scale, bias = ins
    axis = _axis(attrs["axis"], data.rank)
    normalized = data.shape[axis:]
    _require(scale.shape == normalized and bias.shape == normalized,
             f"scale and bias must be {list(normalized)}, got {scale} and {bias}")
    return [data]


def _softmax(ins, attrs, declared):
    _axis(attrs["axis"], ins[0].rank)
    return _float_unary(ins, attrs, declared)


def _clip(ins, attrs, declared):
    _require(attrs["min"] <= attrs["max"], f"min {attrs['min']} exceeds max {attrs['max']}")
    return [ins[0]]


def _gelu(ins, attrs, declared):
    return _float_unary(ins, attrs, declared)


def _sum(ins, attrs, declared):
    _require(len(ins) >= 1, "sum needs at least one input")
    _require(all(s == ins[0] for s in ins), f"all inputs must share one type, got {', '.join(map(str, ins))}")
    return [ins[0]]


def _where(ins, attrs, declared):
    cond, lhs, rhs = ins
    _require(cond.dtype == np.bool_, f"condition must be i1, got {cond}")
    _require(lhs == rhs and cond.shape == lhs.shape, f"operands must share one shape, got {cond}, {lhs}, {rhs}")
    return [lhs]


# ---------------------------------------------------------------------------
# Shape functions of sources and sinks.
# ---------------------------------------------------------------------------


def _constant(ins, attrs, declared):
    value = attrs["value"]
    return [TensorSpec(value.shape, value.dtype)]


def _splat(ins, attrs, declared):
    return _declared(declared)


def _placeholder(ins, attrs, declared):
    _require(attrs["name"] != "", "placeholder needs a non-empty name")
    return _declared(declared)


def _save(ins, attrs, declared):
    _require(attrs["name"] != "", "save needs a non-empty name")
    return []


# ---------------------------------------------------------------------------
# The op table.
# ---------------------------------------------------------------------------

WINDOW = {"strides": I64S, "pads": I64S, "dilations": I64S}

# Traits shared by families (see `irdl.TRAITS`).
POINTWISE = frozenset({ELEMENTWISE, IN_PLACE})  # element-wise with the operand's type: may run in place
SYMMETRIC = POINTWISE | {COMMUTATIVE}

# Sources and sinks.
GRAPH.op("placeholder", "A named model input; has no data at compile time.", attrs={"name": STR}, shape_fn=_placeholder,
         traits={INTERFACE, STORAGE}, quantized="carrier")
GRAPH.op("save", "Writes a value to the named model output.", operands=("input",), results=(), attrs={"name": STR},
         shape_fn=_save, traits={INTERFACE}, quantized="carrier")
GRAPH.op("constant", "An immutable tensor; the optimizer may read and rewrite it.", attrs={"value": ELEMENTS},
         shape_fn=_constant, traits={CONSTANT, STORAGE}, quantized="carrier")
GRAPH.op("splat", "A tensor with every element equal to `value`.", attrs={"value": SCALAR}, shape_fn=_splat,
         traits={CONSTANT})

# Layers.
GRAPH.op("convolution", "N-D convolution, NCHW input, [M, C/group, k...] filter, [M] bias; pads are begins then ends.",
         operands=("input", "filter", "bias"), attrs={**WINDOW, "group": I64}, shape_fn=_convolution,
         quantized="accumulate", traits={LAYER}, channel_weights=("filter", 0))
GRAPH.op("conv_transpose", "Transposed convolution, [C, M/group, k...] filter, [M] bias.",
         operands=("input", "filter", "bias"), attrs={**WINDOW, "group": I64, "output_padding": I64S},
         shape_fn=_conv_transpose)
GRAPH.op("max_pool", "Max pooling; padding never wins.", operands=("input",),
         attrs={"kernel": I64S, **WINDOW, "ceil_mode": BOOL}, shape_fn=_pool, quantized="same_scale")
GRAPH.op("avg_pool", "Average pooling; `count_include_pad` counts padding in the divisor.", operands=("input",),
         attrs={"kernel": I64S, "strides": I64S, "pads": I64S, "ceil_mode": BOOL, "count_include_pad": BOOL},
         shape_fn=_pool, quantized="requantize")
GRAPH.op("global_avg_pool", "Mean over all spatial positions.", operands=("input",), shape_fn=_global_pool,
         quantized="requantize")
GRAPH.op("global_max_pool", "Max over all spatial positions.", operands=("input",), shape_fn=_global_pool,
         quantized="same_scale")
GRAPH.op("fully_connected", "input[N,K] x weights[K,M] + bias[M].", operands=("input", "weights", "bias"),
         shape_fn=_fully_connected, quantized="accumulate", traits={LAYER}, channel_weights=("weights", 1))
GRAPH.op("matmul", "Matrix product over the last two dimensions, batch dimensions broadcast.",
         operands=("lhs", "rhs"), shape_fn=_matmul)
GRAPH.op("batch_norm", "Inference batch normalization over axis 1.",
         operands=("input", "scale", "bias", "mean", "variance"), attrs={"epsilon": F32}, shape_fn=_batch_norm,
         channel_weights=("scale", 0))
GRAPH.op("lrn", "Local response normalization across channels (ONNX LRN).", operands=("input",),
         attrs={"size": I64, "alpha": F32, "beta": F32, "bias": F32}, shape_fn=_lrn)
GRAPH.op("layer_norm", "Normalization over dimensions [axis, rank), then scale and bias.",
         operands=("input", "scale", "bias"), attrs={"axis": I64, "epsilon": F32}, shape_fn=_layer_norm)
GRAPH.op("softmax", "Softmax along one axis.", operands=("input",), attrs={"axis": I64}, shape_fn=_softmax)

# Element-wise arithmetic on operands of one type.
for _name, _summary, _traits in [("add", "lhs + rhs", SYMMETRIC), ("sub", "lhs - rhs", POINTWISE),
                                 ("mul", "lhs * rhs", SYMMETRIC), ("div", "lhs / rhs", POINTWISE),
                                 ("max", "maximum", SYMMETRIC), ("min", "minimum", SYMMETRIC),
                                 ("pow", "lhs ** rhs", POINTWISE)]:
    GRAPH.op(_name, f"Element-wise {_summary}.", operands=("lhs", "rhs"), shape_fn=_same_shape_binary, traits=_traits,
             quantized="requantize" if _name in ("add", "sub", "mul", "max", "min") else None)
for _name in ("equal", "less", "greater"):  # i1 results: never in place
    GRAPH.op(_name, f"Element-wise {_name} comparison; i1 result.", operands=("lhs", "rhs"), shape_fn=_comparison,
             traits={ELEMENTWISE} | ({COMMUTATIVE} if _name == "equal" else set()))
GRAPH.op("where", "Element-wise select: condition ? lhs : rhs.", operands=("condition", "lhs", "rhs"),
         shape_fn=_where, traits=POINTWISE)
GRAPH.op("sum", "Element-wise sum of one or more inputs.", operands=("inputs",), variadic="inputs", shape_fn=_sum,
         traits=SYMMETRIC)

# Activations and unary math.
GRAPH.op("relu", "max(x, 0).", operands=("input",), shape_fn=_same_as_input, traits=POINTWISE,
         quantized="requantize")
for _name in ("sigmoid", "tanh", "erf", "exp", "log", "sqrt", "reciprocal"):
    GRAPH.op(_name, f"Element-wise {_name}.", operands=("input",), shape_fn=_float_unary, traits=POINTWISE)
for _name in ("neg", "abs"):
    GRAPH.op(_name, f"Element-wise {_name}.", operands=("input",), shape_fn=_same_as_input, traits=POINTWISE)
GRAPH.op("leaky_relu", "x if x >= 0 else alpha * x.", operands=("input",), attrs={"alpha": F32},
         shape_fn=_float_unary, traits=POINTWISE)
GRAPH.op("clip", "Clamp into [min, max].", operands=("input",), attrs={"min": F32, "max": F32}, shape_fn=_clip,
         traits=POINTWISE | {BOUNDED}, quantized="requantize")
GRAPH.op("gelu", "Gaussian error linear unit; `approximate` is 'none' (erf) or 'tanh'.", operands=("input",),
         attrs={"approximate": STR}, shape_fn=_gelu, traits=POINTWISE, enums={"approximate": ("none", "tanh")})
GRAPH.op("swish", "x * sigmoid(x) (SiLU).", operands=("input",), shape_fn=_float_unary, traits=POINTWISE)
GRAPH.op("hard_sigmoid", "max(0, min(1, alpha * x + beta)).", operands=("input",), attrs={"alpha": F32, "beta": F32},
         shape_fn=_float_unary, traits=POINTWISE)
GRAPH.op("identity", "Returns its input.", operands=("input",), shape_fn=_same_as_input,
         traits=POINTWISE | {FORWARDING}, quantized="same_scale")
GRAPH.op("dropout", "Inference-mode dropout: returns its input; `ratio` is kept for reference.",
         operands=("input",), attrs={"ratio": F32}, shape_fn=_same_as_input, traits=POINTWISE | {FORWARDING},
         quantized="same_scale")

# The model's interface: kept even when nothing reads them (an unused input is still an input).
MODEL_INTERFACE = GRAPH.with_trait(INTERFACE)

# Data movement, reductions and resize; they register into GRAPH.
from . import graph_data_movement  # noqa: E402,F401  (after GRAPH is complete: it imports this module)

# Quantize, dequantize and the profiling probe; they register into GRAPH.
from . import graph_precision  # noqa: E402,F401  (after GRAPH is complete: it imports this module)

# Gradient, loss and SGD ops (Glow's XGrad nodes); they register into GRAPH.
from . import graph_training  # noqa: E402,F401  (after GRAPH is complete: it imports this module)

# Control flow (If, Loop, Scan) lives in its own module of this table.
from . import graph_control_flow  # noqa: E402,F401 - registers its ops on GRAPH

# Recurrent layers (RNN, GRU, LSTM) too.
from . import graph_recurrent  # noqa: E402,F401 - registers its ops on GRAPH

# Further element-wise math (trigonometry, rounding, Mod, BitShift, bitwise logic) and index ops.
from . import graph_indexing, graph_math  # noqa: E402,F401 - register their ops on GRAPH
