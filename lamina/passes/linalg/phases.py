"""Stride phases of a padded image, flattened: what every tap of a convolution or pool reads as a contiguous slice.

An input padded to [channels, sh rows, sw wq] is split into its sh x sw
stride phases (phase (a, b): rows a, a + sh, ... and columns b, b + sw, ...),
each flattened to [channels, rows x wq]. Kernel tap (i, j) of a stride-s,
dilation-d window reads, for output position p = row x wq + column, element
p + (dh i div sh) wq + dw j div sw of phase (dh i mod sh, dw j mod sw): a
contiguous slice. Shared by `linalg-convolution-to-matmuls` and
`linalg-pooling-to-taps`.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from lamina.passes.conversion.graph_to_linalg.builders import filled, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import collapse, copy_into, extract, insert


def zero_padded(value: ir.Value, low: list[int], shape: list[int]) -> ir.Value:
    """`value` at offset `low` in zeros of `shape` (a `tensor.pad` as copy + fill, see `copy_into`)."""
    value_type = tensor_type(value.type)
    if list(value_type.shape) == shape:
        return value
    return copy_into(value, zero_border(ir.RankedTensorType.get(shape, value_type.element_type), low,
                                        list(value_type.shape)), low)


def zero_border(type_: ir.RankedTensorType, low: list[int], sizes: list[int]) -> ir.Value:
    """A tensor of `type_` whose elements outside the box [low, low + sizes) are zeros (inside: to be written).

    Only the border is filled, slab by slab (per dimension, the parts before
    and after the box, within the box along the dimensions before it): a
    fill of the whole padded buffer was 8 % of ShuffleNet's time (memset),
    most of it overwritten by the copy right after.
    """
    result = tensor.empty(list(type_.shape), type_.element_type)
    shape = list(type_.shape)
    for axis, (start, size, extent) in enumerate(zip(low, sizes, shape)):
        for begin, end in ((0, start), (start + size, extent)):
            if end <= begin:
                continue
            offsets = low[:axis] + [begin] + [0] * (len(shape) - axis - 1)
            extents = sizes[:axis] + [end - begin] + shape[axis + 1:]
            slab = filled(ir.RankedTensorType.get(extents, type_.element_type), 0)
            result = insert(slab, result, offsets)
    return result


def flat_phases(image: ir.Value, pads: tuple[int, int], rows: int, wq: int, kernel: list[int], strides: list[int],
                dilations: list[int]) -> dict[tuple[int, int], ir.Value]:
    """The stride phases the taps of a `kernel` window read, each [channels, rows x wq], of `image`
    [channels, height, width] zero-padded by `pads` (top, left) and beyond (or cropped) to [channels,
    sh rows, sw wq]; by phase (a, b)."""
    channels, height, width = tensor_type(image.type).shape
    (sh, sw), (dh, dw), (kh, kw) = strides, dilations, kernel
    keep_h, keep_w = min(height, sh * rows - pads[0]), min(width, sw * wq - pads[1])
    if (keep_h, keep_w) != (height, width):
        image = extract(image, [0, 0, 0], [channels, keep_h, keep_w])
    phases = {}
    for a in sorted({dh * i % sh for i in range(kh)}):
        for b in sorted({dw * j % sw for j in range(kw)}):
            if sh == sw == 1:
                phase = zero_padded(image, [0, pads[0], pads[1]], [channels, rows, wq])
            else:  # straight from the image: no padded copy of the whole image first
                phase = _strided_phase(image, (a, b), pads, (sh, sw), (rows, wq))
            phases[a, b] = collapse(phase, [channels, rows * wq], [[0], [1, 2]])
    return phases


def _strided_phase(image: ir.Value, phase: tuple[int, int], pads: tuple[int, int], strides: tuple[int, int],
                   shape: tuple[int, int]) -> ir.Value:
    """Phase `phase` [channels, rows, wq] of `image` zero-padded by `pads`: the image's rows and columns
    that fall on it copied (a strided slice) into zeros."""
    channels, height, width = tensor_type(image.type).shape
    element = tensor_type(image.type).element_type
    first, count = [], []
    for start, pad, stride, size, extent in zip(phase, pads, strides, shape, (height, width)):
        low = max(0, -(-(pad - start) // stride))  # the first phase row (column) inside the image
        high = min(size, (extent - 1 + pad - start) // stride + 1)
        first.append(low)
        count.append(max(0, high - low))
    target = ir.RankedTensorType.get([channels, *shape], element)
    if 0 in count:
        return filled(target, 0)
    offsets = [start + stride * low - pad for start, stride, low, pad in zip(phase, strides, first, pads)]
    strided = tensor.extract_slice(ir.RankedTensorType.get([channels, *count], element), image, [], [], [],
                                   [0, *offsets], [channels, *count], [1, *strides])
    if count == list(shape):
        return linalg.copy(strided, outs=[tensor.empty([channels, *shape], element)])
    return copy_into(strided, filled(target, 0), [0, *first])


def phase_taps(kernel: list[int], strides: list[int], dilations: list[int],
               wq: int) -> list[tuple[tuple[int, int], int, int, int]]:
    """((a, b), i, j, offset) for every tap (i, j): the phase it reads and where its positions start in it,
    phase by phase (in `flat_phases`' order)."""
    (sh, sw), (dh, dw), (kh, kw) = strides, dilations, kernel
    taps = []
    for a in sorted({dh * i % sh for i in range(kh)}):
        for b in sorted({dw * j % sw for j in range(kw)}):
            for i in (i for i in range(kh) if dh * i % sh == a):
                for j in (j for j in range(kw) if dw * j % sw == b):
                    taps.append(((a, b), i, j, dh * i // sh * wq + dw * j // sw))
    return taps
