"""Position blocks of `linalg-convolution-to-matmuls`: a convolution's taps done block by block, not tap by tap.

One matmul per tap over all output positions rewrote the whole output once
per tap (9 times for a 3x3 convolution): memory-bound as soon as the output
exceeds the L2 cache (VGG's 128 -> 128 layer at 112 x 112: 4.4x
onnxruntime, issue 18). Here the positions are cut into blocks of at most
`BLOCK_BYTES` of output; for each block the bias is broadcast into it, every
tap's matmul accumulates onto it and the epilogue (`epilogue.py`) is
applied, all while the block stays in cache. The blocks are the iterations
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
from mlir.dialects import arith, scf, tensor

from lamina.passes.conversion.graph_to_linalg.builders import generic, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import insert

DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()
# Output bytes per block: a quarter of this machine class's 1-2 MiB L2, leaving room for the input panel.
BLOCK_BYTES = 256 * 1024
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


def padded_blocks(tiles: int, filters: int, tile: int) -> Blocks:
    """Blocks over `tiles` register tiles of `tile` positions, padded up to equal blocks (an even count when
    more than two, so that two threads get equal shares)."""
    per_block = max(1, BLOCK_BYTES // (filters * tile * 4))
    count = _ceil_div(tiles, per_block)
    if count > 2 and count % 2:
        count += 1
    return Blocks(_ceil_div(tiles, count) * tile, count)


def exact_blocks(length: int, filters: int, tile: int) -> Blocks:
    """Blocks over exactly `length` positions: equal blocks of whole tiles, then the whole tiles left over and
    the last positions (fewer than a tile) as pieces of their own."""
    tiles = length // tile
    if tiles == 0:
        return Blocks(length, 1)
    per_block = max(1, BLOCK_BYTES // (filters * tile * 4))
    count = _ceil_div(tiles, per_block)
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
    """The [filters] bias broadcast along positions into `destination` [filters, size]."""
    rows = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0)])
    (result,) = generic([bias], [destination], [rows, ir.AffineMap.get_identity(2)], ["parallel"] * 2,
                        lambda element, _: element)
    return result
