"""Slice with bounds computed from a Loop body's iteration number: `graph.dynamic_slice`.

ONNX's `test_loop11` slices `x[i:i+1]` at iteration i. Lamina's types are
static, so the importer enumerates the bounds at every iteration
(`iteration_values`) and accepts the slice when its size is the same at
each: the starts stay data, normalized at run time as ONNX does, and the
result type is that size.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..iteration_values import per_iteration
from ..node_view import NodeView
from .axes import normalized_axis


def _layout(view: NodeView) -> tuple[list[int], list[int], tuple[int, ...]] | str:
    """(axes, steps, result shape) of a slice whose bounds follow the iteration number, or why there is none."""
    from .shape_ops import slice_bounds  # shape_ops imports this module

    values = per_iteration(view.analysis, [view.input_name(1), view.input_name(2)])
    if values is None:
        return ("inputs 'starts' and 'ends' must be compile-time constants, or computed from the iteration number "
                "(and carried values with compile-time initial values) of a Loop with a compile-time trip count")
    shape = view.input_spec(0).shape
    count = len(values[0][0].reshape(-1))
    axes = [normalized_axis(a, len(shape)) for a in (view.static_ints(3) or range(count))]
    steps = view.static_ints(4) or [1] * count
    if any(step < 0 for step in steps):
        return "a negative step with bounds that change between iterations is not supported"
    shapes = set()
    for starts, ends in values:
        first, last, every = slice_bounds(shape, [int(v) for v in starts.reshape(-1)],
                                          [int(v) for v in ends.reshape(-1)], axes, steps)
        shapes.add(tuple(len(range(a, b, c)) for a, b, c in zip(first, last, every)))
    if len(shapes) > 1:
        return f"the slice's shape changes between iterations ({', '.join(str(list(s)) for s in sorted(shapes))})"
    return axes, steps, shapes.pop()


def dynamic_slice_specs(view: NodeView) -> list[TensorSpec | None]:
    """The result type ONNX shape inference cannot know (its bounds are not constants)."""
    layout = _layout(view) if view.input_spec(0) is not None else "unknown input"
    return [None if isinstance(layout, str) else view.input_spec(0).with_shape(layout[2])]


def dynamic_slice_problems(view: NodeView) -> Iterable[str]:
    layout = _layout(view)
    if isinstance(layout, str):
        yield layout


def convert_dynamic_slice(n: NodeEmitter):
    axes, steps, shape = _layout(n)
    data = n.input(0)
    starts = n.convert(n.input(1), np.int64)
    return n.emit("dynamic_slice", data, starts, result_type=n.spec(data).with_shape(shape), axes=axes, steps=steps)
