"""graph-fold-batch-norm: fold an inference batch_norm into the weights of the layer it follows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import LAYER
from lamina.dialects.values import constant_value, defining_op, has_one_use, has_trait
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, create_folded, fused_location, replace_each



def fold_channel_affine(layer: ir.Operation, multiplier: np.ndarray, addend: np.ndarray,
                        loc: ir.Location) -> ir.Value | None:
    """A copy of `layer`, created before it, computing layer(...) * multiplier + addend,
    with `multiplier` and `addend` ([C], per channel of the result's axis 1)
    folded into its constants; None when those operands are not float constants.
    `layer` is an op with channel weights (`OpDef.channel_weights`): the multiplier
    scales those, and its `bias` becomes bias * multiplier + addend (batch_norm's
    `scale` scales its output, so its mean and variance stay as they are).

    The new constants are computed in float64 and rounded once to the layer's
    element type, so the folded layer differs from the unfolded pair by float
    rounding only.
    """
    view = GRAPH.view(layer)
    scaled_name, channel_axis = view.definition.channel_weights
    scaled, bias = constant_value(view.operand(scaled_name)), constant_value(view.operand("bias"))
    if scaled is None or bias is None or not np.issubdtype(scaled.dtype, np.floating):
        return None
    per_channel = [1] * scaled.ndim
    per_channel[channel_axis] = -1
    new_scaled = scaled.astype(np.float64) * multiplier.reshape(per_channel)
    new_bias = bias.astype(np.float64) * multiplier + addend
    operands = list(layer.operands)
    with ir.InsertionPoint(layer):
        operands[view.definition.operands.index(scaled_name)] = create_folded(new_scaled.astype(scaled.dtype), loc)
        operands[view.definition.operands.index("bias")] = create_folded(new_bias.astype(bias.dtype), loc)
    return create_before(layer, view.name, *operands, loc=loc, **view.attrs())


@register_pass
@dataclass(frozen=True)
class GraphFoldBatchNorm(Pass):
    """Fold each `graph.batch_norm` whose input is a `graph.convolution` or
    `graph.fully_connected` into that layer's weights and bias.

    Inference batch-norm is the per-channel affine y * A + (beta - mean * A)
    with A = scale / sqrt(variance + epsilon); folded into the layer, it
    becomes w' = w * A along the output channels and b' = (b - mean) * A + beta
    (Glow's OptimizeBatchNorm). Legal when the four batch-norm parameters and
    the layer's weights and bias are constants, and the layer's result has no
    user but the batch-norm (otherwise that user would see the folded values).
    Results change by float rounding only (the constants are computed in
    float64). The new layer takes the fused location of the layer and the
    batch-norm; constants left unused are erased.
    """

    name = "graph-fold-batch-norm"
    summary = "Fold batch_norm into the constant weights and bias of the convolution or fully_connected before it"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"batch_norm"}, _folded_batch_norm)


def _folded_batch_norm(batch_norm: ir.Operation) -> ir.Value | None:
    view = GRAPH.view(batch_norm)
    data = view.operand("input")
    layer = defining_op(data)
    if not has_trait(layer, LAYER) or not has_one_use(data):
        return None
    parameters = [constant_value(view.operand(name)) for name in ("scale", "bias", "mean", "variance")]
    if any(p is None for p in parameters):
        return None
    scale, bias, mean, variance = (p.astype(np.float64) for p in parameters)
    multiplier = scale / np.sqrt(variance + view.attr("epsilon"))
    return fold_channel_affine(layer, multiplier, bias - mean * multiplier, fused_location([layer, batch_norm]))
