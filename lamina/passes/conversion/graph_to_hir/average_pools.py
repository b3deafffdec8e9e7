"""Average pools rewritten so that their window sums stay in range.

The accelerator sums a window in the data type, then multiplies by 1/count
(docs/accelerator.md), and FP16BP8 saturates at 128: SqueezeNet's 13x13
global pool sums 169 values of up to 20. Before conversion, each average
pool over more than one pixel becomes, in the graph (exact in real numbers):

    x * 2^-k -> average along rows (1 x kw) -> average along columns (kh x 1) -> * 2^k

with 2^k >= max(kh, kw), so no partial sum exceeds max |x|. The mean of an
in-bounds rectangle is the mean of its row means, so the split is exact for
any padding and count mode; the scalings are per-channel constants the
layers absorb. Costs: k fractional bits of x, and 2^k times the last rounding.

The accelerator divides by a count with `scale_factors(1 / count)`, whose
mantissa has the data type's binary point: 1/7 is 146/256 x 1/4, 0.19% low,
and a 7x7 global pool, split in two, 0.4% low, which caps every later layer
at 48 dB SQNR (Inception v2's last three layers). With `calibrated` formats
the last scaling also undoes that gain for a window's full count, at no
cost: it is a product, rounded once, and its constant gets its own format.
"""

from __future__ import annotations

import math

import numpy as np
from mlir import ir

from lamina.target.tcu.fixed_point import DataType, scale_factors
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of


def rewrite_average_pools(ops: list[ir.Operation], data_type: DataType, calibrated: bool = False) -> bool:
    """Rewrite every average pool of `ops` (in place); whether any was rewritten. `calibrated`: also correct
    the count's rounded reciprocal (module docstring)."""
    pools = [op for op in ops if op.name == "graph.avg_pool" and spec_of(op.operands[0].type).rank == 4
             and _window_area(op) > 1 and not GRAPH.view(op).attr("ceil_mode")]  # 1-D and 3-D pools: the host's
    for pool in pools:
        _rewrite(pool, data_type, calibrated)
    return bool(pools)


def _window_area(op: ir.Operation) -> int:
    kh, kw = GRAPH.view(op).attr("kernel")
    return kh * kw


def _power_factors(exponent: int, data_type: DataType) -> list[float]:
    """Powers of two, each representable in the data type, whose product is 2**exponent."""
    largest = data_type.width - data_type.binary_point - 2  # 2**largest < the type's maximum
    factors = []
    while exponent > 0:
        step = min(exponent, largest)
        factors.append(2.0 ** step)
        exponent -= step
    return factors


def division_gain(count: int, data_type: DataType) -> float:
    """What dividing by `count` multiplies by on the accelerator (`scale_factors`), as a multiple of 1/count."""
    if count <= 1:
        return 1.0
    product = math.prod(factor / 2.0 ** data_type.binary_point for factor in scale_factors(1.0 / count, data_type))
    return product * count


def _rewrite(pool: ir.Operation, data_type: DataType, calibrated: bool) -> None:
    attrs = GRAPH.view(pool).attrs()
    (kh, kw), (sh, sw), (top, left, bottom, right) = attrs["kernel"], attrs["strides"], attrs["pads"]
    exponent = min(math.ceil(math.log2(max(kh, kw))), data_type.binary_point)
    source = pool.operands[0]
    with ir.InsertionPoint(pool), pool.location:
        value = _scaled(source, 2.0 ** -exponent)
        common = {"ceil_mode": False, "count_include_pad": attrs["count_include_pad"]}
        stages = [((1, kw), (1, sw), (0, left, 0, right)), ((kh, 1), (sh, 1), (top, 0, bottom, 0))]
        correction = 1.0
        for kernel, strides, pads in stages:
            if kernel != (1, 1):
                value = _average(value, kernel, strides, pads, common)
                correction /= division_gain(math.prod(kernel), data_type) if calibrated else 1.0
        factors = _power_factors(exponent, data_type)
        factors[-1] *= correction
        for factor in factors:
            value = _scaled(value, factor)
    pool.result.replace_all_uses_with(value)
    pool.erase()


def _scaled(value: ir.Value, factor: float) -> ir.Value:
    spec = spec_of(value.type)
    splat = GRAPH.create("splat", result_types=[spec], value=np.float32(factor)).result
    return GRAPH.create("mul", value, splat).result


def _average(value: ir.Value, kernel, strides, pads, common: dict) -> ir.Value:
    return GRAPH.create("avg_pool", value, kernel=kernel, strides=strides, pads=pads, **common).result
