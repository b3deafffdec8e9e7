"""The CPU backend: what the CPU path (`convert-graph-to-linalg`) runs.

Like Glow's CPU backend it runs most ops as they are: every graph op but
the recurrent layers has a linalg converter. Those it asks `graph-lower` to
expand into matmuls and element-wise ops unrolled over their sequence. Ops
the linalg conversion cannot convert are reported by that pass, each at its
location.
"""

from __future__ import annotations

from lamina.dialects.graph_recurrent import CELLS
from lamina.dialects.irdl import OpView

from .reference import ReferenceBackend


class CpuBackend(ReferenceBackend):
    """Runs what the interpreter runs, with recurrent layers (and, as every backend, training ops) lowered."""

    name = "cpu"
    summary = "the CPU path (linalg, LLVM): lowers the recurrent layers, which have no linalg converter"

    def should_lower(self, op: OpView) -> bool:
        return op.name in CELLS or super().should_lower(op)
