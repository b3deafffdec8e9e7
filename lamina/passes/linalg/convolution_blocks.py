"""Position blocks of `linalg-convolution-to-matmuls`: a convolution's taps done block by block, not tap by tap.

One matmul per tap over all output positions rewrote the whole output once
per tap (9 times for a 3x3 convolution): memory-bound as soon as the output
exceeds the L2 cache (VGG's 128 -> 128 layer at 112 x 112: 4.4x
onnxruntime, issue 18). Here the positions are cut into blocks of at most
`BLOCK_BYTES` of output, and each block into register tiles
(`register_tiles`: 8 filters x 32 positions); each tile starts from the
bias, accumulates every tap's matmul and applies the epilogue
(`epilogue.py`) on one accumulator that `cpu-vectorize` keeps in registers
throughout, so the output is written once, with no bias or epilogue pass
over it (ResNet's 512 -> 512 1x1 layer on 28 x 28: 1.27x -> 1.14x
onnxruntime). The blocks are the iterations
of an `scf.forall` (the threads of `graph-to-cpu{threads}` share them out;
with one thread it becomes a loop), so a large layer runs on every core with
one dispatch, not one per tap. Every block has the same static size (the
matmuls inside stay static and vectorize): the positions are padded up to a
whole number of blocks, or, when the input is read as it is (an unpadded
1x1 convolution), the positions past the last whole block are one more
block of whole register tiles and one of the last few positions, after the
loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from lamina.passes.conversion.graph_to_linalg.builders import filled, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import insert

DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()
# Output bytes per block: a quarter of this machine class's 1-2 MiB L2, leaving room for the input panel.
BLOCK_BYTES = 256 * 1024
# A single-tap (1x1) convolution writes its output once anyway: blocks only share it out to the threads, and
# small ones cost (ResNet-50's 1x1 256 -> 64 on 56 x 56: 1.92 ms in 7 blocks, 1.50 ms in one).
SINGLE_TAP_BLOCK_BYTES = 2 << 20
Offset = Union[int, ir.Value]


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class Blocks:
    """`count` blocks of `size` positions from 0, then `rest`: (start, size) pieces after them, in order."""

    size: int
    count: int
    rest: tuple[tuple[int, int], ...] = ()

    @property
    def length(self) -> int:
        return self.size * self.count + sum(size for _, size in self.rest)


def _tiles_per_block(filters: int, tile: int, taps: int) -> int:
    return max(1, (BLOCK_BYTES if taps > 1 else SINGLE_TAP_BLOCK_BYTES) // (filters * tile * 4))


def padded_blocks(tiles: int, filters: int, tile: int, taps: int) -> Blocks:
    """Blocks over `tiles` register tiles of `tile` positions, padded up to equal blocks (an even count when
    more than two, so that two threads get equal shares)."""
    per_block = _tiles_per_block(filters, tile, taps)
    count = _ceil_div(tiles, per_block)
    if count > 2 and count % 2:
        count += 1
    return Blocks(_ceil_div(tiles, count) * tile, count)


def exact_blocks(length: int, filters: int, tile: int, taps: int) -> Blocks:
    """Blocks over exactly `length` positions: equal blocks of whole tiles, then the whole tiles left over and
    the last positions (fewer than a tile) as pieces of their own."""
    tiles = length // tile
    if tiles == 0:
        return Blocks(length, 1)
    per_block = _tiles_per_block(filters, tile, taps)
    fewest = _ceil_div(tiles, per_block)
    # Up to twice the fewest blocks, a count that divides the tiles leaves nothing over (even first: two threads).
    divisors = [c for c in range(fewest, min(2 * fewest, tiles) + 1) if tiles % c == 0]
    count = next((c for c in divisors if c % 2 == 0 or c == 1), divisors[0] if divisors else fewest)
    size = tiles // count * tile
    rest = []
    if size * count < tiles * tile:
        rest.append((size * count, tiles * tile - size * count))
    if tiles * tile < length:
        rest.append((tiles * tile, length - tiles * tile))
    return Blocks(size, count, tuple(rest))


def slice_at(value: ir.Value, offsets: list[Offset], sizes: list[int]) -> ir.Value:
    """value[offsets : offsets + sizes] (unit strides), offsets constant or index values."""
    static = [o if isinstance(o, int) else DYNAMIC for o in offsets]
    dynamic = [o for o in offsets if not isinstance(o, int)]
    result_type = ir.RankedTensorType.get(list(sizes), tensor_type(value.type).element_type)
    return tensor.extract_slice(result_type, value, dynamic, [], [], static, list(sizes), [1] * len(sizes))


def shifted(start: Offset, offset: int) -> Offset:
    """start + offset, folded when both are constants."""
    if isinstance(start, int):
        return start + offset
    return start if offset == 0 else arith.addi(start, arith.constant(ir.IndexType.get(), offset))


# piece(destination [filters, size], start, size) -> the block's result, written into the destination.
Piece = Callable[[ir.Value, Offset, int], ir.Value]


def over_blocks(blocks: Blocks, filters: int, element: ir.Type, piece: Piece) -> ir.Value:
    """[filters, blocks.length]: `piece` for every block (in an `scf.forall` when there are several) and every
    rest piece after it."""
    result = tensor.empty([filters, blocks.length], element)
    if blocks.count == 1 and not blocks.rest:
        return piece(result, 0, blocks.size)
    if blocks.count == 1:
        result = insert(piece(slice_at(result, [0, 0], [filters, blocks.size]), 0, blocks.size), result, [0, 0])
    else:
        loop = scf.ForallOp([0], [blocks.count], [1], shared_outs=[result])
        with ir.InsertionPoint(loop.body):
            (index,), (shared,) = loop.induction_variables, loop.inner_iter_args
            start = arith.muli(index, arith.constant(ir.IndexType.get(), blocks.size))
            block = piece(slice_at(shared, [0, start], [filters, blocks.size]), start, blocks.size)
            terminator = loop.terminator()
            with ir.InsertionPoint(terminator.region.blocks[0]):
                tensor.parallel_insert_slice(block, shared, [start], [], [], [0, DYNAMIC], [filters, blocks.size],
                                             [1, 1])
        result = loop.results[0]
    for start, size in blocks.rest:
        result = insert(piece(slice_at(result, [0, start], [filters, size]), start, size), result, [0, start])
    return result


def bias_into(bias: ir.Value, destination: ir.Value) -> ir.Value:
    """The [filters] bias broadcast along positions into `destination` [filters, size] (a register tile's
    accumulator), as the outer product bias x ones: `cpu-vectorize` makes it one `vector.outerproduct`, a
    broadcast per filter (vectorizing a broadcast generic on the tile gave a vector transpose, which LLVM
    lowering unrolled element by element: twice the code of SqueezeNet)."""
    filters, size = tensor_type(destination.type).shape
    element = tensor_type(destination.type).element_type
    column = tensor.expand_shape(ir.RankedTensorType.get([filters, 1], element), bias, [[0, 1]], [], [filters, 1])
    ones = filled(ir.RankedTensorType.get([1, size], element), 1.0)
    return linalg.matmul(column, ones, outs=[filled(tensor_type(destination.type), 0.0)])


@dataclass(frozen=True)
class TapGrid:
    """The kernel taps that read one stride phase: rows `i0 + i_step * ii`, columns `j0 + j_step * jj`, whose
    positions start at offset (row_offset + row_step * ii) * wq + column_offset + column_step * jj of it."""

    flat: ir.Value  # the phase, [channels, positions]
    i0: int
    i_step: int
    rows: int
    j0: int
    j_step: int
    columns: int
    offset: int
    row_step: int  # (times wq)
    column_step: int


def tap_grid(flat: ir.Value, kernel_rows: list[int], kernel_columns: list[int], row_offset, column_offset,
             wq: int) -> TapGrid | None:
    """The grid of taps (kernel rows x columns, each an arithmetic progression) reading `flat`, with their
    offsets (`row_offset(i)`, `column_offset(j)`) affine in the position in the grid; None if they are not."""
    def progression(values: list[int], offset) -> tuple[int, int, int] | None:
        step = values[1] - values[0] if len(values) > 1 else 0
        offset_step = offset(values[1]) - offset(values[0]) if len(values) > 1 else 0
        if any(v != values[0] + step * k or offset(v) != offset(values[0]) + offset_step * k
               for k, v in enumerate(values)):
            return None
        return values[0], step, offset_step

    rows, columns = progression(kernel_rows, row_offset), progression(kernel_columns, column_offset)
    if rows is None or columns is None:
        return None
    return TapGrid(flat, rows[0], rows[1], len(kernel_rows), columns[0], columns[1], len(kernel_columns),
                   row_offset(rows[0]) * wq + column_offset(columns[0]), rows[2] * wq, columns[2])


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _affine(base: int, step: int, index: ir.Value | None) -> ir.Value:
    """base + step * index (base alone without an index), as index arithmetic."""
    return _index(base) if index is None else arith.addi(_index(base), arith.muli(index, _index(step)))


def _loop_nest(counts: list[int], accumulator: ir.Value, body, mark: str | None = None, depth: int = 0) -> ir.Value:
    """`body(indices, accumulator)` in an `scf.for` nest over `counts` carrying the accumulator; a count of 1
    is no loop (its index None). With `mark`, each loop carries that attribute: its depth in the nest."""
    if not counts:
        return body([], accumulator)
    if counts[0] == 1:
        return _loop_nest(counts[1:], accumulator, lambda indices, value: body([None, *indices], value), mark, depth)
    loop = scf.ForOp(_index(0), _index(counts[0]), _index(1), [accumulator])
    if mark:
        loop.operation.attributes[mark] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), depth)
    with ir.InsertionPoint(loop.body):
        variable = loop.induction_variable
        yielded = _loop_nest(counts[1:], loop.inner_iter_args[0],
                             lambda indices, value: body([variable, *indices], value), mark, depth + 1)
        scf.YieldOp([yielded])
    return loop.results[0]


def offset_sum(a: Offset, b: Offset) -> Offset:
    """a + b, folded when both are constants."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(b, int):
        return shifted(a, b)
    return shifted(b, a) if isinstance(a, int) else arith.addi(a, b)


