"""Convolutions and transposed convolutions as linalg contractions.

Named linalg ops where one matches (`conv_2d_nchw_fchw`,
`depthwise_conv_2d_nchw_chw`, `conv_2d_ngchw_gfchw`): the CPU pipeline
rewrites and vectorizes those. A grouped 2-D convolution is the named
grouped one on [n, groups, channels per group, h, w] views (depthwise: one
channel and one filter per group). 1-D/3-D grouped convolutions use one
`linalg.generic`, which covers every case the graph dialect allows. Biases
are broadcast into the output first, so the contraction accumulates onto
them and no separate add is needed; half-precision convolutions accumulate
in f32, round once and then add the f16 bias, as the reference kernel's
NumPy matmul does.

A transposed convolution is a stride-1 convolution over the zero-spread
input. ONNX ConvTranspose (the reference: `lamina/kernels/convolution.conv_transpose`)
scatters each input element's filter window into the output at `i * stride`,
then crops `pads`. Gathered instead, per spatial axis with kernel k, stride
s, dilation d, pads (b, e) and output padding p:

    y[o] = sum_t spread[o + d*t] * w[k-1-t]

where `spread` is the input with s-1 zeros between elements, placed at
offset d*(k-1) - b in a zero tensor of length out + d*(k-1) (the full result
of length s*(I-1) + d*(k-1) + 1 + p, cropped by the pads, viewed through the
flipped window). Pads beyond d*(k-1) make that offset negative and an
output_padding or small end pad can put input elements past the end: those
elements are never read by any output, so they are cut from the input
before it is spread. The spread is one strided `tensor.insert_slice` into
zeros (a `tensor.pad` when every stride is 1).

The filter [C, M/group, k...] becomes a convolution filter [M, C/group, k...]:
its window flipped and, per group, in and out channels swapped (one
`linalg.generic`). The convolution itself is built as a regular one (named `conv_2d_nchw_fchw`, one per group for a few groups, else
one generic), accumulating onto the broadcast bias.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.dialects.irdl import OpView

from .builders import (PARALLEL, REDUCTION, affine_map, broadcast_along, dims, empty, filled, generic, identity_map,
                       map_elements, multiply_accumulate, pad, tensor_type, to_float)
from .registry import converts
from .shape_ops import collapse, expand, extract, insert
from .storage import result_type


@converts("convolution")
def convolution(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, filter_, bias = operands
    padded, out = padded_input(view, data, 0), result_type(view)
    if isinstance(out.element_type, ir.F16Type):  # accumulate in f32, round once, add the bias (the kernel's order)
        f32 = ir.F32Type.get()
        wide = filled(ir.RankedTensorType.get(out.shape, f32), 0)
        product = to_float(convolve(view, to_float(padded, f32), to_float(filter_, f32), wide), out.element_type)
        return [map_elements(out, [product, broadcast_along(bias, out, 1)], arith.addf)]
    return [convolve(view, padded, filter_, broadcast_along(bias, out, 1))]


def padded_input(view: OpView, data: ir.Value, padding) -> ir.Value:
    """graph.convolution's input with its `pads`, filled with `padding`."""
    rank = tensor_type(data.type).rank - 2
    pads = view.attr("pads")
    return pad(data, [0, 0, *pads[:rank]], [0, 0, *pads[rank:]], padding)


def convolve(view: OpView, padded: ir.Value, filter_: ir.Value, init: ir.Value) -> ir.Value:
    """graph.convolution's contraction of an already padded input and `filter_`, accumulated onto `init`."""
    rank = tensor_type(init.type).rank - 2
    strides, dilations = list(view.attr("strides")), list(view.attr("dilations"))
    group = view.attr("group")
    if rank == 2 and group == 1:
        return linalg.conv_2d_nchw_fchw(padded, filter_, outs=[init], strides=strides, dilations=dilations)
    if rank == 2:
        filters, per_group, kh, kw = tensor_type(filter_.type).shape
        if per_group == 1 and filters == group:
            depthwise = collapse(filter_, [filters, kh, kw], [[0, 1], [2], [3]])
            return linalg.depthwise_conv_2d_nchw_chw(padded, depthwise, outs=[init], strides=strides,
                                                     dilations=dilations)
        return _grouped_convolution(padded, filter_, init, strides, dilations, group)
    return _generic_convolution(padded, filter_, init, strides, dilations, group)


