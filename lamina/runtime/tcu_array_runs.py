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
- MatMuls of one size run as one stacked product (`DataType.matmul`). The MatMuls writing the same
  accumulator rows add up at once when no partial sum saturates, else one by one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lamina.target.tcu.program import ConfigRegister, DataMoveKind, LoadWeightFlag, MatMulFlag, Opcode

if TYPE_CHECKING:
    from .tcu_machine import Machine

_ROWS_PER_RUN = 1 << 16  # MatMul vectors x inputs per run: bounds the run's arrays (8 MB each), which stay in
_ROWS_PER_PRODUCT = 1 << 10  # OpenBLAS multiplies up to this many rows by N x N on one thread: on a busy
# machine its threads cost far more than they gain (ResNet-50: 47 s instead of 8 s)
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


class _Fields:
    """The run's instruction fields as int64 arrays."""

    def __init__(self, records: np.ndarray):
        self.opcode, self.flags = records["opcode"].astype(np.int64), records["flags"].astype(np.int64)
        self.op0, self.op1, self.op2 = (records[f].astype(np.int64) for f in ("op0", "op1", "op2"))
        self.stride0, self.stride1 = records["op0_stride"].astype(np.int64), records["op1_stride"].astype(np.int64)


def execute_array_run(machine: Machine, records: np.ndarray) -> int:
    """Execute a prefix of `records` (all accepted by `array_run_mask`) as one run; return its length."""
    count = _run_end(_Fields(records), machine.inputs)
    _ArrayRun(machine, _Fields(records[:count])).execute()
    return count


def _run_end(fields: _Fields, inputs: int) -> int:
    """How many instructions from the first form one run: MatMul vectors capped, no write after a MatMul read."""
    matmul = np.flatnonzero(fields.opcode == Opcode.MATMUL)
    rows = np.cumsum(fields.op2[matmul] + 1) * inputs
    end = len(fields.opcode)
    over = np.flatnonzero(rows > _ROWS_PER_RUN)
    if len(over) and over[0] > 0:
        end = int(matmul[over[0]])
    elif len(over) and len(matmul) > 1:
        end = int(matmul[1])  # a single MatMul larger than the cap runs alone
    reading = matmul[(matmul < end) & (fields.flags[matmul] & MatMulFlag.ZEROES == 0)]
    moves = np.flatnonzero((fields.opcode[:end] == Opcode.DATA_MOVE))
    if len(reading) == 0 or len(moves) == 0:
        return end
    # MatMuls of different output tiles read the same rows: the first MatMul reading each range is enough
    _, first = np.unique((fields.op0[reading] << 32) | (fields.stride0[reading] << 24) | fields.op2[reading],
                         return_index=True)
    reading = reading[first]
    owner, read_rows = strided_vectors(fields.op0[reading], fields.stride0[reading], fields.op2[reading] + 1)
    first_read = np.full(int(read_rows.max()) + 1, end, np.int64)
    np.minimum.at(first_read, read_rows, reading[owner])
    move_owner, write_rows = strided_vectors(fields.op0[moves], fields.stride0[moves], fields.op2[moves] + 1)
    known = write_rows < len(first_read)
    hazard = np.zeros(len(write_rows), bool)
    hazard[known] = first_read[write_rows[known]] < moves[move_owner[known]]
    return int(moves[move_owner[np.argmax(hazard)]]) if hazard.any() else end


