"""Glow's path from the lowered graph to planned memory: `graph-to-buffers`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lamina.passes.options import option
from lamina.passes.registry import Pipeline, register_pipeline


# Each dealloc right after its buffer's last use, each alloc right before its first.
TIGHTEN_LIFETIMES = ("buffer-hoist-deallocs", "buffer-sink-allocs")


@register_pipeline
@dataclass(frozen=True)
class GraphToBuffers(Pipeline):
    """Schedule the graph, generate buffer instructions, optimize them, plan memory.

    Glow's `Backend::compile` after graph optimization: the scheduler fixes
    the order (and so the lifetimes) IRGen follows, the IR optimizer trims
    buffers and copies, and the allocator places what remains. Legal on a
    graph model whose ops the buffer dialect has instructions for (run
    `graph-optimize` first); the result is a planned buffer module the buffer
    interpreter runs.
    """

    name = "graph-to-buffers"
    summary = "graph-schedule, IRGen, the low-level IR optimizations, then memory allocation"

    scheduler: Literal["memory", "topological"] = option("memory", "the graph scheduler's strategy")

    def stages(self) -> list[str]:
        return [
            f"graph-schedule{{strategy={self.scheduler}}}",
            "convert-graph-to-buffer",
            # Concats become copies into their result's parts, which copy
            # elimination below removes: producers write the parts directly.
            "buffer-lower-concat",
            # IRGen frees every buffer at the end: tight lifetimes first, as the
            # next passes decide from them what may share memory.
            *TIGHTEN_LIFETIMES,
            # An element-wise op writes over the input it reads last: one buffer
            # fewer. `buffer-share` is left out: `buffer-allocate` already reuses
            # dead bytes at any offset, while sharing an alloc merges two
            # lifetimes into one that also spans the gap between them (it
            # triples densenet121's lower bound, 8.4 to 24.5 MB).
            "buffer-inplace",
            # Remove copies: reads of a copy read its source, producers write
            # straight into the model's outputs (IRGen copies into them).
            "buffer-copy-propagation",
            "buffer-eliminate-copies",
            "buffer-dce",
            # Rewrites moved first and last uses: tighten again (as Glow does
            # after its IR optimizations).
            *TIGHTEN_LIFETIMES,
            "buffer-make-weights-const",
            # Last: any later change to the program would make the plan stale.
            "buffer-allocate",
        ]

    def expand(self) -> str:
        return ",".join(self.stages())
