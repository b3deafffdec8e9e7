"""What passes ask of IR values: who defines them, who uses them, and what compile-time data they hold.

One home for these questions, so every level answers them the same way.
The broadcast-of-constant rule lives here once (`constant_source`):
importers give element-wise ops their scalar and per-channel constants as
broadcasts of small constants, reshaped or converted to the other operand's
type, and constant folding keeps those broadcasts unexpanded. Such a value
is compile-time data although its own op is not a constant.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from .graph import GRAPH
from .irdl import CONSTANT, SCALAR, DialectDef
from .types import spec_of

# The graph ops a constant is seen through (the broadcast-of-constant rule).
CONSTANT_VIEWS = ("broadcast", "reshape", "convert")


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op whose result `value` is; None for a block argument."""
    owner = value.owner  # an OpView (or Operation) for op results, a Block for block arguments
    return owner.operation if isinstance(owner, (ir.Operation, ir.OpView)) else None


def op_name(op: ir.Operation | None) -> str | None:
    """The graph op name of `op` (`"relu"` for `graph.relu`), None for other dialects."""
    definition = GRAPH.lookup(op) if op is not None else None
    return definition.name if definition is not None else None


def has_trait(op: ir.Operation | None, trait: str) -> bool:
    """Whether `op` is a graph op with `trait` (False for None and for other dialects' ops)."""
    definition = GRAPH.lookup(op) if op is not None else None
    return definition is not None and definition.has(trait)


def producer(value: ir.Value, name: str) -> ir.Operation | None:
    """The op defining `value` if it is `graph.<name>`, else None."""
    op = defining_op(value)
    return op if op_name(op) == name else None


def ops_of(module: ir.Operation, dialect: DialectDef) -> list[ir.Operation]:
    """The ops of `dialect` in `module`, in program order.

    A walk rather than iterating blocks: the bindings try (and fail) to import
    a Python module for the op's dialect on every op they iterate, ~20 µs each,
    which is most of the time on million-op programs.
    """
    return ops_where(module, lambda op: dialect.lookup(op) is not None)


def ops_where(root: ir.Operation, predicate) -> list[ir.Operation]:
    """The ops nested in `root` (and `root` itself) for which `predicate(op)` holds, in program order: collected
    before a pass rewrites them (erasing ops during the walk would invalidate it)."""
    found = []

    def visit(op: ir.Operation):
        if predicate(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def users(value: ir.Value) -> list[ir.Operation]:
    """The ops using `value`, each once, in no particular order."""
    found = {}
    for use in value.uses:
        owner = use.owner.operation
        found[owner] = owner
    return list(found)


def remap_operands(op: ir.Operation, mapping: dict) -> None:
    """Make `op` and the ops in its regions read `mapping[v]` wherever they read `v`."""

    def visit(nested: ir.Operation) -> ir.WalkResult:
        for index, operand in enumerate(nested.operands):
            if operand in mapping:
                nested.operands[index] = mapping[operand]
        return ir.WalkResult.ADVANCE

    op.walk(visit)


def has_uses(value: ir.Value) -> bool:
    return next(iter(value.uses), None) is not None


def has_one_use(value: ir.Value) -> bool:
    uses = iter(value.uses)
    return next(uses, None) is not None and next(uses, None) is None


def is_constant(value: ir.Value) -> bool:
    """Whether `value` is the result of a constant op (`graph.constant`, `graph.splat`), without reading its data."""
    op = defining_op(value)
    return op_name(op) is not None and GRAPH.lookup(op).has(CONSTANT)


def constant_value(value: ir.Value) -> np.ndarray | None:
    """The data of a `graph.constant` or `graph.splat` result (a splat in full); None otherwise."""
    op = defining_op(value)
    name = op_name(op)
    if name == "constant":
        return GRAPH.view(op).attr("value")
    if name == "splat":
        spec = spec_of(value.type)
        return np.full(spec.shape, GRAPH.view(op).attr("value"), dtype=spec.dtype)
    return None


def uniform_scalar(value: ir.Value) -> np.generic | None:
    """The one element value of a constant whose elements are all equal, else None.

    A `graph.splat`, or a `graph.constant` MLIR stores as a splat (it does so
    for every uniform dense attribute); read without materializing the tensor.
    """
    op = defining_op(value)
    name = op_name(op)
    if name == "splat":
        scalar = GRAPH.view(op).attr("value")
    elif name == "constant" and ir.DenseElementsAttr(op.attributes["value"]).is_splat:
        scalar = SCALAR.decode(ir.DenseElementsAttr(op.attributes["value"]).get_splat_value())
    else:
        return None
    return np.asarray(scalar).astype(spec_of(value.type).dtype)[()]


def constant_source(value: ir.Value) -> ir.Operation | None:
    """The constant op `value` is, or is a view of through `CONSTANT_VIEWS`; None if it is not compile-time data."""
    op = defining_op(value)
    while op_name(op) in CONSTANT_VIEWS:
        op = defining_op(op.operands[0])
    return op if op is not None and GRAPH.lookup(op) is not None and GRAPH.lookup(op).has(CONSTANT) else None


def is_constant_view(value: ir.Value) -> bool:
    """Whether `value` is compile-time data by the broadcast-of-constant rule (without reading it)."""
    return constant_source(value) is not None


def constant_view(value: ir.Value) -> np.ndarray | None:
    """The data of `value` by the broadcast-of-constant rule; None if it is not compile-time data.

    The array is a read-only view that repeats data with zero strides rather
    than copying it, so a broadcast to a large activation shape costs nothing.
    """
    op = defining_op(value)
    name = op_name(op)
    spec = spec_of(value.type)
    if name in CONSTANT_VIEWS:
        source = constant_view(op.operands[0])
        if source is None:
            return None
        if name == "broadcast":
            return np.broadcast_to(source, spec.shape)
        return source.reshape(spec.shape) if name == "reshape" else source.astype(spec.dtype)
    if name == "splat":
        return np.broadcast_to(np.asarray(GRAPH.view(op).attr("value"), dtype=spec.dtype), spec.shape)
    return constant_value(value)
