"""Sliding-window kernels: convolution, transposed convolution and pooling, N-D.

All of them are built from one primitive, `taps`: for each position of the
kernel window, a strided view of the padded input holding, at every output
position, the input element under that kernel tap. Convolution copies the
taps into an im2col matrix and does one (grouped) matrix product; pooling
folds the taps with max or add; transposed convolution is the adjoint, one
matrix product then a scatter-add per tap. The number of taps is the kernel
volume (9 for 3x3), so the Python loops are short and the work is in NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from lamina.dialects.graph import window_output_size


@dataclass(frozen=True)
class WindowAxis:
    """The geometry of a sliding window along one spatial axis."""

    size: int
    kernel: int
    stride: int
    dilation: int
    pad_begin: int
    pad_end: int
    out: int

    @property
    def padded_end(self) -> int:
        """Padding actually read after the input: windows in ceil mode run past `pad_end`."""
        last_read = (self.out - 1) * self.stride + (self.kernel - 1) * self.dilation + 1
        return max(last_read - self.pad_begin - self.size, 0)

    def window_starts(self) -> np.ndarray:
        """Input coordinate of each output's first tap (negative inside the begin padding)."""
        return np.arange(self.out) * self.stride - self.pad_begin

    def tap_positions(self) -> np.ndarray:
        """[out, kernel] input coordinates read by each output."""
        return self.window_starts()[:, None] + np.arange(self.kernel)[None, :] * self.dilation


def window_axes(spatial, kernel, strides, pads, dilations=None, ceil_mode: bool = False) -> list[WindowAxis]:
    """The per-axis geometry of a window op; `pads` are all begins then all ends (ONNX order)."""
    rank = len(spatial)
    dilations = dilations or (1,) * rank
    return [
        WindowAxis(spatial[i], kernel[i], strides[i], dilations[i], pads[i], pads[rank + i],
                   window_output_size(spatial[i], kernel[i], strides[i], pads[i], pads[rank + i],
                                      dilations[i], ceil_mode))
        for i in range(rank)
    ]


def pad_spatial(x: np.ndarray, axes: list[WindowAxis], value) -> np.ndarray:
    """x padded on its trailing spatial axes with exactly what the windows read."""
    widths = [(0, 0)] * (x.ndim - len(axes)) + [(a.pad_begin, a.padded_end) for a in axes]
    if not any(begin or end for begin, end in widths):
        return x
    return np.pad(x, widths, mode="constant", constant_values=value)


def taps(padded: np.ndarray, axes: list[WindowAxis]) -> Iterator[tuple[tuple[int, ...], np.ndarray]]:
    """For each kernel tap t: (t, view) with view[..., o] = padded[..., o * stride + t * dilation]."""
    for tap in np.ndindex(*(a.kernel for a in axes)):
        index = tuple(
            slice(t * a.dilation, t * a.dilation + (a.out - 1) * a.stride + 1, a.stride)
            for t, a in zip(tap, axes)
        )
        yield tap, padded[(Ellipsis, *index)]


def _out_shape(axes: list[WindowAxis]) -> tuple[int, ...]:
    return tuple(a.out for a in axes)


def per_channel(vector: np.ndarray, spatial_rank: int) -> np.ndarray:
    """A [C] vector shaped to broadcast over N x C x spatial."""
    return vector.reshape(vector.shape[0], *([1] * spatial_rank))


# ---------------------------------------------------------------------------
# Convolutions.
# ---------------------------------------------------------------------------


def convolution(x, w, b, *, strides, pads, dilations, group) -> np.ndarray:
    """ONNX Conv: x [N, C, ...], w [M, C/group, k...], b [M]."""
    n, channels = x.shape[:2]
    filters, kernel = w.shape[0], w.shape[2:]
    axes = window_axes(x.shape[2:], kernel, strides, pads, dilations)
    padded = pad_spatial(x, axes, 0)
    columns = np.empty((n, channels, *kernel, *_out_shape(axes)), dtype=x.dtype)
    for tap, view in taps(padded, axes):
        columns[(slice(None), slice(None), *tap)] = view
    reduction = (channels // group) * int(np.prod(kernel))
    positions = int(np.prod(_out_shape(axes)))
    # [group, M/group, C/group * k] x [N, group, C/group * k, positions]
    products = np.matmul(w.reshape(group, filters // group, reduction),
                         columns.reshape(n, group, reduction, positions))
    y = products.reshape(n, filters, *_out_shape(axes))
    return y + per_channel(b, len(axes))


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


# ---------------------------------------------------------------------------
# Pooling.
# ---------------------------------------------------------------------------


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
