"""What the sliding-window kernels (convolution.py, pooling.py) share, N-D.

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


def out_shape(axes: list[WindowAxis]) -> tuple[int, ...]:
    return tuple(a.out for a in axes)


def per_channel(vector: np.ndarray, spatial_rank: int) -> np.ndarray:
    """A [C] vector shaped to broadcast over N x C x spatial."""
    return vector.reshape(vector.shape[0], *([1] * spatial_rank))
