"""What the converter asks of graph values: constants, per-channel constants, users, names."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of
from lamina.passes.graph.rewriting import invariant_part

# Graph ops that hold data rather than compute: they become Consts (or are
# copied into a host segment), never layers.
DATA_OPS = frozenset({"constant", "splat", "broadcast"})


def graph_name(op: ir.Operation) -> str:
    return GRAPH.lookup(op).name


def producer(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView) else None


def is_data(value: ir.Value) -> bool:
    """A constant, a splat, or a broadcast of one: data known at compile time."""
    op = producer(value)
    if op is None or GRAPH.lookup(op) is None:
        return False
    kind = graph_name(op)
    if kind == "broadcast":
        return is_data(op.operands[0])
    return kind in ("constant", "splat")


def flattened_image(value: ir.Value) -> tuple[int, int, int] | None:
    """(c, h, w) when `value` is a reshape (a flatten) of a rank-4 tensor, else None."""
    reshape = producer(value)
    if reshape is None or graph_name(reshape) != "reshape":
        return None
    shape = spec_of(reshape.operands[0].type).shape
    return tuple(shape[1:]) if len(shape) == 4 else None


def constant_value(value: ir.Value) -> np.ndarray:
    """The data of a value for which `is_data` holds (broadcasts are NumPy views, not copies)."""
    op = producer(value)
    view = GRAPH.view(op)
    shape = spec_of(value.type).shape
    if view.name == "constant":
        return view.attr("value")
    if view.name == "splat":
        return np.broadcast_to(np.asarray(view.attr("value"), dtype=spec_of(value.type).dtype), shape)
    return np.broadcast_to(constant_value(op.operands[0]), shape)


def per_channel(value: ir.Value) -> np.ndarray | None:
    """The (C,) vector of a rank-2/4 constant that varies along channels only, else None."""
    if not is_data(value):
        return None
    data = constant_value(value)
    if data.ndim not in (2, 4):
        return None
    part = invariant_part(data, [axis for axis in range(data.ndim) if axis != 1])
    return None if part is None else part.reshape(-1).astype(np.float64)


def users(value: ir.Value) -> list[ir.Operation]:
    """The ops using `value`, each once, in no particular order."""
    found = {}
    for use in value.uses:
        owner = use.owner.operation
        found[owner] = owner
    return list(found)
