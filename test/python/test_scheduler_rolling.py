"""Transfers roll into runs of constant power-of-two strides (hir_to_lir/rolling.py): fixed cases, and
Hypothesis against the greedy walk that defines them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lamina.passes.conversion.hir_to_lir.rolling import runs


def _cut(local, other, max_size, limits):
    """runs() as tuples (first start, first stride, second start, second stride, size), strides in vectors."""
    cut = runs(np.asarray(local), np.asarray(other), max_size=max_size, stride_limits=limits)
    return [(f, 1 << a, s, 1 << b, size) for f, a, s, b, size in zip(*(column.tolist() for column in cut))]


def test_transfers_roll_into_runs_of_constant_power_of_two_strides():
    local = np.array([0, 1, 2, 3, 10, 11, 12, 20, 22, 24, 25])
    other = np.array([5, 6, 7, 8, 9, 10, 11, 40, 44, 48, 49])
    assert _cut(local, other, 3, (8, 8)) == [
        (0, 1, 5, 1, 3), (3, 1, 8, 1, 1), (10, 1, 9, 1, 3), (20, 2, 40, 4, 3), (25, 1, 49, 1, 1)]
    # a step of 4 on the second side is beyond two stride fields (strides 1 and 2 only)
    assert _cut(np.arange(3), np.arange(3) * 4, 8, (2, 2)) == [(0, 1, 0, 1, 1), (1, 1, 4, 1, 1), (2, 1, 8, 1, 1)]


def _greedy_walk(local: list[int], other: list[int], max_size: int, limits: tuple[int, int]) -> list[tuple]:
    """The definition `runs` computes without a walk: from each start, extend while both steps stay the same
    power of two in range, up to max_size vectors; a vector that cannot start a run is a run of one."""
    def stride(step: int, limit: int) -> int | None:
        return step if step >= 1 and step & (step - 1) == 0 and step.bit_length() <= limit else None

    cut, start = [], 0
    while start < len(local):
        end = start  # last vector of the run
        steps = None
        while end + 1 < len(local) and end + 1 - start < max_size:
            here = (stride(local[end + 1] - local[end], limits[0]), stride(other[end + 1] - other[end], limits[1]))
            if None in here or (steps is not None and here != steps):
                break
            steps, end = here, end + 1
        first_stride, second_stride = steps or (1, 1)
        cut.append((local[start], first_stride, other[start], second_stride, end + 1 - start))
        start = end + 1
    return cut


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([1, 1, 1, 2, 3, 4, 0, -2, 8]), st.sampled_from([1, 1, 2, 4, 5, -1, 16])),
                max_size=40),
       st.integers(2, 9), st.integers(1, 4), st.integers(1, 4))
def test_runs_equal_the_greedy_walk(steps, max_size, limit0, limit1):
    local = np.concatenate([[3], 3 + np.cumsum([a for a, _ in steps], dtype=np.int64)])
    other = np.concatenate([[7], 7 + np.cumsum([b for _, b in steps], dtype=np.int64)])
    assert _cut(local, other, max_size, (limit0, limit1)) == _greedy_walk(
        local.tolist(), other.tolist(), max_size, (limit0, limit1))
