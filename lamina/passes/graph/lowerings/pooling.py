"""Lowerings of global pooling into windowed pooling over the whole image."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import spec_of

from .base import Emitter, lowering


def _whole_image_window(op: OpView) -> dict:
    """Window attributes of a pool whose one window covers every spatial position."""
    spatial = spec_of(op.operand("input").type).shape[2:]
    return {"kernel": spatial, "strides": (1,) * len(spatial), "pads": (0,) * (2 * len(spatial)),
            "ceil_mode": False}


@lowering("global_avg_pool")
def global_avg_pool(op: OpView, emit: Emitter) -> ir.Value:
    """An avg_pool with one window over the whole image.

    Equal within float rounding (the pool sums in window order, the global
    mean pairwise): relative differences are a few ulps of the mean.
    """
    return emit.op("avg_pool", op.operand("input"), **_whole_image_window(op), count_include_pad=False)


@lowering("global_max_pool")
def global_max_pool(op: OpView, emit: Emitter) -> ir.Value:
    """A max_pool with one window over the whole image (exact: a maximum does not round)."""
    dilations = (1,) * len(spec_of(op.operand("input").type).shape[2:])
    return emit.op("max_pool", op.operand("input"), **_whole_image_window(op), dilations=dilations)
