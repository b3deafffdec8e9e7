"""The MatMuls of an array run laid out as a grid of weight tiles by accumulator rows, and summed densely.

A convolution's array run loads a weight tile, then runs MatMuls over the output rows into the same
accumulator rows, tile after tile. When every tile's MatMuls write each accumulator row at most once, the
outputs fit a dense (tiles, rows) grid: one batched product per run, zero where a tile skips a row (rows that
read only padding), and one sum over the tile axis, with no sort and no segmented reduction. The sums equal
executing the MatMuls in order where no add can saturate, which the bounds of `tcu_matmul_general._accumulate`
prove per row: the row's start plus its positive (negative) outputs stays inside the data type. Other rows
take the last of their partial sums if no output and no partial sum leaves the data type, else add their
tiles one at a time, saturating and counting as one-by-one execution does.

`MatMulGrid.of` declines (returns None) MatMuls that do not fit a grid, `accumulate_grid` (returns False)
products that are not exact in float64; the caller then uses the general path (`tcu_matmul_general`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lamina.target.tcu.program import ConfigRegister, MatMulFlag, Opcode

from .blas_products import one_thread_rows

if TYPE_CHECKING:
    from .tcu_array_runs import RunFields
    from .tcu_machine import Machine

_LOAD_WEIGHT = int(Opcode.LOAD_WEIGHT)
_CHUNK_BYTES = 1 << 25  # the inputs to one chunk's products


def accumulate_grid(machine: Machine, grid: MatMulGrid, stream: np.ndarray, ends: np.ndarray) -> bool:
    """Execute a run's MatMuls laid out as `grid` (`ends`: each MatMul's weight stream length), or return False
    if their products are not exact in float64."""
    n = machine.arch.array_size
    shift = machine.shifts[ConfigRegister.ARRAY_SHIFT]
    if not machine.data_type._exact_in_float(n, shift):
        return False
    products = _Products(machine, grid, stream[:, ends[grid.first_of_tile][:, None] - 1 - np.arange(n + 1)], shift)
    # rows of N+1 terms (the bias's 1) into N per product, on one BLAS thread
    chunk = max(1, min(one_thread_rows(n + 1, n), _CHUNK_BYTES // (grid.tiles * machine.inputs * (n + 1) * 8)))
    for start in range(0, grid.rows, chunk):
        _sum_tiles(machine, products, grid, np.arange(start, min(start + chunk, grid.rows)))
    return True


class _Products:
    """The rounded products of chosen grid rows: (tiles, inputs, rows, N) float64, zero where a tile has no
    MatMul for the row."""

    def __init__(self, machine: Machine, grid: MatMulGrid, weights: np.ndarray, shift: int):
        """`weights`: each tile's (inputs, tiles, N + 1, N), bias row first."""
        self.grid = grid
        shared = bool((weights == weights[:1]).all())  # the same weights in every input (from DRAM1)
        weights = (weights[:1] if shared else weights).swapaxes(0, 1).astype(np.float64)
        # the bias as an (N+1)-th weight row against a constant input 1: every term is a multiple of 2**-shift
        # below 2**53 of them, so the sum is exact in any order
        self.weights = np.concatenate([weights[:, :, 1:] * 2.0 ** -shift, weights[:, :, :1]], axis=2)
        local = machine.batched["local memory"]
        self.flat_local = local.reshape(-1, local.shape[2])
        self.input_offsets = (np.arange(local.shape[0]) * local.shape[1])[None, :, None]

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        grid = self.grid
        tiles, inputs, n = grid.tiles, len(self.input_offsets[0]), self.flat_local.shape[1]
        x = np.empty((tiles, inputs, len(rows), n + 1))
        # input k's local row r is row k * depth + r of the flattened local memory
        x[..., :n] = np.take(self.flat_local, grid.local_rows[:, None, rows] + self.input_offsets, axis=0)
        x[..., n] = 1
        if grid.zeroes is not None:
            x[np.broadcast_to(grid.zeroes[:, None, rows], x.shape[:3]), :n] = 0
        if grid.missing is not None:  # no MatMul: no product and no bias
            x[np.broadcast_to(grid.missing[:, None, rows], x.shape[:3])] = 0
        products = x @ self.weights  # one product per tile and input
        return np.rint(products, out=products)


