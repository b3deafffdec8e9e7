"""What a producer hands to the accumulator ops: one output channel tile of one stage."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Unit:
    """Channel tile `tile` of the stage's outputs, held in the accumulators.

    `positions[i]` is the accumulator offset (inside a temp's region) of the
    output whose flat pixel index in the output tensor is `pixels[i]`;
    positions in between (garbage columns of a convolution band) are never
    read.
    """

    tile: int
    positions: np.ndarray
    pixels: np.ndarray


@dataclass(frozen=True)
class Layout:
    """Where a layer's pieces sit: local memory from 0, accumulators from 0."""

    producer_local: int   # the producer's own local vectors (input planes, weight slot, ...)
    producer_acc: int     # the producer's own accumulator vectors (pool input band, factors)
    region: int           # vectors of one temp region
    regions: int          # temp regions live at once

    @property
    def staging(self) -> int:
        """Local base of the save/load staging buffer (one region's worth)."""
        return self.producer_local

    @property
    def local_scratch(self) -> int:
        return self.producer_local + self.region

    @property
    def local_vectors(self) -> int:
        return self.producer_local + self.region + 1

    def region_base(self, index: int) -> int:
        return self.producer_acc + index * self.region

    @property
    def acc_scratch(self) -> int:
        return self.producer_acc + self.regions * self.region

    @property
    def acc_vectors(self) -> int:
        return self.acc_scratch + 1
