"""Gradient rules of the data-movement ops: each moves the gradient back where the data came from
(Glow: Reshape, Transpose by the inverse shuffle, Slice into zeros, Concat by slices, Gather by scatter)."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.passes.graph.lowerings import Emitter

from .rules import Gradients, gradient, spec, unbroadcast


class NoGradient(Exception):
    """A rule cannot differentiate this particular op (e.g. a strided slice); the message says why."""


@gradient("reshape")
def reshape(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("reshape", grad, result_type=spec(op.operand("input")))]


@gradient("transpose")
def transpose(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [emit.op("transpose", grad, perm=tuple(int(i) for i in np.argsort(op.attr("perm"))))]


@gradient("broadcast")
def broadcast(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    return [unbroadcast(emit, grad, spec(op.operand("input")))]


@gradient("tile")
def tile(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """Each copy's gradient summed: [.., r*d, ..] seen as [.., r, d, ..], summed over the r axes."""
    source = spec(op.operand("input"))
    repeats = op.attr("repeats")
    split = tuple(size for r, d in zip(repeats, source.shape) for size in (r, d))
    seen = emit.op("reshape", grad, result_type=source.with_shape(split))
    summed = emit.op("reduce_sum", seen, axes=tuple(range(0, 2 * source.rank, 2)), keepdims=False)
    return [summed]


def _slice_back(emit: Emitter, grad: ir.Value, axis: int, start: int, size: int) -> ir.Value:
    shape = spec(grad).shape
    starts = [0] * len(shape)
    ends = list(shape)
    starts[axis], ends[axis] = start, start + size
    return emit.op("slice", grad, starts=starts, ends=ends, steps=[1] * len(shape))


@gradient("concat")
def concat(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    axis = op.attr("axis")
    split = spec(op.operand("lhs")).shape[axis]
    rest = spec(op.operand("rhs")).shape[axis]
    return [_slice_back(emit, grad, axis, 0, split) if needs[0] else None,
            _slice_back(emit, grad, axis, split, rest) if needs[1] else None]


@gradient("slice")
def slice_(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """The gradient padded with zeros back to the input's shape (unit steps only)."""
    source = spec(op.operand("input"))
    starts, ends, steps = op.attr("starts"), op.attr("ends"), op.attr("steps")
    if any(step != 1 for step in steps):
        raise NoGradient(f"steps {list(steps)}: only unit-step slices have a gradient")
    after = [size - end for size, end in zip(source.shape, ends)]
    return [emit.op("pad", grad, pads=(*starts, *after), mode="constant", value=0.0)]


@gradient("pad")
def pad(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """The gradient of the unpadded part (constant padding only)."""
    if op.attr("mode") != "constant":
        raise NoGradient(f"mode '{op.attr('mode')}': only constant padding has a gradient")
    source = spec(op.operand("input"))
    begins = op.attr("pads")[:source.rank]
    return [emit.op("slice", grad, starts=begins, ends=[b + d for b, d in zip(begins, source.shape)],
                    steps=[1] * source.rank)]


@gradient("gather")
def gather(op: OpView, grad: ir.Value, needs, emit: Emitter) -> Gradients:
    """A scatter-add back to the gathered rows, as a matrix product with the indices' one-hot matrix:
    grad seen as [before, K, after], one-hot [K, D]; input grad = one-hot^T x grad, as [before, D, after]."""
    data, indices = op.operand("input"), op.operand("indices")
    source, index_spec, axis = spec(data), spec(indices), op.attr("axis")
    before = int(np.prod(source.shape[:axis], dtype=np.int64))
    after = int(np.prod(source.shape[axis + 1:], dtype=np.int64))
    rows, count = source.shape[axis], index_spec.num_elements
    flat = emit.op("reshape", indices, result_type=index_spec.with_shape((count, 1)))
    negative = emit.op("less", flat, emit.splat(0, spec(flat)))
    flat = emit.op("where", negative, emit.op("add", flat, emit.splat(rows, spec(flat))), flat)
    grid = index_spec.with_shape((count, rows))
    row_numbers = emit.constant(np.arange(rows, dtype=index_spec.dtype).reshape(1, rows))
    hit = emit.op("equal", emit.broadcast(flat, grid), emit.broadcast(row_numbers, grid))
    one_hot = emit.op("convert", hit, result_type=source.with_shape((count, rows)))
    seen = emit.op("reshape", grad, result_type=source.with_shape((before, count, after)))
    scattered = emit.op("matmul", emit.op("transpose", one_hot, perm=(1, 0)), seen)
    return [emit.op("reshape", scattered, result_type=source), None]
