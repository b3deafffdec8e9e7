"""Glow's graph optimization pipeline as named pipelines: `graph-fold`, `graph-simplify`, `graph-optimize`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from lamina.backends import BackendName
from lamina.quantization.calibration import Calibration, Schema
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
    inlines Ifs whose condition is known, merges reshapes and transposes, folds
    explicit pads into window ops, batch norms and arithmetic by constants into
    convolutions, merges equal ops and erases dead ones.
    Legal anywhere: each pass keeps the model's results.
    """

    name = "graph-simplify"
    summary = "Target-independent graph clean-ups (Glow's optimize stage)"

    def expand(self) -> str:
        return ("graph-remove-identity,graph-sum-to-adds,graph-constant-fold,graph-fold-if,graph-merge-reshapes,"
                "graph-transpose-simplify,graph-fold-pad,graph-fold-batch-norm,graph-fold-arithmetic,graph-cse,"
                "graph-dce")


@register_pipeline
@dataclass(frozen=True)
class GraphOptimize(Pipeline):
    """Glow's `optimizeFunction` for one backend: fold, optimize, lower, optimize,
    backend post-lowering transform, optimize, check support.

    The backend decides what is lowered and what must be supported at the
    end; compilation stops with one error per op it cannot run. Glow's
    precision stage comes right after lowering: `precision=profile` adds
    profiling probes (`graph-profile-instrument`), `precision=int8|int16`
    quantizes from `profile` (`graph-quantize`, which takes the schema,
    calibration, per-channel and keep options), then `fp16` computes what
    is left in f32 in f16 (`graph-convert-to-fp16`); `float` without `fp16`
    changes nothing.
    """

    name = "graph-optimize"
    summary = "The graph pipeline for a backend: fold, simplify, lower, simplify, backend transform, simplify, check"

    backend: BackendName = option("reference", "the backend to optimize for")
    precision: Literal["float", "profile", "int8", "int16"] = option("float", "Glow's precision mode")
    profile: str = option("", "with precision=int8|int16: the profile (lamina-profile) of this graph")
    schema: Schema = option("asymmetric", "with precision=int8|int16: how ranges map to integers")
    calibration: Calibration = option("minmax", "with precision=int8|int16: minmax or kl")
    per_channel: bool = option(False, "with precision=int8|int16: one weight scale per output channel")
    fp16: bool = option(False, "then compute the ops left in f32 in f16 (graph-convert-to-fp16)")
    keep: tuple[str, ...] = option((), "graph op kinds quantization and fp16 leave in f32")
    check_support: bool = option(True, "end with the support check (false: what the backend cannot run stays, "
                                       "for a compiler that gives it to the host)")

    def precision_stage(self) -> list[str]:
        """Glow's transformForPrecisionMode: profiling probes, or quantization then FP16 (mixed precision)."""
        if self.precision == "profile":
            return ["graph-profile-instrument"]
        keep = f" keep={','.join(self.keep)}" if self.keep else ""
        stage = []
        if self.precision in ("int8", "int16"):
            stage.append(f"graph-quantize{{profile={self.profile} precision={self.precision} schema={self.schema} "
                         f"calibration={self.calibration} per-channel={str(self.per_channel).lower()} "
                         f"backend={self.backend}{keep}}}")
        if self.fp16:
            stage.append(f"graph-convert-to-fp16{{{keep.strip()}}}")
        return stage

    def before_precision(self) -> list[str]:
        """The stages before Glow's precision stage: what a profile must be taken after."""
        return ["graph-fold", "graph-simplify", f"graph-lower{{backend={self.backend}}}"]

    def stages(self) -> list[str]:
        """The pipeline's elements in order; the last one is the support check, if it runs."""
        target = f"{{backend={self.backend}}}"
        check = [f"graph-check-support{target}"] if self.check_support else []
        return [*self.before_precision(), *self.precision_stage(), "graph-simplify",
                f"graph-backend-transform{target}", "graph-simplify", *check]

    def expand(self) -> str:
        return ",".join(self.stages())
