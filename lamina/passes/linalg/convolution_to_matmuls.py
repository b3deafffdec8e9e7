"""linalg-convolution-to-matmuls: 2-D convolutions as one matmul per kernel tap, in a loop over the images.

Grouped convolutions become batch matmuls over the groups, depthwise ones a
vectorizable sum of tap slices times per-channel weights (ShuffleNet: 20 ms
-> 8.6 ms, docs/cpu-path.md).

A convolution over NCHW reads each input pixel once per tap through a
window; as matmuls on flattened output positions every tap reads a
contiguous slice of the (padded, phase-split) input, which the matmul
tiling of `cpu-vectorize` turns into register-tiled FMAs. Measured on
ResNet-50's layers on this 2-core AVX-512 machine (docs/cpu-path.md): the
convolutions went from 313 ms (direct, vectorized) to 67 ms, then to
layers at 130-210 GFLOP/s with explicit copies for padding and gathers.

Quantized convolutions (i8 data and filter onto an i32 init, what
`convert-graph-to-linalg` writes for `!quant.uniform` layers) take the same
route on operands sign-extended to i32 first (the filter at compile time;
why: `builders.sign_extended`).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, linalg, math, scf, tensor

from lamina.passes.conversion.graph_to_linalg.builders import (broadcast_along, dims, generic, is_float,
                                                               multiply_accumulate, pad, tensor_type)
from lamina.passes.conversion.graph_to_linalg.shape_ops import collapse, expand, extract, insert
from lamina.passes.linalg.convolution_blocks import (COLUMN_TILE, Blocks, TapGrid, bias_into, exact_blocks,
                                                     grid_matmuls, largest_divisor, offset_sum, over_blocks,
                                                     padded_blocks, register_tiles, shifted, slice_at, tap_grid)
from lamina.passes.linalg.convolution_operands import constant_elements, taps_first, ungrouped, widened, zero_padding
from lamina.passes.conversion.graph_to_linalg.shape_ops import copy_into
from lamina.passes.linalg.phases import flat_phases, phase_taps, zero_padded
from lamina.passes.linalg.epilogue import (Epilogue, apply_epilogue, contiguous, epilogue_after, erase_chain,
                                          flattened_others)
from lamina.passes.registry import Pass, register_pass

DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()

# With fewer input channels than this, the taps are gathered into one
# [taps x channels, positions] operand (im2col of contiguous slices) and one
# matmul: one matmul per tap would reduce over only a few channels.
GATHER_CHANNELS = 16


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# The convolutions this pass rewrites, and the rank of their filters' leading (non-kernel) dims.
CONVOLUTIONS = {
    "linalg.conv_2d_nchw_fchw": 2,  # [filters, channels, kh, kw]
    "linalg.conv_2d_ngchw_gfchw": 3,  # [groups, filters per group, channels per group, kh, kw]
    "linalg.depthwise_conv_2d_nchw_chw": 1,  # [channels, kh, kw]: one channel and one filter per group
}
# A stride-1 unpadded 1x1 convolution reads its input as it is (no padded copy) when the positions
# beyond the last multiple of COLUMN_TILE (done by a second, narrower matmul) are at most 1/this of them.
POINTWISE_TAIL = 8
# (data, filter, init) element types rewritten: float, and quantized layers' i8 x i8 -> i32.
REWRITTEN_TYPES = frozenset({("f32", "f32", "f32"), ("i8", "i8", "i32")})
# Marks the depthwise tap-sum generic for `cpu-vectorize` (which tiles it along positions).
TAP_SUM = "lamina.tap_sum"
# Grouped convolutions: filters per group are padded with zero filters to a multiple of this when
# the matmul tile (largest divisor up to 8 rows) would otherwise be below MIN_ROW_TILE (34 -> 40, not 2).
FILTER_ROWS = 8
MIN_ROW_TILE = 4


def _convolution_as_matmuls(kind: str, data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int],
                            dilations: list[int], pads: tuple[int, int], epilogue: Epilogue | None = None) -> ir.Value:
    """A batch-1 2-D convolution as matmuls [filters, channels] x [channels, positions] (per group).

    The padded input is split into stride x stride phases (phase (a, b) holds
    rows a, a + sh, ... and columns b, b + sw, ...; one phase when the stride
    is 1), each of width `wq` = output width + extra columns, and flattened.
    Kernel tap (i, j) reads input row sh * y + dh * i: phase (dh i mod sh,
    dw j mod sw) at row offset u = dh i div sh and column offset v = dw j div sw,
    so for output position p = row * wq + column it reads element p + u wq + v
    of its phase: a contiguous slice of the flattened phase, and the
    convolution is one matmul per tap (filter tap [filters, channels] x that
    slice) accumulating onto the bias, on `length` positions (output rows x
    wq, padded to COLUMN_TILE; the extra columns and positions are computed
    and dropped). With few channels the tap slices are stacked into one
    operand and one matmul does all taps. A grouped convolution does the same
    with batch matmuls over the groups ([groups, filters, channels] x
    [groups, channels, positions]); a depthwise one is one element-wise
    generic summing each tap slice times its per-channel weight (`TAP_SUM`).
    An ungrouped convolution does its taps block by block of positions
    (`convolution_blocks.py`), each block followed by `epilogue` (the
    element-wise ops after the convolution, `epilogue.py`).
    `data` is the unpadded input, `pads` its top and left padding (zeros; the
    bottom and right ones follow from the output size), `init` the
    convolution's init.
    """
    element = tensor_type(data.type).element_type
    _, channels, height, width = tensor_type(data.type).shape
    filter_shape = list(tensor_type(filter_.type).shape)
    kh, kw = filter_shape[-2:]
    oh, ow = tensor_type(init.type).shape[2:]
    (sh, sw), (dh, dw) = strides, dilations
    span_h, span_w = dh * (kh - 1) // sh, dw * (kw - 1) // sw  # largest row and column offsets in a phase
    wq = ow + span_w
    length = _ceil_div(oh * wq, COLUMN_TILE) * COLUMN_TILE
    rows = max(oh + span_h, _ceil_div(length + span_h * wq + span_w, wq))
    pointwise = _pointwise(kind, data, [kh, kw], strides, pads, oh * ow)
    if pointwise:  # the input as it is: no padded copy, no cropped output (`_matmuls` splits off a tail)
        length, rows = oh * ow, oh
    blocks = None
    if kind == "linalg.conv_2d_nchw_fchw":
        blocks = exact_blocks(length, filter_shape[0], COLUMN_TILE, kh * kw) if pointwise else \
            padded_blocks(length // COLUMN_TILE, filter_shape[0], COLUMN_TILE, kh * kw)
        length = blocks.length
        rows = oh if pointwise else max(oh + span_h, _ceil_div(length + span_h * wq + span_w, wq))
    group, per_group, padded_filters = 1, channels, filter_shape[0]
    if kind == "linalg.conv_2d_ngchw_gfchw":
        group, filters_per_group, per_group = filter_shape[:3]
        padded_filters = filters_per_group
        if largest_divisor(filters_per_group, FILTER_ROWS) < MIN_ROW_TILE and constant_elements(filter_) is not None:
            padded_filters = _ceil_div(filters_per_group, FILTER_ROWS) * FILTER_ROWS
    weights = taps_first(filter_, padded_filters)  # [kh, kw, *tap]
    tap_shape = list(tensor_type(weights.type).shape[2:])
    # The input, padded (or cropped: rows and columns no tap reads) to [channels, sh rows, sw wq], in phases.
    image = collapse(data, [channels, height, width], [[0, 1], [2], [3]])
    phases = flat_phases(image, pads, rows, wq, [kh, kw], strides, dilations)
    if kind == "linalg.conv_2d_ngchw_gfchw":
        phases = {key: expand(flat, [group, per_group, rows * wq], [[0, 1], [2]]) for key, flat in phases.items()}
    taps: list[tuple[ir.Value, ir.Value, int]] = []  # (filter tap, flat phase, offset of the tap's positions)
    for phase, i, j, offset in phase_taps([kh, kw], strides, dilations, wq):
        tap = tensor.extract_slice(ir.RankedTensorType.get(tap_shape, element), weights, [], [], [],
                                   [i, j] + [0] * len(tap_shape), [1, 1, *tap_shape], [1] * (2 + len(tap_shape)))
        taps.append((tap, phases[phase], offset))
    if blocks is not None:
        grids = [tap_grid(flat, [i for i in range(kh) if dh * i % sh == a], [j for j in range(kw) if dw * j % sw == b],
                          lambda i: dh * i // sh, lambda j: dw * j // sw, wq) for (a, b), flat in phases.items()]
        return _cropped(_blocked_taps(taps, weights, grids, init, wq, blocks, epilogue), oh, ow, wq)
    lead = [group] if kind == "linalg.conv_2d_ngchw_gfchw" else []
    slices = [(tap, extract(flat, [0] * len(lead) + [0, offset], [*lead, per_group, length]))
              for tap, flat, offset in taps]
    if kind == "linalg.depthwise_conv_2d_nchw_chw":
        result = _tap_sum(slices, _positions_init(init, wq, length))
        return _cropped(result, oh, ow, wq)
    if kind == "linalg.conv_2d_ngchw_gfchw":
        result = _grouped_positions_init(init, group, padded_filters, wq, length)
        for tap, columns in slices:
            result = _group_matmuls(tap, columns, result)
        return _grouped_cropped(result, filter_shape[1], oh, ow, wq)
    raise AssertionError(f"{kind}: not a grouped or depthwise convolution")


def _blocked_taps(taps: list[tuple[ir.Value, ir.Value, int]], weights: ir.Value, grids: list[TapGrid | None],
                  init: ir.Value, wq: int, blocks: Blocks, epilogue: Epilogue | None) -> ir.Value:
    """An ungrouped convolution's [filters, positions] (rows of wq): per block of positions, per register tile
    (`register_tiles`) the init, one matmul per tap (looping over each phase's `grids` of taps; or, with few
    channels, one matmul on the taps' slices stacked) and the epilogue, all on the tile's accumulator."""
    filters, channels = tensor_type(taps[0][0].type).shape
    element = tensor_type(init.type).element_type
    bias = _broadcast_bias(init)
    full_init = None if bias is not None else _positions_init(init, wq, blocks.length)
    stacked = None
    if channels < GATHER_CHANNELS and len(taps) > 1:
        stacked = tensor.empty([filters, len(taps) * channels], element)
        for index, (tap, _, _) in enumerate(taps):
            stacked = insert(tap, stacked, [0, index * channels])
    epilogue = epilogue or Epilogue(init, [], [])
    others = flattened_others(epilogue)

    def piece(destination: ir.Value, start, size: int) -> ir.Value:
        gathered = None
        if stacked is not None:
            gathered = tensor.empty([len(taps) * channels, size], element)
            for index, (_, flat, offset) in enumerate(taps):
                part = slice_at(flat, [0, shifted(start, offset)], [channels, size])
                gathered = copy_into(part, gathered, [index * channels, 0])

        def tile(first: ir.Value | int, at: ir.Value | int, rows: int, columns: int) -> ir.Value:
            position = offset_sum(start, at)
            accumulator = tensor.empty([rows, columns], element)
            if bias is not None:
                accumulator = bias_into(slice_at(bias, [first], [rows]), accumulator)
            else:
                accumulator = linalg.copy(slice_at(full_init, [first, position], [rows, columns]), outs=[accumulator])
            if gathered is not None:
                accumulator = linalg.matmul(slice_at(stacked, [first, 0], [rows, len(taps) * channels]),
                                            slice_at(gathered, [0, at], [len(taps) * channels, columns]),
                                            outs=[accumulator])
            elif all(grids):
                for grid in grids:
                    accumulator = grid_matmuls(weights, grid, position, columns, accumulator, first)
            else:
                for tap, flat, offset in taps:
                    accumulator = linalg.matmul(slice_at(tap, [first, 0], [rows, channels]),
                                                slice_at(flat, [0, offset_sum(position, offset)], [channels, columns]),
                                                outs=[accumulator])
            return apply_epilogue(epilogue, accumulator, others, position,
                                  lambda flat, offset, width: slice_at(flat, [first, offset], [rows, width]))

        return register_tiles(destination, tile)

    return over_blocks(blocks, filters, element, piece)


def _group_matmuls(lhs: ir.Value, rhs: ir.Value, result: ir.Value) -> ir.Value:
    """result[g] += lhs[g] x rhs[g] for each group g, as plain matmuls in an `scf.for` over the groups.

    (A `linalg.batch_matmul` tile [1, 8, 32, 1] does not raise to an outer
    product: it was scalarized, 256 multiplies and adds per channel, and its
    code made most of ShuffleNet's JIT time.)
    """
    groups, rows, length = tensor_type(result.type).shape
    channels = tensor_type(lhs.type).shape[2]
    element = tensor_type(result.type).element_type
    index = ir.IndexType.get()
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, groups), arith.constant(index, 1), [result])
    with ir.InsertionPoint(loop.body):
        group, (accumulated,) = loop.induction_variable, loop.inner_iter_args

        def of_group(value: ir.Value, shape: list[int]) -> ir.Value:
            return tensor.extract_slice(ir.RankedTensorType.get(shape, element), value, [group], [], [],
                                        [DYNAMIC, 0, 0], [1, *shape], [1, 1, 1])

        part = _matmuls(linalg.matmul, of_group(lhs, [rows, channels]), of_group(rhs, [channels, length]),
                        of_group(accumulated, [rows, length]))
        scf.YieldOp([tensor.insert_slice(part, accumulated, [group], [], [], [DYNAMIC, 0, 0], [1, rows, length],
                                         [1, 1, 1])])
    return loop.results[0]


def _pointwise(kind: str, data: ir.Value, kernel: list[int], strides: list[int], pads: tuple[int, int],
               positions: int) -> bool:
    """Whether a convolution reads its (unpadded) input as it is, its positions exactly the output's: a
    stride-1 unpadded 1x1 one whose tail past the last whole register tile is small (`POINTWISE_TAIL`)."""
    return ((*kernel, *strides, *pads) == (1, 1, 1, 1, 0, 0) and kind != "linalg.depthwise_conv_2d_nchw_chw"
            and positions % COLUMN_TILE * POINTWISE_TAIL <= positions and contiguous(data))


def _epilogue(convolution: ir.Operation) -> Epilogue | None:
    """The element-wise ops a batch-1 ungrouped f32 convolution can apply per block (`epilogue.py`), if any."""
    if convolution.name != "linalg.conv_2d_nchw_fchw" or _element_types(convolution) != ("f32",) * 3:
        return None
    data, pads = zero_padding(convolution.operands[0])
    result_shape = tensor_type(convolution.results[0].type).shape
    if result_shape[0] != 1:
        return None
    kernel = tensor_type(convolution.operands[1].type).shape[2:]
    strides = list(ir.DenseIntElementsAttr(convolution.attributes["strides"]))
    dense = _pointwise(convolution.name, data, kernel, strides, pads, result_shape[2] * result_shape[3])
    epilogue = epilogue_after(convolution.results[0], dense)
    return epilogue if epilogue.chain else None


def _matmuls(matmul, lhs: ir.Value, rhs: ir.Value, result: ir.Value) -> ir.Value:
    """`matmul` of lhs by rhs onto result; positions beyond the last multiple of COLUMN_TILE (an
    unpadded pointwise convolution's) in a second matmul on slices, so the first keeps full tiles."""
    length = tensor_type(rhs.type).shape[-1]
    main = length // COLUMN_TILE * COLUMN_TILE
    if main in (0, length):
        return matmul(lhs, rhs, outs=[result])
    for start, size in ((0, main), (main, length - main)):
        lead_r, lead_o = tensor_type(rhs.type).shape[:-1], tensor_type(result.type).shape[:-1]
        offsets_r, offsets_o = [0] * len(lead_r) + [start], [0] * len(lead_o) + [start]
        part = matmul(lhs, extract(rhs, offsets_r, [*lead_r, size]),
                      outs=[extract(result, offsets_o, [*lead_o, size])])
        result = insert(part, result, offsets_o)
    return result


def _cropped(result: ir.Value, oh: int, ow: int, wq: int) -> ir.Value:
    """[filters, positions] (rows of wq) as the convolution's [1, filters, oh, ow] (slices the consumer reads)."""
    filters, length = tensor_type(result.type).shape
    if length != oh * wq:
        result = extract(result, [0, 0], [filters, oh * wq])
    grid = expand(result, [filters, oh, wq], [[0], [1, 2]])
    if wq != ow:
        grid = extract(grid, [0, 0, 0], [filters, oh, ow])
    return expand(grid, [1, filters, oh, ow], [[0, 1], [2], [3]])


def _grouped_cropped(result: ir.Value, filters: int, oh: int, ow: int, wq: int) -> ir.Value:
    """[groups, padded filters, positions] as [1, groups x filters, oh, ow].

    Without padded filters the groups' rows stay collapsible and the consumer
    reads through slices; with them the kept rows are copied out first.
    """
    group, padded_filters, _ = tensor_type(result.type).shape
    element = tensor_type(result.type).element_type
    kept = extract(result, [0, 0, 0], [group, filters, oh * wq])
    grid = extract(expand(kept, [group, filters, oh, wq], [[0], [1], [2, 3]]), [0, 0, 0, 0],
                  [group, filters, oh, ow])
    if padded_filters != filters:
        grid = linalg.copy(grid, outs=[tensor.empty([group, filters, oh, ow], element)])
    flat = collapse(grid, [group * filters, oh, ow], [[0, 1], [2], [3]])
    return expand(flat, [1, group * filters, oh, ow], [[0, 1], [2], [3]])


def _tap_sum(slices: list[tuple[ir.Value, ir.Value]], init: ir.Value) -> ir.Value:
    """init + sum over taps of weight[c] * slice[c, p]: one element-wise generic of fused
    multiply-adds, tagged `TAP_SUM`."""
    identity = ir.AffineMap.get_identity(2)
    per_channel = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0)])
    inputs = [columns for _, columns in slices] + [tap for tap, _ in slices]
    maps = [identity] * len(slices) + [per_channel] * len(slices) + [identity]
    (result,) = generic(inputs, [init], maps, ["parallel", "parallel"], _fused_sum(len(slices)))
    result.owner.attributes[TAP_SUM] = ir.UnitAttr.get()
    return result