# The register tile of `cpu-vectorize`'s matmuls: up to 8 filters x 32 positions (16 zmm accumulators); a
# convolution's flattened output positions are padded to a multiple of COLUMN_TILE.
FILTER_TILE = 8
COLUMN_TILE = 32
# Marks the tap loops inside a register tile (value: depth in the nest) for `cpu-vectorize`, which keeps the
# tile's accumulator in registers across them.
TAP_LOOP = "lamina.tap_loop"


def largest_divisor(size: int, limit: int) -> int:
    """The largest tile <= limit that divides size (a static tile, 1 at worst; also cpu-vectorize's)."""
    return next(t for t in range(min(size, limit), 0, -1) if size % t == 0)


# tile(first filter, first position, filters, positions) -> that register tile's result [filters, positions].
Tile = Callable[[Offset, Offset, int, int], ir.Value]


def register_tiles(destination: ir.Value, tile: Tile) -> ir.Value:
    """`destination` [filters, size] written register tile by register tile (an `scf.for` nest over filter
    tiles, then position tiles), each `tile(...)` inserted where it belongs: the taps, bias and epilogue of a
    tile all run on its accumulator, which `cpu-vectorize` keeps in registers, and the output is written once."""
    filters, size = tensor_type(destination.type).shape
    rows = largest_divisor(filters, FILTER_TILE)
    columns = COLUMN_TILE if size % COLUMN_TILE == 0 else size

    def one(indices: list[ir.Value | None], accumulated: ir.Value) -> ir.Value:
        m, n = (0 if index is None else arith.muli(index, _index(step))
                for index, step in zip(indices, (rows, columns)))
        result = tile(m, n, rows, columns)
        static = [o if isinstance(o, int) else DYNAMIC for o in (m, n)]
        dynamic = [o for o in (m, n) if not isinstance(o, int)]
        return tensor.insert_slice(result, accumulated, dynamic, [], [], static, [rows, columns], [1, 1])

    return _loop_nest([filters // rows, size // columns], destination, one)


def grid_matmuls(weights: ir.Value, grid: TapGrid, start: Offset, size: int, result: ir.Value,
                 first_filter: Offset = 0) -> ir.Value:
    """One matmul per tap of `grid` (filter tap [filters, channels] of `weights` [kh, kw, filters, channels],
    the result's rows from `first_filter`, by the tap's slice [channels, size] of the phase from `start`)
    onto `result`, in an `scf.for` nest over the grid's rows and columns (marked `TAP_LOOP`): one copy of the
    matmul's code per phase, not one per tap (the JIT's time grows with the code)."""
    channels = tensor_type(weights.type).shape[3]
    filters = tensor_type(result.type).shape[0]
    element = tensor_type(weights.type).element_type

    def tap_matmul(indices: list[ir.Value | None], accumulator: ir.Value) -> ir.Value:
        ii, jj = indices
        i, j = _affine(grid.i0, grid.i_step, ii), _affine(grid.j0, grid.j_step, jj)
        offsets = [i, j, first_filter, 0]
        tap = tensor.extract_slice(ir.RankedTensorType.get([filters, channels], element), weights,
                                   [o for o in offsets if not isinstance(o, int)], [], [],
                                   [o if isinstance(o, int) else DYNAMIC for o in offsets],
                                   [1, 1, filters, channels], [1, 1, 1, 1])
        position = _affine(grid.offset, grid.row_step, ii)
        if jj is not None:
            position = arith.addi(position, arith.muli(jj, _index(grid.column_step)))
        if not (isinstance(start, int) and start == 0):
            position = arith.addi(position, _index(start) if isinstance(start, int) else start)
        columns = slice_at(grid.flat, [0, position], [channels, size])
        return linalg.matmul(tap, columns, outs=[accumulator])

    return _loop_nest([grid.rows, grid.columns], result, tap_matmul, TAP_LOOP)
