"""graph-raise-layer-norm: the exported arithmetic of layer normalization -> layer_norm."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import TensorSpec, spec_of
from lamina.dialects.values import constant_view, defining_op, has_one_use, op_name, producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import (create_before, create_folded, create_splat, fused_location, invariant_part, replace_each,
                        scalar_operand)


@register_pass
@dataclass(frozen=True)
class GraphRaiseLayerNorm(Pass):
    """Replace the arithmetic of layer normalization over the trailing axes
    [axis, rank) by `layer_norm`:

      mean = reduce_mean(x), centered = x - mean,
      variance = reduce_mean(centered^2),
      y = centered / sqrt(variance + epsilon) [* scale] [+ bias]

    as PyTorch exports LayerNorm before opset 17 (ReduceMean, Sub, Pow 2,
    ReduceMean, Add, Sqrt, Div, Mul, Add); the square may also be
    centered * centered and the division a product with reciprocal(sqrt(...)).
    Both reductions keep dimensions and reduce the same trailing axes; the
    statistics reach x's shape through `graph.broadcast`s; epsilon is a
    scalar constant. The scale and bias are optional; each is a broadcast of
    a value of the normalized shape x.shape[axis:] or a constant that does
    not vary along the leading axes. The longest chain is raised: a
    normalization followed by a scale and a bias becomes one op.

    Legal when every intermediate value has no user outside the pattern
    (x may have any). Results change by float rounding only; the
    layer_norm takes the fused location of the matched ops.
    """

    name = "graph-raise-layer-norm"
    summary = "Raise the decomposed arithmetic of layer normalization into layer_norm"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"div", "mul", "add"}, _raised_layer_norm)


# A scale or bias: an existing value of the normalized shape, or constant data to create.
Parameter = ir.Value | np.ndarray


@dataclass
class _LayerNorm:
    """What a match found: the layer_norm's operands and attributes, and the ops it replaces."""

    x: ir.Value
    axis: int
    epsilon: float
    ops: list[ir.Operation]
    scale: Parameter | None = None
    bias: Parameter | None = None

    @property
    def normalized(self) -> TensorSpec:
        spec = spec_of(self.x.type)
        return spec.with_shape(spec.shape[self.axis:])


def _raised_layer_norm(op: ir.Operation) -> ir.Value | None:
    match = _match(op)
    if match is None or _continues(op):
        return None
    with ir.InsertionPoint(op):
        scale = _materialized(match.scale, 1.0, match.normalized, op.location)
        bias = _materialized(match.bias, 0.0, match.normalized, op.location)
    return create_before(op, "layer_norm", match.x, scale, bias, axis=match.axis, epsilon=match.epsilon,
                         loc=fused_location(match.ops))


def _continues(op: ir.Operation) -> bool:
    """Whether the one user of `op`'s result extends the match (it is raised instead, `op` with it)."""
    uses = list(op.results[0].uses)
    return len(uses) == 1 and _match(uses[0].owner.operation) is not None


def _materialized(parameter: Parameter | None, default: float, spec: TensorSpec, loc: ir.Location) -> ir.Value:
    if parameter is None:
        return create_splat(default, spec, loc)
    if isinstance(parameter, np.ndarray):
        return create_folded(parameter, loc)
    return parameter


# ---------------------------------------------------------------------------
# Matching, from the last op of the pattern backwards.
# ---------------------------------------------------------------------------


def _match(op: ir.Operation) -> _LayerNorm | None:
    """`op` as normalization [* scale] [+ bias]."""
    if op_name(op) == "add":
        return _with_parameter(op, "bias", _scaled)
    return _scaled(op)


def _scaled(op: ir.Operation) -> _LayerNorm | None:
    """`op` as normalization [* scale]."""
    if op_name(op) == "mul":
        scaled = _with_parameter(op, "scale", _normalization)
        if scaled is not None:
            return scaled
    return _normalization(op)


def _with_parameter(op: ir.Operation, role: str, match_inner) -> _LayerNorm | None:
    """`op` as inner (op) parameter in either order, inner used once and matched by `match_inner`."""
    lhs, rhs = op.operands
    for inner, parameter in ((lhs, rhs), (rhs, lhs)):
        inner_op = defining_op(inner)
        match = match_inner(inner_op) if inner_op is not None and has_one_use(inner) else None
        value = _parameter(parameter, match) if match is not None else None
        if value is not None:
            setattr(match, role, value)
            match.ops.append(op)
            return match
    return None


