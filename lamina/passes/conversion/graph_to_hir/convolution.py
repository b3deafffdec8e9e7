"""HIR emission of convolution: a matmul layer over the input's pixels with the filter's window."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of
from lamina.dialects.values import constant_view

from .emit import HirEmitter, Temps
from .rules import MATMUL, rule
from .weights import dense_filter


@rule("convolution", form=MATMUL)
def emit_convolution(emitter: HirEmitter, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
    attrs = GRAPH.view(op).attrs()
    window = {"kernel": spec_of(op.operands[1].type).shape[2:], "strides": attrs["strides"], "pads": attrs["pads"],
              "dilations": attrs["dilations"]}
    emitter.matmul(op, op.operands[0], window, None, temps,
                   lambda: (dense_filter(constant_view(op.operands[1]), attrs["group"]), constant_view(op.operands[2])))