class MatMulGrid:
    """Where each MatMul vector of a run sits: tile (the LoadWeights before it) by accumulator row."""

    def __init__(self, tiles: int, first_of_tile: np.ndarray, accumulator_rows: np.ndarray, local_rows: np.ndarray,
                 from_accumulator: np.ndarray, missing: np.ndarray | None, zeroes: np.ndarray | None):
        self.tiles, self.rows = tiles, len(accumulator_rows)
        self.first_of_tile = first_of_tile  # index into the run's MatMuls of each tile's first
        self.accumulator_rows = accumulator_rows  # the rows, ascending
        self.local_rows = local_rows  # (tiles, rows): the local row each product reads (0 where missing)
        self.from_accumulator = from_accumulator  # per row: its first MatMul accumulates (else starts from 0)
        self.missing = missing  # (tiles, rows) where a tile has no MatMul for the row, or None
        self.zeroes = zeroes  # (tiles, rows) where the MatMul reads zeroes instead of local memory, or None

    @classmethod
    def of(cls, f: RunFields, matmul: np.ndarray, depth: int) -> MatMulGrid | None:
        loads_before = np.cumsum(f.opcode == _LOAD_WEIGHT)[matmul]
        new_tile = np.append(True, loads_before[1:] != loads_before[:-1])
        tile = np.cumsum(new_tile) - 1
        tiles = int(tile[-1]) + 1
        sizes = f.op2[matmul] + 1
        first = np.cumsum(sizes) - sizes  # each MatMul's first vector
        vector = np.arange(int(first[-1] + sizes[-1]))
        accumulator = _strided(f.op1[matmul], f.stride1[matmul], sizes, first, vector)
        present = np.zeros(depth, bool)
        present[accumulator] = True
        rows = np.flatnonzero(present)
        position = np.zeros(depth, np.int64)
        position[rows] = np.arange(len(rows))
        slot = np.repeat(tile * len(rows), sizes) + position[accumulator]
        count = np.bincount(slot, minlength=tiles * len(rows))
        if count.max() > 1:
            return None  # a tile writes a row twice
        exists = count.reshape(tiles, len(rows)).astype(bool)
        flags = f.flags[matmul]
        starts = np.repeat((flags & MatMulFlag.ACCUMULATE) == 0, sizes)  # vectors of MatMuls that do not add
        if tile[(flags & MatMulFlag.ACCUMULATE) == 0].max(initial=0) > 0:  # else all in the first tile
            first_tile = exists.argmax(axis=0)
            if (np.repeat(tile, sizes)[starts] != first_tile[position[accumulator[starts]]]).any():
                return None  # a MatMul without the accumulate flag after a row's first: a new segment
        from_accumulator = np.ones(len(rows), bool)
        from_accumulator[position[accumulator[starts]]] = False
        local_rows = np.zeros(tiles * len(rows), np.int64)
        local_rows[slot] = _strided(f.op0[matmul], f.stride0[matmul], sizes, first, vector)
        zeroes = None
        if (flags & MatMulFlag.ZEROES).any():
            zeroes = np.zeros(tiles * len(rows), bool)
            zeroes[slot[np.repeat((flags & MatMulFlag.ZEROES) != 0, sizes)]] = True
            zeroes = zeroes.reshape(tiles, len(rows))
        missing = None if exists.all() else ~exists
        return cls(tiles, np.flatnonzero(new_tile), rows, local_rows.reshape(tiles, len(rows)), from_accumulator,
                   missing, zeroes)


def _strided(start: np.ndarray, stride: np.ndarray, sizes: np.ndarray, first: np.ndarray, vector: np.ndarray
             ) -> np.ndarray:
    """The addresses of strided ranges (`first`: each range's index in `vector`, the arange of all)."""
    if not stride.any():
        return np.repeat(start - first, sizes) + vector
    return np.repeat(start, sizes) + ((vector - np.repeat(first, sizes)) << np.repeat(stride, sizes))


def _sum_tiles(machine: Machine, products: _Products, grid: MatMulGrid, rows: np.ndarray) -> None:
    """Add the products of grid rows `rows` into their accumulator rows in tile order: summed at once where
    the bounds allow, else tile by tile."""
    accumulators = machine.batched["accumulators"]
    data_type = machine.data_type
    addresses = grid.accumulator_rows[rows]
    values = products(rows)
    total = values.sum(axis=0)
    absolute = np.abs(values, out=values).sum(axis=0)
    positive, negative = (absolute + total) * 0.5, (total - absolute) * 0.5  # exact: integers
    begin = accumulators[:, addresses].astype(np.float64)
    begin[:, ~grid.from_accumulator[rows]] = 0
    unsafe = ((np.maximum(begin, 0) + positive > data_type.maximum)
              | (np.minimum(begin, 0) + negative < data_type.minimum)).any(axis=(0, 2))
    safe = ~unsafe
    accumulators[:, addresses[safe]] = (begin + total)[:, safe]
    if unsafe.any():
        low, high = data_type.minimum, data_type.maximum
        values = products(rows[unsafe])
        partial = np.cumsum(values, axis=0)
        partial += begin[:, unsafe]
        if low <= values.min() and values.max() <= high and low <= partial.min() and partial.max() <= high:
            accumulators[:, addresses[unsafe]] = partial[-1]  # no output and no partial sum clips
            return
        current, clipped = begin[:, unsafe], 0
        for tile in values:  # each output saturated, then each add (float64: exact integers)
            output = np.clip(tile, low, high)
            clipped += int(np.count_nonzero(output != tile))
            current += output
            within = np.clip(current, low, high)
            clipped += int(np.count_nonzero(within != current))
            current = within
        if clipped:
            machine.saturations.add(clipped)
        accumulators[:, addresses[unsafe]] = current
