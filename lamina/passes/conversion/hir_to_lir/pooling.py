"""Pool layers (load -> pool -> save) and plain load layers: band by band through the accumulators.

Pooling: a stage is a band of output rows of one image and one channel
tile. The input rows the band's windows reach go DRAM0 -> local -> the
accumulators (one run each); then one SIMD chain per output in (kh, kw)
order over the window's in-bounds pixels: the first Moves into register 1,
the next combine into it (Max or Add), the last writes the output. Average
pooling continues the chain with Multiply by `scale_factors(1 / count)`,
read from broadcast vectors loaded into the accumulators once per layer.

A load layer moves flat runs of a tensor's channel tile into a region.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.data_layout import as_nchw, channel_tiles
from lamina.target.tcu.fixed_point import scale_factors
from lamina.target.tcu.program import DataMoveKind, SimdOp

from .emitter import REGISTER, Emitter
from .layers import Load, Pool
from .units import Layout, Unit


@dataclass
class PoolProducer:
    load: Load
    pool: Pool
    lanes: int
    data_type: object

    def __post_init__(self):
        self.images, channels, self.height, self.width = as_nchw(self.load.input.shape)
        self.tiles = channel_tiles(channels, self.lanes)
        _, _, self.out_h, self.out_w = as_nchw(self.pool.shape)
        self.max_rows = self.out_h
        self.smallest_stage = "one output row of one channel tile"
        self.factors = self._factor_lists()
        self.factor_values = sorted({f for fs in self.factors.values() for f in fs})

    def _window(self, ho: int, wo: int) -> list[tuple[int, int]]:
        """In-bounds input pixels (h, w) of output (ho, wo), in (kh, kw) order."""
        (kh, kw), (sh, sw), (t, l, _, _) = self.pool.kernel, self.pool.strides, self.pool.pads
        return [(ho * sh - t + i, wo * sw - l + j) for i in range(kh) for j in range(kw)
                if 0 <= ho * sh - t + i < self.height and 0 <= wo * sw - l + j < self.width]

    def _factor_lists(self) -> dict[int, list[int]]:
        """count -> the storage integers average pooling multiplies by, in order (none for max or 1)."""
        if self.pool.kind != "avg":
            return {}
        area = self.pool.kernel[0] * self.pool.kernel[1]
        counts = {area if self.pool.count_include_pad else len(self._window(ho, wo))
                  for ho in range(self.out_h) for wo in range(self.out_w)}
        return {c: (scale_factors(1.0 / c, self.data_type) if c > 1 else []) for c in counts}

    def _input_rows(self, first_row: int, band: int) -> tuple[int, int]:
        (kh, _), (sh, _), (t, *_) = self.pool.kernel, self.pool.strides, self.pool.pads
        return max(0, first_row * sh - t), min(self.height, (first_row + band - 1) * sh - t + kh)

    def input_rows(self, rows: int) -> int:
        """Most input rows a band of `rows` output rows reaches."""
        (kh, _), (sh, _) = self.pool.kernel, self.pool.strides
        return min(self.height, (rows - 1) * sh + kh)

    def sizes(self, rows: int) -> tuple[int, int, int]:
        band_input = self.input_rows(rows) * self.width
        return band_input, band_input + len(self.factor_values), rows * self.out_w

    def stages(self, rows: int) -> int:
        return self.images * self.tiles * -(-self.out_h // rows)

    def partitions(self, rows: int) -> int:
        return self.stages(rows)

    def true_macs(self) -> int:
        return 0

    def emit(self, emitter: Emitter, layout: Layout, rows: int, region: int):
        builder = emitter.builder
        band_input = self.input_rows(rows) * self.width
        factor_address = {}
        for k, value in enumerate(self.factor_values):
            factor_address[value] = band_input + k
            builder.data_move(DataMoveKind.DRAM1_TO_LOCAL, 0, emitter.consts.broadcast(value), 1)
            builder.data_move(DataMoveKind.LOCAL_TO_ACC, 0, band_input + k, 1)
        output = layout.region_base(region)
        for tile in range(self.tiles):
            for image in range(self.images):
                for first_row in range(0, self.out_h, rows):
                    band = min(rows, self.out_h - first_row)
                    low, high = self._input_rows(first_row, band)
                    count = (high - low) * self.width
                    pixels = (image * self.height + low) * self.width + np.arange(count)
                    emitter.transfer(DataMoveKind.DRAM0_TO_LOCAL, np.arange(count),
                                     self.load.input.addresses(tile, pixels))
                    emitter.transfer(DataMoveKind.LOCAL_TO_ACC, np.arange(count), np.arange(count))
                    for r in range(band):
                        for wo in range(self.out_w):
                            window = [(h - low) * self.width + w for h, w in self._window(first_row + r, wo)]
                            self._chain(emitter, window, output + r * self.out_w + wo, factor_address)
                    positions = np.arange(band * self.out_w)
                    yield Unit(tile, positions, (image * self.out_h + first_row) * self.out_w + positions)

    def _chain(self, emitter: Emitter, window: list[int], out: int, factor_address: dict[int, int]) -> None:
        builder = emitter.builder
        combine = SimdOp.MAX if self.pool.kind == "max" else SimdOp.ADD
        factors = []
        if self.pool.kind == "avg":
            area = self.pool.kernel[0] * self.pool.kernel[1]
            factors = self.factors[area if self.pool.count_include_pad else len(window)]
        # steps: (read address, op, uses register); the last writes `out`, the others write register 1
        steps = [(window[0], SimdOp.MOVE, False)]
        steps += [(p, combine, True) for p in window[1:]]
        steps += [(factor_address[f], SimdOp.MULTIPLY, True) for f in factors]
        for k, (read, op, with_register) in enumerate(steps):
            last = k == len(steps) - 1
            builder.simd(op, right=REGISTER if with_register else 0, read=read,
                         write=out if last else None, dest=0 if last else REGISTER)


@dataclass
class LoadProducer:
    """A layer that starts from a Vars tensor: flat runs of each channel tile."""

    load: Load
    lanes: int

    def __post_init__(self):
        self.tiles = channel_tiles(as_nchw(self.load.input.shape)[1], self.lanes)
        self.pixels = self.load.input.pixels
        self.max_rows = self.pixels
        self.smallest_stage = "one vector"

    def sizes(self, rows: int) -> tuple[int, int, int]:
        return 0, 0, rows

    def stages(self, rows: int) -> int:
        return self.tiles * -(-self.pixels // rows)

    def partitions(self, rows: int) -> int:
        return self.stages(rows)

    def true_macs(self) -> int:
        return 0

    def emit(self, emitter: Emitter, layout: Layout, rows: int, region: int):
        output = layout.region_base(region)
        for tile in range(self.tiles):
            for first in range(0, self.pixels, rows):
                pixels = np.arange(first, min(first + rows, self.pixels))
                positions = pixels - first
                staging = layout.staging + positions
                emitter.transfer(DataMoveKind.DRAM0_TO_LOCAL, staging, self.load.input.addresses(tile, pixels))
                emitter.transfer(DataMoveKind.LOCAL_TO_ACC, staging, output + positions)
                yield Unit(tile, positions, pixels)
