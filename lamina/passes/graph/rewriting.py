"""What graph rewrites share: finding ops, reading and creating constants,
folding an op on constants with the interpreter's kernels, replacing ops.

Graph ops are pure except `graph.save`, and IRDL gives them no traits, so the
passes walk blocks in Python rather than relying on MLIR's folders. These
helpers keep each pass down to its rewrite. They need the IR's context active
(passes run with it) and, where they create ops, an insertion point.
"""

from __future__ import annotations

from typing import Callable, Collection, Iterable, Sequence

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH, MODEL_INTERFACE
from lamina.dialects.irdl import CONSTANT, ELEMENTWISE, REARRANGING
from lamina.dialects.types import TensorSpec, spec_of
from lamina.dialects.values import (constant_value, constant_view, defining_op, has_uses, is_constant, op_name,
                                    uniform_scalar)
from lamina.kernels.graph_kernels import KERNELS, KernelError, Node

CONSTANT_OPS = GRAPH.with_trait(CONSTANT)


# ---------------------------------------------------------------------------
# Finding ops.
# ---------------------------------------------------------------------------


def graph_ops(root: ir.Operation) -> list[ir.Operation]:
    """Every graph op nested under `root`, in program order within each block.

    A snapshot: rewrites may erase ops they have already visited (or the one
    they visit) while iterating over it, never ones still ahead.
    """
    found = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        if GRAPH.lookup(op) is not None:
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(collect, ir.WalkOrder.PRE_ORDER)
    return found


# ---------------------------------------------------------------------------
# Constants.
# ---------------------------------------------------------------------------


def invariant_part(array: np.ndarray, axes: Iterable[int]) -> np.ndarray | None:
    """`array` cut to size 1 along `axes` when it does not vary along them; None when it does."""
    axes = set(axes)
    part = array[tuple(slice(0, 1) if axis in axes else slice(None) for axis in range(array.ndim))]
    # Zero-stride axes repeat their data: compare only the elements really stored.
    stored = array[tuple(slice(0, 1) if stride == 0 else slice(None) for stride in array.strides)]
    stored_part = stored[tuple(slice(0, 1) if axis in axes else slice(None) for axis in range(array.ndim))]
    return part if bool((stored == stored_part).all()) else None


def scalar_operand(value: ir.Value) -> float | None:
    """The one value of a constant (seen as `constant_view` sees it) whose elements are all equal."""
    data = constant_view(value)
    if data is None or data.size == 0:
        return None
    part = invariant_part(data, range(data.ndim))
    return None if part is None else float(part.reshape(-1)[0])


def create_constant(array: np.ndarray, loc: ir.Location) -> ir.Value:
    """A `graph.constant` holding `array`, at the current insertion point."""
    with loc:  # types are built in the location's context
        return GRAPH.create("constant", value=np.asarray(array), loc=loc).result


def create_splat(scalar, spec: TensorSpec, loc: ir.Location) -> ir.Value:
    """A `graph.splat` of type `spec` with every element `scalar`, at the current insertion point."""
    value = scalar.item() if isinstance(scalar, np.generic) else scalar
    with loc:
        return GRAPH.create("splat", result_types=[spec], value=value, loc=loc).result


def create_before(op: ir.Operation, name: str, *operands: ir.Value, loc: ir.Location, **attrs) -> ir.Value:
    """The result of a new `graph.<name>` just before `op`, at `loc` (`attrs` as `GRAPH.create` takes them)."""
    with ir.InsertionPoint(op), loc:
        return GRAPH.create(name, *operands, loc=loc, **attrs).result


def is_uniform(array: np.ndarray) -> bool:
    """Whether every element of `array` has the same bits (so -0.0 and 0.0 differ), for a splat.

    The first elements are compared first: a folded weight (VGG-19's transposed 411 MB fc6) differs there,
    and is then neither copied to contiguous memory nor compared whole."""
    if array.size == 0:
        return False
    return _same_bits(np.asarray(array.flat[:_PREFIX])) and _same_bits(array)


_PREFIX = 64


def _same_bits(array: np.ndarray) -> bool:
    flat = np.ascontiguousarray(array).reshape(-1)
    raw = flat.view(np.uint8).reshape(flat.size, flat.dtype.itemsize)
    return bool((raw == raw[0]).all())


def create_folded(array: np.ndarray, loc: ir.Location) -> ir.Value:
    """`array` as IR at the current insertion point: a `graph.splat` when uniform, else a `graph.constant`."""
    array = np.asarray(array)
    if is_uniform(array):
        return create_splat(array.reshape(-1)[0], TensorSpec(array.shape, array.dtype), loc)
    return create_constant(array, loc)


