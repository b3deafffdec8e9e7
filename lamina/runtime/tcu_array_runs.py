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
- MatMuls run as a grid of weight tiles by accumulator rows where they form one (`tcu_matmul_grid`), else
  as stacked products per size summed per accumulator row (`tcu_matmul_general`).

What a run does depends on its instructions only, not on data: a `_RunPlan` holds every index it needs, and
runs whose instructions are the same up to the DRAM addresses their DataMoves read (a convolution's output
tiles: same rows, other weights) share one plan (`ArrayRuns`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from lamina.target.tcu.program import DataMoveKind, LoadWeightFlag, MatMulFlag, Opcode

from .tcu_indexing import first_positions, stretch_ends, strided_vectors
from .tcu_matmul_general import accumulate_general
from .tcu_matmul_grid import MatMulGrid, accumulate_grid

if TYPE_CHECKING:
    from .tcu_machine import Machine

_ROWS_PER_RUN = 1 << 16  # MatMul vectors per run: bounds its plan's index arrays and the general path's arrays
# (8 MB per input); the same for any number of inputs, so a plan never depends on it
_PLAN_BYTES = 1 << 27  # the plans a machine keeps (ResNet-50: 94 plans of 25 MB in all)
_MATMUL, _DATA_MOVE, _LOAD_WEIGHT = int(Opcode.MATMUL), int(Opcode.DATA_MOVE), int(Opcode.LOAD_WEIGHT)
_INTO_LOCAL = (int(DataMoveKind.DRAM0_TO_LOCAL), int(DataMoveKind.DRAM1_TO_LOCAL))


def array_run_lengths(program: np.ndarray) -> np.ndarray:
    """For each instruction, how many consecutive instructions from it an array run may hold (0 if none):
    MatMuls, LoadWeights and DataMoves from DRAM into local memory."""
    opcode = program["opcode"]
    mask = ((opcode == Opcode.MATMUL) | (opcode == Opcode.LOAD_WEIGHT)
            | ((opcode == Opcode.DATA_MOVE) & np.isin(program["flags"], _INTO_LOCAL)))
    return np.where(mask, stretch_ends(mask) - np.arange(len(mask)), 0)


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


def _run_end(fields: RunFields) -> int:
    """How many instructions from the first form one run: MatMul vectors capped, no write after a MatMul read."""
    matmul = np.flatnonzero(fields.opcode == _MATMUL)
    rows = np.cumsum(fields.op2[matmul] + 1)
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


class ArrayRuns:
    """Executes array runs on a machine, planning each distinct run once."""

    def __init__(self, machine: Machine):
        self.machine = machine
        self.plans: dict[bytes, _RunPlan] = {}
        self.plan_bytes = 0

    def execute(self, fields: RunFields, structure: np.ndarray) -> int:
        """Execute a prefix of the instructions of `fields` (all accepted by `array_run_lengths`) as one run;
        return its length. `structure`: the same instructions from `structure_of`."""
        key = structure.tobytes()
        plan = self.plans.get(key)
        if plan is None:
            count = _run_end(fields)
            plan = _RunPlan(fields[:count], self.machine)
            if self.plan_bytes + plan.nbytes > _PLAN_BYTES:  # a program that rarely repeats a run
                self.plans.clear()
                self.plan_bytes = 0
            self.plans[key] = plan
            self.plan_bytes += plan.nbytes
        _execute(self.machine, plan, fields[:plan.count])
        return plan.count


def structure_of(records: np.ndarray) -> np.ndarray:
    """The records with the DRAM address of every DataMove into local memory zeroed: runs equal here share a
    plan."""
    structure = records.copy()
    structure["op1"][(records["opcode"] == _DATA_MOVE) & np.isin(records["flags"], _INTO_LOCAL)] = 0
    return structure


class _RunPlan:
    """The indices one run's execution needs (module docstring)."""

    def __init__(self, f: RunFields, machine: Machine):
        self.count = len(f)
        n = machine.arch.array_size
        self.moves = np.flatnonzero(f.opcode == _DATA_MOVE)
        owner, write_rows = strided_vectors(f.op0[self.moves], f.stride0[self.moves], f.op2[self.moves] + 1)
        self.from_dram1 = f.flags[self.moves][owner] == DataMoveKind.DRAM1_TO_LOCAL
        write_positions = self.moves[owner]
        # every vector pushed into the array; a LoadWeight pushes its highest address first
        loads = np.flatnonzero(f.opcode == _LOAD_WEIGHT)
        sizes = f.op1[loads] + 1
        load_owner = np.repeat(np.arange(len(loads)), sizes)
        offset = np.repeat(np.cumsum(sizes), sizes) - 1 - np.arange(len(load_owner))
        self.zero_pushes = (f.flags[loads][load_owner] & LoadWeightFlag.ZEROES) != 0
        self.pushed_rows = np.where(self.zero_pushes, 0,
                                    f.op0[loads][load_owner] + (offset << f.stride0[loads][load_owner]))
        self.pushed_writes = _last_writes(write_rows, write_positions, self.pushed_rows, loads[load_owner],
                                          len(f) + 1)
        pushes = np.zeros(len(f) + 1, np.int64)
        pushes[loads + 1] = sizes
        self.matmul = np.flatnonzero(f.opcode == _MATMUL)
        self.ends = (n + 1 + np.cumsum(pushes)[:-1])[self.matmul]  # stream length at each MatMul
        # local memory after the run: each row written holds its last DataMove's vector
        order = np.lexsort((write_positions, write_rows))
        rows = write_rows[order]
        last = np.append(rows[1:] != rows[:-1], True) if len(rows) else np.zeros(0, bool)
        self.final_rows, self.final_writes = rows[last], order[last]
        self.grid = MatMulGrid.of(f, self.matmul, machine.arch.accumulator_depth) if len(self.matmul) else None
        arrays = [*vars(self).values(), *(vars(self.grid).values() if self.grid is not None else ())]
        self.nbytes = sum(array.nbytes for array in arrays if isinstance(array, np.ndarray))


def _last_writes(write_rows: np.ndarray, write_positions: np.ndarray, rows: np.ndarray, positions: np.ndarray,
                 span: int) -> np.ndarray:
    """For each row read at a position, the index of the last write to it at an earlier position, or -1."""
    if not len(write_rows):
        return np.full(len(rows), -1)
    write_keys = write_rows * span + write_positions
    order = np.argsort(write_keys, kind="stable")
    found = np.searchsorted(write_keys[order], rows * span + positions) - 1
    writer = order[np.maximum(found, 0)]
    return np.where((found >= 0) & (write_rows[writer] == rows), writer, -1)


def _execute(machine: Machine, plan: _RunPlan, f: RunFields) -> None:
    local = machine.batched["local memory"]
    n = machine.arch.array_size
    # every DataMove's vectors, gathered from DRAM first (nothing in a run writes DRAM)
    moves = plan.moves
    _, sources = strided_vectors(f.op1[moves], f.stride1[moves], f.op2[moves] + 1)
    values = np.empty((machine.inputs, len(sources), n), local.dtype)
    values[:, plan.from_dram1] = machine.batched["DRAM1"][:, sources[plan.from_dram1]]
    values[:, ~plan.from_dram1] = machine.batched["DRAM0"][:, sources[~plan.from_dram1]]
    pushed = local[:, plan.pushed_rows]
    written = plan.pushed_writes >= 0
    pushed[:, written] = values[:, plan.pushed_writes[written]]
    pushed[:, plan.zero_pushes] = 0
    # the weights before the run (row N first), then every vector pushed
    stream = np.concatenate([machine.batched_weights[:, ::-1], pushed], axis=1)
    machine.batched_weights[:] = stream[:, len(stream[0]) - 1 - np.arange(n + 1)]
    local[:, plan.final_rows] = values[:, plan.final_writes]
    if not len(plan.matmul):
        return
    machine.saturations.current = Opcode.MATMUL.name
    if plan.grid is None or not accumulate_grid(machine, plan.grid, stream, plan.ends):
        accumulate_general(machine, f, plan.matmul, stream, plan.ends)
