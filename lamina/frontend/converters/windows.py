"""Sliding-window attributes (Conv, ConvTranspose, pooling) made explicit.

ONNX lets `auto_pad` stand for pads computed from the input size; the graph
ops take explicit begin-then-end pads, so they are computed here.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

from ..node_view import NodeView

AUTO_PADS = ("NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER")


def check_auto_pad(view: NodeView) -> Iterable[str]:
    auto_pad = view.attr("auto_pad", "NOTSET")
    if auto_pad not in AUTO_PADS:
        yield f"auto_pad '{auto_pad}' is not one of {', '.join(AUTO_PADS)}"


def split_padding(total: int, auto_pad: str) -> tuple[int, int]:
    """(begin, end) for a total padding; SAME_UPPER puts the odd one at the end."""
    small, large = total // 2, total - total // 2
    return (small, large) if auto_pad == "SAME_UPPER" else (large, small)


def window_pads(view: NodeView, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int]) -> list[int]:
    """Explicit pads (all begins, then all ends) for Conv and pooling."""
    auto_pad = view.attr("auto_pad", "NOTSET")
    k = len(spatial)
    if auto_pad == "NOTSET":
        return list(view.attr("pads", [0] * 2 * k))
    if auto_pad == "VALID":
        return [0] * 2 * k
    begins, ends = [], []
    for size, extent, stride, dilation in zip(spatial, kernel, strides, dilations):
        output = math.ceil(size / stride)
        total = max(0, (output - 1) * stride + (extent - 1) * dilation + 1 - size)
        begin, end = split_padding(total, auto_pad)
        begins.append(begin)
        ends.append(end)
    return begins + ends


def window_attrs(view: NodeView, rank: int) -> tuple[list[int], list[int]]:
    """(strides, dilations), defaulting to ones."""
    k = rank - 2
    return list(view.attr("strides", [1] * k)), list(view.attr("dilations", [1] * k))