def _grouped_convolution(data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int],
                         dilations: list[int], group: int) -> ir.Value:
    """A grouped 2-D convolution as `linalg.conv_2d_ngchw_gfchw` on [n, group, per group, ...] views."""
    n, channels, *spatial = tensor_type(data.type).shape
    filters, per_group, *kernel = tensor_type(filter_.type).shape
    _, _, *out_spatial = tensor_type(init.type).shape
    data_g = expand(data, [n, group, channels // group, *spatial], [[0], [1, 2], [3], [4]])
    filter_g = expand(filter_, [group, filters // group, per_group, *kernel], [[0, 1], [2], [3], [4]])
    init_g = expand(init, [n, group, filters // group, *out_spatial], [[0], [1, 2], [3], [4]])
    y = linalg.conv_2d_ngchw_gfchw(data_g, filter_g, outs=[init_g], strides=strides, dilations=dilations)
    return collapse(y, [n, filters, *out_spatial], [[0], [1, 2], [3], [4]])


# conv_transpose's grouped stride-1 convolutions with at most this many groups (of several
# channels) are one named convolution per group (`_split_groups`); more groups: one generic.
MAX_SPLIT_GROUPS = 8


def _split_groups(data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int], dilations: list[int],
                  group: int) -> ir.Value:
    """A grouped 2-D convolution as one named convolution per group, on slices (conv_transpose's)."""
    n, channels, *spatial = tensor_type(data.type).shape
    filters, per_group, *kernel = tensor_type(filter_.type).shape
    result = init
    out_spatial = tensor_type(init.type).shape[2:]
    for g in range(group):
        data_g = extract(data, [0, g * per_group, 0, 0], [n, per_group, *spatial])
        filter_g = extract(filter_, [g * (filters // group), 0, 0, 0], [filters // group, per_group, *kernel])
        offsets = [0, g * (filters // group), 0, 0]
        init_g = extract(init, offsets, [n, filters // group, *out_spatial])
        y_g = linalg.conv_2d_nchw_fchw(data_g, filter_g, outs=[init_g], strides=strides, dilations=dilations)
        result = insert(y_g, result, offsets)
    return result


def _generic_convolution(data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int],
                         dilations: list[int], group: int) -> ir.Value:
    """Any-rank grouped convolution of an already padded input.

    Loops: n, m (output channel), o_1..o_k (output position), c (channel in
    the group), t_1..t_k (kernel tap); output channel m reads input channel
    (m floordiv M/group) * C/group + c.
    """
    filter_type = tensor_type(filter_.type)
    rank = filter_type.rank - 2
    filters, per_group = filter_type.shape[0], filter_type.shape[1]
    n, m, c = 0, 1, 2 + rank
    outs = list(range(2, 2 + rank))
    taps = list(range(3 + rank, 3 + 2 * rank))
    num_dims = 3 + 2 * rank
    d = ir.AffineDimExpr.get
    channel = ir.AffineExpr.get_floor_div(d(m), filters // group) * per_group + d(c)
    positions = [d(o) * stride + d(t) * dilation for o, t, stride, dilation in zip(outs, taps, strides, dilations)]
    maps = [affine_map(num_dims, [d(n), channel, *positions]),
            affine_map(num_dims, [d(m), d(c), *dims(*taps)]),
            affine_map(num_dims, dims(n, m, *outs))]
    iterators = [PARALLEL] * (2 + rank) + [REDUCTION] * (1 + rank)
    (result,) = generic([data, filter_], [init], maps, iterators, multiply_accumulate)
    return result


@converts("conv_transpose")
def conv_transpose(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, filter_, bias = operands
    out = result_type(view)
    rank = out.rank - 2
    strides, dilations = list(view.attr("strides")), list(view.attr("dilations"))
    pads, group = list(view.attr("pads")), view.attr("group")
    kernel = list(tensor_type(filter_.type).shape[2:])
    # Where input element 0 lands in the spread input, per axis (negative: cropped away).
    offsets = [d * (k - 1) - begin for k, d, begin in zip(kernel, dilations, pads[:rank])]
    extents = [size + d * (k - 1) for size, k, d in zip(out.shape[2:], kernel, dilations)]
    spread = _spread(data, offsets, extents, strides)
    init = broadcast_along(bias, out, 1)
    return [_convolve(spread, _as_convolution_filter(filter_, group), init, dilations, group)]


def _spread(data: ir.Value, offsets: list[int], extents: list[int], strides: list[int]) -> ir.Value:
    """x[..., i] at [..., offset + i * stride] of a zero tensor [..., extent]; elements outside it dropped."""
    source = tensor_type(data.type)
    n, channels, *spatial = source.shape
    first, counts = [], []
    for size, offset, extent, stride in zip(spatial, offsets, extents, strides):
        start = max(0, -(offset // stride))  # first i with offset + i * stride >= 0
        stop = min(size, (extent - 1 - offset) // stride + 1) if extent > offset else 0  # last one < extent, + 1
        first.append(start)
        counts.append(max(stop - start, 0))
    spread_type = ir.RankedTensorType.get([n, channels, *extents], source.element_type)
    if not all(counts):
        return filled(spread_type, 0)  # no input element is read: the result is the bias alone
    if first != [0] * len(spatial) or counts != spatial:
        data = extract(data, [0, 0, *first], [n, channels, *counts])
    lows = [offset + start * stride for offset, start, stride in zip(offsets, first, strides)]
    if all(stride == 1 for stride in strides):
        highs = [extent - low - count for extent, low, count in zip(extents, lows, counts)]
        return pad(data, [0, 0, *lows], [0, 0, *highs], 0)
    return tensor.insert_slice(data, filled(spread_type, 0), [], [], [], [0, 0, *lows], [n, channels, *counts],
                               [1, 1, *strides])


def _as_convolution_filter(filter_: ir.Value, group: int) -> ir.Value:
    """[C, M/group, k...] -> [M, C/group, k...]: window flipped, in/out channels swapped in each group.

    Loops: m (output channel), c (channel in the group), t_1..t_k; reads
    filter[(m floordiv M/group) * C/group + c, m mod M/group, k_1-1-t_1, ...].
    """
    source = tensor_type(filter_.type)
    channels, per_group, *kernel = source.shape
    rank = len(kernel)
    filters, channels_per_group = per_group * group, channels // group
    num_dims = 2 + rank
    d = ir.AffineDimExpr.get
    m, c = d(0), d(1)
    if group == 1:
        in_channel, out_channel = c, m
    else:
        in_channel = ir.AffineExpr.get_floor_div(m, per_group) * channels_per_group + c
        out_channel = ir.AffineExpr.get_mod(m, per_group)
    taps = [d(2 + i) if k == 1 else ir.AffineConstantExpr.get(k - 1) - d(2 + i) for i, k in enumerate(kernel)]
    converted = ir.RankedTensorType.get([filters, channels_per_group, *kernel], source.element_type)
    maps = [affine_map(num_dims, [in_channel, out_channel, *taps]), identity_map(num_dims)]
    (result,) = generic([filter_], [empty(converted)], maps, [PARALLEL] * num_dims, lambda element, _: element)
    return result


def _convolve(data: ir.Value, filter_: ir.Value, init: ir.Value, dilations: list[int], group: int) -> ir.Value:
    """A stride-1 convolution of an already spread and padded input onto `init`, with the builders a regular convolution uses."""
    strides = [1] * len(dilations)
    if len(dilations) == 2 and group == 1:
        return linalg.conv_2d_nchw_fchw(data, filter_, outs=[init], strides=strides, dilations=dilations)
    if len(dilations) == 2 and group <= MAX_SPLIT_GROUPS and tensor_type(filter_.type).shape[1] > 1:
        return _split_groups(data, filter_, init, strides, dilations, group)
    return _generic_convolution(data, filter_, init, strides, dilations, group)
