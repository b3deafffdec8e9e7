"""Lowerings of the gradient ops into ordinary graph ops (Glow's lowering of XGrad nodes).

Every backend lowers these (`OpDef.training`), so the interpreter, the
buffer level and the CPU path run a training function with the kernels they
already have. Window gradients become transposed convolutions: the adjoint
of a strided window read is a strided scatter-add, which is exactly what
`conv_transpose` computes.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec, spec_of
from lamina.kernels.pooling import average_divisors
from lamina.kernels.windows import WindowAxis, window_axes

from .base import Emitter, lowering


def _zeros(emit: Emitter, spec: TensorSpec) -> ir.Value:
    return emit.splat(0.0, spec)


@lowering("relu_grad")
def relu_grad(op: OpView, emit: Emitter) -> ir.Value:
    """grad where output > 0, else 0 (Glow: Select(CmpLTE(out, 0), 0, grad))."""
    y, grad = op.operand("output"), op.operand("grad")
    spec = spec_of(y.type)
    return emit.op("where", emit.op("greater", y, _zeros(emit, spec)), grad, _zeros(emit, spec))


@lowering("sigmoid_grad")
def sigmoid_grad(op: OpView, emit: Emitter) -> ir.Value:
    """grad * y * (1 - y)."""
    y, grad = op.operand("output"), op.operand("grad")
    one_minus = emit.op("sub", emit.splat(1.0, spec_of(y.type)), y)
    return emit.op("mul", grad, emit.op("mul", y, one_minus))


@lowering("tanh_grad")
def tanh_grad(op: OpView, emit: Emitter) -> ir.Value:
    """grad * (1 - y^2)."""
    y, grad = op.operand("output"), op.operand("grad")
    return emit.op("mul", grad, emit.op("sub", emit.splat(1.0, spec_of(y.type)), emit.op("mul", y, y)))


@lowering("softmax_grad")
def softmax_grad(op: OpView, emit: Emitter) -> ir.Value:
    """y * (grad - sum(grad * y)) along the axis."""
    y, grad = op.operand("output"), op.operand("grad")
    spec = spec_of(y.type)
    dot = emit.op("reduce_sum", emit.op("mul", grad, y), axes=(op.attr("axis"),), keepdims=True)
    return emit.op("mul", y, emit.op("sub", grad, emit.broadcast(dot, spec)))


def _swap01(emit: Emitter, value: ir.Value) -> ir.Value:
    rank = spec_of(value.type).rank
    return emit.op("transpose", value, perm=(1, 0, *range(2, rank)))


@lowering("fully_connected_grad")
def fully_connected_grad(op: OpView, emit: Emitter) -> list[ir.Value]:
    """input grad = grad x weights^T, weights grad = input^T x grad, bias grad = sum of grad over the batch."""
    x, weights, grad = op.operand("input"), op.operand("weights"), op.operand("grad")
    return [emit.op("matmul", grad, _swap01(emit, weights)), emit.op("matmul", _swap01(emit, x), grad),
            emit.op("reduce_sum", grad, axes=(0,), keepdims=False)]


def _geometry(op: OpView, input_spec: TensorSpec, kernel) -> list[WindowAxis]:
    attrs = op.attrs()
    return window_axes(input_spec.shape[2:], kernel, attrs["strides"], attrs["pads"], attrs.get("dilations"),
                       attrs.get("ceil_mode", False))


def _scatter_windows(emit: Emitter, grads: ir.Value, filter_: ir.Value, axes: list[WindowAxis],
                     group: int, channels: int, like: TensorSpec) -> ir.Value:
    """conv_transpose of per-window gradients back onto the input positions the windows read.

    The begin pads and the end pads a window actually read are cropped
    again; `output_padding` restores input positions no window reads.
    """
    ends = [max(a.pad_end, a.padded_end) for a in axes]
    spans = [(a.out - 1) * a.stride + (a.kernel - 1) * a.dilation + 1 for a in axes]
    output_padding = [a.size + a.pad_begin + end - span for a, end, span in zip(axes, ends, spans)]
    bias = _zeros(emit, like.with_shape((channels,)))
    return emit.op("conv_transpose", grads, filter_, bias, strides=[a.stride for a in axes],
                   pads=[a.pad_begin for a in axes] + ends, dilations=[a.dilation for a in axes], group=group,
                   output_padding=output_padding)


@lowering("convolution_grad")
def convolution_grad(op: OpView, emit: Emitter) -> list[ir.Value]:
    """Input grad: conv_transpose of grad by the filter. Filter grad, per group and kernel tap:
    the input under that tap [C, N*P] times the gradient [N*P, M] (P output positions), the
    taps' [C, M] products stacked and moved into [M, C, k...]. Bias grad: grad summed over
    batch and space. (One im2col matrix would need strided copies, slow on the CPU path.)"""
    x, filter_, grad = op.operand("input"), op.operand("filter"), op.operand("grad")
    x_spec, f_spec, g_spec = spec_of(x.type), spec_of(filter_.type), spec_of(grad.type)
    axes = _geometry(op, x_spec, f_spec.shape[2:])
    group = op.attr("group")
    input_grad = _scatter_windows(emit, grad, filter_, axes, group, x_spec.shape[1], x_spec)
    in_per_group, out_per_group = x_spec.shape[1] // group, f_spec.shape[0] // group
    padded = _padded(emit, x, axes, 0.0)
    filter_grad = None
    for index in range(group):
        part_x = _channel_slice(emit, padded, index * in_per_group, in_per_group)
        part = _filter_grad(emit, part_x, _channel_slice(emit, grad, index * out_per_group, out_per_group), axes)
        filter_grad = part if filter_grad is None else emit.op("concat", filter_grad, part, axis=0)
    spatial = tuple(range(2, g_spec.rank))
    return [input_grad, filter_grad, emit.op("reduce_sum", grad, axes=(0, *spatial), keepdims=False)]


def _filter_grad(emit: Emitter, padded: ir.Value, grad: ir.Value, axes: list[WindowAxis]) -> ir.Value:
    g_spec = spec_of(grad.type)
    channels, outputs = spec_of(padded.type).shape[1], g_spec.shape[1]
    positions = g_spec.num_elements // outputs  # N * P
    rank = g_spec.rank
    grad_rows = emit.op("reshape", emit.op("transpose", grad, perm=(0, *range(2, rank), 1)),
                        result_type=g_spec.with_shape((positions, outputs)))
    stacked = None
    for tap in np.ndindex(*[a.kernel for a in axes]):
        window = _swap01(emit, _tap(emit, padded, tap, axes))  # [C, N, out...]
        rows = emit.op("reshape", window, result_type=g_spec.with_shape((channels, positions)))
        product = emit.op("matmul", rows, grad_rows)  # [C, M]
        product = emit.op("reshape", product, result_type=g_spec.with_shape((1, channels, outputs)))
        stacked = product if stacked is None else emit.op("concat", stacked, product, axis=0)
    moved = emit.op("transpose", stacked, perm=(2, 1, 0))  # [M, C, K]
    return emit.op("reshape", moved, result_type=g_spec.with_shape((outputs, channels, *[a.kernel for a in axes])))


def _padded(emit: Emitter, x: ir.Value, axes: list[WindowAxis], value: float) -> ir.Value:
    """`x` with the begin pads and every end pad a window reads (ceil mode reads past `pads`)."""
    ends = [max(a.pad_end, a.padded_end) for a in axes]
    if not any(a.pad_begin for a in axes) and not any(ends):
        return x
    return emit.op("pad", x, pads=(0, 0, *[a.pad_begin for a in axes], 0, 0, *ends), mode="constant", value=value)


def _tap(emit: Emitter, padded: ir.Value, tap: tuple[int, ...], axes: list[WindowAxis]) -> ir.Value:
    """The input element under kernel tap `tap` at every output position: a strided slice [N, C, out...]."""
    shape = spec_of(padded.type).shape
    starts = [t * a.dilation for t, a in zip(tap, axes)]
    ends = [start + (a.out - 1) * a.stride + 1 for start, a in zip(starts, axes)]
    return emit.op("slice", padded, starts=(0, 0, *starts), ends=(*shape[:2], *ends),
                   steps=(1, 1, *[a.stride for a in axes]))


def _stacked_taps(emit: Emitter, padded: ir.Value, axes: list[WindowAxis], transform) -> ir.Value:
    """[N, C, K, out...]: every kernel tap's window (after `transform`) stacked on a new axis 2."""
    stacked = None
    for tap in np.ndindex(*[a.kernel for a in axes]):
        window = transform(tap, _tap(emit, padded, tap, axes))
        spec = spec_of(window.type)
        window = emit.op("reshape", window, result_type=spec.with_shape((*spec.shape[:2], 1, *spec.shape[2:])))
        stacked = window if stacked is None else emit.op("concat", stacked, window, axis=2)
    return stacked


