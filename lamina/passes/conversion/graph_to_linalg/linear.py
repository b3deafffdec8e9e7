"""Convolutions and matrix products as linalg contractions.

Named linalg ops where one matches (`conv_2d_nchw_fchw`,
`depthwise_conv_2d_nchw_chw`, `conv_2d_ngchw_gfchw`, `matmul`,
`batch_matmul`): the CPU pipeline rewrites and vectorizes those. A grouped
2-D convolution is the named grouped one on [n, groups, channels per group,
h, w] views (depthwise: one channel and one filter per group). 1-D/3-D
grouped convolutions and broadcasting batched products use one
`linalg.generic` each, which covers every case the graph dialect allows.
Biases are broadcast into the output first, so the contraction accumulates
onto them and no separate add is needed.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg

from lamina.dialects.irdl import OpView

from .builders import (PARALLEL, REDUCTION, add, affine_map, broadcast_along, dims, filled, generic, multiply, pad,
                       tensor_type)
from .registry import converts
from .shape import collapse, expand, extract, insert
from .storage import result_type


@converts("convolution")
def convolution(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, filter_, bias = operands
    padded = padded_input(view, data, 0)
    return [convolve(view, padded, filter_, broadcast_along(bias, result_type(view), 1))]


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


# conv_transpose.py's grouped stride-1 convolutions with at most this many groups (of several
# channels) are one named convolution per group (`_split_groups`); more groups: one generic.
MAX_SPLIT_GROUPS = 8


def _split_groups(data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int], dilations: list[int],
                  group: int) -> ir.Value:
    """A grouped 2-D convolution as one named convolution per group, on slices (conv_transpose.py's)."""
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
    (result,) = generic([data, filter_], [init], maps, iterators, _multiply_accumulate)
    return result


def _multiply_accumulate(lhs: ir.Value, rhs: ir.Value, accumulator: ir.Value) -> ir.Value:
    return add(accumulator, multiply(lhs, rhs))


@converts("fully_connected")
def fully_connected(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, weights, bias = operands
    init = broadcast_along(bias, result_type(view), 1)
    return [linalg.matmul(data, weights, outs=[init])]


@converts("matmul")
def matmul(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    lhs, rhs = operands
    out = result_type(view)
    lhs_shape, rhs_shape = list(tensor_type(lhs.type).shape), list(tensor_type(rhs.type).shape)
    init = filled(out, 0)
    if len(lhs_shape) == len(rhs_shape) == 2:
        return [linalg.matmul(lhs, rhs, outs=[init])]
    if len(lhs_shape) == len(rhs_shape) == 3 and lhs_shape[0] == rhs_shape[0]:
        return [linalg.batch_matmul(lhs, rhs, outs=[init])]
    return [_broadcast_matmul(lhs, rhs, init)]


def _broadcast_matmul(lhs: ir.Value, rhs: ir.Value, init: ir.Value) -> ir.Value:
    """Batched product whose batch dimensions broadcast (NumPy matmul), as one generic.

    Loops: the result's batch dims, i, j, then k. An operand's batch dim of
    size 1 (or one it lacks) is read at index 0.
    """
    result_shape = list(tensor_type(init.type).shape)
    batch = len(result_shape) - 2
    i, j, k = batch, batch + 1, batch + 2
    num_dims = batch + 3

    def operand_map(shape: list[int], rows: int, cols: int) -> ir.AffineMap:
        own_batch = len(shape) - 2
        exprs = [ir.AffineConstantExpr.get(0) if size == 1 and result_shape[batch - own_batch + b] != 1
                 else ir.AffineDimExpr.get(batch - own_batch + b)
                 for b, size in enumerate(shape[:own_batch])]
        return affine_map(num_dims, [*exprs, *dims(rows, cols)])

    maps = [operand_map(list(tensor_type(lhs.type).shape), i, k),
            operand_map(list(tensor_type(rhs.type).shape), k, j),
            affine_map(num_dims, dims(*range(batch), i, j))]
    (result,) = generic([lhs, rhs], [init], maps, [PARALLEL] * (batch + 2) + [REDUCTION], _multiply_accumulate)
    return result
