"""Glow's graph optimization pipeline as named pipelines: `graph-fold`, `graph-simplify`, `graph-optimize`."""

from __future__ import annotations

from dataclasses import dataclass

from lamina.backends import BackendName
from lamina.passes.options import option
from lamina.passes.registry import Pipeline, register_pipeline


@register_pipeline
@dataclass(frozen=True)
class GraphFold(Pipeline):
    """Glow's `fold` stage: raise low-level patterns back into high-level ops.

    Exporters often spell fully-connected layers, layer norms, GELU and swish
    as chains of elementary ops; raising them first lets the later stages
    (and a backend's `should_lower`) treat them as the layers they are.
    Legal anywhere: every raise keeps the model's results.
    """

    name = "graph-fold"
    summary = "Raise matmul+add, layer-norm, GELU and swish patterns into high-level ops, then DCE"

    def expand(self) -> str:
        return ("graph-raise-fully-connected,graph-raise-layer-norm,graph-raise-gelu,graph-raise-swish,"
                "graph-dce")


@register_pipeline
@dataclass(frozen=True)
class GraphSimplify(Pipeline):
    """Glow's `optimize` stage: the target-independent clean-ups, run after every other stage.

    Removes identities, splits sums into adds, computes constant subgraphs,
    merges reshapes and transposes, folds explicit pads into window ops, batch norms and arithmetic by
    constants into convolutions, merges equal ops and erases dead ones.
    Legal anywhere: each pass keeps the model's results.
    """

    name = "graph-simplify"
    summary = "Target-independent graph clean-ups (Glow's optimize stage)"

    def expand(self) -> str:
        return ("graph-remove-identity,graph-sum-to-adds,graph-constant-fold,graph-merge-reshapes,"
                "graph-transpose-simplify,graph-fold-pad,graph-fold-batch-norm,graph-fold-arithmetic,graph-cse,graph-dce")


@register_pipeline
@dataclass(frozen=True)
class GraphOptimize(Pipeline):
    """Glow's `optimizeFunction` for one backend: fold, optimize, lower, optimize,
    backend post-lowering transform, optimize, check support.

    The backend decides what is lowered and what must be supported at the
    end; compilation stops with one error per op it cannot run. Glow's
    precision stage (profiling, quantization, FP16) comes after lowering;
    it is left out until Lamina has quantization.
    """

    name = "graph-optimize"
    summary = "The graph pipeline for a backend: fold, simplify, lower, simplify, backend transform, simplify, check"

    backend: BackendName = option("reference", "the backend to optimize for")

    def stages(self) -> list[str]:
        """The pipeline's elements in order; the last one is the support check."""
        target = f"{{backend={self.backend}}}"
        return ["graph-fold", "graph-simplify", f"graph-lower{target}", "graph-simplify",
                f"graph-backend-transform{target}", "graph-simplify", f"graph-check-support{target}"]

    def expand(self) -> str:
        return ",".join(self.stages())
