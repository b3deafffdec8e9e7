"""cpu-vectorize: tile each convolution and matmul to static tiles and vectorize them.

After `linalg-convolution-to-matmuls` every hot op is a matmul, tiled 8 x 32
so that its accumulator stays in registers across the reduction. The
transform dialect does the tiling; this pass writes its schedule, because
good tiles depend on each op's shape. Every tile size divides its dimension,
so every tile is static and vectorizes (a partial tile would be dynamic and
stay scalar, and in MLIR 22 canonicalizing such tiles of convolutions
asserts). Only the tiled ops are vectorized: vectorizing whole element-wise
ops would produce vectors of entire tensors that LLVM lowering unrolls into
millions of ops. A convolution's register tile (`convolution_blocks.py`:
bias, tap loops, epilogue on one 8 x 32 accumulator) becomes one vector
value carried through its tap loops (tagged `lamina.tap_loop`) and written
once.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects.transform import interpreter

from lamina.passes.linalg.convolution_blocks import COLUMN_TILE, FILTER_TILE, TAP_LOOP, largest_divisor
from lamina.passes.linalg.convolution_to_matmuls import TAP_SUM
from lamina.passes.linalg.epilogue import EPILOGUE
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

TAG = "lamina.cpu_tile"

# Largest tile per loop of a named op (n, f, oh, ow, c, kh, kw for convolutions
# the matmul rewrite leaves: dilated or batched; m, n, k for matmuls). A 2-D
# convolution tile of 1 row and 1 x 1 taps decomposes to a 1-D one that
# vectorizes along output columns. Matmul tiles are 8 rows x 32 columns (16
# zmm accumulators) x 1: the k loop then carries the accumulator in registers
# once hoisted (256x1024x224: 245 GFLOP/s; 8x16 187-210, 16x16 107-242,
# 4x64 182-249, 16x32 182-231 on the shapes measured).
MAX_TILES = {
    "linalg.conv_2d_nchw_fchw": (1, 8, 1, 16, 8, 1, 1),
    "linalg.matmul": (8, 32, 1),
    "linalg.batch_matmul": (1, 8, 32, 1),
    # A depthwise convolution's tap sum (channels, positions; `TAP_SUM` of
    # linalg-convolution-to-matmuls): per tile, each tap's 32 positions are one
    # load and one FMA with its channel's weight onto the same accumulator.
    TAP_SUM: (1, 32),
    # A register tile's bias and epilogue (`EPILOGUE`): element-wise, on the whole tile (its accumulator).
    EPILOGUE: (FILTER_TILE, COLUMN_TILE),
}
MARKS = (TAP_SUM, EPILOGUE)
RAISE_PATTERNS = (
    "vector.reduction_to_contract",
    "tensor.fold_tensor_subset_ops_into_vector_transfers",
    "vector.transfer_permutation_patterns",
    "vector.cast_away_vector_leading_one_dim",
    "canonicalization",
)
LOWER_PATTERNS = (
    "vector.lower_masked_transfers",
    "vector.lower_contraction lowering_strategy = outerproduct",
    "vector.lower_multi_reduction lowering_strategy = innerparallel",
    "canonicalization",
)
DECOMPOSED = frozenset({"linalg.conv_2d_nchw_fchw"})
# A register tile's accumulator written and read back (bias, taps, epilogue) becomes one value in registers.
FORWARD_PATTERNS = (
    "tensor.fold_tensor_subset_ops_into_vector_transfers",
    "canonicalization",
)
# The tap loops of a register tile nest at most this deep (kernel rows, kernel columns).
TAP_LOOP_DEPTH = 2


def _kind(op: ir.Operation) -> str | None:
    """The `MAX_TILES` key of a target op (its name, or `TAP_SUM` for a marked generic), else None."""
    if op.name == "linalg.generic":
        return next((mark for mark in MARKS if mark in op.attributes), None)
    return op.name if op.name in MAX_TILES else None


def _reduction_loops(op: ir.Operation) -> int:
    """How many trailing loops of `_loop_sizes` reduce (they cannot run in parallel)."""
    if _kind(op) in MARKS:
        return 0
    return 3 if op.name == "linalg.conv_2d_nchw_fchw" else 1


def _loop_sizes(op: ir.Operation) -> list[int]:
    """The iteration domain of a named conv/matmul: result dims, then reduction dims."""
    result = ir.RankedTensorType(op.results[0].type).shape
    if _kind(op) in MARKS:
        return list(result)
    lhs, rhs = (ir.RankedTensorType(v.type).shape for v in op.operands[:2])
    if op.name == "linalg.conv_2d_nchw_fchw":
        return [*result, rhs[1], rhs[2], rhs[3]]
    return [*result, lhs[-1]]


def _parallel_loop(op: ir.Operation, sizes: list[int]) -> int | None:
    """The loop whose tiles run in parallel: the outermost tiled non-reduction loop, or None.

    The outermost keeps the loop order of the sequential schedule (an inner one
    as the forall made LLVM unroll the loops inside it: 4x the code on SqueezeNet).
    """
    parallel = sizes[:len(sizes) - _reduction_loops(op)]
    return next((i for i, tile in enumerate(parallel) if tile), None)


def _inside_forall(op: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name == "scf.forall":
            return True
        parent = parent.parent
    return False


def _schedule(ops: list[ir.Operation], parallel: bool) -> str:
    any_op = "!transform.any_op"
    lines = []
    handles = []  # every tiling loop, outer to inner per op
    for index, op in enumerate(ops):
        # 0: that loop is not tiled (its tile would be the whole dimension).
        sizes = [0 if tile == size else tile
                 for size, tile in ((size, largest_divisor(size, limit))
                                    for size, limit in zip(_loop_sizes(op), MAX_TILES[_kind(op)]))]
        lines.append(f'%op{index} = transform.structured.match ops{{["{op.name}"]}} '
                     f'attributes{{{TAG} = {index} : i64}} in %root : ({any_op}) -> {any_op}')
        target = f"%op{index}"
        # Inside an scf.forall (a convolution's position blocks) the threads already have their shares.
        shared = _parallel_loop(op, sizes) if parallel and not _inside_forall(op) else None
        if shared is not None:  # its register tiles become the iterations of an scf.forall
            forall_sizes = [tile if i == shared else 0 for i, tile in enumerate(sizes)]
            lines.append(f"%threads{index}, %forall{index} = transform.structured.tile_using_forall {target} "
                         f"tile_sizes {forall_sizes} : ({any_op}) -> ({any_op}, {any_op})")
            target = f"%threads{index}"
            sizes = [0 if i == shared else tile for i, tile in enumerate(sizes)]
        loops = sum(1 for tile in sizes if tile)
        results = ", ".join([any_op] * (1 + loops))
        loop_results = f", %loops{index}:{loops}" if loops > 1 else (f", %loops{index}" if loops else "")
        lines.append(f"%tile{index}{loop_results} = transform.structured.tile_using_for {target} "
                     f"tile_sizes {sizes} : ({any_op}) -> ({results})")
        tile = f"%tile{index}"
        if op.name in DECOMPOSED:
            lines.append(f"%small{index} = transform.structured.decompose {tile} : ({any_op}) -> {any_op}")
            tile = f"%small{index}"
        lines.append(f"transform.structured.vectorize {tile} : {any_op}")
        handles.extend(f"%loops{index}#{i}" if loops > 1 else f"%loops{index}" for i in range(loops))
    lines.append(f'%functions = transform.structured.match ops{{["func.func"]}} in %root : ({any_op}) -> {any_op}')
    # First raise the vectorized ops to vector.contract (a matmul vectorizes to
    # broadcast + mul + multi_reduction), then lower contractions to outer-product FMAs.
    for patterns in (RAISE_PATTERNS, LOWER_PATTERNS):
        lines.append("transform.apply_patterns to %functions {\n  "
                     + "\n  ".join(f"transform.apply_patterns.{p}" for p in patterns) + f"\n}} : {any_op}")
    # Keep accumulators in registers across the reduction loops: innermost loops first.
    lines.extend(f"transform.loop.hoist_loop_invariant_subsets {h} : {any_op}" for h in reversed(handles))
    # Then across a register tile's tap loops (`TAP_LOOP`, innermost first), and forward the accumulator
    # from the bias through the taps to the epilogue in registers.
    for depth in reversed(range(TAP_LOOP_DEPTH)):
        lines.append(f'%taps{depth} = transform.structured.match ops{{["scf.for"]}} '
                     f'attributes{{{TAP_LOOP} = {depth} : i64}} in %root : ({any_op}) -> {any_op}')
        lines.append(f"transform.loop.hoist_loop_invariant_subsets %taps{depth} : {any_op}")
    lines.append("transform.apply_patterns to %functions {\n  "
                 + "\n  ".join(f"transform.apply_patterns.{p}" for p in FORWARD_PATTERNS) + f"\n}} : {any_op}")
    body = "\n    ".join(lines)
    return ("module attributes {transform.with_named_sequence} {\n"
            f"  transform.named_sequence @__transform_main(%root: {any_op} {{transform.readonly}}) {{\n"
            f"    {body}\n    transform.yield\n  }}\n}}\n")


@register_pass
@dataclass(frozen=True)
class CpuVectorize(Pass):
    """Tile every 2-D NCHW convolution, matmul, batch matmul and depthwise tap sum (a generic tagged
    `lamina.tap_sum` by linalg-convolution-to-matmuls) to static tiles and vectorize them.

    Tile sizes are the
    largest divisors of each loop's size up to `MAX_TILES`; the remaining
    convolution tiles (one output row, one kernel tap) are decomposed to 1-D
    convolutions first. Other ops are left alone. Legal on upstream linalg
    on tensors (after `convert-graph-to-linalg`; the CPU pipeline runs
    `linalg-convolution-to-matmuls` first, so most convolutions arrive as matmuls).
    """

    name = "cpu-vectorize"
    summary = "tile convolutions and matmuls to static tiles and vectorize them (transform dialect)"

    parallel: bool = option(False, "the register tiles of each op's widest parallel loop as an scf.forall")

    def run(self, op: ir.Operation) -> None:
        targets: list[ir.Operation] = []

        def collect(child: ir.Operation) -> ir.WalkResult:
            if _kind(child) is not None:
                child.attributes[TAG] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), len(targets))
                targets.append(child)
            return ir.WalkResult.ADVANCE

        op.walk(collect)
        if not targets:
            return
        schedule = ir.Module.parse(_schedule(targets, self.parallel))
        entry = next(o for o in schedule.body.operations if o.operation.name == "transform.named_sequence")
        interpreter.apply_named_sequence(op, entry, schedule)

        def untag(child: ir.Operation) -> ir.WalkResult:
            for name in (TAG, TAP_LOOP, *MARKS):
                if name in child.attributes:
                    del child.attributes[name]
            return ir.WalkResult.ADVANCE

        op.walk(untag)
