"""Transposed convolution as a stride-1 convolution over the zero-spread input.

ONNX ConvTranspose (the reference: `lamina/kernels/window_kernels.conv_transpose`)
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
`linalg.generic`). The convolution itself is built as `linear.py` builds a
regular one (named `conv_2d_nchw_fchw`, one per group for a few groups, else
one generic), accumulating onto the broadcast bias.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from lamina.dialects.irdl import OpView

from .builders import PARALLEL, affine_map, broadcast_along, empty, filled, generic, identity_map, pad, tensor_type
from .linear import MAX_SPLIT_GROUPS, _generic_convolution, _split_groups
from .shape import extract
from .registry import converts
from .storage import result_type


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
    """A stride-1 convolution of an already spread and padded input onto `init`, with linear.py's builders."""
    strides = [1] * len(dilations)
    if len(dilations) == 2 and group == 1:
        return linalg.conv_2d_nchw_fchw(data, filter_, outs=[init], strides=strides, dilations=dilations)
    if len(dilations) == 2 and group <= MAX_SPLIT_GROUPS and tensor_type(filter_.type).shape[1] > 1:
        return _split_groups(data, filter_, init, strides, dilations, group)
    return _generic_convolution(data, filter_, init, strides, dilations, group)