def _channel_slice(emit: Emitter, value: ir.Value, start: int, count: int) -> ir.Value:
    shape = spec_of(value.type).shape
    if count == shape[1]:
        return value
    return emit.op("slice", value, starts=(0, start, *[0] * (len(shape) - 2)),
                   ends=(shape[0], start + count, *shape[2:]), steps=(1,) * len(shape))


def _is_tiling(axes: list[WindowAxis]) -> bool:
    """Windows that tile the input exactly: no padding, no dilation, kernel == stride."""
    return all(a.kernel == a.stride and a.dilation == 1 and a.pad_begin == a.pad_end == 0
               and a.out * a.kernel == a.size for a in axes)


def _upsample(emit: Emitter, value: ir.Value, axes: list[WindowAxis]) -> ir.Value:
    """Each element repeated over its kernel window (for tiling windows): reshape, broadcast, reshape."""
    spec = spec_of(value.type)
    spread = (*spec.shape[:2], *[d for a in axes for d in (a.out, 1)])
    repeated = (*spec.shape[:2], *[d for a in axes for d in (a.out, a.kernel)])
    full = spec.with_shape((*spec.shape[:2], *[a.size for a in axes]))
    expanded = emit.op("broadcast", emit.op("reshape", value, result_type=spec.with_shape(spread)),
                       result_type=spec.with_shape(repeated))
    return emit.op("reshape", expanded, result_type=full)


