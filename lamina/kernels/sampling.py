"""The kernel of `graph.grid_sample` (ONNX GridSample): each output point reads the input at a position the
grid gives in [-1, 1] coordinates, by nearest, linear or cubic interpolation.

Follows ONNX's reference implementation step by step, vectorized: the grid's
last axis lists coordinates innermost-first (x, then y, ...); each is
denormalized (`align_corners` maps -1 and 1 to the centres of the corner
pixels, otherwise to their outer edges); nearest mode rounds half to even;
a coordinate outside the borders is clamped (`border`) or reflected
(`reflection`) before interpolation; then each tap reads the pixel at its
index, which outside the input is zero (`zeros`), the clamped index
(`border`) or the reflected one (`reflection`). Interpolation is separable:
a tap's weight is the product of its per-axis weights. As in the reference,
positions and weights are computed in the grid's type (reflections in
float64, rounded back) and the taps summed in float64.
"""

from __future__ import annotations

import itertools

import numpy as np

from .graph_kernels import Node, kernel

CUBIC_ALPHA = -0.75


def borders(size: int, align_corners: bool) -> tuple[float, float]:
    """The lowest and highest position of an axis of `size` that lies inside the input."""
    return (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)


def denormalize(coordinate: np.ndarray, size: int, align_corners: bool) -> np.ndarray:
    """Grid coordinates in [-1, 1] as positions along an axis of `size`."""
    if align_corners:
        return (coordinate + 1) / 2 * (size - 1)
    return ((coordinate + 1) * size - 1) / 2


def reflect(x: np.ndarray, low: float, high: float) -> np.ndarray:
    """Positions outside [low, high] folded back in, as a mirror at each border."""
    span = high - low
    if span <= 0:
        return np.full_like(x, low)
    below, above = x < low, x > high
    distance = np.where(below, low - x, x - high)
    folds = np.trunc(distance / span)
    rest = distance - folds * span
    even = folds % 2 == 0
    from_low, from_high = low + rest, high - rest
    return np.where(below, np.where(even, from_low, from_high), np.where(above, np.where(even, from_high, from_low), x))


def pad_position(x: np.ndarray, size: int, align_corners: bool, padding_mode: str) -> np.ndarray:
    """A position outside the borders clamped into the input (`border`) or reflected (`reflection`)."""
    low, high = borders(size, align_corners)
    if padding_mode == "border":
        return np.where((x < low) | (x > high), np.clip(x, 0, size - 1), x)
    if padding_mode == "reflection":
        return reflect(x.astype(np.float64), low, high).astype(x.dtype)
    return x


def pad_index(index: np.ndarray, size: int, align_corners: bool, padding_mode: str) -> tuple[np.ndarray, np.ndarray]:
    """(an index inside the axis, whether the tap reads the input): outside it, `zeros` reads nothing."""
    inside = (index >= 0) & (index < size)
    if padding_mode == "reflection":
        index = np.trunc(reflect(index.astype(np.float64), *borders(size, align_corners))).astype(np.int64)
    return np.clip(index, 0, size - 1), (inside if padding_mode == "zeros" else np.ones_like(inside))


def cubic_weights(t: np.ndarray) -> list[np.ndarray]:
    """The four cubic-convolution weights (alpha -0.75) of taps at -1, 0, 1, 2 for a fraction t in [0, 1)."""
    a = CUBIC_ALPHA
    near = lambda s: ((a + 2) * s - (a + 3)) * s * s + 1  # noqa: E731 - |s| <= 1
    far = lambda s: ((a * s - 5 * a) * s + 8 * a) * s - 4 * a  # noqa: E731 - 1 < |s| < 2
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def taps(x: np.ndarray, mode: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """(index, weight) of each tap interpolating at positions x along one axis."""
    if mode == "nearest":
        return [(np.trunc(x).astype(np.int64), np.ones_like(x))]
    base = np.floor(x)
    if mode == "linear":
        return [(base.astype(np.int64), base + 1 - x), (base.astype(np.int64) + 1, x - base)]
    return [(base.astype(np.int64) + offset, weight) for offset, weight in zip((-1, 0, 1, 2), cubic_weights(x - base))]


@kernel("grid_sample")
def _grid_sample(node: Node, x, grid):
    mode, padding_mode, align_corners = (node.attrs[name] for name in ("mode", "padding_mode", "align_corners"))
    spatial = x.shape[2:]
    rank = len(spatial)
    channels_last = np.moveaxis(x, 1, -1)  # (N, *spatial, C): one gather reads every channel
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * (grid.ndim - 2))
    per_axis = []
    for axis, size in enumerate(spatial):
        position = denormalize(grid[..., rank - 1 - axis], size, align_corners)
        if mode == "nearest":
            position = np.rint(position)
        per_axis.append(taps(pad_position(position, size, align_corners, padding_mode), mode))
    total = np.zeros((*grid.shape[:-1], x.shape[1]), np.float64)
    for combination in itertools.product(*per_axis):
        weight = np.ones(grid.shape[:-1], np.float64)
        indices = []
        for (index, axis_weight), size in zip(combination, spatial):
            index, reads = pad_index(index, size, align_corners, padding_mode)
            weight = weight * axis_weight.astype(np.float64) * reads
            indices.append(index)
        total += weight[..., None] * channels_last[(batch, *indices)]
    return np.moveaxis(total, -1, 1).astype(x.dtype)
