"""Runs of systolic-array work executed together: DataMoves into local memory, LoadWeights and MatMuls.

A convolution is, per weight tile, a DataMove of the tile from DRAM into local memory, a LoadWeight and a
MatMul accumulating into the same accumulator rows: ResNet-50 has 102,800 such triples, and one by one each
costs a dozen NumPy calls. An array run executes as a few NumPy operations over all its vectors, with the
same results and saturation counts as one-by-one execution:

- Nothing in a run writes DRAM, so every DataMove's vectors are gathered from DRAM first.
- A LoadWeight reads local memory as the DataMoves before it left it: each row it reads resolves to the last
  DataMove of the run that wrote it earlier, or to local memory before the run.
- The array's weights are the last N+1 vectors pushed (row 0 the latest), so each MatMul's weights are a
  window of the stream of pushed vectors.
- MatMuls read local memory after all of the run's DataMoves: `_run_end` ends a run before a DataMove that
  overwrites a row an earlier MatMul of the run read (a write after read).
- MatMuls of one size run as one stacked product (`DataType.matmul`). Their outputs reach each
  accumulator row summed at once where no add can saturate, else one at a time (`_accumulate`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lamina.target.tcu.program import ConfigRegister, DataMoveKind, LoadWeightFlag, MatMulFlag, Opcode

from .tcu_matmul_grid import accumulate_grid

if TYPE_CHECKING:
    from .tcu_machine import Machine

_ROWS_PER_RUN = 1 << 16  # MatMul vectors x inputs per run: bounds the run's arrays (8 MB each), which stay in
_ROWS_PER_PRODUCT = 1 << 10  # OpenBLAS multiplies up to this many rows by N x N on one thread: on a busy
# machine its threads cost far more than they gain (ResNet-50: 47 s instead of 8 s)
_MATMUL, _DATA_MOVE, _LOAD_WEIGHT = int(Opcode.MATMUL), int(Opcode.DATA_MOVE), int(Opcode.LOAD_WEIGHT)
_INTO_LOCAL = (int(DataMoveKind.DRAM0_TO_LOCAL), int(DataMoveKind.DRAM1_TO_LOCAL))


def array_run_lengths(program: np.ndarray) -> np.ndarray:
    """For each instruction, how many consecutive instructions from it an array run may hold (0 if none):
    MatMuls, LoadWeights and DataMoves from DRAM into local memory."""
    opcode = program["opcode"]
    mask = ((opcode == Opcode.MATMUL) | (opcode == Opcode.LOAD_WEIGHT)
            | ((opcode == Opcode.DATA_MOVE) & np.isin(program["flags"], _INTO_LOCAL)))
    index = np.arange(len(mask))
    next_other = np.minimum.accumulate(np.where(mask, len(mask), index)[::-1])[::-1]
    return np.where(mask, next_other - index, 0)


def strided_vectors(start: np.ndarray, stride: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, address) of every vector of strided ranges: owner indexes the ranges, in order."""
    owner = np.repeat(np.arange(len(size)), size)
    offset = np.arange(len(owner)) - np.repeat(np.cumsum(size) - size, size)
    return owner, start[owner] + (offset << stride[owner])


def first_positions(length: int, keys: np.ndarray, positions: np.ndarray, default: int) -> np.ndarray:
    """Per key in [0, length), the smallest of `positions` (non-decreasing) with that key, else `default`.

    A fancy assignment with repeated indices leaves the last value: assigning in reverse leaves the first,
    many times faster than `np.minimum.at`."""
    first = np.full(length, default, np.int64)
    first[keys[::-1]] = positions[::-1]
    return first


_FIELDS = ("opcode", "flags", "op0", "op1", "op2", "stride0", "stride1")


class RunFields:
    """Instruction fields as int64 arrays, converted once per chunk; `fields[a:b]` views a part of them."""

    def __init__(self, records: np.ndarray):
        self.opcode, self.flags = records["opcode"].astype(np.int64), records["flags"].astype(np.int64)
        self.op0, self.op1, self.op2 = (records[f].astype(np.int64) for f in ("op0", "op1", "op2"))
        self.stride0, self.stride1 = records["op0_stride"].astype(np.int64), records["op1_stride"].astype(np.int64)

    def __getitem__(self, part: slice) -> RunFields:
        view = object.__new__(RunFields)
        for name in _FIELDS:
            setattr(view, name, getattr(self, name)[part])
        return view

    def __len__(self) -> int:
        return len(self.opcode)


