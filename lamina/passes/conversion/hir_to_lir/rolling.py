"""Roll per-vector transfers into instructions: one per run with constant power-of-two strides.

Emitters describe a transfer as two address arrays (one entry per vector, in
order); `runs` cuts them greedily into the longest runs whose steps are a
constant power of two on both sides (within the stride fields' range), so a
band of contiguous rows becomes one instruction and a band with gaps one per
row.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np


def _power_of_two_exponent(step: np.ndarray, limit: int) -> np.ndarray:
    """log2(step) where step is a power of two with exponent < limit, else -1."""
    step = np.asarray(step, np.int64)
    ok = (step >= 1) & ((step & (step - 1)) == 0)
    exponent = np.where(ok, np.log2(np.maximum(step, 1)).astype(np.int64), -1)
    return np.where(exponent < limit, exponent, -1)


def runs(first: np.ndarray, second: np.ndarray, *, max_size: int, stride_limits: tuple[int, int]
         ) -> Iterator[tuple[int, int, int, int, int]]:
    """(first start, first stride, second start, second stride, size) per run, strides in vectors."""
    first = np.asarray(first, np.int64)
    second = np.asarray(second, np.int64)
    count = len(first)
    if count == 0:
        return
    exp_a = _power_of_two_exponent(np.diff(first), stride_limits[0])
    exp_b = _power_of_two_exponent(np.diff(second), stride_limits[1])
    rollable = (exp_a >= 0) & (exp_b >= 0)
    # block_end[j]: last index of the block of equal (exp_a, exp_b) steps containing step j
    change = np.flatnonzero((exp_a[1:] != exp_a[:-1]) | (exp_b[1:] != exp_b[:-1]) | ~rollable[1:] | ~rollable[:-1])
    ends = np.append(change, len(exp_a) - 1)
    block_end = np.repeat(ends, np.diff(np.append(-1, ends))) if len(exp_a) else ends
    start = 0
    first_list, second_list = first.tolist(), second.tolist()
    while start < count:
        if start < count - 1 and rollable[start]:
            size = min(int(block_end[start]) + 2 - start, max_size)
            yield (first_list[start], 1 << int(exp_a[start]), second_list[start], 1 << int(exp_b[start]), size)
        else:
            size = 1
            yield (first_list[start], 1, second_list[start], 1, 1)
        start += size
