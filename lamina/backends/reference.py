"""The reference backends: the graph interpreter as a target, with and without lowering."""

from __future__ import annotations

from lamina.dialects.irdl import OpView
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
        return None if op.name in KERNELS else "the reference interpreter has no kernel for it"

    def should_lower(self, op: OpView) -> bool:
        return False


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
