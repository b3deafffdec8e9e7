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
from lamina.target.tcu.program import ConfigRegister, DataMoveKind, Opcode, SimdFlag, SimdOp

from .emitter import REGISTER, Emitter
from .layers import Load, Pool
from .residency import Planes, load_vars
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
        self.resident: Planes | None = None  # the input's planes when it stays in local memory (residency.py)

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

    def stage_cycles(self, input_resident: bool) -> int:
        """About what one more band of one channel tile costs: the input rows windows share, moved again."""
        (kh, _), (sh, _) = self.pool.kernel, self.pool.strides
        return max(0, kh - sh) * self.width * (1 if input_resident else 2)

    def partitions(self, rows: int) -> int:
        return self.stages(rows)

    def true_macs(self) -> int:
        return 0

    def emit(self, emitter: Emitter, layout: Layout, rows: int, region: int):
        band_input = self.input_rows(rows) * self.width
        factor_address = {}
        for k, value in enumerate(self.factor_values):
            factor_address[value] = band_input + k
            emitter.data_move(DataMoveKind.DRAM1_TO_LOCAL, 0, emitter.consts.broadcast(value), 1)
            emitter.data_move(DataMoveKind.LOCAL_TO_ACC, 0, band_input + k, 1)
        output = layout.region_base(region)
        for tile in range(self.tiles):
            for image in range(self.images):
                for first_row in range(0, self.out_h, rows):
                    band = min(rows, self.out_h - first_row)
                    low, high = self._input_rows(first_row, band)
                    count = (high - low) * self.width
                    pixels = (image * self.height + low) * self.width + np.arange(count)
                    load_vars(emitter, self.load.input, self.resident, tile, pixels, np.arange(count),
                               np.arange(count))
                    self._chains(emitter, low, first_row, band, output, factor_address)
                    positions = np.arange(band * self.out_w)
                    yield Unit(tile, positions, (image * self.out_h + first_row) * self.out_w + positions)

    def _chains(self, emitter: Emitter, low: int, first_row: int, band: int, out: int,
                factor_address: dict[int, int]) -> None:
        """The SIMD chains of a band's outputs (row-major), one block: per output its window's in-bounds
        pixels in (kh, kw) order (the first Moves into register 1, the next combine into it), then average
        pooling's factors (Multiply); the last step writes the output instead of the register."""
        builder = emitter.builder
        (kh, kw), (sh, sw), (t, l, _, _) = self.pool.kernel, self.pool.strides, self.pool.pads
        ho = first_row + np.arange(band)[:, None, None, None]
        wo = np.arange(self.out_w)[None, :, None, None]
        h = ho * sh - t + np.arange(kh)[None, None, :, None]
        w = wo * sw - l + np.arange(kw)[None, None, None, :]
        inside = ((h >= 0) & (h < self.height) & (w >= 0) & (w < self.width)).reshape(band * self.out_w, kh * kw)
        reads = ((h - low) * self.width + w).reshape(inside.shape)
        counts = inside.sum(axis=1)
        area = kh * kw
        keys = np.full_like(counts, area) if self.pool.count_include_pad else counts
        factor_lists = {key: [factor_address[f] for f in self.factors[key]] for key in np.unique(keys).tolist()} \
            if self.pool.kind == "avg" else {}
        width = max((len(f) for f in factor_lists.values()), default=0)
        factors = np.full((len(counts), width), -1, np.int64)  # each output's factor addresses, -1 padded
        for key, addresses in factor_lists.items():
            factors[keys == key, :len(addresses)] = addresses
        with_factors = factors >= 0
        # steps per output: window reads then factor reads, flattened in order
        read = np.concatenate([reads, factors], axis=1)[np.concatenate([inside, with_factors], axis=1)]
        combine = SimdOp.MAX if self.pool.kind == "max" else SimdOp.ADD
        op = np.concatenate([np.full(inside.shape, int(combine)), np.full(factors.shape, int(SimdOp.MULTIPLY))],
                            axis=1)[np.concatenate([inside, with_factors], axis=1)]
        steps = counts + with_factors.sum(axis=1)
        first = np.cumsum(steps) - steps
        last = first + steps - 1
        op[first] = int(SimdOp.MOVE)
        right = np.full(len(read), REGISTER)
        right[first] = 0
        dest = np.full(len(read), REGISTER)
        dest[last] = 0
        write = np.zeros(len(read), np.int64)
        write[last] = out + np.arange(len(counts))
        flags = np.full(len(read), int(SimdFlag.READ))
        flags[last] |= int(SimdFlag.WRITE)
        block = builder.records(int(Opcode.SIMD), flags, write, 0, read, 0,
                                builder.simd_word(op, 0, right, dest))
        factored = np.flatnonzero(with_factors.any(axis=1))
        if not len(factored):
            emitter.append(block)
            return
        split = first[factored[0]]  # the factors are in the data type's format: set the shift before the first
        emitter.append(block[:split])
        emitter.round_at(ConfigRegister.SIMD_SHIFT, None)
        emitter.append(block[split:])


@dataclass
class LoadProducer:
    """A layer that starts from a Vars tensor: flat runs of each channel tile."""

    load: Load
    lanes: int

    def __post_init__(self):
        self.tiles = channel_tiles(as_nchw(self.load.input.shape)[1], self.lanes)
        self.pixels = self.load.input.pixels
        self.max_rows = self.pixels
        self.resident: Planes | None = None
        self.smallest_stage = "one vector"

    def sizes(self, rows: int) -> tuple[int, int, int]:
        return 0, 0, rows

    def stages(self, rows: int) -> int:
        return self.tiles * -(-self.pixels // rows)

    def stage_cycles(self, input_resident: bool) -> int:
        """One more run of vectors: no cycles the latency model counts beyond the vectors themselves."""
        return 0

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
                load_vars(emitter, self.load.input, self.resident, tile, pixels, layout.staging + positions,
                           output + positions)
                yield Unit(tile, positions, pixels)
