"""Roll per-vector transfers into instructions: one per run with constant power-of-two strides.

Emitters describe a transfer as two address arrays (one entry per vector, in
order); `runs` cuts them greedily into the longest runs whose steps are a
constant power of two on both sides (within the stride fields' range), so a
band of contiguous rows becomes one instruction and a band with gaps one per
row.

The greedy cut is computed without a loop per run. Steps between
consecutive vectors form *blocks* of equal (first, second) stride exponents;
a step that is no power of two in range is a block of its own that cannot
roll. The greedy walk enters each block at its first vector or one past it
(when the previous run ended on the vector the blocks share), covers the
rest with runs of at most `max_size`, and the entry offset into the next
block follows from the block's length alone: a non-rolling block resets it
to 0, a rolling block whose remaining length is 1 modulo `max_size` leaves
the shared vector to the next block (0), any other leaves it covered (1).
Written as maps of the offset, these are constants, the identity or a
negation, so every entry offset is the last constant XOR the parity of the
negations since: cumulative sums, not a walk.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Runs(NamedTuple):
    """One entry per instruction: start addresses, stride exponents (stride = 2**exponent), sizes in vectors."""

    first: np.ndarray
    first_exponent: np.ndarray
    second: np.ndarray
    second_exponent: np.ndarray
    size: np.ndarray


def _power_of_two_exponent(step: np.ndarray, limit: int) -> np.ndarray:
    """log2(step) where step is a power of two with exponent < limit, else -1."""
    ok = (step >= 1) & ((step & (step - 1)) == 0)
    exponent = np.where(ok, np.log2(np.maximum(step, 1)).astype(np.int64), -1)
    return np.where(exponent < limit, exponent, -1)


def runs(first: np.ndarray, second: np.ndarray, *, max_size: int, stride_limits: tuple[int, int]) -> Runs:
    """The greedy cut of the two address sequences into runs (see the module docstring); max_size >= 2."""
    return segment_runs(first, second, np.zeros(1, np.int64), np.array([max_size]), stride_limits)[0]


def segment_runs(first: np.ndarray, second: np.ndarray, starts: np.ndarray, max_sizes: np.ndarray,
                 stride_limits: tuple[int, int]) -> tuple[Runs, np.ndarray]:
    """`runs` of many transfers at once: segment k is first/second[starts[k]:starts[k + 1]], cut with
    max_sizes[k]; a run never crosses a segment. Also returns each run's segment."""
    first = np.asarray(first, np.int64)
    second = np.asarray(second, np.int64)
    count = len(first)
    exp_a = _power_of_two_exponent(np.diff(first), stride_limits[0])
    exp_b = _power_of_two_exponent(np.diff(second), stride_limits[1])
    rollable_step = (exp_a >= 0) & (exp_b >= 0)
    rollable_step[starts[1:] - 1] = False  # a segment boundary cannot roll: it restarts the walk
    segment_of_step = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, count)))[:len(exp_a)]
    # blocks of steps: a new one where the exponents change or either neighbour cannot roll
    new_block = np.ones(len(exp_a), bool)
    new_block[1:] = (exp_a[1:] != exp_a[:-1]) | (exp_b[1:] != exp_b[:-1]) | ~rollable_step[1:] | ~rollable_step[:-1]
    start = np.flatnonzero(new_block)
    length = np.diff(np.append(start, len(exp_a)))
    rollable = rollable_step[start]
    # entry offsets: map of each block = constant (0 or 1), identity or negation
    max_size = max_sizes[segment_of_step[start]]
    residue = length % max_size
    constant = ~rollable | ((residue != 0) & (residue != 1))
    value = rollable.astype(np.int64)  # the constant's value: 0 after a non-rolling block, else 1
    negation = rollable & (residue == 1)
    blocks = len(start)
    negations = np.concatenate([[0], np.cumsum(negation)])  # negations among blocks < k
    last = np.maximum.accumulate(np.where(constant, np.arange(blocks), -1)) if blocks else np.zeros(0, np.int64)
    # offset entering block k + 1 (index k + 1), from the last constant map at or before block k
    after = np.where(last >= 0, value[np.maximum(last, 0)], 0)
    flips = negations[1:] - negations[np.maximum(last, -1) + 1]
    offset_after = (after + flips) % 2
    offset = np.concatenate([[0], offset_after])  # offset[k]: entry offset into block k; offset[-1]: after all
    entry = offset[:-1]
    # rolling blocks: vectors left = length + 1 - entry, in runs of max_size and one shorter rest (>= 2)
    left = np.where(rollable, length + 1 - entry, 0)
    full, rest = np.divmod(left, max_size)
    runs_per_block = full + (rest >= 2)
    block = np.repeat(np.arange(blocks), runs_per_block)
    within = np.arange(len(block)) - np.repeat(np.cumsum(runs_per_block) - runs_per_block, runs_per_block)
    roll_start = start[block] + entry[block] + within * max_size[block]
    roll_size = np.where(within < full[block], max_size[block], rest[block])
    # single vectors: non-rolling blocks entered at 0, and the last vector if no run covered it
    singles = start[~rollable & (entry == 0)]
    if count and offset[-1] == 0:
        singles = np.append(singles, count - 1)
    index = np.concatenate([roll_start, singles]).astype(np.int64)
    order = np.argsort(index, kind="stable")
    index = index[order]
    rolled = np.concatenate([np.ones(len(roll_start), bool), np.zeros(len(singles), bool)])[order]
    size = np.concatenate([roll_size, np.ones(len(singles), np.int64)])[order]
    step_a = np.where(rolled, exp_a[np.minimum(index, max(len(exp_a) - 1, 0))] if len(exp_a) else 0, 0)
    step_b = np.where(rolled, exp_b[np.minimum(index, max(len(exp_b) - 1, 0))] if len(exp_b) else 0, 0)
    cut = Runs(first[index], step_a.astype(np.int64), second[index], step_b.astype(np.int64), size.astype(np.int64))
    return cut, np.searchsorted(starts, index, side="right") - 1
