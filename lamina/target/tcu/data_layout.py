"""How a tensor lies in the accelerator's vector memories.

Every memory is addressed in vectors of N scalars (N = array size). A tensor
of shape (n, c, h, w) is stored channel-tile major: vector
((ct * n_batch + n) * H + h) * W + w holds channels ct*N .. ct*N+N-1 of pixel
(n, h, w) in its lanes; lanes past the last channel are zero. A matrix
(b, f) is the case h = w = 1: feature tile major, one vector per row.

Channel-tile-major order makes a pixel row contiguous and a convolution's
input pixels a power-of-two stride apart, which is what lets one MatMul
instruction cover a whole output row or plane.
"""

from __future__ import annotations

import numpy as np


def as_nchw(shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(n, c, h, w) of a rank-4 tensor, or of a rank-2 (b, f) matrix as (b, f, 1, 1)."""
    if len(shape) == 4:
        return tuple(shape)
    if len(shape) == 2:
        return (shape[0], shape[1], 1, 1)
    raise ValueError(f"the accelerator stores rank-2 and rank-4 tensors, not shape {list(shape)}")


def channel_tiles(channels: int, array_size: int) -> int:
    return -(-channels // array_size)


def vector_count(shape: tuple[int, ...], array_size: int) -> int:
    """Vectors a tensor of `shape` occupies."""
    n, c, h, w = as_nchw(shape)
    return channel_tiles(c, array_size) * n * h * w


def to_vectors(tensor: np.ndarray, array_size: int) -> np.ndarray:
    """The (vectors, N) image of `tensor`, padded lanes zero; same dtype."""
    n, c, h, w = as_nchw(tensor.shape)
    tiles = channel_tiles(c, array_size)
    padded = np.zeros((n, tiles * array_size, h, w), dtype=tensor.dtype)
    padded[:, :c] = tensor.reshape(n, c, h, w)
    # (n, ct, lane, h, w) -> (ct, n, h, w, lane)
    image = padded.reshape(n, tiles, array_size, h, w).transpose(1, 0, 3, 4, 2)
    return np.ascontiguousarray(image.reshape(tiles * n * h * w, array_size))


def from_vectors(vectors: np.ndarray, shape: tuple[int, ...], array_size: int) -> np.ndarray:
    """The tensor of `shape` stored in the (vectors, N) image `vectors`."""
    n, c, h, w = as_nchw(shape)
    tiles = channel_tiles(c, array_size)
    expected = (tiles * n * h * w, array_size)
    if vectors.shape != expected:
        raise ValueError(f"a tensor of shape {list(shape)} needs {expected[0]} vectors of {array_size}, "
                         f"got an image of shape {list(vectors.shape)}")
    image = vectors.reshape(tiles, n, h, w, array_size).transpose(1, 0, 4, 2, 3)
    return np.ascontiguousarray(image.reshape(n, tiles * array_size, h, w)[:, :c]).reshape(shape)