def evaluate(op: ir.Operation, operands: Sequence[np.ndarray], result: TensorSpec | None = None) -> np.ndarray:
    """The result of graph op `op` on `operands`, computed by the interpreter's kernel.

    Folding with the kernels the interpreter runs makes a folded model compute
    exactly what the unfolded one does. `result` overrides the result type
    (an element-wise op evaluated on scalars). Raises `KernelError` when the
    data makes the op fail (it would fail at run time too).
    """
    view = GRAPH.view(op)
    node = Node(view.attrs(), [result] if result is not None else view.result_specs())
    with np.errstate(all="ignore"):  # IEEE semantics, as the interpreter
        array = np.asarray(KERNELS[view.name](node, *operands))
    assert TensorSpec(array.shape, array.dtype) == node.result, f"kernel of {op.name} disagrees with its type"
    return array


def fold_to_constant(op: ir.Operation, max_elements: int | None = None) -> ir.Value | None:
    """The single result of `op`, computed now, as a constant created before `op`; None if it cannot be.

    `op` folds when every operand is a `graph.constant` or `graph.splat`. A
    result known to be uniform without computing it (an element-wise or
    rearranging op of uniform constants) becomes a `graph.splat` of any size;
    any other is computed, unless it has more than `max_elements` elements,
    and becomes a splat when uniform, else a `graph.constant`. The new value
    takes `op`'s location. An op the data makes fail (`KernelError`) is left
    to fail at run time.
    """
    name = op_name(op)
    if name is None or name in MODEL_INTERFACE or name in CONSTANT_OPS or len(op.results) != 1 or len(op.regions):
        return None  # control flow folds in graph-fold-if
    operands = list(op.operands)
    if not all(is_constant(v) for v in operands):
        return None
    spec = spec_of(op.results[0].type)
    if spec.quant is not None or any(spec_of(v.type).quant is not None for v in operands):
        return None  # quantized constants are made by graph-quantize, with their scales
    scalars = [uniform_scalar(v) for v in operands]
    with ir.InsertionPoint(op):
        # On uniform operands an element-wise or rearranging op's result is uniform.
        definition = GRAPH.ops[name]
        if all(s is not None for s in scalars) and (definition.has(ELEMENTWISE) or definition.has(REARRANGING)):
            if definition.has(REARRANGING):
                return create_splat(scalars[0], spec, op.location)
            scalar = evaluate(op, [np.asarray(s) for s in scalars], spec.with_shape(()))
            return create_splat(scalar[()], spec, op.location)
        if max_elements is not None and spec.num_elements > max_elements:
            return None
        try:
            array = evaluate(op, [constant_value(v) for v in operands])
        except KernelError:
            return None
        return create_folded(array, op.location)


# ---------------------------------------------------------------------------
# Replacing and erasing.
# ---------------------------------------------------------------------------


def replace_op(op: ir.Operation, new_values: Sequence[ir.Value]) -> None:
    """Make every use of `op`'s results use `new_values` instead, then erase `op`."""
    assert len(new_values) == len(op.results), f"{op.name} has {len(op.results)} results"
    for result, new_value in zip(op.results, new_values):
        result.replace_all_uses_with(new_value)
    op.erase()


def erase_if_unused(op: ir.Operation | None) -> bool:
    """Erase a graph op whose results nobody reads (the model interface stays); whether it went.

    Rewrites call it on the producers they bypass, so they leave no dead ops
    behind for `graph-dce`.
    """
    name = op_name(op) if op is not None else None
    if name is None or name in MODEL_INTERFACE or any(has_uses(r) for r in op.results):
        return False
    op.erase()
    return True


def replace_each(root: ir.Operation, names: Collection[str] | None,
                 rewrite: Callable[[ir.Operation], ir.Value | None]) -> None:
    """Replace each graph op under `root` named in `names` (None: every one) by
    the value `rewrite` returns for it, if any, then erase producers of its
    operands left unused.

    Ops are visited in program order, so a rewrite sees its operands already
    rewritten and a chain collapses in one run.
    """
    for op in graph_ops(root):
        if names is not None and op_name(op) not in names:
            continue
        operands = list(op.operands)
        replacement = rewrite(op)
        if replacement is not None:
            replace_op(op, [replacement])
            erase_unused_producers(operands)


def erase_unused_producers(values: Iterable[ir.Value]) -> None:
    """Erase the graph ops defining `values` that nobody reads any more, then
    the producers this leaves unread, transitively: the interior of a
    rewritten pattern goes in one call."""
    erased: set[ir.Value] = set()  # results of erased ops, whose handles must not be used again
    worklist = list(values)
    while worklist:
        value = worklist.pop()
        op = None if value in erased else defining_op(value)
        if op is None:
            continue
        operands, results = list(op.operands), list(op.results)
        if erase_if_unused(op):
            erased.update(results)
            worklist.extend(operands)


def fused_location(ops: Iterable[ir.Operation]) -> ir.Location:
    """One location for an op that stands for all of `ops` (MLIR drops unknown parts)."""
    return ir.Location.fused([op.location for op in ops])