@lowering("max_pool_grad")
def max_pool_grad(op: OpView, emit: Emitter) -> ir.Value:
    """Each output's gradient goes to the window positions holding its maximum.

    Tiling windows (2x2 stride 2): a mask of input == upsampled output picks
    the positions. Other windows: per kernel tap, the strided input slice
    equal to the output takes the gradient; the taps are stacked as channels
    and scattered back by one grouped conv_transpose with one-hot filters.
    Equal maxima in one window each receive the gradient (torch picks one).
    """
    x, y, grad = op.operand("input"), op.operand("output"), op.operand("grad")
    x_spec = spec_of(x.type)
    axes = _geometry(op, x_spec, op.attr("kernel"))
    if _is_tiling(axes):
        hit = emit.op("equal", x, _upsample(emit, y, axes))
        return emit.op("where", hit, _upsample(emit, grad, axes), _zeros(emit, x_spec))
    g_spec = spec_of(grad.type)
    padded = _padded(emit, x, axes, float(np.finfo(x_spec.dtype).min))
    stacked = _stacked_taps(emit, padded, axes,
                            lambda tap, window: emit.op("where", emit.op("equal", window, y), grad,
                                                        _zeros(emit, g_spec)))
    taps = list(np.ndindex(*[a.kernel for a in axes]))
    channels = g_spec.shape[1]
    as_channels = emit.op("reshape", stacked, result_type=g_spec.with_shape(
        (g_spec.shape[0], channels * len(taps), *g_spec.shape[2:])))
    one_hot = np.zeros((channels * len(taps), 1, *[a.kernel for a in axes]), dtype=x_spec.dtype)
    for index, tap in enumerate(taps):
        one_hot[(slice(index, None, len(taps)), 0, *tap)] = 1
    return _scatter_windows(emit, as_channels, emit.constant(one_hot), axes, channels, channels, x_spec)


@lowering("avg_pool_grad")
def avg_pool_grad(op: OpView, emit: Emitter) -> ir.Value:
    """Each output's gradient divided by its window's divisor, scattered over the window
    (a grouped conv_transpose with an all-ones filter)."""
    x_spec, grad = spec_of(op.operand("input").type), op.operand("grad")
    g_spec = spec_of(grad.type)
    axes = _geometry(op, x_spec, op.attr("kernel"))
    divisors = average_divisors(axes, op.attr("count_include_pad")).astype(g_spec.dtype)
    shares = emit.op("div", grad, emit.broadcast(emit.constant(divisors), g_spec))
    channels = g_spec.shape[1]
    ones = emit.splat(1.0, x_spec.with_shape((channels, 1, *[a.kernel for a in axes])))
    return _scatter_windows(emit, shares, ones, axes, channels, channels, x_spec)
