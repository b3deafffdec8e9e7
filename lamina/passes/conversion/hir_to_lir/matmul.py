"""Convolution and fully-connected layers: one MatMul per weight tile over a whole band of outputs.

A stage is a band of output rows of one image. Its input sits in local
memory as zero-padded planes, one per channel tile and per *phase*: with
strides (sh, sw), padded input pixel (hp, wp) goes to phase
(hp mod sh, wp mod sw), row hp div sh, column wp div sw. Kernel pixel
(kh, kw) then reads, for output (r, wo), plane row r + a and column wo + b
(a, b its offsets inside its phase), so with plane width Wq every output of
the band, taken over the plane width (columns wo >= Wo are garbage and never
read), is one stride-1 run: a single MatMul per (co_t, kh, kw, ci_t) tile.

The input stays in local memory for all output channel tiles of the band;
each weight tile is loaded once per band (`_load_tile`). Tiles of each co_t
are applied in (kh, kw, ci_t) order, the first present one overwriting
(contract rounding order); only that one carries the co_t's bias, which
DRAM1 stores right before it, so the others are N vectors with no bias
row. Padding comes from the zero block; plane positions that are zero
already (padding of the previous band at the same place) are not rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.data_layout import as_nchw, channel_tiles
from lamina.target.tcu.program import DataMoveKind
from lamina.dialects.hir import matmul_weight_offsets

from .emitter import Emitter
from .layers import ConstsImage, MatMul
from .units import Layout, Unit


@dataclass
class MatMulProducer:
    op: MatMul
    lanes: int
    consts: ConstsImage  # the page holding the weights (the true-MAC count reads the weight tiles)

    def __post_init__(self):
        op = self.op
        in_shape, out_shape = as_nchw(op.input.shape), as_nchw(op.shape)
        if len(op.input.shape) == 2:
            # a matrix (b, f): the batch is the width of one image, so one MatMul covers all rows
            in_shape, out_shape = (1, in_shape[1], 1, in_shape[0]), (1, out_shape[1], 1, out_shape[0])
        self.images, ci, self.height, self.width = in_shape
        _, co, self.out_h, self.out_w = out_shape
        self.ci_tiles, self.co_tiles = channel_tiles(ci, self.lanes), channel_tiles(co, self.lanes)
        self.channels = (ci, co)
        (kh, kw), (sh, sw), (dh, dw) = op.kernel, op.strides, op.dilations
        self.phases = sorted({((i * dh) % sh, (j * dw) % sw) for i in range(kh) for j in range(kw)})
        self.plane_width = self.out_w + ((kw - 1) * dw) // sw
        self.row_reach = ((kh - 1) * dh) // sh  # extra plane rows a band needs below its last output row
        self.max_rows = self.out_h
        self.smallest_stage = "one output row"
        # per (co_t, kh, kw, ci_t): DRAM1 address of the tile's first weight row, or -1 if absent
        offsets, _ = matmul_weight_offsets(op.tile_slots, self.co_tiles, self.lanes)
        self.tile_addresses = np.where(offsets >= 0, op.weights_base + offsets, -1)

    # -- sizes -------------------------------------------------------------------------

    def plane_rows(self, rows: int) -> int:
        return rows + self.row_reach

    def input_vectors(self, rows: int) -> int:
        return self.ci_tiles * len(self.phases) * self.plane_rows(rows) * self.plane_width

    def sizes(self, rows: int) -> tuple[int, int, int]:
        """(producer local, producer accumulators, region) for bands of `rows` output rows."""
        weight_slot = self.lanes + 1
        return self.input_vectors(rows) + weight_slot, 0, (rows - 1) * self.plane_width + self.out_w

    def partitions(self, rows: int) -> int:
        return self.stages(rows) * self.co_tiles

    def true_macs(self) -> int:
        """Multiply-accumulates of real weights: per (co_t, ci_t), lane pairs with a non-zero weight at
        some kernel pixel, or all real lane pairs when most are non-zero (so weights rounded to zero do
        not count as missing, while block-diagonal grouped tiles count only their blocks)."""
        n = self.lanes
        kh, kw = self.op.kernel
        addresses = self.tile_addresses.reshape(self.co_tiles, kh * kw, self.ci_tiles)
        ci, co = self.channels
        pairs_per_pixel = 0
        for co_t in range(self.co_tiles):
            real_co = min(n, co - co_t * n)
            for ci_t in range(self.ci_tiles):
                real_ci = min(n, ci - ci_t * n)
                starts = addresses[co_t, :, ci_t]
                present = starts[starts >= 0]
                if not present.size:
                    continue
                rows = present[:, None] - self.consts.base + np.arange(n)
                tiles = self.consts.image[rows]  # (pixels, ci lane, co lane)
                nonzero = (tiles[:, :real_ci, :real_co] != 0).any(axis=0).sum()
                real = real_ci * real_co
                per_pixel = real if 2 * nonzero > real else int(nonzero)
                pairs_per_pixel += per_pixel * present.size
        return pairs_per_pixel * self.images * self.out_h * self.out_w

    # -- emission ----------------------------------------------------------------------

    def stages(self, rows: int) -> int:
        return self.images * -(-self.out_h // rows)

    def emit(self, emitter: Emitter, layout: Layout, rows: int, region: int):
        """Emit every stage; yield each output channel tile once it is in the accumulators."""
        known_zero = np.zeros(self.input_vectors(rows), bool)  # input positions holding zeros already
        weight_slot = self.input_vectors(rows)
        output = layout.region_base(region)
        for image in range(self.images):
            for first_row in range(0, self.out_h, rows):
                band = min(rows, self.out_h - first_row)
                self._load_band(emitter, image, first_row, band, rows, known_zero)
                for co_t in range(self.co_tiles):
                    self._compute(emitter, co_t, band, rows, weight_slot, output)
                    r, wo = np.divmod(np.arange(band * self.out_w), self.out_w)
                    yield Unit(co_t, r * self.plane_width + wo,
                               ((image * self.out_h + first_row + r) * self.out_w + wo))

    def _load_band(self, emitter: Emitter, image: int, first_row: int, band: int, rows: int,
                   known_zero: np.ndarray) -> None:
        op = self.op
        (sh, sw), (t, l, _, _) = op.strides, op.pads
        plane_rows = self.plane_rows(rows)
        ct = np.arange(self.ci_tiles)[:, None, None, None]
        phase = np.arange(len(self.phases))[None, :, None, None]
        q = np.arange(plane_rows)[None, None, :, None]
        c = np.arange(self.plane_width)[None, None, None, :]
        ph = np.array([p[0] for p in self.phases])[phase]
        pw = np.array([p[1] for p in self.phases])[phase]
        h = (first_row + q) * sh + ph - t
        w = c * sw + pw - l
        per_tile = self._needed(band, rows)
        needed = np.broadcast_to(per_tile[None], (self.ci_tiles, *per_tile.shape))
        inside = (h >= 0) & (h < self.height) & (w >= 0) & (w < self.width)
        local = (((ct * len(self.phases) + phase) * plane_rows + q) * self.plane_width + c)
        local = np.broadcast_to(local, needed.shape)
        data = needed & inside
        pixels = (image * self.height + h) * self.width + w
        dram = np.broadcast_to(op.input.addresses(0, pixels) + ct * op.input.pixels, needed.shape)
        emitter.transfer(DataMoveKind.DRAM0_TO_LOCAL, local[data], dram[data])
        known = known_zero.reshape(needed.shape)  # a view: updates persist to the next band
        zero = needed & ~inside & ~known
        emitter.zero_fill(local[zero])
        known[data] = False
        known[zero] = True

    def _needed(self, band: int, rows: int) -> np.ndarray:
        """(phase, plane row, column) positions some kernel pixel reads for a valid output of the band."""
        (kh, kw), (sh, sw), (dh, dw) = self.op.kernel, self.op.strides, self.op.dilations
        needed = np.zeros((len(self.phases), self.plane_rows(rows), self.plane_width), bool)
        for i in range(kh):
            for j in range(kw):
                p = self.phases.index(((i * dh) % sh, (j * dw) % sw))
                a, b = (i * dh) // sh, (j * dw) // sw
                needed[p, a:a + band, b:b + self.out_w] = True
        return needed

    def _compute(self, emitter: Emitter, co_t: int, band: int, rows: int, weight_slot: int, output: int) -> None:
        op, builder = self.op, emitter.builder
        (kh, kw), (sh, sw), (dh, dw) = op.kernel, op.strides, op.dilations
        plane_rows = self.plane_rows(rows)
        size = (band - 1) * self.plane_width + self.out_w
        loaded = 0  # tiles of this co_t loaded so far
        for i in range(kh):
            for j in range(kw):
                p = self.phases.index(((i * dh) % sh, (j * dw) % sw))
                a, b = (i * dh) // sh, (j * dw) // sw
                for ci_t in range(self.ci_tiles):
                    address = self.tile_addresses[((co_t * kh + i) * kw + j) * self.ci_tiles + ci_t]
                    if address < 0:
                        continue
                    self._load_tile(emitter, int(address), loaded, weight_slot)
                    plane = (ci_t * len(self.phases) + p) * plane_rows
                    builder.matmul((plane + a) * self.plane_width + b, output, size, accumulate=loaded > 0)
                    loaded += 1

    def _load_tile(self, emitter: Emitter, address: int, loaded: int, weight_slot: int) -> None:
        """Put the tile whose weight rows start at DRAM1 `address` into the array, bias in row 0.

        The slot holds a bias row then N weight rows, pushed by one LoadWeight of N+1 (LoadWeight
        pushes from the highest address down; the last push, the bias row, becomes row 0). The
        first tile of a co_t (`loaded` == 0) has its bias vector right before it in DRAM1: one
        DataMove of N+1 fills the slot. The others need a zero bias row, which DRAM1 does not
        store: the second zeroes the slot's bias row from the zero block once, and each moves
        only its N rows. Against tiles stored with their bias rows: one DataMove vector fewer per
        tile, one 1-vector DataMove more per co_t, and the MatMul still follows a LoadWeight.
        """
        builder, n = emitter.builder, self.lanes
        if loaded == 0:
            builder.data_move(DataMoveKind.DRAM1_TO_LOCAL, weight_slot, address - 1, n + 1)
        else:
            if loaded == 1:
                emitter.zero_fill(np.array([weight_slot]))
            builder.data_move(DataMoveKind.DRAM1_TO_LOCAL, weight_slot + 1, address, n)
        builder.load_weight(weight_slot, n + 1)
