"""linalg-convolution-to-matmuls: batch-1 2-D convolutions as one matmul per kernel tap.

A convolution over NCHW reads each input pixel once per tap through a
window; as matmuls on flattened output positions every tap reads a
contiguous slice of the (padded, phase-split) input, which the matmul
tiling of `cpu-vectorize` turns into register-tiled FMAs. Measured on
ResNet-50's layers on this 2-core AVX-512 machine (docs/cpu-path.md): the
convolutions went from 313 ms (direct, vectorized) to 67 ms, then to
layers at 130-210 GFLOP/s with explicit copies for padding and gathers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.passes.conversion.graph_to_linalg.builders import broadcast_along, pad, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape import collapse, expand, insert
from lamina.passes.registry import Pass, register_pass

# A 2-D convolution (batch 1, no dilation) becomes matmuls on flattened
# output positions, padded to a multiple of this (the matmuls' 8 x 32
# register tile of outer-product FMAs along contiguous positions).
COLUMN_TILE = 32
# With fewer input channels than this, the taps are gathered into one
# [taps x channels, positions] operand (im2col of contiguous slices) and one
# matmul: one matmul per tap would reduce over only a few channels.
GATHER_CHANNELS = 16


def _block(value: ir.Value, offsets: list[int], sizes: list[int]) -> ir.Value:
    block_type = ir.RankedTensorType.get(sizes, tensor_type(value.type).element_type)
    return tensor.extract_slice(block_type, value, [], [], [], offsets, sizes, [1] * len(sizes))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _convolution_as_matmuls(data: ir.Value, filter_: ir.Value, init: ir.Value, strides: list[int],
                            pads: tuple[int, int]) -> ir.Value:
    """A batch-1 2-D convolution as matmuls [filters, channels] x [channels, positions].

    The padded input is split into stride x stride phases (phase (a, b) holds
    rows a, a + sh, ... and columns b, b + sw, ...; one phase when the stride
    is 1), each of width `wq` = output width + extra columns, and flattened.
    Tap (a + sh u, b + sw v) of the kernel then reads, for output position
    p = row * wq + column, element p + u wq + v of its phase: a contiguous
    slice of the flattened phase, so the convolution is one matmul per tap
    (filter tap [filters, channels] x that slice) accumulating onto the bias,
    on `length` positions (output rows x wq, padded to COLUMN_TILE; the extra
    columns and positions are computed and dropped). With few channels the
    tap slices are stacked into one operand and one matmul does all taps.
    `data` is the unpadded input, `pads` its top and left padding (zeros; the
    bottom and right ones follow from the output size), `init` the
    convolution's init.
    """
    element = tensor_type(data.type).element_type
    _, channels, height, width = tensor_type(data.type).shape
    filters, _, kh, kw = tensor_type(filter_.type).shape
    oh, ow = tensor_type(init.type).shape[2:]
    sh, sw = strides
    taps_h, taps_w = _ceil_div(kh, sh), _ceil_div(kw, sw)  # taps of phase (0, 0), the largest
    wq = ow + taps_w - 1
    length = _ceil_div(oh * wq, COLUMN_TILE) * COLUMN_TILE
    rows = max(oh + taps_h - 1, _ceil_div(length + (taps_h - 1) * wq + taps_w - 1, wq))
    # The input, padded (or cropped: rows and columns no tap reads) to [channels, sh rows, sw wq].
    image = collapse(data, [channels, height, width], [[0, 1], [2], [3]])
    keep_h, keep_w = min(height, sh * rows - pads[0]), min(width, sw * wq - pads[1])
    if (keep_h, keep_w) != (height, width):
        image = _block(image, [0, 0, 0], [channels, keep_h, keep_w])
    image = _zero_padded(image, [0, pads[0], pads[1]], [channels, sh * rows, sw * wq])
    weights = _taps_first(filter_)  # [kh, kw, filters, channels]
    slices: list[tuple[ir.Value, ir.Value]] = []  # (filter tap [filters, channels], input [channels, length])
    for a in range(min(sh, kh)):
        for b in range(min(sw, kw)):
            if sh == sw == 1:
                phase = image
            else:
                strided = tensor.extract_slice(ir.RankedTensorType.get([channels, rows, wq], element), image,
                                               [], [], [], [0, a, b], [channels, rows, wq], [1, sh, sw])
                phase = linalg.copy(strided, outs=[tensor.empty([channels, rows, wq], element)])
            flat = collapse(phase, [channels, rows * wq], [[0], [1, 2]])
            for u in range(_ceil_div(kh - a, sh)):
                for v in range(_ceil_div(kw - b, sw)):
                    tap = tensor.extract_slice(ir.RankedTensorType.get([filters, channels], element), weights,
                                               [], [], [], [a + sh * u, b + sw * v, 0, 0],
                                               [1, 1, filters, channels], [1, 1, 1, 1])
                    slices.append((tap, _block(flat, [0, u * wq + v], [channels, length])))
    result = _positions_init(init, wq, length)
    if channels < GATHER_CHANNELS and len(slices) > 1:
        count = len(slices)
        lhs, rhs = tensor.empty([filters, count * channels], element), tensor.empty([count * channels, length],
                                                                                     element)
        for index, (tap, columns) in enumerate(slices):
            lhs = insert(tap, lhs, [0, index * channels])
            rhs = _copy_into(columns, rhs, [index * channels, 0])
        slices = [(lhs, rhs)]
    for tap, columns in slices:
        result = linalg.matmul(tap, columns, outs=[result])
    grid = expand(_block(result, [0, 0], [filters, oh * wq]), [filters, oh, wq], [[0], [1, 2]])
    return expand(_block(grid, [0, 0, 0], [filters, oh, ow]), [1, filters, oh, ow], [[0, 1], [2], [3]])


def _copy_into(source: ir.Value, dest: ir.Value, offsets: list[int]) -> ir.Value:
    """`source` inserted into `dest` at `offsets` through a `linalg.copy` into the slice.

    (A bare `tensor.insert_slice` of a strided slice bufferizes to a `memref.copy`
    that calls the C runner utils' element-by-element copy; a linalg.copy
    becomes loops LLVM vectorizes.)
    """
    shape = list(tensor_type(source.type).shape)
    copied = linalg.copy(source, outs=[_block(dest, offsets, shape)])
    return insert(copied, dest, offsets)


def _zero_padded(value: ir.Value, low: list[int], shape: list[int]) -> ir.Value:
    """`value` at offset `low` in zeros of `shape` (a `tensor.pad` as fill + copy, see `_copy_into`)."""
    value_type = tensor_type(value.type)
    if list(value_type.shape) == shape:
        return value
    zero = arith.constant(value_type.element_type, 0.0)
    zeros = linalg.fill(zero, outs=[tensor.empty(shape, value_type.element_type)])
    return _copy_into(value, zeros, low)


def _positions_init(init: ir.Value, wq: int, length: int) -> ir.Value:
    """The convolution's init [1, filters, oh, ow] as [filters, length] (rows of wq positions).

    A broadcast bias (what convert-graph-to-linalg writes) is broadcast again
    into the new shape; any other init is padded with zeros.
    """
    init_type = tensor_type(init.type)
    _, filters, oh, ow = init_type.shape
    target = ir.RankedTensorType.get([filters, length], init_type.element_type)
    owner = init.owner
    if (isinstance(owner, ir.OpView) and owner.operation.name == "linalg.generic" and len(owner.operation.operands) == 2
            and tensor_type(owner.operation.operands[0].type).shape == [filters]
            and str(owner.operation.attributes["indexing_maps"][0]) == "affine_map<(d0, d1, d2, d3) -> (d1)>"):
        block = owner.operation.regions[0].blocks[0]
        yielded = list(block.operations)[-1].operands[0]
        if yielded == block.arguments[0]:
            return broadcast_along(owner.operation.operands[0], target, 0)
    grid = pad(collapse(init, [filters, oh, ow], [[0, 1], [2], [3]]), [0, 0, 0], [0, 0, wq - ow], 0)
    return pad(collapse(grid, [filters, oh * wq], [[0], [1, 2]]), [0, 0], [0, length - oh * wq], 0)


def _taps_first(filter_: ir.Value) -> ir.Value:
    """A [filters, channels, kh, kw] filter as [kh, kw, filters, channels]: each tap a contiguous matrix.

    A constant filter (the usual case: weights) is transposed at compile time.
    """
    filter_type = tensor_type(filter_.type)
    filters, channels, kh, kw = filter_type.shape
    transposed = ir.RankedTensorType.get([kh, kw, filters, channels], filter_type.element_type)
    owner = filter_.owner
    if isinstance(owner, ir.OpView) and owner.operation.name == "arith.constant":
        attr = owner.operation.attributes["value"]
        if isinstance(attr, ir.DenseElementsAttr):
            attr = ir.DenseElementsAttr(attr)
            if attr.is_splat:
                return arith.constant(transposed, ir.DenseElementsAttr.get_splat(transposed, attr.get_splat_value()))
            array = np.ascontiguousarray(np.array(ir.DenseFPElementsAttr(attr)).transpose(2, 3, 0, 1))
            return arith.constant(transposed, ir.DenseElementsAttr.get(array, type=filter_type.element_type))
    return linalg.transpose(filter_, outs=[tensor.empty([kh, kw, filters, channels], filter_type.element_type)],
                            permutation=[2, 3, 0, 1])


def _zero_padding(value: ir.Value) -> tuple[ir.Value, tuple[int, int]]:
    """The unpadded input and its (top, left) padding when `value` is a static zero `tensor.pad` of
    spatial dims only; else `value` itself, unpadded."""
    owner = value.owner
    if not (isinstance(owner, ir.OpView) and owner.operation.name == "tensor.pad"):
        return value, (0, 0)
    op = owner.operation
    low, high = (list(ir.DenseI64ArrayAttr(op.attributes[n])) for n in ("static_low", "static_high"))
    yielded = list(op.regions[0].blocks[0].operations)[-1].operands[0]
    constant = yielded.owner
    if (len(op.operands) != 1 or any(low[:2]) or any(high[:2]) or min(low + high) < 0
            or not (isinstance(constant, ir.OpView) and constant.operation.name == "arith.constant")
            or not isinstance(constant.operation.attributes["value"], ir.FloatAttr)
            or ir.FloatAttr(constant.operation.attributes["value"]).value != 0.0):
        return value, (0, 0)
    return op.operands[0], (low[2], low[3])


def _matmul_convolutions(op: ir.Operation) -> None:
    """Rewrite every batch-1, undilated f32 `linalg.conv_2d_nchw_fchw` as matmuls (`_convolution_as_matmuls`)."""
    convolutions = []

    def collect(child: ir.Operation) -> ir.WalkResult:
        if child.name == "linalg.conv_2d_nchw_fchw":
            data_type = tensor_type(child.operands[0].type)
            dilations = list(ir.DenseIntElementsAttr(child.attributes["dilations"]))
            if (data_type.shape[0] == 1 and all(d == 1 for d in dilations) and data_type.has_static_shape
                    and isinstance(data_type.element_type, ir.F32Type)):
                convolutions.append(child)
        return ir.WalkResult.ADVANCE

    op.walk(collect)
    for convolution in convolutions:
        with ir.InsertionPoint(convolution), convolution.location:
            data, pads = _zero_padding(convolution.operands[0])
            strides = list(ir.DenseIntElementsAttr(convolution.attributes["strides"]))
            result = _convolution_as_matmuls(data, convolution.operands[1], convolution.operands[2], strides, pads)
        convolution.results[0].replace_all_uses_with(result)
        convolution.erase()


@register_pass
@dataclass(frozen=True)
class ConvolutionToMatmuls(Pass):
    """Rewrite every batch-1, undilated, static f32 `linalg.conv_2d_nchw_fchw` as matmuls.

    One `linalg.matmul` [filters, channels] x [channels, positions] per
    kernel tap over the flattened output positions, accumulating onto the
    convolution's init (`_convolution_as_matmuls` says how strides and
    padding map to contiguous slices). Other convolutions are left alone.
    Legal on upstream linalg on tensors, e.g. after `convert-graph-to-linalg`;
    run it before `linalg-fuse-elementwise-ops`, which would turn the matmuls
    between reshapes into generics.
    """

    name = "linalg-convolution-to-matmuls"
    summary = "batch-1 2-D convolutions as one matmul per kernel tap on flattened output positions"

    def run(self, op: ir.Operation) -> None:
        _matmul_convolutions(op)
