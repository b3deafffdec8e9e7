"""Placing buffers with known lifetimes in one memory region (Glow's `MemoryAllocator::allocateAll`).

Plain Python over integers, no IR: `buffer-allocate` turns a function's
allocs into `Lifetime`s, asks `place` for their offsets and writes them back.

The problem is dynamic storage allocation: every buffer is a rectangle
(lifetime x bytes) that may only move along the byte axis, and the region
must be as small as possible. The largest total of buffers live at one
moment (`live_peak`) bounds every placement from below; placements are
heuristic (the problem is NP-hard), so `place` runs several orders and two
fitting rules and keeps the smallest result, stopping early at the bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from lamina.dialects.buffer_verifier import ALIGNMENT


def aligned(nbytes: int) -> int:
    """A buffer's footprint: its size rounded up to the alignment; empty buffers take one unit."""
    return max(1, -(-nbytes // ALIGNMENT)) * ALIGNMENT


@dataclass(frozen=True)
class Lifetime:
    """A buffer live from program position `start` until `end` (exclusive), taking `size` bytes."""

    start: int
    end: int
    size: int

    def overlaps(self, other: "Lifetime") -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Placement:
    """Byte offsets, one per lifetime, and the region size they need."""

    offsets: tuple[int, ...]
    size: int
    strategy: str  # which order and fitting rule found it


def live_peak(lifetimes: Sequence[Lifetime]) -> int:
    """The largest total size live at one position: no placement can use less memory."""
    events = sorted([(t.start, t.size) for t in lifetimes] + [(t.end, -t.size) for t in lifetimes])
    live = peak = 0
    for _, change in events:  # at one position, ends (negative) sort before starts
        live += change
        peak = max(peak, live)
    return peak


def sequential(sizes: Sequence[int]) -> tuple[list[int], int]:
    """Offsets for buffers live all the time (weights): one after the other, aligned; and the total."""
    offsets, end = [], 0
    for size in sizes:
        offsets.append(end)
        end += aligned(size)
    return offsets, end


def place(lifetimes: Sequence[Lifetime]) -> Placement:
    """Offsets (multiples of `ALIGNMENT`) such that buffers live at the same time never share a byte.

    Sizes must already be `aligned`. Tries every order in `ORDERS` with
    every rule in `FITS` and returns the smallest placement.
    """
    bound = live_peak(lifetimes)
    best = None
    for order in ORDERS:
        for fit in FITS:
            candidate = place_with(lifetimes, order, fit)
            if best is None or candidate.size < best.size:
                best = candidate
            if best.size == bound:
                return best
    return best


def place_with(lifetimes: Sequence[Lifetime], order: str, fit: str) -> Placement:
    """One heuristic: buffers placed one by one in `ORDERS[order]`, each where `FITS[fit]` says
    among the gaps left by the already placed buffers it lives alongside."""
    offsets = [0] * len(lifetimes)
    placed: list[int] = []
    for index in ORDERS[order](lifetimes):
        current = lifetimes[index]
        occupied = sorted((offsets[j], offsets[j] + lifetimes[j].size) for j in placed
                          if lifetimes[j].overlaps(current))
        gaps, cursor = [], 0
        for begin, end in occupied:
            if begin > cursor:
                gaps.append((cursor, begin - cursor))
            cursor = max(cursor, end)
        offsets[index] = FITS[fit](gaps, current.size, cursor)
        placed.append(index)
    size = max((offset + t.size for offset, t in zip(offsets, lifetimes)), default=0)
    return Placement(tuple(offsets), size, f"{order}, {fit}")


# ---------------------------------------------------------------------------
# Orders: which buffer to place next.
# ---------------------------------------------------------------------------


def _largest_first(lifetimes: Sequence[Lifetime]) -> list[int]:
    """Larger first (ties: longer-lived, then earlier): big buffers shape the region, small ones fill holes."""
    return sorted(range(len(lifetimes)),
                  key=lambda i: (-lifetimes[i].size, -(lifetimes[i].end - lifetimes[i].start), lifetimes[i].start))


def _longest_first(lifetimes: Sequence[Lifetime]) -> list[int]:
    """Longer-lived first (ties: larger): long-lived buffers at the bottom fragment nothing above them."""
    return sorted(range(len(lifetimes)),
                  key=lambda i: (-(lifetimes[i].end - lifetimes[i].start), -lifetimes[i].size, lifetimes[i].start))


def _program_order(lifetimes: Sequence[Lifetime]) -> list[int]:
    """By start: what an allocator that sees one request at a time would do."""
    return sorted(range(len(lifetimes)), key=lambda i: (lifetimes[i].start, i))


def _peak_first(lifetimes: Sequence[Lifetime]) -> list[int]:
    """Glow's allocateAll order: at the position where the unplaced buffers' live total is
    largest, the largest unplaced buffer live there (ties: longer-lived)."""
    positions = sorted({t.start for t in lifetimes})
    live = {p: [i for i, t in enumerate(lifetimes) if t.start <= p < t.end] for p in positions}
    remaining = {p: sum(lifetimes[i].size for i in live[p]) for p in positions}
    placed: set[int] = set()
    sequence = []
    while len(sequence) < len(lifetimes):
        position = max(positions, key=lambda p: remaining[p])
        chosen = max((i for i in live[position] if i not in placed),
                     key=lambda i: (lifetimes[i].size, lifetimes[i].end - lifetimes[i].start, -i))
        placed.add(chosen)
        sequence.append(chosen)
        for p in positions:
            if lifetimes[chosen].start <= p < lifetimes[chosen].end:
                remaining[p] -= lifetimes[chosen].size
    return sequence


ORDERS: dict[str, Callable[[Sequence[Lifetime]], list[int]]] = {
    "peak first": _peak_first,
    "largest first": _largest_first,
    "longest first": _longest_first,
    "program order": _program_order,
}


# ---------------------------------------------------------------------------
# Fitting rules: where in the free gaps a buffer goes.
# ---------------------------------------------------------------------------


def _first_fit(gaps: list[tuple[int, int]], size: int, top: int) -> int:
    """The lowest gap that fits (Glow's rule), else the top."""
    return next((begin for begin, length in gaps if length >= size), top)


def _best_fit(gaps: list[tuple[int, int]], size: int, top: int) -> int:
    """The tightest gap that fits, else the top: keeps large gaps for large buffers."""
    fitting = [(length, begin) for begin, length in gaps if length >= size]
    return min(fitting)[1] if fitting else top


FITS = {"first fit": _first_fit, "best fit": _best_fit}
