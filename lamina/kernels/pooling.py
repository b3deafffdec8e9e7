"""Pooling kernels (ONNX MaxPool, AveragePool), N-D, built on `windows.taps`."""

from __future__ import annotations

import numpy as np

from .windows import WindowAxis, pad_spatial, taps, window_axes


def lowest_value(dtype: np.dtype):
    """The value padding takes in max pooling, so that it never wins.

    The lowest finite value, not -inf: onnxruntime starts every window from it,
    so a window that sees only padding yields it too.
    """
    return np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def max_pool(x, *, kernel, strides, pads, dilations, ceil_mode) -> np.ndarray:
    axes = window_axes(x.shape[2:], kernel, strides, pads, dilations, ceil_mode)
    result = None
    for _, view in taps(pad_spatial(x, axes, lowest_value(x.dtype)), axes):
        result = view.copy() if result is None else np.maximum(result, view, out=result)
    return result


def average_divisors(axes: list[WindowAxis], count_include_pad: bool) -> np.ndarray:
    """How many elements each average divides by, as onnxruntime counts them.

    Including padding counts the taps inside the explicitly padded extent
    [-pad_begin, size + pad_end): positions a ceil-mode window reads past that
    never count. Excluding it counts the taps inside the input. The window is
    a box, so the count is a product of per-axis counts.
    """
    divisor = np.ones((), dtype=np.int64)
    for a in axes:
        positions = a.tap_positions()
        low, high = (-a.pad_begin, a.size + a.pad_end) if count_include_pad else (0, a.size)
        counts = ((positions >= low) & (positions < high)).sum(axis=1)
        divisor = np.multiply.outer(divisor, counts)
    return divisor


def avg_pool(x, *, kernel, strides, pads, ceil_mode, count_include_pad) -> np.ndarray:
    axes = window_axes(x.shape[2:], kernel, strides, pads, None, ceil_mode)
    total = None
    for _, view in taps(pad_spatial(x, axes, 0), axes):
        total = view.copy() if total is None else np.add(total, view, out=total)
    return total / average_divisors(axes, count_include_pad).astype(x.dtype)
