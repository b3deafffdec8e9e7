"""Stride-2 convolutions on few channels rewritten as space-to-depth then a stride-1 convolution.

The array multiplies N input lanes per pass, so a convolution on C ≤ N/4
channels (an image's 3) leaves most lanes idle: ResNet-50's 7x7 stride-2
stem on 3 channels costs 49 passes per output vector and channel tile, at 17%
of the array. Packing each 2x2 block of pixels into the channels makes that
C·4 lanes and a ceil(kh/2) x ceil(kw/2) kernel, 16 passes for the stem.
Before conversion, such a convolution becomes, in the graph (exact in real
numbers):

    x -> conv 2x2 stride 2, one-hot weights (pads: the original's top/left) -> S
    S -> conv ceil(kh/2) x ceil(kw/2) stride 1, no pads, regrouped weights -> y

Channel (2a + b)·C + c of S at (i, j) is the padded input's channel c at
(2i + a, 2j + b); the regrouped filter holds W[o, c, 2p + a, 2q + b] at
(o, (2a + b)·C + c, p, q), zero where 2p + a ≥ kh or 2q + b ≥ kw. The first
convolution only moves data: each output is one input times 1.0, exact on
the accelerator, and S shares its input's range, hence its format. The
bottom/right pads of the first make S as large as the second reads.

Fires when the passes saved per output position, (kh·kw − kh'·kw') per
output channel tile, exceed twice the 4 passes of the packing convolution
(a 3x3 stride-2 stem on 3 channels to 16 channels saves 5, so it stays).
True MACs (`hir_to_lir/matmul.py`) count the regrouped filter's non-zero
taps per kernel pixel, so the pair counts the original's multiplications,
plus the taps on the original's padding that S stores as zeros and the
packing's one-hot lanes (ResNet-50: docs/accelerator.md).
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.target.tcu.data_layout import channel_tiles
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of
from lamina.dialects.values import constant_view, op_name
from lamina.passes.graph.rewriting import create_before, create_constant, erase_unused_producers, replace_op

from .partition import why_on_host

_PACKING_PASSES = 4  # the 2x2 packing convolution's passes per position of S


def rewrite_space_to_depth(ops: list[ir.Operation], lanes: int) -> bool:
    """Rewrite every convolution of `ops` that `_fires` on (in place); whether any was rewritten."""
    chosen = [op for op in ops if op_name(op) == "convolution" and _fires(op, lanes)]
    for op in chosen:
        _rewrite(op)
    return bool(chosen)


def _fires(op: ir.Operation, lanes: int) -> bool:
    attrs = GRAPH.view(op).attrs()
    data, filter_ = spec_of(op.operands[0].type), spec_of(op.operands[1].type)
    if data.rank != 4 or attrs["group"] != 1 or tuple(attrs["strides"]) != (2, 2) \
            or tuple(attrs["dilations"]) != (1, 1) or why_on_host(op) is not None:
        return False
    if constant_view(op.operands[1]) is None or constant_view(op.operands[2]) is None:
        return False
    co, ci, kh, kw = filter_.shape
    if 4 * ci > lanes or min(_far_pads(op)) < 0:
        return False
    saved = (kh * kw - -(-kh // 2) * -(-kw // 2)) * channel_tiles(co, lanes)
    return saved > 2 * _PACKING_PASSES


def _far_pads(op: ir.Operation) -> tuple[int, int]:
    _, _, height, width = spec_of(op.operands[0].type).shape
    _, _, out_h, out_w = spec_of(op.result.type).shape
    _, _, kh, kw = spec_of(op.operands[1].type).shape
    top, left = GRAPH.view(op).attr("pads")[:2]
    return far_pad(height, out_h, kh, top), far_pad(width, out_w, kw, left)


def far_pad(size: int, outputs: int, kernel: int, near_pad: int) -> int:
    """The packing convolution's bottom (right) pad along one axis: S gets the outputs + ceil(kernel/2) - 1
    rows (columns) the stride-1 convolution reads; negative when the original stops short of that."""
    return 2 * (outputs + -(-kernel // 2) - 1) - size - near_pad


def packing_filter(channels: int) -> np.ndarray:
    """The 2x2 filter of the packing convolution: output (2a + b)·C + c takes input c at kernel pixel (a, b)."""
    filter_ = np.zeros((4 * channels, channels, 2, 2), np.float32)
    for a in range(2):
        for b in range(2):
            for c in range(channels):
                filter_[(2 * a + b) * channels + c, c, a, b] = 1.0
    return filter_


def regrouped_filter(filter_: np.ndarray) -> np.ndarray:
    """The stride-1 filter over S: (co, 4·C, ceil(kh/2), ceil(kw/2)), zero past the original kernel."""
    co, ci, kh, kw = filter_.shape
    padded = np.zeros((co, ci, 2 * -(-kh // 2), 2 * -(-kw // 2)), filter_.dtype)
    padded[:, :, :kh, :kw] = filter_
    # (co, c, p, a, q, b) -> (co, a, b, c, p, q)
    blocks = padded.reshape(co, ci, padded.shape[2] // 2, 2, padded.shape[3] // 2, 2)
    return blocks.transpose(0, 3, 5, 1, 2, 4).reshape(co, 4 * ci, padded.shape[2] // 2, padded.shape[3] // 2)


def _rewrite(op: ir.Operation) -> None:
    loc, attrs = op.location, GRAPH.view(op).attrs()
    filter_, bias = constant_view(op.operands[1]), constant_view(op.operands[2])
    channels = filter_.shape[1]
    top, left = attrs["pads"][:2]
    bottom, right = _far_pads(op)
    with ir.InsertionPoint(op):
        packing = create_constant(packing_filter(channels).astype(filter_.dtype), loc)
        no_bias = create_constant(np.zeros(4 * channels, bias.dtype), loc)
        regrouped = create_constant(regrouped_filter(filter_), loc)
    packed = create_before(op, "convolution", op.operands[0], packing, no_bias, loc=loc, group=1,
                           strides=(2, 2), pads=(top, left, bottom, right), dilations=(1, 1))
    result = create_before(op, "convolution", packed, regrouped, op.operands[2], loc=loc, group=1,
                           strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1))
    whole = op.operands[1]
    replace_op(op, [result])
    erase_unused_producers([whole])