class _ArrayRun:
    """One run's execution (module docstring), in the order its values are needed."""

    def __init__(self, machine: Machine, fields: _Fields):
        self.machine, self.fields = machine, fields
        self.n = machine.arch.array_size
        self.local = machine.batched["local memory"]

    def execute(self) -> None:
        f = self.fields
        moves = np.flatnonzero(f.opcode == Opcode.DATA_MOVE)
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
        loads = np.flatnonzero(f.opcode == Opcode.LOAD_WEIGHT)
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
        return stream, ends[f.opcode == Opcode.MATMUL]

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
        matmul = np.flatnonzero(f.opcode == Opcode.MATMUL)
        if not len(matmul):
            return
        machine = self.machine
        machine.saturations.current = Opcode.MATMUL.name
        sizes = f.op2[matmul] + 1
        groups = [np.flatnonzero(sizes == size) for size in np.unique(sizes)]
        results = [self._products(matmul[group], int(sizes[group[0]]), stream, ends[group]) for group in groups]
        rows = [f.op1[matmul[g]][:, None] + (np.arange(sizes[g[0]]) << f.stride1[matmul[g]][:, None]) for g in groups]
        accumulate = [(f.flags[matmul[g]] & MatMulFlag.ACCUMULATE) != 0 for g in groups]
        # MatMuls of one size writing from the same address with the same stride form a chain
        chains = [np.unique(f.op1[matmul[g]] << 8 | f.stride1[matmul[g]], return_index=True, return_inverse=True)[1:]
                  for g in groups]
        chain_rows = np.concatenate([group_rows[first].ravel() for group_rows, (first, _) in zip(rows, chains)])
        if np.bincount(chain_rows).max() > 1:  # chains sharing rows: their order matters
            _one_by_one(machine, np.concatenate(groups), results, rows, accumulate)
            return
        for result, group_rows, flags, (_, chain) in zip(results, rows, accumulate, chains):
            for members in _members(chain):
                _add_chain(machine, result, group_rows[members[0]], flags, members)

    def _products(self, matmul: np.ndarray, size: int, stream: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """The rounded, saturated outputs of MatMuls of one size: (inputs, MatMuls, size, N)."""
        f = self.fields
        rows = f.op0[matmul][:, None] + (np.arange(size) << f.stride0[matmul][:, None])
        zeroes = (f.flags[matmul] & MatMulFlag.ZEROES) != 0
        if zeroes.any():
            inputs = self.local[:, np.where(zeroes[:, None], 0, rows)]
            inputs[:, zeroes] = 0
        else:
            inputs = self.local[:, rows]
        weights = stream[:, ends[:, None] - 1 - np.arange(self.n + 1)]  # (inputs, MatMuls, N + 1, N)
        shift = self.machine.shifts[ConfigRegister.ARRAY_SHIFT]
        blocks = [self.machine.data_type.matmul(inputs[:, :, start:start + _ROWS_PER_PRODUCT], weights[:, :, 1:],
                                                weights[:, :, :1], shift)
                  for start in range(0, size, _ROWS_PER_PRODUCT)]
        return blocks[0] if len(blocks) == 1 else np.concatenate(blocks, axis=2)


def _one_by_one(machine: Machine, order: np.ndarray, results: list[np.ndarray], accumulator_rows: list[np.ndarray],
                accumulate: list[np.ndarray]) -> None:
    """Write MatMul outputs into the accumulators in program order (`order`: the groups' MatMuls concatenated)."""
    located = [(g, k) for g, group in enumerate(accumulator_rows) for k in range(len(group))]
    accumulators = machine.batched["accumulators"]
    for index in np.argsort(order, kind="stable"):
        g, k = located[index]
        rows, value = accumulator_rows[g][k], results[g][:, k]
        if accumulate[g][k]:
            value = machine.data_type.add(accumulators[:, rows], value)
        accumulators[:, rows] = value


def _add_chain(machine: Machine, result: np.ndarray, rows: np.ndarray, accumulate: np.ndarray,
               members: np.ndarray) -> None:
    """Write a chain (`members` of `result`, MatMuls writing `rows` in order) into the accumulators.

    A MatMul without the accumulate flag restarts the sum. Each part's partial sums lie between its start
    plus the sum of its negative addends and its start plus the sum of its positive ones: when those bounds
    are inside the data type no add saturates and the part sums at once. Otherwise the chain runs one by
    one, counting the lanes saturation clips.
    """
    accumulators = machine.batched["accumulators"]
    contiguous = members[-1] - members[0] == len(members) - 1
    values = result[:, members[0]:members[-1] + 1] if contiguous else result[:, members]
    flags = accumulate[members]
    bounds = sorted({0, *np.flatnonzero(~flags).tolist(), len(members)})
    low, high = machine.data_type.minimum, machine.data_type.maximum
    for a, b in zip(bounds[:-1], bounds[1:]):
        start = accumulators[:, rows] if flags[a] else values[:, a]
        addends = values[:, a:b] if flags[a] else values[:, a + 1:b]
        total = addends.sum(axis=1)
        positive = np.maximum(addends, 0).sum(axis=1)
        if (start + positive).max(initial=low) > high or (start + total - positive).min(initial=high) < low:
            break
    else:
        accumulators[:, rows] = start + total
        return
    for member, adds in zip(members, flags):
        value = result[:, member]
        if adds:
            value = machine.data_type.add(accumulators[:, rows], value)
        accumulators[:, rows] = value


def _members(chain: np.ndarray) -> list[np.ndarray]:
    """The indices of each chain, in order."""
    order = np.argsort(chain, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(chain[order])) + 1)