def _parameter(value: ir.Value, match: _LayerNorm) -> Parameter | None:
    """`value` (of x's shape) as a value or data of the normalized shape, if it only varies along it."""
    normalized = match.normalized.shape
    broadcast = producer(value, "broadcast")
    if broadcast is not None and spec_of(broadcast.operands[0].type).shape == normalized:
        return broadcast.operands[0]
    if spec_of(value.type).shape == normalized:
        return value
    data = constant_view(value)
    part = invariant_part(data, range(match.axis)) if data is not None else None
    return part.reshape(normalized) if part is not None else None


def _normalization(op: ir.Operation) -> _LayerNorm | None:
    """`op` as centered / sqrt(variance + epsilon), or centered * reciprocal(sqrt(...))."""
    name = op_name(op)
    if name not in ("div", "mul"):
        return None
    lhs, rhs = op.operands
    if name == "div":
        splits = [(lhs, rhs, ["sqrt"])]
    else:
        splits = [(lhs, rhs, ["reciprocal", "sqrt"]), (rhs, lhs, ["reciprocal", "sqrt"])]
    for centered, denominator, chain in splits:
        ops = [op]
        value = denominator
        for step in chain:
            found = _defining(value, step)
            if found is None:
                break
            step_op, step_ops = found
            ops += step_ops
            value = step_op.operands[0]
        else:
            match = _statistics(centered, value)
            if match is not None:
                match.ops = ops + match.ops
                return match
    return None


def _statistics(centered: ir.Value, shifted_variance: ir.Value) -> _LayerNorm | None:
    """centered = x - mean(x) and shifted_variance = mean(centered^2) + epsilon, over the same
    trailing axes; centered has no user but the square and the normalization."""
    add = producer(shifted_variance, "add")
    if add is None or not has_one_use(shifted_variance):
        return None
    for variance, epsilon_value in (add.operands, add.operands[::-1]):
        epsilon = scalar_operand(epsilon_value)
        found = _defining(variance, "reduce_mean")
        if epsilon is None or found is None:
            continue
        variance_mean, _ = found
        square = _square_of(variance_mean.operands[0], centered)
        sub = producer(centered, "sub")
        if square is None or sub is None or _uses(centered) != 1 + list(square.operands).count(centered):
            continue
        x, broadcast_mean = sub.operands
        found = _defining(broadcast_mean, "reduce_mean")
        if found is None or found[0].operands[0] != x or not np.issubdtype(spec_of(x.type).dtype, np.floating):
            continue
        mean, mean_ops = found
        axis = _trailing_axis(mean, variance_mean, spec_of(x.type))
        if axis is not None:
            ops = [add, variance_mean, square, sub, *mean_ops]
            return _LayerNorm(x, axis, epsilon, ops)
    return None


def _square_of(value: ir.Value, centered: ir.Value) -> ir.Operation | None:
    """The op computing `value` as pow(centered, 2) or centered * centered, if `value` is used once."""
    if not has_one_use(value):
        return None
    power = producer(value, "pow")
    if power is not None and power.operands[0] == centered and scalar_operand(power.operands[1]) == 2.0:
        return power
    product = producer(value, "mul")
    if product is not None and product.operands[0] == centered and product.operands[1] == centered:
        return product
    return None


def _uses(value: ir.Value) -> int:
    return sum(1 for _ in value.uses)


def _trailing_axis(mean: ir.Operation, variance: ir.Operation, spec: TensorSpec) -> int | None:
    """The first normalized axis, when both reductions keep dimensions and reduce [axis, rank)."""
    attrs = GRAPH.view(mean).attrs()
    axes = attrs["axes"]
    if not (attrs["keepdims"] and axes and axes == tuple(range(axes[0], spec.rank))):
        return None
    return axes[0] if GRAPH.view(variance).attrs() == attrs else None


def _defining(value: ir.Value, name: str) -> tuple[ir.Operation, list[ir.Operation]] | None:
    """The `graph.<name>` op defining `value`, directly or through a `graph.broadcast`, with
    the ops on the way; None unless each result on the way has one use."""
    ops = []
    broadcast = producer(value, "broadcast")
    if broadcast is not None and has_one_use(value):
        ops.append(broadcast)
        value = broadcast.operands[0]
    found = producer(value, name)
    if found is None or not has_one_use(value):
        return None
    return found, ops + [found]
