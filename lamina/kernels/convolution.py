"""Convolution and transposed convolution kernels (ONNX Conv, ConvTranspose), N-D, built on `windows.taps`."""

from __future__ import annotations

import functools

import numpy as np

from .windows import out_shape, pad_spatial, per_channel, taps, window_axes


def accumulates_in_f32(function):
    """A contraction kernel whose float16 operands are summed in float32 and rounded to float16 once, as Glow's
    interpreter and onnxruntime's CPU kernels do (NumPy's float16 matmul rounds after every addition: a
    3x3x512 convolution would keep about 7 bits)."""
    @functools.wraps(function)
    def run(*arrays, **attributes):
        if not any(getattr(a, "dtype", None) == np.float16 for a in arrays):
            return function(*arrays, **attributes)
        wide = [a.astype(np.float32) if getattr(a, "dtype", None) == np.float16 else a for a in arrays]
        return function(*wide, **attributes).astype(np.float16)
    return run


@accumulates_in_f32
def convolution(x, w, b, *, strides, pads, dilations, group) -> np.ndarray:
    """ONNX Conv: x [N, C, ...], w [M, C/group, k...], b [M]."""
    n, channels = x.shape[:2]
    filters, kernel = w.shape[0], w.shape[2:]
    axes = window_axes(x.shape[2:], kernel, strides, pads, dilations)
    padded = pad_spatial(x, axes, 0)
    columns = np.empty((n, channels, *kernel, *out_shape(axes)), dtype=x.dtype)
    for tap, view in taps(padded, axes):
        columns[(slice(None), slice(None), *tap)] = view
    reduction = (channels // group) * int(np.prod(kernel))
    positions = int(np.prod(out_shape(axes)))
    # [group, M/group, C/group * k] x [N, group, C/group * k, positions]
    products = np.matmul(w.reshape(group, filters // group, reduction),
                         columns.reshape(n, group, reduction, positions))
    y = products.reshape(n, filters, *out_shape(axes))
    return y + per_channel(b, len(axes))


@accumulates_in_f32
def conv_transpose(x, w, b, *, strides, pads, dilations, group, output_padding) -> np.ndarray:
    """ONNX ConvTranspose: x [N, C, ...], w [C, M/group, k...], b [M].

    Each input element scatters `w`'s window into the output at `i * stride`;
    the full (uncropped) output is cropped by the pads afterwards.
    """
    n, channels, *spatial = x.shape
    per_group, kernel = w.shape[1], w.shape[2:]
    volume = int(np.prod(kernel))
    # [group, M/group * k, C/group] x [N, group, C/group, input positions]
    weights = w.reshape(group, channels // group, per_group * volume).transpose(0, 2, 1)
    contributions = np.matmul(weights, x.reshape(n, group, channels // group, int(np.prod(spatial))))
    contributions = contributions.reshape(n, group * per_group, *kernel, *spatial)
    full = [s * (size - 1) + d * (k - 1) + 1 + extra
            for size, k, s, d, extra in zip(spatial, kernel, strides, dilations, output_padding)]
    y = np.zeros((n, group * per_group, *full), dtype=x.dtype)
    for tap in np.ndindex(*kernel):
        index = tuple(slice(t * d, t * d + s * (size - 1) + 1, s)
                      for t, d, s, size in zip(tap, dilations, strides, spatial))
        y[(slice(None), slice(None), *index)] += contributions[(slice(None), slice(None), *tap)]
    rank = len(spatial)
    crop = tuple(slice(pads[i], full[i] - pads[rank + i]) for i in range(rank))
    return y[(slice(None), slice(None), *crop)] + per_channel(b, rank)
