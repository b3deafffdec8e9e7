"""ArgMax and ArgMin as one `linalg.generic` reducing over the axis into a (best value, index) pair.

The pair starts at the reduction's identity (-inf/+inf or the integer
range's end) and index 0; an element replaces it when strictly better (the
first index) or at least as good (`select_last_index`); a NaN wins over a
number, as in NumPy's argmax.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg

from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec

from .builders import PARALLEL, REDUCTION, affine_map, dims, filled, generic, identity_map
from .elementwise import Scalars, operand_scalars
from .reductions import extreme
from .registry import converts
from .shape_ops import add_unit_dims
from .storage import storage_type


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
