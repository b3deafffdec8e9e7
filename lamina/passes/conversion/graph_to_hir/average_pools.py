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
"""

from __future__ import annotations

import math

import numpy as np
from mlir import ir

from lamina.target.tcu.fixed_point import DataType
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import spec_of


def rewrite_average_pools(ops: list[ir.Operation], data_type: DataType) -> bool:
    """Rewrite every average pool of `ops` (in place); whether any was rewritten."""
    pools = [op for op in ops if op.name == "graph.avg_pool" and spec_of(op.operands[0].type).rank == 4
             and _window_area(op) > 1 and not GRAPH.view(op).attr("ceil_mode")]  # 1-D and 3-D pools: the host's
    for pool in pools:
        _rewrite(pool, data_type)
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


def _rewrite(pool: ir.Operation, data_type: DataType) -> None:
    attrs = GRAPH.view(pool).attrs()
    (kh, kw), (sh, sw), (top, left, bottom, right) = attrs["kernel"], attrs["strides"], attrs["pads"]
    exponent = min(math.ceil(math.log2(max(kh, kw))), data_type.binary_point)
    source = pool.operands[0]
    with ir.InsertionPoint(pool), pool.location:
        value = _scaled(source, 2.0 ** -exponent)
        common = {"ceil_mode": False, "count_include_pad": attrs["count_include_pad"]}
        stages = [((1, kw), (1, sw), (0, left, 0, right)), ((kh, 1), (sh, 1), (top, 0, bottom, 0))]
        for kernel, strides, pads in stages:
            if kernel != (1, 1):
                value = _average(value, kernel, strides, pads, common)
        for factor in _power_factors(exponent, data_type):
            value = _scaled(value, factor)
    pool.result.replace_all_uses_with(value)
    pool.erase()


def _scaled(value: ir.Value, factor: float) -> ir.Value:
    spec = spec_of(value.type)
    splat = GRAPH.create("splat", result_types=[spec], value=np.float32(factor)).result
    return GRAPH.create("mul", value, splat).result


def _average(value: ir.Value, kernel, strides, pads, common: dict) -> ir.Value:
    return GRAPH.create("avg_pool", value, kernel=kernel, strides=strides, pads=pads, **common).result
