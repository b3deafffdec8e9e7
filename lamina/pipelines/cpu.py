"""The CPU path: graph model -> upstream linalg on tensors -> LLVM dialect, `graph-to-cpu`."""

from __future__ import annotations

from dataclasses import dataclass

from lamina.passes.options import option
from lamina.passes.registry import Pipeline, register_pipeline

# Tensors to memrefs (loops may yield new buffers: control flow). Function boundaries take identity-layout memrefs so the
# executor passes plain NumPy arrays; results become out-parameters the
# caller allocates; intermediate buffers are freed after their last use.
BUFFERIZE = (
    # A tensor.empty whose value is inserted into a bigger tensor (a convolution's position block
    # into the forall's shared output, after canonicalize folded the block's slice of it to an empty;
    # a concatenation's operand) is replaced by that slice, so it is written in place, not copied.
    "eliminate-empty-tensors",
    "one-shot-bufferize{allow-return-allocs-from-loops=true bufferize-function-boundaries=true function-boundary-type-conversion=identity-layout-map}",
    "buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true}",
    "buffer-deallocation-pipeline",
)

# Structured ops to loops, then everything to the LLVM dialect. Integer
# `math.ipowi` has no LLVM lowering: `convert-math-to-funcs` outlines it as a
# square-and-multiply function (the converter never passes it a negative
# exponent, for which that function divides by zero).
LOOPS = (
    "convert-linalg-to-loops",
    "convert-vector-to-scf{full-unroll=true}",
)
TO_LLVM = (
    "expand-strided-metadata",
    "lower-affine",
    "convert-scf-to-cf",
    "convert-vector-to-llvm",
    "finalize-memref-to-llvm",
    "convert-ub-to-llvm",
    "convert-math-to-funcs",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-cf-to-llvm",
    "llvm-loop-annotations",  # cpu-unroll-small-loops-only's annotations onto the LLVM back edges
    "convert-func-to-llvm",
    "reconcile-unrealized-casts",
)


# Threads: the scf.forall loops of `cpu-vectorize{parallel}` become scf.parallel loops, split by the
# async dialect into `threads` blocks the MLIR async runtime's thread pool runs (a loop whose
# iterations make one block runs inline in the caller's thread).
def parallel_loops(threads: int) -> tuple[str, ...]:
    """The parallel loops as calls of block functions through the async dialect (none for one thread)."""
    if threads <= 1:  # (the position blocks of linalg-convolution-to-matmuls are scf.forall loops)
        return ("scf-forall-to-for",)
    return ("scf-forall-to-parallel",
            f"async-parallel-for{{async-dispatch=false num-workers={threads} min-task-size=1}}")


def async_runtime(threads: int) -> tuple[str, ...]:
    """The async dialect as calls into MLIR's async runtime (none for one thread)."""
    if threads <= 1:
        return ()
    return ("async-to-async-runtime", "async-runtime-ref-counting", "async-runtime-ref-counting-opt",
            "convert-async-to-llvm")


@register_pipeline
@dataclass(frozen=True)
class GraphToCpu(Pipeline):
    """Compile a graph model to the LLVM dialect for the ExecutionEngine.

    `convert-graph-to-linalg` gives upstream linalg/tensor/arith/math; the
    rest is upstream MLIR: element-wise fusion, bufferization (function
    arguments are the inputs, then one out-parameter per output), loops and
    LLVM. With `vectorize`, batch-1 2-D convolutions first become matmuls
    (`linalg-convolution-to-matmuls`), then convolutions and matmuls are tiled
    and vectorized (`cpu-vectorize`). Legal on a graph model every op of which
    has a linalg lowering (run `graph-optimize` first: it folds batch norms
    into convolutions and fuses matmul + add).
    """

    name = "graph-to-cpu"
    summary = "convert-graph-to-linalg, fusion, vectorization, bufferization, lowering to the LLVM dialect"

    vectorize: bool = option(True, "convolutions as matmuls, tiled and vectorized (linalg-convolution-to-matmuls, cpu-vectorize)")
    threads: int = option(1, "threads the vectorized convolutions and matmuls run on (1: no threading code)")

    def expand(self) -> str:
        return ",".join(self.stages())

    def stages(self) -> list[str]:
        threads = self.threads if self.vectorize else 1
        return [
            "convert-graph-to-linalg",
            "canonicalize",
            # Before element-wise fusion: its reshape propagation would turn the matmuls
            # convolutions become (between collapse/expand_shapes) into generics.
            *(("linalg-convolution-to-matmuls", "linalg-pooling-to-taps",
               f"cpu-vectorize{{parallel={str(self.threads > 1).lower()}}}")
              if self.vectorize else ()),
            "linalg-fuse-elementwise-ops",
            "canonicalize",
            *BUFFERIZE,
            "cpu-strided-copies",  # before the loops: copies between views as vectorizable loops
            *LOOPS,
            *parallel_loops(threads),
            # LLVM unrolls small constant loop nests (pool windows) only (docs/cpu-path.md, JIT time).
            "cpu-unroll-small-loops-only",
            # After async-parallel-for, so that its block functions are kept out of line too.
            "cpu-outline-loops",
            *async_runtime(threads),
            *TO_LLVM,
        ]