def _fused_sum(count: int):
    """The tap sum's body: fused multiply-adds of floats, multiply and add of (widened) integers."""
    def body(*arguments: ir.Value) -> ir.Value:
        columns, taps, accumulator = arguments[:count], arguments[count:2 * count], arguments[-1]
        for x, w in zip(columns, taps):
            accumulator = math.fma(x, w, accumulator) if is_float(accumulator.type) else \
                multiply_accumulate(x, w, accumulator)
        return accumulator
    return body


def _broadcast_bias(init: ir.Value) -> ir.Value | None:
    """The [filters] vector when `init` [1, filters, oh, ow] is its broadcast (what convert-graph-to-linalg writes)."""
    filters = tensor_type(init.type).shape[1]
    owner = init.owner
    if (isinstance(owner, ir.OpView) and owner.operation.name == "linalg.generic" and len(owner.operation.operands) == 2
            and tensor_type(owner.operation.operands[0].type).shape == [filters]
            and str(owner.operation.attributes["indexing_maps"][0]) == "affine_map<(d0, d1, d2, d3) -> (d1)>"):
        block = owner.operation.regions[0].blocks[0]
        yielded = list(block.operations)[-1].operands[0]
        if yielded == block.arguments[0]:
            return owner.operation.operands[0]
    return None


