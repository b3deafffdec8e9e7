"""Data movement: reshapes, Expand, Transpose, Concat, Slice, Pad, Tile, Gather, GatherElements, Split, Trilu.

Shape-like inputs (target shapes, axes, bounds, pads, repeats) must be known
at compile time; they become the graph ops' attributes or result types.
"""

from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import ShapeError

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
from .axes import normalized_axes, normalized_axis
from .dynamic_slice import convert_dynamic_slice, dynamic_slice_problems, dynamic_slice_specs

AXES_NOTE = "`axes` as an attribute (before opset 13) or a constant input."


def reshape_target(shape: Sequence[int], requested: Sequence[int], allowzero: bool) -> tuple[int, ...]:
    """ONNX Reshape's target: 0 copies the input dimension (unless allowzero), -1 is inferred."""
    target = [shape[i] if d == 0 and not allowzero else d for i, d in enumerate(requested)]
    if target.count(-1) > 1:
        raise ShapeError(f"reshape target {list(requested)} has more than one -1")
    if -1 in target:
        known = math.prod(d for d in target if d != -1)
        if known == 0 or math.prod(shape) % known:
            raise ShapeError(f"cannot reshape {list(shape)} into {list(requested)}")
        target[target.index(-1)] = math.prod(shape) // known
    return tuple(target)


@converter("Reshape", graph_ops=("reshape",), static_inputs={1: "shape"},
           notes="0 and -1 in the target shape, `allowzero`.")
def convert_reshape(n: NodeEmitter):
    data = n.input(0)
    target = reshape_target(n.spec(data).shape, n.static_ints(1), bool(n.attr("allowzero", 0)))
    return n.emit("reshape", data, result_type=n.spec(data).with_shape(target))


@converter("Flatten", graph_ops=("reshape",), notes="`axis`, negative included.")
def convert_flatten(n: NodeEmitter):
    data = n.input(0)
    shape = n.spec(data).shape
    axis = normalized_axis(n.attr("axis", 1), len(shape))
    flat = (math.prod(shape[:axis]), math.prod(shape[axis:]))
    return n.emit("reshape", data, result_type=n.spec(data).with_shape(flat))


@converter("Squeeze", graph_ops=("reshape",), static_inputs={1: "axes"},
           notes=f"{AXES_NOTE} No axes: every dimension of size 1.")
def convert_squeeze(n: NodeEmitter):
    data = n.input(0)
    shape = n.spec(data).shape
    axes = n.attr_or_input("axes", 1)
    squeezed = normalized_axes(axes, len(shape)) if axes is not None else [i for i, d in enumerate(shape) if d == 1]
    kept = [d for i, d in enumerate(shape) if i not in squeezed]
    return n.emit("reshape", data, result_type=n.spec(data).with_shape(kept))


@converter("Unsqueeze", graph_ops=("reshape",), static_inputs={1: "axes"}, notes=AXES_NOTE)
def convert_unsqueeze(n: NodeEmitter):
    data = n.input(0)
    shape = list(n.spec(data).shape)
    axes = n.attr_or_input("axes", 1)
    for axis in normalized_axes(axes, len(shape) + len(axes)):
        shape.insert(axis, 1)
    return n.emit("reshape", data, result_type=n.spec(data).with_shape(shape))


@converter("Expand", graph_ops=("broadcast",), static_inputs={1: "shape"},
           notes="Bidirectional broadcast to a constant shape.")
def convert_expand(n: NodeEmitter):
    data = n.input(0)
    shape = np.broadcast_shapes(n.spec(data).shape, tuple(n.static_ints(1)))
    return n.emit("broadcast", data, result_type=n.spec(data).with_shape(shape))


@converter("Transpose", graph_ops=("transpose",), notes="`perm`, reversed dimensions by default.")
def convert_transpose(n: NodeEmitter):
    data = n.input(0)
    rank = n.spec(data).rank
    return n.transpose(data, n.attr("perm", list(reversed(range(rank)))))


@converter("Concat", graph_ops=("concat", "identity"),
           notes="`axis`, negative included. `graph.concat` is binary: N inputs become a chain of N - 1 concats "
                 "(one input, an identity).")
def convert_concat(n: NodeEmitter):
    values = n.inputs()
    return n.chain("concat", values, axis=normalized_axis(n.attr("axis"), n.spec(values[0]).rank))


def slice_bounds(shape: Sequence[int], starts: Sequence[int], ends: Sequence[int], axes: Sequence[int] | None,
                 steps: Sequence[int] | None) -> tuple[list[int], list[int], list[int]]:
    """ONNX Slice bounds clamped per dimension into the graph op's normalized form."""
    rank = len(shape)
    result_starts, result_ends, result_steps = [0] * rank, list(shape), [1] * rank
    axes = range(len(starts)) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    for axis, start, end, step in zip(axes, starts, ends, steps):
        axis = normalized_axis(axis, rank)
        size = shape[axis]
        start = start + size if start < 0 else start
        end = end + size if end < 0 else end
        if size == 0:
            start = end = 0
        elif step > 0:
            start, end = min(max(start, 0), size), min(max(end, 0), size)
        else:
            start, end = min(max(start, 0), size - 1), min(max(end, -1), size - 1)
        result_starts[axis], result_ends[axis], result_steps[axis] = start, end, step
    return result_starts, result_ends, result_steps


