"""Index ops. ArgMax and ArgMin: one `linalg.generic` reducing over the axis into a (best value, index) pair.

The pair starts at the reduction's identity (-inf/+inf or the integer
range's end) and index 0; an element replaces it when strictly better (the
first index) or at least as good (`select_last_index`); a NaN wins over a
number, as in NumPy's argmax. ScatterElements and ScatterND: `scf.for` loops
over the updates in row-major order carrying the result tensor (bufferized in
place), so repeated indices see every earlier write, as the kernel does.
TopK: k reductions in an `scf.for`, each picking the best element after the
previous pick.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec

from .builders import PARALLEL, REDUCTION, affine_map, dims, filled, generic, identity_map
from .control_flow import _insert_at, _slice_at
from .elementwise import Scalars, operand_scalars
from .reductions import extreme
from .registry import converts
from .shape_ops import add_unit_dims
from .storage import result_type, storage_type


def _better(s: Scalars, x: ir.Value, best: ir.Value, largest: bool, last: bool) -> ir.Value:
    """Whether element `x` replaces the `best` so far."""
    if largest:
        better = s.compare("ge" if last else "gt", x, best)
    else:
        better = s.compare("ge", best, x) if last else s.compare("lt", x, best)
    if s.kind != "f":
        return better
    x_nan, best_nan = s.compare("ne", x, x), s.compare("ne", best, best)
    nan_wins = x_nan if last else arith.andi(x_nan, arith.xori(best_nan, s.truth(s.constant(1))))
    return arith.ori(arith.andi(better, arith.xori(best_nan, s.truth(s.constant(1)))), nan_wins)


@converts("arg_max", "arg_min")
def _arg(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    (value,) = operands
    s = operand_scalars(op)
    largest, last = op.name == "arg_max", op.attr("select_last_index")
    shape, axis = op.operand_specs()[0].shape, op.attr("axis")
    rank = len(shape)
    kept = [d for d in range(rank) if d != axis]
    reduced = [shape[d] for d in kept]
    best = filled(storage_type(TensorSpec(reduced, s.dtype)), s.stored(extreme(s, largest=not largest)))
    index = filled(storage_type(TensorSpec(reduced, np.int64)), 0)
    i64 = ir.IntegerType.get_signless(64)

    def body(x, best_value, best_index):
        position = arith.index_cast(i64, linalg.IndexOp(axis).result)
        better = _better(s, x, best_value, largest, last)
        return [arith.select(better, x, best_value), arith.select(better, position, best_index)]

    output_map = affine_map(rank, dims(*kept))
    _, indices = generic([value], [best, index], [identity_map(rank), output_map, output_map],
                         [REDUCTION if d == axis else PARALLEL for d in range(rank)], body)
    if not op.attr("keepdims"):
        return [indices]
    return [add_unit_dims(indices, op.result_specs()[0].shape, kept)]


# ---------------------------------------------------------------------------
# Scatters: a loop nest over the updates, each step reading, combining and writing one element.
# ---------------------------------------------------------------------------


def _loop_nest(shape: list[int], init: ir.Value, step: Callable[[list[ir.Value], ir.Value], ir.Value]) -> ir.Value:
    """`init` threaded through `scf.for` loops over every index of `shape`, in row-major order."""
    if not shape:
        return step([], init)
    index = ir.IndexType.get()
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, shape[0]), arith.constant(index, 1), [init])
    with ir.InsertionPoint(loop.body):
        position = loop.induction_variable
        inner = _loop_nest(shape[1:], loop.inner_iter_args[0], lambda rest, acc: step([position, *rest], acc))
        scf.YieldOp([inner])
    return loop.results[0]


def _wrapped(index: ir.Value, size: int) -> ir.Value:
    """An index element as an `index`, negative ones counted from `size` and clamped into range (compiled
    code does not raise; the reference interpreter reports out-of-range indices)."""
    position = arith.index_cast(ir.IndexType.get(), index)
    zero, bound = (arith.constant(ir.IndexType.get(), v) for v in (0, size))
    wrapped = arith.select(arith.cmpi(arith.CmpIPredicate.slt, position, zero), arith.addi(position, bound), position)
    return arith.minsi(arith.maxsi(wrapped, zero), arith.constant(ir.IndexType.get(), size - 1))


def _combiner(s: Scalars, reduction: str) -> Callable[[ir.Value, ir.Value], ir.Value]:
    return {"none": lambda old, new: new, "add": s.add, "mul": s.mul, "max": s.max, "min": s.min}[reduction]


@converts("scatter_elements")
def _scatter_elements(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, indices, updates = operands
    axis, combine = op.attr("axis"), _combiner(operand_scalars(op), op.attr("reduction"))
    size = op.operand_specs()[0].shape[axis]

    def step(where: list[ir.Value], acc: ir.Value) -> ir.Value:
        target = [*where[:axis], _wrapped(tensor.extract(indices, where), size), *where[axis + 1:]]
        new = combine(tensor.extract(acc, target), tensor.extract(updates, where))
        return tensor.insert(new, acc, target)

    return [_loop_nest(list(op.operand_specs()[1].shape), data, step)]


@converts("scatter_nd")
def _scatter_nd(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    data, indices, updates = operands
    combine = _combiner(operand_scalars(op), op.attr("reduction"))
    data_shape, index_shape = op.operand_specs()[0].shape, op.operand_specs()[1].shape
    depth, batch = index_shape[-1], len(index_shape) - 1
    index = ir.IndexType.get()

    def step(where: list[ir.Value], acc: ir.Value) -> ir.Value:
        prefix = [_wrapped(tensor.extract(indices, [*where[:batch], arith.constant(index, k)]), data_shape[k])
                  for k in range(depth)]
        target = [*prefix, *where[batch:]]
        new = combine(tensor.extract(acc, target), tensor.extract(updates, where))
        return tensor.insert(new, acc, target)

    return [_loop_nest(list(op.operand_specs()[2].shape), data, step)]


# ---------------------------------------------------------------------------
# TopK: k rounds, each a reduction picking the best element after the previous round's pick.
# ---------------------------------------------------------------------------


def _after(s: Scalars, x: ir.Value, i: ir.Value, previous: ir.Value, previous_index: ir.Value,
           largest: bool) -> ir.Value:
    """Whether (x, i) comes after the previous pick in the sort order (value first, then index)."""
    beyond = s.compare("gt", previous, x) if largest else s.compare("gt", x, previous)
    tie = arith.andi(s.compare("eq", x, previous), arith.cmpi(arith.CmpIPredicate.sgt, i, previous_index))
    return arith.ori(beyond, tie)


@converts("top_k")
def _top_k(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Round r picks, in every row at once, the best element that comes after round r - 1's pick (read
    back from slot r - 1 of the results) in the order (value, then index), so equal values are taken in
    index order; an `scf.for` over the rounds writes each pick into slot r of both results. Only the
    results are carried, so they bufferize in place."""
    (value,) = operands
    s = operand_scalars(op)
    largest, axis, k = op.attr("largest"), op.attr("axis"), op.attr("k")
    shape = op.operand_specs()[0].shape
    rank = len(shape)
    kept = [d for d in range(rank) if d != axis]
    row = [shape[d] for d in kept]
    i64, index = ir.IntegerType.get_signless(64), ir.IndexType.get()
    row_values, row_indices = storage_type(TensorSpec(row, s.dtype)), storage_type(TensorSpec(row, np.int64))
    none = arith.constant(i64, -1)
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, k), arith.constant(index, 1),
                     [filled(result_type(op, 0), 0), filled(result_type(op, 1), 0)])
    with ir.InsertionPoint(loop.body):
        values, indices = loop.inner_iter_args
        slot = loop.induction_variable
        first = arith.cmpi(arith.CmpIPredicate.eq, slot, arith.constant(index, 0))
        before = arith.select(first, slot, arith.subi(slot, arith.constant(index, 1)))
        previous, previous_index = (_slice_at(result, axis, before, row_type)
                                    for result, row_type in ((values, row_values), (indices, row_indices)))

        def body(x, last, last_index, best, best_index):
            i = arith.index_cast(i64, linalg.IndexOp(axis).result)
            better = s.compare("gt", x, best) if largest else s.compare("gt", best, x)
            unset = arith.cmpi(arith.CmpIPredicate.eq, best_index, none)
            after = arith.ori(first, _after(s, x, i, last, last_index, largest))
            take = arith.andi(after, arith.ori(unset, better))
            return [arith.select(take, x, best), arith.select(take, i, best_index)]

        row_map = affine_map(rank, dims(*kept))
        pick, pick_index = generic([value, previous, previous_index], [filled(row_values, 0), filled(row_indices, -1)],
                                   [identity_map(rank), row_map, row_map, row_map, row_map],
                                   [REDUCTION if d == axis else PARALLEL for d in range(rank)], body)
        scf.YieldOp([_insert_at(pick, values, axis, slot), _insert_at(pick_index, indices, axis, slot)])
    return list(loop.results)