def execute_array_run(machine: Machine, fields: RunFields) -> int:
    """Execute a prefix of the instructions of `fields` (all accepted by `array_run_lengths`) as one run;
    return its length."""
    count = _run_end(fields, machine.inputs)
    _ArrayRun(machine, fields[:count]).execute()
    return count


def _run_end(fields: RunFields, inputs: int) -> int:
    """How many instructions from the first form one run: MatMul vectors capped, no write after a MatMul read."""
    matmul = np.flatnonzero(fields.opcode == _MATMUL)
    rows = np.cumsum(fields.op2[matmul] + 1) * inputs
    end = len(fields.opcode)
    over = np.flatnonzero(rows > _ROWS_PER_RUN)
    if len(over) and over[0] > 0:
        end = int(matmul[over[0]])
    elif len(over) and len(matmul) > 1:
        end = int(matmul[1])  # a single MatMul larger than the cap runs alone
    reading = matmul[(matmul < end) & (fields.flags[matmul] & MatMulFlag.ZEROES == 0)]
    moves = np.flatnonzero((fields.opcode[:end] == _DATA_MOVE))
    moves = moves[moves > reading[0]] if len(reading) else moves[:0]  # earlier moves precede every read
    if len(moves) == 0:
        return end
    last_read = fields.op0[reading] + (fields.op2[reading] << fields.stride0[reading])
    last_write = fields.op0[moves] + (fields.op2[moves] << fields.stride0[moves])
    if last_write.max() < fields.op0[reading].min() or fields.op0[moves].min() > last_read.max():
        return end  # the rows moved lie apart from the rows read
    # MatMuls of different output tiles read the same rows: the first MatMul reading each range is enough
    _, first = np.unique((fields.op0[reading] << 32) | (fields.stride0[reading] << 24) | fields.op2[reading],
                         return_index=True)
    reading = reading[np.sort(first)]
    owner, read_rows = strided_vectors(fields.op0[reading], fields.stride0[reading], fields.op2[reading] + 1)
    first_read = first_positions(int(read_rows.max()) + 1, read_rows, reading[owner], end)
    move_owner, write_rows = strided_vectors(fields.op0[moves], fields.stride0[moves], fields.op2[moves] + 1)
    known = write_rows < len(first_read)
    hazard = np.zeros(len(write_rows), bool)
    hazard[known] = first_read[write_rows[known]] < moves[move_owner[known]]
    return int(moves[move_owner[np.argmax(hazard)]]) if hazard.any() else end


