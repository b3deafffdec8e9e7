"""The CPU backend: what the CPU path (`convert-graph-to-linalg`) runs.

Like Glow's CPU backend it runs most ops as they are (each has a linalg
converter) and asks `graph-lower` only for ops that have a graph lowering
but no linalg converter: the recurrent layers, which become matmuls and
element-wise ops unrolled over their sequence.
"""

from __future__ import annotations

from lamina.dialects.irdl import OpView

from .backend import Backend


def _linalg_converters() -> set[str]:
    # Imported when asked: the conversion passes import the backends (graph-lower does).
    from lamina.passes.conversion.graph_to_linalg.control_flow import REGION_CONVERTERS
    from lamina.passes.conversion.graph_to_linalg.registry import CONVERTERS

    return {*CONVERTERS, *REGION_CONVERTERS, "placeholder", "save", "constant", "splat"}


class CpuBackend(Backend):
    """Runs what has a linalg converter; lowers the rest where a lowering exists."""

    name = "cpu"
    summary = "the CPU path (linalg, LLVM): lowers only ops without a linalg converter (recurrent layers)"

    def why_unsupported(self, op: OpView) -> str | None:
        return None if op.name in _linalg_converters() else "the CPU path has no linalg converter for it"

    def should_lower(self, op: OpView) -> bool:
        return op.name not in _linalg_converters()