def _check_slice(view: NodeView) -> Iterable[str]:
    steps = view.static_ints(4)
    if steps is not None and 0 in steps:
        yield "a step of 0 is invalid"
    if view.opset >= 10 and (view.static(1) is None or view.static(2) is None):
        yield from dynamic_slice_problems(view)


@converter("Slice", graph_ops=("slice", "dynamic_slice", "convert"), static_inputs={3: "axes", 4: "steps"},
           check=_check_slice, output_specs=dynamic_slice_specs, bindable_inputs=(1, 2),
           notes="Attributes (before opset 10) or constant inputs; negative, clamped and out-of-range starts and "
                 "ends, negative steps, `axes`. Inside a Loop body with a compile-time trip count, starts and ends "
                 "computed from the iteration number (and from carried values with compile-time initial values, such "
                 "as counters) become `graph.dynamic_slice` when the slice has one size at every iteration.")
def convert_slice(n: NodeEmitter):
    data = n.input(0)
    if n.opset >= 10 and (n.static(1) is None or n.static(2) is None):
        return convert_dynamic_slice(n)
    starts, ends, steps = slice_bounds(n.spec(data).shape, n.attr_or_input("starts", 1), n.attr_or_input("ends", 2),
                                       n.attr_or_input("axes", 3), n.static_ints(4))
    return n.emit("slice", data, starts=starts, ends=ends, steps=steps)


PAD_MODES = GRAPH.ops["pad"].enums["mode"]


def _full_pads(view: NodeView) -> list[int]:
    """Begins then ends for every dimension, whatever subset `axes` names."""
    rank = view.input_spec(0).rank
    pads = view.attr_or_input("pads", 1)
    axes = view.static_ints(3)
    if axes is None:
        return pads
    full = [0] * 2 * rank
    for i, axis in enumerate(axes):
        axis = normalized_axis(axis, rank)
        full[axis], full[rank + axis] = pads[i], pads[len(axes) + i]
    return full


def _check_pad(view: NodeView) -> Iterable[str]:
    mode = view.attr("mode", "constant")
    if mode not in PAD_MODES:
        yield f"mode '{mode}' is not supported (only {', '.join(PAD_MODES)})"
    if any(p < 0 for p in _full_pads(view)):
        yield "negative pads (cropping) are not supported"


@converter("Pad", graph_ops=("pad",), static_inputs={1: "pads", 2: "constant_value", 3: "axes"}, check=_check_pad,
           notes="Modes constant, reflect and edge; pads and value as attributes (before opset 11) or constant "
                 "inputs, `axes`. Negative pads and mode wrap are unsupported.")
def convert_pad(n: NodeEmitter):
    value = n.attr("value")
    if value is None:
        value = n.static(2).item() if n.has_input(2) else 0.0
    return n.emit("pad", n.input(0), pads=_full_pads(n), mode=n.attr("mode", "constant"), value=float(value))


def _check_tile(view: NodeView) -> Iterable[str]:
    if any(r < 1 for r in view.static_ints(1)):
        yield "repeats below 1 (empty results) are not supported"


@converter("Tile", graph_ops=("tile",), static_inputs={1: "repeats"}, check=_check_tile,
           notes="Constant repeats of at least 1.")
def convert_tile(n: NodeEmitter):
    return n.emit("tile", n.input(0), repeats=n.static_ints(1))


@converter("Gather", graph_ops=("gather",), notes="`axis`, negative included; i32 or i64 indices.")
def convert_gather(n: NodeEmitter):
    data = n.input(0)
    return n.emit("gather", data, n.input(1), axis=normalized_axis(n.attr("axis", 0), n.spec(data).rank))


@converter("GatherElements", graph_ops=("gather_elements",), notes="`axis`, negative included; i32 or i64 indices.")
def convert_gather_elements(n: NodeEmitter):
    data = n.input(0)
    return n.emit("gather_elements", data, n.input(1), axis=normalized_axis(n.attr("axis", 0), n.spec(data).rank))


@converter("Trilu", graph_ops=("where", "constant", "splat", "broadcast"), static_inputs={1: "k"},
           notes="`upper`, constant `k`: a `graph.where` with a constant triangular mask.")
def convert_trilu(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    k = n.static_ints(1)[0] if n.has_input(1) else 0
    rows, columns = spec.shape[-2:]
    triangle = np.triu if n.attr("upper", 1) else np.tril
    keep = triangle(np.ones((rows, columns), bool), k)
    mask = n.broadcast(n.constant(keep), spec.shape)
    return n.emit("where", mask, data, n.splat(spec, 0))


@converter("Split", graph_ops=("slice",),
           notes="`axis`, sizes from the `split` input or attribute or `num_outputs` (as ONNX shape inference "
                 "gives each output's shape): one slice per output.")
def convert_split(n: NodeEmitter):
    data = n.input(0)
    shape = n.spec(data).shape
    axis = normalized_axis(n.attr("axis", 0), len(shape))
    results, start = [], 0
    for index in range(n.output_count):
        size = n.output_spec(index).shape[axis]
        starts, ends = [0] * len(shape), list(shape)
        starts[axis], ends[axis] = start, start + size
        results.append(n.emit("slice", data, starts=starts, ends=ends, steps=[1] * len(shape)))
        start += size
    return results
