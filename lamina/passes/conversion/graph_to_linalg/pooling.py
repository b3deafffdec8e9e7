"""Pooling in linalg.

The window geometry (padding, ceil-mode overhang, average-pool divisors)
comes from the reference kernels' own helpers (`lamina/kernels/pooling.py`),
so both paths agree on every edge case by construction. 2-D pools use the
named `linalg.pooling_nchw_max/sum`; other ranks (and unsigned max pools)
one `linalg.generic`.
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith, linalg, tensor

from lamina.dialects.irdl import OpView
from lamina.kernels.pooling import average_divisors, lowest_value
from lamina.kernels.windows import WindowAxis, window_axes

from .builders import (PARALLEL, REDUCTION, affine_map, dense_constant, dims, empty, filled, generic, identity_map,
                       is_float, pad, tensor_type)
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
