"""graph-fold-arithmetic: fold arithmetic by per-channel constants into the layer before it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of
from lamina.dialects.values import constant_view, defining_op, has_one_use, op_name
from lamina.passes.registry import Pass, register_pass

from .fold_batch_norm import fold_channel_affine
from .rewriting import fused_location, invariant_part, replace_each

ARITHMETIC_OPS = frozenset({"mul", "add", "sub", "div"})


@register_pass
@dataclass(frozen=True)
class GraphFoldArithmetic(Pass):
    """Fold `mul`, `add`, `sub` and `div` by a per-channel or scalar constant
    into the `convolution`, `fully_connected` or `batch_norm` that produces
    the other operand.

    x * c, x + c, x - c, c - x and x / c are per-channel affine maps y * m + a
    when c only varies along the channel axis (axis 1), as the importer's
    broadcasts of [C, 1, 1] or scalar constants do (DenseNet's and
    Inception-v2's batch-norm written as Mul and Add). The affine folds into
    the layer's constants: a convolution's or fully-connected layer's weights
    are scaled along their output channels and its bias becomes b * m + a; a
    batch-norm's scale becomes scale * m and its bias bias * m + a (Glow's
    FoldArithmeticChainUnderConvIntoBN and
    FoldBatchNormalizationWithArithmeticChain, without the intermediate
    batch-norm). Ops are visited in program order, so a whole chain folds in
    one run.

    Legal when the layer's weights and bias (a batch-norm's scale and bias)
    are float constants and its result has no other user. Division by a
    constant with a zero element stays. Results change by float rounding
    only; the new layer takes the fused location of the layer and the
    arithmetic op.
    """

    name = "graph-fold-arithmetic"
    summary = "Fold mul/add/sub/div by per-channel constants into the preceding convolution, fully_connected or batch_norm"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, ARITHMETIC_OPS, _folded_arithmetic)


def _folded_arithmetic(arithmetic: ir.Operation) -> ir.Value | None:
    lhs, rhs = arithmetic.operands
    for data, constant, data_is_lhs in ((lhs, rhs, True), (rhs, lhs, False)):
        layer = defining_op(data)
        definition = GRAPH.lookup(layer) if layer is not None else None
        if definition is None or definition.channel_weights is None or not has_one_use(data):
            continue
        channels = _channel_vector(constant)
        affine = None if channels is None else _affine(op_name(arithmetic), channels, data_is_lhs)
        folded = None if affine is None else fold_channel_affine(layer, *affine, fused_location([layer, arithmetic]))
        if folded is not None:
            return folded
    return None


def _channel_vector(value: ir.Value) -> np.ndarray | None:
    """A constant operand as the float64 [C] vector it is along axis 1, if it varies along no other axis."""
    data = constant_view(value)
    if data is None or not np.issubdtype(data.dtype, np.floating):
        return None
    part = invariant_part(data, [axis for axis in range(data.ndim) if axis != 1])
    return None if part is None else part.reshape(spec_of(value.type).shape[1]).astype(np.float64)


def _affine(name: str, c: np.ndarray, data_is_lhs: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """The (multiplier, addend) of the op as y -> y * m + a on its data operand y; None if not affine."""
    zeros, ones = np.zeros_like(c), np.ones_like(c)
    if name == "mul":
        return c, zeros
    if name == "add":
        return ones, c
    if name == "sub":
        return (ones, -c) if data_is_lhs else (-ones, c)
    if name == "div" and data_is_lhs and np.all(c != 0):
        return 1 / c, zeros
    return None