class _ArrayRun:
    """One run's execution (module docstring), in the order its values are needed."""

    def __init__(self, machine: Machine, fields: RunFields):
        self.machine, self.fields = machine, fields
        self.n = machine.arch.array_size
        self.local = machine.batched["local memory"]

    def execute(self) -> None:
        f = self.fields
        moves = np.flatnonzero(f.opcode == _DATA_MOVE)
        owner, write_rows = strided_vectors(f.op0[moves], f.stride0[moves], f.op2[moves] + 1)
        self.write_positions, self.write_rows = moves[owner], write_rows
        self.write_values = self._move_values(moves, owner)
        stream, ends = self._weight_stream()
        self._apply_moves()
        self._matmuls(stream, ends)

    def _move_values(self, moves: np.ndarray, owner: np.ndarray) -> np.ndarray:
        """The vectors each DataMove writes, gathered from DRAM (inputs, vectors, N)."""
        f = self.fields
        _, sources = strided_vectors(f.op1[moves], f.stride1[moves], f.op2[moves] + 1)
        values = np.empty((self.machine.inputs, len(sources), self.n), self.local.dtype)
        from_dram1 = f.flags[moves][owner] == DataMoveKind.DRAM1_TO_LOCAL
        values[:, from_dram1] = self.machine.batched["DRAM1"][:, sources[from_dram1]]
        values[:, ~from_dram1] = self.machine.batched["DRAM0"][:, sources[~from_dram1]]
        return values

    def _local_before(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Local memory rows as the instructions at `positions` read them (before the run's later moves)."""
        values = self.local[:, rows]
        if len(self.write_rows):
            span = len(self.fields.opcode) + 1
            write_keys = self.write_rows * span + self.write_positions
            order = np.argsort(write_keys, kind="stable")
            found = np.searchsorted(write_keys[order], rows * span + positions) - 1
            writer = order[np.maximum(found, 0)]
            written = (found >= 0) & (self.write_rows[writer] == rows)
            values[:, written] = self.write_values[:, writer[written]]
        return values

    def _weight_stream(self) -> tuple[np.ndarray, np.ndarray]:
        """Every vector pushed into the array, after its weights before the run (row N first, row 0 last);
        and per MatMul, the stream length when it runs."""
        f = self.fields
        loads = np.flatnonzero(f.opcode == _LOAD_WEIGHT)
        sizes = f.op1[loads] + 1
        # a LoadWeight pushes its highest address first: reversing the offsets of each load
        owner = np.repeat(np.arange(len(loads)), sizes)
        offset = np.repeat(np.cumsum(sizes), sizes) - 1 - np.arange(len(owner))
        rows = f.op0[loads][owner] + (offset << f.stride0[loads][owner])
        zero = (f.flags[loads][owner] & LoadWeightFlag.ZEROES) != 0
        pushed = self._local_before(np.where(zero, 0, rows), loads[owner])
        pushed[:, zero] = 0
        stream = np.concatenate([self.machine.batched_weights[:, ::-1], pushed], axis=1)
        pushes = np.zeros(len(f.opcode) + 1, np.int64)
        pushes[loads + 1] = sizes
        ends = self.n + 1 + np.cumsum(pushes)[:-1]
        self.machine.batched_weights[:] = stream[:, len(stream[0]) - 1 - np.arange(self.n + 1)]
        return stream, ends[f.opcode == _MATMUL]

    def _apply_moves(self) -> None:
        """Local memory after the run: each row written holds its last DataMove's vector."""
        if not len(self.write_rows):
            return
        order = np.lexsort((self.write_positions, self.write_rows))
        rows = self.write_rows[order]
        last = np.append(rows[1:] != rows[:-1], True)
        self.local[:, rows[last]] = self.write_values[:, order[last]]

    def _matmuls(self, stream: np.ndarray, ends: np.ndarray) -> None:
        f = self.fields
        matmul = np.flatnonzero(f.opcode == _MATMUL)
        if not len(matmul):
            return
        machine = self.machine
        machine.saturations.current = Opcode.MATMUL.name
        if accumulate_grid(machine, f, matmul, stream, ends):
            return
        sizes = f.op2[matmul] + 1
        groups = [np.flatnonzero(sizes == size) for size in np.unique(sizes)]
        results = [self._products(matmul[group], int(sizes[group[0]]), stream, ends[group]) for group in groups]
        adds = (f.flags[matmul] & MatMulFlag.ACCUMULATE) != 0
        _accumulate(machine, results, groups, f.op1[matmul], f.stride1[matmul], sizes, adds)

    def _products(self, matmul: np.ndarray, size: int, stream: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The rounded, saturated outputs of MatMuls of one size: (inputs, MatMuls, size, N)."""
        f = self.fields
        rows = f.op0[matmul][:, None] + (np.arange(size) << f.stride0[matmul][:, None])
        zeroes = (f.flags[matmul] & MatMulFlag.ZEROES) != 0
        if zeroes.any():
            inputs = self.local[:, np.where(zeroes[:, None], 0, rows)]
            inputs[:, zeroes] = 0
        else:
            inputs = np.take(self.local, rows, axis=1)
        weights = stream[:, ends[:, None] - 1 - np.arange(self.n + 1)]  # (inputs, MatMuls, N + 1, N)
        shift = self.machine.shifts[ConfigRegister.ARRAY_SHIFT]
        blocks = [self.machine.data_type.matmul(inputs[:, :, start:start + _ROWS_PER_PRODUCT], weights[:, :, 1:],
                                                weights[:, :, :1], shift)
                  for start in range(0, size, _ROWS_PER_PRODUCT)]
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