def _positions_init(init: ir.Value, wq: int, length: int) -> ir.Value:
    """The convolution's init [1, filters, oh, ow] as [filters, length] (rows of wq positions).

    A broadcast bias (what convert-graph-to-linalg writes) is broadcast again
    into the new shape; any other init is padded with zeros.
    """
    init_type = tensor_type(init.type)
    _, filters, oh, ow = init_type.shape
    target = ir.RankedTensorType.get([filters, length], init_type.element_type)
    bias = _broadcast_bias(init)
    if bias is not None:
        return broadcast_along(bias, target, 0)
    grid = pad(collapse(init, [filters, oh, ow], [[0, 1], [2], [3]]), [0, 0, 0], [0, 0, wq - ow], 0)
    return pad(collapse(grid, [filters, oh * wq], [[0], [1, 2]]), [0, 0], [0, length - oh * wq], 0)


def _grouped_positions_init(init: ir.Value, group: int, padded_filters: int, wq: int, length: int) -> ir.Value:
    """The init [1, groups x filters, oh, ow] as [groups, padded filters, length] (zero rows and columns added)."""
    init_type = tensor_type(init.type)
    element = init_type.element_type
    _, filters, oh, ow = init_type.shape
    per_group = filters // group
    bias = _broadcast_bias(init)
    if bias is not None:
        rows = zero_padded(expand(bias, [group, per_group], [[0, 1]]), [0, 0], [group, padded_filters])
        identity, leading = ir.AffineMap.get_identity(3), ir.AffineMap.get(3, 0, dims(0, 1))
        (result,) = generic([rows], [tensor.empty([group, padded_filters, length], element)], [leading, identity],
                            ["parallel"] * 3, lambda element_, _: element_)
        return result
    grid = expand(collapse(init, [filters, oh, ow], [[0, 1], [2], [3]]), [group, per_group, oh, ow],
                  [[0, 1], [2], [3]])
    grid = zero_padded(grid, [0, 0, 0, 0], [group, padded_filters, oh, wq])
    flat = collapse(grid, [group, padded_filters, oh * wq], [[0], [1], [2, 3]])
    return zero_padded(flat, [0, 0, 0], [group, padded_filters, length])


