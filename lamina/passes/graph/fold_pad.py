"""graph-fold-pad: an explicit constant pad in front of a window op becomes the window op's own padding."""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.values import producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fused_location, replace_each


@register_pass
@dataclass(frozen=True)
class GraphFoldPad(Pass):
    """Fold `pad` (mode constant, batch and channel dims unpadded) into the convolution or pool reading it.

    Exporters write TensorFlow-style or asymmetric padding as a separate Pad;
    as in Glow's optimizer, the window op's `pads` absorb it, so the padding
    costs no copy and the accelerator runs the window op without a host
    step. Legal when the padded value is what the window op's padding means:
    0 for a convolution and for an average pool that counts padding
    (`count_include_pad`), -inf for a max pool; pools with `ceil_mode` are
    left alone (their last window may start in the padding). The pad stays
    if something else reads it.
    """

    name = "graph-fold-pad"
    summary = "Fold a constant pad into the pads of the convolution or pool after it"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"convolution", "avg_pool", "max_pool"}, _folded)


def _padding_value(window: ir.Operation) -> float | None:
    """The value the window op's own padding stands for, or None when a pad cannot be folded into it."""
    view = GRAPH.view(window)
    if view.name == "convolution":
        return 0.0
    if view.attr("ceil_mode"):
        return None
    if view.name == "avg_pool":
        return 0.0 if view.attr("count_include_pad") else None
    return -math.inf


def _folded(window: ir.Operation) -> ir.Value | None:
    pad = producer(window.operands[0], "pad")
    value = _padding_value(window)
    if pad is None or value is None:
        return None
    pad_view, view = GRAPH.view(pad), GRAPH.view(window)
    pads, rank = list(pad_view.attr("pads")), len(pad_view.attr("pads")) // 2
    if pad_view.attr("mode") != "constant" or pad_view.attr("value") != value or any(pads[d] or pads[rank + d]
                                                                                     for d in (0, 1)):
        return None
    spatial = rank - 2
    own = list(view.attr("pads"))
    merged = [own[i] + pads[2 + i] for i in range(spatial)] + [own[spatial + i] + pads[rank + 2 + i]
                                                             for i in range(spatial)]
    attrs = {**view.attrs(), "pads": merged}
    return create_before(window, view.name, pad.operands[0], *list(window.operands)[1:],
                         loc=fused_location([pad, window]), **attrs)
