"""linalg-pooling-to-taps: 2-D max and sum pools as one element-wise max or sum of their taps' contiguous slices.

`convert-linalg-to-loops` makes a named pool a scalar loop nest whose
innermost loops run over the window, which LLVM does not vectorize (a
strided window is a gather): SqueezeNet's three 3x3 stride-2 max pools took
about 13 % of its time on one thread (issue 18, `perf`). On the stride
phases of `phases.py` every tap of the window reads a contiguous slice of
[channels, positions], so the pool is one element-wise generic over the
slices, tagged like a depthwise convolution's tap sum (`TAP_SUM`), which
`cpu-vectorize` turns into 32-wide vector max (or add) chains. Positions
are computed in rows of `wq` columns, padded to a multiple of 32; the extra
ones read zeros and are dropped (the real ones read only the pool's padded
input, whose padding the converter wrote).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from lamina.dialects.values import ops_where
from lamina.passes.conversion.graph_to_linalg.builders import generic, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import collapse, extract
from lamina.passes.linalg.convolution_blocks import COLUMN_TILE
from lamina.passes.linalg.convolution_to_matmuls import TAP_SUM, _ceil_div, _cropped, _positions_init
from lamina.passes.linalg.phases import flat_phases, phase_taps
from lamina.passes.registry import Pass, register_pass

# How each pool combines its taps (what the named op's body does).
COMBINE = {"linalg.pooling_nchw_max": arith.maximumf, "linalg.pooling_nchw_sum": arith.addf}
# Windows with more taps (global pools: one window over the whole image) stay as they are.
MAX_TAPS = 25


def _rewritten(op: ir.Operation) -> bool:
    """A static batch-1 f32 pool with a window of at most `MAX_TAPS` taps."""
    if op.name not in COMBINE:
        return False
    data, window, init = (tensor_type(v.type) for v in op.operands)
    return (all(t.has_static_shape for t in (data, window, init)) and data.shape[0] == 1
            and str(data.element_type) == "f32" and window.shape[0] * window.shape[1] <= MAX_TAPS)


def _pool_as_taps(pool: ir.Operation) -> ir.Value:
    """The pool as out[c, p] = combine(init, slice_tap[c, p] for every tap), cropped to [1, c, oh, ow]."""
    data, window, init = pool.operands
    _, channels, height, width = tensor_type(data.type).shape
    kh, kw = tensor_type(window.type).shape
    oh, ow = tensor_type(init.type).shape[2:]
    strides = list(ir.DenseIntElementsAttr(pool.attributes["strides"]))
    dilations = list(ir.DenseIntElementsAttr(pool.attributes["dilations"]))
    (sh, sw), (dh, dw) = strides, dilations
    span_h, span_w = dh * (kh - 1) // sh, dw * (kw - 1) // sw
    wq = ow + span_w
    length = _ceil_div(oh * wq, COLUMN_TILE) * COLUMN_TILE
    rows = max(oh + span_h, _ceil_div(length + span_h * wq + span_w, wq))
    image = collapse(data, [channels, height, width], [[0, 1], [2], [3]])
    phases = flat_phases(image, (0, 0), rows, wq, [kh, kw], strides, dilations)
    slices = [extract(phases[phase], [0, offset], [channels, length])
              for phase, _, _, offset in phase_taps([kh, kw], strides, dilations, wq)]
    combine = COMBINE[pool.name]

    def body(*arguments: ir.Value) -> ir.Value:
        accumulator = arguments[-1]
        for element in arguments[:-1]:
            accumulator = combine(accumulator, element)
        return accumulator

    identity = ir.AffineMap.get_identity(2)
    (result,) = generic(slices, [_positions_init(init, wq, length)], [identity] * (len(slices) + 1),
                        ["parallel", "parallel"], body)
    result.owner.attributes[TAP_SUM] = ir.UnitAttr.get()
    return _cropped(result, oh, ow, wq)


@register_pass
@dataclass(frozen=True)
class PoolingToTaps(Pass):
    """Rewrite every static batch-1 f32 `linalg.pooling_nchw_max`/`_sum` with at most 25 taps as one
    element-wise generic (max or add) over its taps' contiguous slices of the flattened stride phases,
    tagged `lamina.tap_sum` for `cpu-vectorize`.

    Other pools (batches, other element types, global windows) are left
    alone. Legal on upstream linalg on tensors, e.g. after
    `convert-graph-to-linalg`; run it before `linalg-fuse-elementwise-ops`
    (as `linalg-convolution-to-matmuls`).
    """

    name = "linalg-pooling-to-taps"
    summary = "2-D max/sum pools as an element-wise max/sum of their taps' contiguous slices"

    def run(self, op: ir.Operation) -> None:
        for pool in ops_where(op, _rewritten):
            with ir.InsertionPoint(pool), pool.location:
                result = _pool_as_taps(pool)
            pool.results[0].replace_all_uses_with(result)
            pool.erase()