def _element_types(convolution: ir.Operation) -> tuple[str, str, str]:
    """(data, filter, init) element types of a convolution, as text."""
    return tuple(str(tensor_type(v.type).element_type) for v in convolution.operands[:3])


def _per_image(data: ir.Value, init: ir.Value, convolve) -> ir.Value:
    """`convolve(image, its init)` for each image of a batch, in an `scf.for` over the images: one copy of the
    matmuls, not one per image (a batch-32 training step's IR grew to 40 MB and took minutes to compile)."""
    index = ir.IndexType.get()
    data_type, init_type = tensor_type(data.type), tensor_type(init.type)
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, data_type.shape[0]), arith.constant(index, 1),
                     [init])
    with ir.InsertionPoint(loop.body):
        image, (result,) = loop.induction_variable, loop.inner_iter_args
        y = convolve(_image(data, image), _image(result, image))
        shape = [1, *init_type.shape[1:]]
        copied = linalg.copy(y, outs=[_image(result, image)])  # see `shape_ops.copy_into`
        scf.YieldOp([tensor.insert_slice(copied, result, [image], [], [], [DYNAMIC, 0, 0, 0], shape, [1] * 4)])
    return loop.results[0]


def _image(value: ir.Value, image: ir.Value) -> ir.Value:
    """value[image:image + 1] of an NCHW tensor."""
    value_type = tensor_type(value.type)
    shape = [1, *value_type.shape[1:]]
    return tensor.extract_slice(ir.RankedTensorType.get(shape, value_type.element_type), value, [image], [], [],
                                [DYNAMIC, 0, 0, 0], shape, [1] * 4)


