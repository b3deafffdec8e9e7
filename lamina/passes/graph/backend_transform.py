"""graph-backend-transform: the backend's own rewrite of the lowered graph."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.backends import BackendName, backend_named
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class GraphBackendTransform(Pass):
    """Run the backend's `transform_post_lowering` hook on the module.

    Glow's `Backend::transformPostLowering`: after lowering and an optimize
    stage, a backend may rewrite the graph for itself (e.g. swap in
    target-specific ops). What is legal is the backend's business: it must
    keep the model's results. None of Lamina's backends rewrites anything
    yet, so today this pass changes nothing.
    """

    name = "graph-backend-transform"
    summary = "Run the backend's post-lowering transform (Glow's transformPostLowering)"
    op_name = "builtin.module"

    backend: BackendName = option("reference", "the backend whose transform runs")

    def run(self, op: ir.Operation) -> None:
        backend_named(self.backend).transform_post_lowering(op)
