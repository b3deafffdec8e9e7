"""An array run's MatMuls in general: stacked products per size, outputs summed per accumulator row.

The path for runs whose MatMuls are not a grid (`tcu_matmul_grid`): MatMuls of one size run as one
stacked product (`DataType.matmul`); their outputs are sorted by accumulator row and program order and reach
each row summed at once where no add can saturate, else one at a time (`_accumulate`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lamina.target.tcu.program import ConfigRegister, MatMulFlag

from .blas_products import one_thread_rows
from .tcu_indexing import strided_vectors

if TYPE_CHECKING:
    from .tcu_array_runs import RunFields
    from .tcu_machine import Machine



def accumulate_general(machine: Machine, f: RunFields, matmul: np.ndarray, stream: np.ndarray,
                       ends: np.ndarray) -> None:
    """Execute the run's MatMuls (`matmul`, their positions in `f`; `ends`, each one's weight stream length)."""
    sizes = f.op2[matmul] + 1
    groups = [np.flatnonzero(sizes == size) for size in np.unique(sizes)]
    results = [_products(machine, f, matmul[group], int(sizes[group[0]]), stream, ends[group]) for group in groups]
    adds = (f.flags[matmul] & MatMulFlag.ACCUMULATE) != 0
    _accumulate(machine, results, groups, f.op1[matmul], f.stride1[matmul], sizes, adds)


def _products(machine: Machine, f: RunFields, matmul: np.ndarray, size: int, stream: np.ndarray,
              ends: np.ndarray) -> np.ndarray:
    """The rounded, saturated outputs of MatMuls of one size: (inputs, MatMuls, size, N)."""
    local = machine.batched["local memory"]
    n = machine.arch.array_size
    rows = f.op0[matmul][:, None] + (np.arange(size) << f.stride0[matmul][:, None])
    zeroes = (f.flags[matmul] & MatMulFlag.ZEROES) != 0
    if zeroes.any():
        inputs = local[:, np.where(zeroes[:, None], 0, rows)]
        inputs[:, zeroes] = 0
    else:
        inputs = np.take(local, rows, axis=1)
    weights = stream[:, ends[:, None] - 1 - np.arange(n + 1)]  # (inputs, MatMuls, N + 1, N)
    shift = machine.shifts[ConfigRegister.ARRAY_SHIFT]
    block = one_thread_rows(n, n)
    blocks = [machine.data_type.matmul(inputs[:, :, start:start + block], weights[:, :, 1:], weights[:, :, :1], shift)
              for start in range(0, size, block)]
    return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=2)


def _accumulate(machine: Machine, results: list[np.ndarray], groups: list[np.ndarray], address: np.ndarray,
                stride: np.ndarray, sizes: np.ndarray, adds: np.ndarray) -> None:
    """Write the MatMul outputs (`results` per size group, `groups` their MatMuls; the other arrays per MatMul
    in program order) into the accumulators as executing them in order would, saturation counts included.

    Per accumulator row, its outputs in program order form segments: a MatMul without the accumulate flag
    starts one with its output, a row's first output with the flag starts one from the accumulator. A
    segment's partial sums lie between its start plus the sum of its negative addends and its start plus
    the sum of its positive ones (an output that starts a segment counted as an addend of zero): where those
    bounds are inside the data type no add saturates and the row takes its last segment's sum. The other
    rows add their outputs one rank at a time, saturating.
    """
    lanes = results[0].shape[-1]
    values = np.concatenate([result.reshape(len(result), -1, lanes) for result in results], axis=1)
    order = np.concatenate(groups)  # MatMuls as `values` holds them
    first_value = np.empty(len(order), np.int64)
    first_value[order] = np.cumsum(sizes[order]) - sizes[order]
    owner, rows = strided_vectors(address, stride, sizes)  # in program order
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    key = rows.astype(np.uint16) if machine.arch.accumulator_depth <= 1 << 16 else rows
    ranked = np.argsort(key, kind="stable")  # by row, then program order (a radix sort on 16 bits)
    # np.take: several times faster than fancy indexing on these arrays
    rows, adds, values = rows[ranked], adds[owner[ranked]], np.take(values, (first_value[owner] + offset)[ranked], axis=1)
    starts = np.flatnonzero(np.append(True, (rows[1:] != rows[:-1]) | ~adds[1:]))
    total = np.add.reduceat(values, starts, axis=1)
    positive = np.add.reduceat(np.maximum(values, 0), starts, axis=1)
    accumulators = machine.batched["accumulators"]
    # a segment's start counts among its addends, which only widens the bounds
    begin = np.where(adds[starts][:, None], accumulators[:, rows[starts]], 0)
    data_type = machine.data_type
    unsafe = (((begin + positive) > data_type.maximum) | ((begin + total - positive) < data_type.minimum)).any(axis=(0, 2))
    last = np.append(rows[starts][1:] != rows[starts][:-1], True)  # each row's last segment
    exact_rows = np.ones(len(accumulators[0]), bool)
    exact_rows[rows[starts][unsafe]] = False
    written = last & exact_rows[rows[starts]]
    accumulators[:, rows[starts][written]] = (begin + total)[:, written]
    stepped = ~exact_rows[rows]
    if stepped.any():
        _one_rank_at_a_time(machine, rows[stepped], adds[stepped], values[:, stepped])


def _one_rank_at_a_time(machine: Machine, rows: np.ndarray, adds: np.ndarray, values: np.ndarray) -> None:
    """Outputs sorted by accumulator row then program order: the k-th output of every row at once, for k = 0, 1, ..."""
    first = np.flatnonzero(np.append(True, rows[1:] != rows[:-1]))
    rank = np.arange(len(rows)) - np.repeat(first, np.diff(np.append(first, len(rows))))
    accumulators = machine.batched["accumulators"]
    for k in range(int(rank.max()) + 1):
        at = np.flatnonzero(rank == k)
        value = values[:, at]
        adding = adds[at]
        if adding.any():
            value[:, adding] = machine.data_type.add(accumulators[:, rows[at[adding]]], value[:, adding])
        accumulators[:, rows[at]] = value