def _matmul_convolutions(op: ir.Operation) -> None:
    """Rewrite every static f32 (or i8 x i8 -> i32) 2-D NCHW convolution (`CONVOLUTIONS`) as matmuls
    (`_convolution_as_matmuls`), in a loop over the images."""
    convolutions = []

    def collect(child: ir.Operation) -> ir.WalkResult:
        if child.name in CONVOLUTIONS:
            data_type = tensor_type(child.operands[0].type)
            if (data_type.has_static_shape and tensor_type(child.operands[1].type).has_static_shape
                    and _element_types(child) in REWRITTEN_TYPES):
                convolutions.append(child)
        return ir.WalkResult.ADVANCE

    op.walk(collect)
    for convolution in convolutions:
        epilogue = _epilogue(convolution)
        # After the epilogue's last op: everything the chain reads is defined there.
        with ir.InsertionPoint(epilogue.last if epilogue else convolution), convolution.location:
            data, filter_, init = convolution.operands
            kind = convolution.name
            if kind == "linalg.conv_2d_ngchw_gfchw":  # back to [n, channels, h, w] and [n, filters, oh, ow]
                data, init = ungrouped(data), ungrouped(init)
            data, pads = zero_padding(data)
            wide = tensor_type(init.type).element_type
            data, filter_ = widened(data, wide), widened(filter_, wide)
            strides = list(ir.DenseIntElementsAttr(convolution.attributes["strides"]))
            dilations = list(ir.DenseIntElementsAttr(convolution.attributes["dilations"]))
            images = tensor_type(data.type).shape[0]
            if images == 1:
                result = _convolution_as_matmuls(kind, data, filter_, init, strides, dilations, pads, epilogue)
            else:
                result = _per_image(data, init, lambda x, y: _convolution_as_matmuls(kind, x, filter_, y, strides,
                                                                                     dilations, pads))
            if kind == "linalg.conv_2d_ngchw_gfchw":
                result = expand(result, tensor_type(convolution.results[0].type).shape, [[0], [1, 2], [3], [4]])
        if epilogue:
            erase_chain(epilogue, result)
        else:
            convolution.results[0].replace_all_uses_with(result)
        convolution.erase()


@register_pass
@dataclass(frozen=True)
class ConvolutionToMatmuls(Pass):
    """Rewrite every static f32 (or i8 x i8 -> i32) 2-D NCHW convolution (`CONVOLUTIONS`) as matmuls, in a loop
    over the images.

    One `linalg.matmul` [filters, channels] x [channels, positions] per
    kernel tap over the flattened output positions, accumulating onto the
    convolution's init (`_convolution_as_matmuls` says how strides,
    dilations and padding map to contiguous slices); grouped: one
    `linalg.batch_matmul` per tap over the groups; depthwise: one
    element-wise generic tagged `lamina.tap_sum` for `cpu-vectorize`.
    Other convolutions (other element types, dynamic shapes) are left alone.
    Legal on upstream linalg on tensors, e.g. after `convert-graph-to-linalg`;
    run it before `linalg-fuse-elementwise-ops`, which would turn the matmuls
    between reshapes into generics.
    """

    name = "linalg-convolution-to-matmuls"
    summary = "2-D convolutions as one (batch) matmul per kernel tap on flattened output positions"

    def run(self, op: ir.Operation) -> None:
        _matmul_convolutions(op)
