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
from lamina.target.tcu.program import INSTRUCTION, DataMoveKind, MatMulFlag, Opcode
from lamina.dialects.hir import matmul_weight_offsets

from .emitter import Emitter
from .layers import ConstsImage, MatMul
from .residency import Planes
from .units import Layout, Unit

_DATA_MOVE, _LOAD_WEIGHT, _MATMUL = int(Opcode.DATA_MOVE), int(Opcode.LOAD_WEIGHT), int(Opcode.MATMUL)
_ACCUMULATE = int(MatMulFlag.ACCUMULATE)
_TILES_PER_CHUNK = 4096  # weight tiles the true-MAC count reads at once


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
        self.resident: Planes | None = None  # the input's planes when it stays in local memory (residency.py)

    # -- sizes -------------------------------------------------------------------------

    def plane_rows(self, rows: int) -> int:
        return rows + self.row_reach

    def input_vectors(self, rows: int) -> int:
        return self.ci_tiles * len(self.phases) * self.plane_rows(rows) * self.plane_width

    def sizes(self, rows: int) -> tuple[int, int, int]:
        """(producer local, producer accumulators, region) for bands of `rows` output rows."""
        weight_slot = self.lanes + 1
        planes = 0 if self.resident else self.input_vectors(rows)
        return planes + weight_slot, 0, (rows - 1) * self.plane_width + self.out_w

    def planes(self) -> Planes:
        """The whole input as the zero-padded phase planes a band reads (at local address 0)."""
        op = self.op
        return Planes(0, self.images, self.ci_tiles, self.height, self.width, tuple(self.phases), op.strides,
                      op.pads[:2], self.plane_rows(self.out_h), self.plane_width, self._needed(self.out_h, self.out_h))

    def partitions(self, rows: int) -> int:
        return self.stages(rows) * self.co_tiles

    def stage_cycles(self, input_resident: bool) -> int:
        """About what one more band costs: its weight tiles again (DataMove, LoadWeight, array fill) and,
        unless the input is resident, the halo rows of its planes again."""
        n = self.lanes
        tiles = int((self.tile_addresses >= 0).sum()) * (3 * n + 1)
        return tiles + (0 if input_resident else self.row_reach * self.plane_width * self.ci_tiles * len(self.phases))

    def true_macs(self) -> int:
        """Multiply-accumulates of real weights on real inputs, as Tensil counts them: per kernel pixel and
        (co_t, ci_t), the lane pairs with a non-zero weight there, or all real lane pairs when most are
        non-zero (so weights rounded to zero do not count as missing, while block-diagonal grouped tiles
        count only their blocks and a space-to-depth filter only its taps inside the original kernel),
        times the outputs whose input under that kernel pixel is a real pixel (taps on zero padding
        excluded, `_real_taps`)."""
        n = self.lanes
        kh, kw = self.op.kernel
        addresses = self.tile_addresses.reshape(self.co_tiles, kh * kw, self.ci_tiles)
        ci, co = self.channels
        real_ci = np.minimum(n, ci - np.arange(self.ci_tiles) * n)
        real_co = np.minimum(n, co - np.arange(self.co_tiles) * n)
        lane = np.arange(n)
        real_lanes = (lane[None, None, :, None] < real_ci[None, :, None, None]) \
            & (lane[None, None, None, :] < real_co[:, None, None, None])
        real = real_co[:, None] * real_ci[None, :]
        taps = self._real_taps().reshape(kh * kw)
        total = 0
        for pixel in range(kh * kw):
            # lanes of (co_t, ci_t, ci lane, co lane) with a non-zero weight at this kernel pixel
            nonzero = np.zeros((self.co_tiles, self.ci_tiles, n, n), bool)
            co_t, ci_t = np.nonzero(addresses[:, pixel, :] >= 0)
            for chunk in range(0, len(co_t), _TILES_PER_CHUNK):  # bounded memory on large fully-connected layers
                o, c = co_t[chunk:chunk + _TILES_PER_CHUNK], ci_t[chunk:chunk + _TILES_PER_CHUNK]
                rows = addresses[o, pixel, c][:, None] - self.consts.base + np.arange(n)
                nonzero[o, c] = self.consts.image[rows] != 0
            counted = (nonzero & real_lanes).sum(axis=(2, 3))
            total += int(np.where(2 * counted > real, real, counted).sum()) * int(taps[pixel])
        return total * self.images

    def _real_taps(self) -> np.ndarray:
        """[kh, kw]: how many outputs of one image read a real (not zero-padding) input pixel through
        each kernel pixel. Rows and columns are independent, so it is an outer product."""
        op = self.op
        (kh, kw), (sh, sw), (dh, dw) = op.kernel, op.strides, op.dilations
        top, left = op.pads[:2]

        def inside(kernel: int, stride: int, dilation: int, pad: int, outputs: int, size: int) -> np.ndarray:
            position = np.arange(outputs)[None, :] * stride + np.arange(kernel)[:, None] * dilation - pad
            return ((position >= 0) & (position < size)).sum(axis=1)

        return np.outer(inside(kh, sh, dh, top, self.out_h, self.height),
                        inside(kw, sw, dw, left, self.out_w, self.width))

    # -- emission ----------------------------------------------------------------------

    def stages(self, rows: int) -> int:
        return self.images * -(-self.out_h // rows)

    def emit(self, emitter: Emitter, layout: Layout, rows: int, region: int):
        """Emit every stage; yield each output channel tile once it is in the accumulators."""
        output = layout.region_base(region)
        resident = self.resident
        if resident is None:
            known_zero = np.zeros(self.input_vectors(rows), bool)  # input positions holding zeros already
            weight_slot = self.input_vectors(rows)
        else:
            weight_slot = 0
        computes: dict[tuple[int, int], list] = {}  # (band rows, first row) -> per co_t (head, tail)
        for image in range(self.images):
            for first_row in range(0, self.out_h, rows):
                band = min(rows, self.out_h - first_row)
                r, wo = np.divmod(np.arange(band * self.out_w), self.out_w)
                positions = r * self.plane_width + wo
                pixels = (image * self.out_h + first_row + r) * self.out_w + wo
                if resident is not None:  # the MatMuls read the resident planes in place
                    blocks = self._computes(emitter, band, output, weight_slot, resident.plane(image, 0, 0),
                                            resident.rows, first_row, first_row)
                else:
                    self._load_band(emitter, image, first_row, band, rows, known_zero)
                    if (band, first_row) not in computes:
                        computes[band, first_row] = self._computes(emitter, band, output, weight_slot, 0,
                                                                   self.plane_rows(rows), 0, first_row)
                    blocks = computes[band, first_row]
                for co_t, (head, tail) in enumerate(blocks):
                    emitter.append(head)
                    if len(tail):  # the tiles after the first need a zero bias row in the slot
                        emitter.zero_vector(weight_slot)
                        emitter.append(tail)
                    yield Unit(co_t, positions, pixels)

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

    def _computes(self, emitter: Emitter, band: int, output: int, weight_slot: int, planes: int, plane_rows: int,
                  plane_row: int, first_row: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per output channel tile, the instructions over the band of `band` output rows from `first_row`,
        whose input planes (plane_rows rows each, the band's first at `plane_row`) start at local `planes`:
        per present tile in (kh, kw, ci_t) order, its weights into the slot (`_tile_moves`), LoadWeight of
        N+1, and its MatMuls (`_matmul_spans`), the first tile overwriting, the others accumulating. Split
        after the first tile: (first, the others)."""
        op, builder, n = self.op, emitter.builder, self.lanes
        (kh, kw), (sh, sw), (dh, dw) = op.kernel, op.strides, op.dilations
        addresses = self.tile_addresses.reshape(self.co_tiles, kh, kw, self.ci_tiles)
        co_t, i, j, ci_t = np.nonzero(addresses >= 0)
        phase_of = np.array([[self.phases.index(((a * dh) % sh, (b * dw) % sw)) for b in range(kw)]
                             for a in range(kh)], np.int64)
        local = planes + (((ci_t * len(self.phases) + phase_of[i, j]) * plane_rows + plane_row + (i * dh) // sh)
                          * self.plane_width + (j * dw) // sw)
        first = np.ones(len(co_t), bool)
        first[1:] = co_t[1:] != co_t[:-1]
        tile, offset, size = self._matmul_spans(band, first_row, i, j, first)
        kept = first | (np.bincount(tile, minlength=len(co_t)) > 0)  # a tile reading only padding is skipped
        count = 2 * kept + np.bincount(tile, minlength=len(co_t))
        start = np.cumsum(count) - count  # each kept tile's first record
        records = np.empty(int(count.sum()), INSTRUCTION)
        records[start[kept]] = self._tile_moves(emitter, addresses[co_t, i, j, ci_t], first, weight_slot)[kept]
        records[start[kept] + 1] = builder.records(_LOAD_WEIGHT, 0, weight_slot, 0, n, 0, 0)
        within = np.arange(len(tile)) - np.repeat(np.cumsum(count - 2 * kept) - (count - 2 * kept), count - 2 * kept)
        records[start[tile] + 2 + within] = builder.records(
            _MATMUL, np.where(first[tile], 0, _ACCUMULATE), local[tile] + offset, 0, output + offset, 0, size - 1)
        heads = np.flatnonzero(first)
        ends = np.append(start[heads[1:]], len(records))
        return [(records[start[h]:start[h] + count[h]], records[start[h] + count[h]:end])
                for h, end in zip(heads.tolist(), ends.tolist())]

    def _matmul_spans(self, band: int, first_row: int, i: np.ndarray, j: np.ndarray, first: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The MatMuls of each tile over the band, as (tile, offset in the planes and the region, size).

        When the planes are wider than the output (garbage columns), one MatMul per output row over its
        valid columns: a MatMul after a MatMul pays no fill. A tile that accumulates (not the first of
        its co_t) adds exactly nothing where its kernel pixel reads zero padding (zero inputs, zero bias
        row), so its rows and columns there are left out; the first overwrites, so it covers every
        output. Otherwise one MatMul over the whole band, garbage columns included."""
        out_w, width = self.out_w, self.plane_width
        if width == out_w:
            tiles = np.arange(len(i))
            return tiles, np.zeros(len(i), np.int64), np.full(len(i), (band - 1) * width + out_w, np.int64)
        (sh, sw), (dh, dw), (top, left) = self.op.strides, self.op.dilations, self.op.pads[:2]
        rows = (first_row + np.arange(band))[None, :] * sh + (i * dh)[:, None] - top  # input row per output row
        low = np.where(first, 0, np.clip(-(-(left - j * dw) // sw), 0, out_w))
        high = np.where(first, out_w, np.clip((self.width - 1 + left - j * dw) // sw + 1, 0, out_w))
        valid = first[:, None] | ((rows >= 0) & (rows < self.height) & (high > low)[:, None])
        tile, row = np.nonzero(valid)
        return tile, row * width + low[tile], (high - low)[tile]

    def _tile_moves(self, emitter: Emitter, addresses: np.ndarray, first: np.ndarray, weight_slot: int) -> np.ndarray:
        """The DataMove putting each tile's rows into the weight slot (bias row in the slot's first vector).

        LoadWeight pushes from the highest address down; the last push, the bias row, becomes row 0.
        The first tile of a co_t has its bias vector right before it in DRAM1: one DataMove of N+1
        fills the slot. The others need a zero bias row, which DRAM1 does not store: `emit` zeroes
        the slot's bias row from the zero block once, before the second, and each moves only its N
        rows. Against tiles stored with their bias rows: one DataMove vector fewer per tile, one
        1-vector DataMove more per co_t, and the MatMul still follows a LoadWeight.
        """
        n = self.lanes
        return emitter.builder.records(_DATA_MOVE, int(DataMoveKind.DRAM1_TO_LOCAL),
                                       np.where(first, weight_slot, weight_slot + 1), 0,
                                       np.where(first, addresses - 1, addresses), 0, np.where(first, n, n - 1))
