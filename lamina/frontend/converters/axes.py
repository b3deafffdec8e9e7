"""ONNX axes, which may count from the end, in the graph dialect's non-negative form."""

from __future__ import annotations

from typing import Iterable


def normalized_axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def normalized_axes(axes: Iterable[int], rank: int) -> list[int]:
    """Non-negative, sorted and unique, as the graph ops take them."""
    return sorted({normalized_axis(a, rank) for a in axes})
