"""The backend interface: the hooks through which a target steers the graph pipeline.

As in Glow (`Backend::isOpSupported`, `shouldLower`, `transformPostLowering`),
the graph-level pipeline is the same for every target; a backend only answers
questions about single ops and may rewrite the lowered graph once. Backends
are therefore plain objects, mostly data: the passes `graph-lower`,
`graph-backend-transform` and `graph-check-support` take one by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from mlir import ir

from lamina.dialects.irdl import OpView


class Backend(ABC):
    """A compilation target, as the graph pipeline sees it."""

    name: ClassVar[str]  # how pipelines spell it: `graph-optimize{backend=NAME}`
    summary: ClassVar[str]  # one line for people

    @abstractmethod
    def why_unsupported(self, op: OpView) -> str | None:
        """Why this target cannot run `op` (a phrase for the diagnostic), or None if it can.

        May look at attributes, types and the producers of operands: a target
        may run only 2-D convolutions, or only matmuls by constant weights.
        """

    def is_op_supported(self, op: OpView) -> bool:
        return self.why_unsupported(op) is None

    def why_not_quantized(self, op: OpView) -> str | None:
        """Why this target cannot run `op` on `!quant.uniform` values (Glow asks
        `isOpSupported` per element kind); None if it can. `graph-quantize`
        converts only ops this accepts. Default: every op with a quantized form."""
        return None if op.definition.quantized is not None else "it has no quantized form"

    @abstractmethod
    def should_lower(self, op: OpView) -> bool:
        """Whether `graph-lower` should expand `op` (asked only for ops that have a lowering)."""

    def transform_post_lowering(self, module: ir.Operation) -> None:
        """Rewrite the lowered, optimized graph for this target (e.g. swap in its own ops).

        Runs once, between two optimize stages, on the `builtin.module`; the
        default changes nothing.
        """
