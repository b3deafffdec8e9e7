"""Index arithmetic the simulator's batched paths share: the vectors of strided ranges, first occurrences,
the ends of stretches."""

from __future__ import annotations

import numpy as np


def strided_vectors(start: np.ndarray, stride: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, address) of every vector of strided ranges: owner indexes the ranges, in order."""
    owner = np.repeat(np.arange(len(size)), size)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(size) - size, size)
    return owner, start[owner] + (offset << stride[owner])


def first_positions(length: int, keys: np.ndarray, positions: np.ndarray, default: int) -> np.ndarray:
    """Per key in [0, length), the smallest of `positions` (non-decreasing) with that key, else `default`.

    A fancy assignment with repeated indices leaves the last value: assigning in reverse leaves the first,
    many times faster than `np.minimum.at`."""
    first = np.full(length, default, np.int64)
    first[keys[::-1]] = positions[::-1]
    return first


def stretch_ends(mask: np.ndarray) -> np.ndarray:
    """For each position, where the stretch of True values it is in ends (its own position if False)."""
    index = np.arange(len(mask))
    return np.minimum.accumulate(np.where(mask, len(mask), index)[::-1])[::-1]
