"""What the converter asks of graph values beyond `lamina.dialects.values`: flattens and per-channel constants."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.types import spec_of
from lamina.dialects.values import constant_view, is_constant_view, producer
from lamina.passes.graph.rewriting import invariant_part

def flattened_image(value: ir.Value) -> tuple[int, int, int] | None:
    """(c, h, w) when `value` is a reshape (a flatten) of a rank-4 tensor, else None."""
    reshape = producer(value, "reshape")
    if reshape is None:
        return None
    shape = spec_of(reshape.operands[0].type).shape
    return tuple(shape[1:]) if len(shape) == 4 else None


def per_channel(value: ir.Value) -> np.ndarray | None:
    """The (C,) vector of a rank-2/4 constant that varies along channels only, else None."""
    if not is_constant_view(value):
        return None
    data = constant_view(value)
    if data.ndim not in (2, 4):
        return None
    part = invariant_part(data, [axis for axis in range(data.ndim) if axis != 1])
    return None if part is None else part.reshape(-1).astype(np.float64)
