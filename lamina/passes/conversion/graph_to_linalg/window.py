"""Pooling, local response normalization and nearest resize in linalg.

The window geometry (padding, ceil-mode overhang, average-pool divisors)
comes from the reference kernels' own helpers (`lamina/kernels/window_kernels.py`),
so both paths agree on every edge case by construction. 2-D pools use the
named `linalg.pooling_nchw_max/sum`; other ranks (and unsigned max pools)
one `linalg.generic`.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, math, tensor

from lamina.dialects.irdl import OpView
from lamina.kernels.graph_kernels import nearest_source_indices
from lamina.kernels.window_kernels import WindowAxis, average_divisors, lowest_value, window_axes

from .builders import (PARALLEL, REDUCTION, affine_map, dense_constant, dims, empty, filled, generic, identity_map,
                       is_float, map_elements, pad, scalar, tensor_type)
from .elementwise import operand_scalars
from .registry import converts
from .storage import result_type


def _pool(view: OpView, data: ir.Value, axes: list[WindowAxis], kind: str) -> ir.Value:
    """Max or sum of each window of `data`, into the op's result.

    Max pads with the dtype's lowest value (padding never wins), sum with 0.
    2-D pools are the named ops, except unsigned max pools: the named max
    compares signed, and ui8 is stored as i8.
    """
    s, out = operand_scalars(view), result_type(view)
    padding = s.stored(lowest_value(s.dtype)) if kind == "max" else 0
    low = [0, 0, *(a.pad_begin for a in axes)]
    high = [0, 0, *(a.padded_end for a in axes)]
    padded = pad(data, low, high, padding)
    init = filled(out, padding)
    strides, dilations = [a.stride for a in axes], [a.dilation for a in axes]
    # The window's extents bound the tap loops: a [k...] operand no one reads (as the named ops take it).
    window = tensor.empty([a.kernel for a in axes], out.element_type)
    if len(axes) == 2 and s.kind != "u":
        named = linalg.pooling_nchw_max if kind == "max" else linalg.pooling_nchw_sum
        return named(padded, window, outs=[init], strides=strides, dilations=dilations)
    rank = len(axes)
    outs, taps = range(2, 2 + rank), range(2 + rank, 2 + 2 * rank)
    d = ir.AffineDimExpr.get
    positions = [d(o) * a.stride + d(t) * a.dilation for o, t, a in zip(outs, taps, axes)]
    num_dims = 2 + 2 * rank
    maps = [affine_map(num_dims, [d(0), d(1), *positions]), affine_map(num_dims, dims(*taps)),
            affine_map(num_dims, dims(0, 1, *outs))]
    combine = s.max if kind == "max" else s.add
    (result,) = generic([padded, window], [init], maps, [PARALLEL] * (2 + rank) + [REDUCTION] * rank,
                        lambda element, _, accumulator: combine(accumulator, element))
    return result


def _axes(view: OpView, with_dilations: bool) -> list[WindowAxis]:
    spatial = tensor_type(view.op.operands[0].type).shape[2:]
    return window_axes(spatial, view.attr("kernel"), view.attr("strides"), view.attr("pads"),
                       view.attr("dilations") if with_dilations else None, view.attr("ceil_mode"))


def _global_axes(data: ir.Value) -> list[WindowAxis]:
    """A global pool is one window covering the whole spatial extent."""
    spatial = tensor_type(data.type).shape[2:]
    return window_axes(spatial, spatial, [1] * len(spatial), [0] * (2 * len(spatial)))


@converts("max_pool")
def max_pool(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [_pool(view, operands[0], _axes(view, with_dilations=True), "max")]


@converts("global_max_pool")
def global_max_pool(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    return [_pool(view, operands[0], _global_axes(operands[0]), "max")]


@converts("avg_pool")
def avg_pool(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    axes = _axes(view, with_dilations=False)
    return [_average(view, operands[0], axes, average_divisors(axes, view.attr("count_include_pad")))]


@converts("global_avg_pool")
def global_avg_pool(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    axes = _global_axes(operands[0])
    return [_average(view, operands[0], axes, average_divisors(axes, True))]


def _average(view: OpView, data: ir.Value, axes: list[WindowAxis], divisors: np.ndarray) -> ir.Value:
    """Window sums divided by a compile-time [out...] divisor per position."""
    out = result_type(view)
    if not is_float(out.element_type):
        raise NotImplementedError("average pooling of integers is not supported on the CPU path")
    sums = _pool(view, data, axes, "sum")
    divisor = dense_constant(divisors.astype(operand_scalars(view).dtype))
    rank = out.rank
    maps = [identity_map(rank), affine_map(rank, dims(*range(2, rank))), identity_map(rank)]
    (result,) = generic([sums, divisor], [empty(out)], maps, [PARALLEL] * rank,
                        lambda total, count, _: arith.divf(total, count))
    return result


@converts("lrn")
def lrn(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """y = x / (bias + alpha / size * sum of x^2 over `size` neighbouring channels) ^ beta."""
    (data,) = operands
    out = result_type(view)
    element = out.element_type
    size, rank = view.attr("size"), out.rank
    before = (size - 1) // 2
    squares = map_elements(out, [data], lambda x: arith.mulf(x, x))
    low, high = [0] * rank, [0] * rank
    low[1], high[1] = before, size - 1 - before
    padded = pad(squares, low, high, 0)
    # Loops: the result's dims, then the channel offset t; input channel c + t.
    d = ir.AffineDimExpr.get
    window = tensor.empty([size], element)
    maps = [affine_map(rank + 1, [d(0), d(1) + d(rank), *dims(*range(2, rank))]),
            affine_map(rank + 1, dims(rank)), affine_map(rank + 1, dims(*range(rank)))]
    (sums,) = generic([padded, window], [filled(out, 0)], maps, [PARALLEL] * rank + [REDUCTION],
                      lambda square, _, total: arith.addf(total, square))
    alpha, beta, bias = view.attr("alpha"), view.attr("beta"), view.attr("bias")

    def normalize(x: ir.Value, total: ir.Value) -> ir.Value:
        scaled = arith.mulf(scalar(element, np.float32(alpha) / np.float32(size)), total)
        base = arith.addf(scalar(element, bias), scaled)
        return arith.divf(x, math.powf(base, scalar(element, beta)))

    return [map_elements(out, [data, sums], normalize)]


@converts("resize_nearest")
def resize_nearest(view: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Each output element reads the input at per-axis source indices computed at compile time."""
    (data,) = operands
    source_type, out = tensor_type(data.type), result_type(view)
    scales = view.attr("scales")
    tables = [dense_constant(nearest_source_indices(size, out_size, scale, view.attr("coordinate_transformation_mode"),
                                                    view.attr("nearest_mode")))
              for size, out_size, scale in zip(source_type.shape, out.shape, scales)]
    rank = out.rank
    maps = [affine_map(rank, dims(axis)) for axis in range(rank)] + [identity_map(rank)]

    def gather(*indices_and_out: ir.Value) -> ir.Value:
        indices = [arith.index_cast(ir.IndexType.get(), i) for i in indices_and_out[:rank]]
        return tensor.extract(data, indices)

    (result,) = generic(tables, [empty(out)], maps, [PARALLEL] * rank, gather)
    return [result]
