"""The reference backends: the graph interpreter as a target, with and without lowering."""

from __future__ import annotations

from lamina.dialects.irdl import OpView
from lamina.kernels.control_flow import REGION_KERNELS
from lamina.kernels.graph_kernels import KERNELS

from .backend import Backend


class ReferenceBackend(Backend):
    """Runs every op the reference interpreter has a kernel for, which is every graph op.

    It needs nothing lowered, so nothing is: high-level ops stay high-level,
    as Glow's Interpreter keeps convolutions and fully-connected layers.
    """

    name = "reference"
    summary = "the graph interpreter: runs every graph op, lowers nothing"

    def why_unsupported(self, op: OpView) -> str | None:
        if op.name not in KERNELS and op.name not in REGION_KERNELS:
            return "the reference interpreter has no kernel for it"
        quantized = any(s.quant is not None for s in (*op.operand_specs(), *op.result_specs()))
        return self.why_not_quantized(op) if quantized else None

    def should_lower(self, op: OpView) -> bool:
        return op.definition.training  # gradients and SGD have no kernel: they always become ordinary ops


class ReferenceLoweredBackend(ReferenceBackend):
    """The reference backend asking for every lowering there is.

    Glow lowers everything when it profiles a graph; here the point is that
    the lowered graph still runs in the interpreter, so every lowering is
    checked end to end against the model it came from.
    """

    name = "reference-lowered"
    summary = "the graph interpreter after every lowering (checks the lowerings)"

    def should_lower(self, op: OpView) -> bool:
        return True
