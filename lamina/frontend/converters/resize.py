"""Resize by constant scales or sizes: nearest mode as `graph.resize_nearest`, linear and cubic modes as
matmuls with interpolation matrices (`resize_interpolation.py`)."""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from lamina.dialects.graph import GRAPH

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
from .axes import normalized_axis
from .resize_interpolation import interpolation_matrix, resize_by_matmuls

# What `graph.resize_nearest` implements.
COORDINATE_MODES = GRAPH.ops["resize_nearest"].enums["coordinate_transformation_mode"]
NEAREST_MODES = GRAPH.ops["resize_nearest"].enums["nearest_mode"]
INTERPOLATING_MODES = ("linear", "cubic")


def _scales_and_sizes_inputs(view: NodeView) -> tuple[int, int | None]:
    """Input indices of scales and sizes: Resize-10 has (X, scales), later ones (X, roi, scales, sizes)."""
    return (1, None) if view.opset < 11 else (2, 3)


def _given(view: NodeView, index: int | None) -> bool:
    """A scales or sizes input counts when present and not an empty tensor."""
    if index is None or not view.has_input(index):
        return False
    spec = view.input_spec(index)
    return spec is None or spec.num_elements > 0


def scale_for_size(size: int, target: int) -> float:
    """The smallest f32 scale whose floor(size * scale) is `target`, as `graph.resize_nearest` computes sizes."""
    scale = np.float32(target / size)
    while math.floor(size * float(scale)) < target:
        scale = np.nextafter(scale, np.float32(np.inf))
    return float(scale)


def resize_scales(view: NodeView) -> list[float]:
    """One scale per dimension, from the scales or the sizes input, over `axes`."""
    rank = view.input_spec(0).rank
    axes = [normalized_axis(a, rank) for a in view.attr("axes", range(rank))]
    scales_index, sizes_index = _scales_and_sizes_inputs(view)
    full = [1.0] * rank
    if _given(view, scales_index):
        for axis, scale in zip(axes, view.static(scales_index).reshape(-1)):
            full[axis] = float(scale)
    else:
        shape = view.input_spec(0).shape
        for axis, size in zip(axes, view.static_ints(sizes_index)):
            full[axis] = scale_for_size(shape[axis], size)
    return full


def _modes(view: NodeView) -> tuple[str, str]:
    """(coordinate_transformation_mode, nearest_mode); Resize-10 behaves like onnxruntime's 'simple' mode."""
    if view.opset >= 11:
        return (view.attr("coordinate_transformation_mode", "half_pixel"),
                view.attr("nearest_mode", "round_prefer_floor"))
    scales = resize_scales(view)
    return "asymmetric", ("floor" if all(s >= 1 for s in scales) else "ceil")


def _check_resize(view: NodeView) -> Iterable[str]:
    mode = view.attr("mode", "nearest")
    if mode != "nearest" and mode not in INTERPOLATING_MODES:
        yield f"mode '{mode}' is not supported"
        return
    scales_index, sizes_index = _scales_and_sizes_inputs(view)
    given = [(i, role) for i, role in ((scales_index, "scales"), (sizes_index, "sizes")) if _given(view, i)]
    if not given:
        yield "needs scales or sizes"
        return
    for index, role in given:
        if view.static(index) is None:
            yield f"input '{view.input_name(index)}' ({role}) must be a compile-time constant"
            return
    if sizes_index in dict(given) and view.attr("keep_aspect_ratio_policy", "stretch") != "stretch":
        yield "keep_aspect_ratio_policy other than stretch is not supported"
    if mode in INTERPOLATING_MODES:
        yield from _check_interpolating(view)
        return
    coordinate_mode, nearest_mode = _modes(view)
    if coordinate_mode not in COORDINATE_MODES:
        yield f"coordinate_transformation_mode '{coordinate_mode}' is not supported"
    if nearest_mode not in NEAREST_MODES:
        yield f"nearest_mode '{nearest_mode}' is not supported"
    scales = resize_scales(view)
    if view.opset < 11 and any(s < 1 for s in scales) and any(s > 1 for s in scales):
        yield "Resize-10 that upsamples some axes and downsamples others is not supported"


def _check_interpolating(view: NodeView) -> Iterable[str]:
    if view.attr("coordinate_transformation_mode") == "tf_crop_and_resize":
        yield "coordinate_transformation_mode 'tf_crop_and_resize' is not supported in linear and cubic modes"
    if not np.issubdtype(view.input_spec(0).dtype, np.floating):
        yield "linear and cubic modes need a float input"


def _interpolate(n: NodeEmitter):
    """Linear or cubic: one interpolation matrix per axis whose size changes or whose scale is not 1."""
    data = n.input(0)
    shape = n.spec(data).shape
    scales_index, sizes_index = _scales_and_sizes_inputs(n)
    by_sizes = not _given(n, scales_index)
    scales, target = resize_scales(n), n.output_spec(0).shape
    matrices = {axis: interpolation_matrix(n, shape[axis], None if by_sizes else scales[axis],
                                           target[axis] if by_sizes else None)
                for axis in range(len(shape)) if target[axis] != shape[axis] or scales[axis] != 1.0}
    return resize_by_matmuls(n, data, matrices)


@converter("Resize", graph_ops=("resize_nearest", "matmul", "constant", "transpose"), check=_check_resize,
           static_inputs={1: "roi or scales", 2: "scales", 3: "sizes"},
           notes="Mode nearest, by constant scales or sizes (sizes become the smallest f32 scales giving them), "
                 "`axes`, coordinate_transformation_mode half_pixel, asymmetric, align_corners or "
                 "pytorch_half_pixel, every nearest_mode. Resize-10 is asymmetric, floor when upsampling and ceil "
                 "when downsampling (as onnxruntime). Modes linear and cubic (every coordinate mode but "
                 "tf_crop_and_resize, `cubic_coeff_a`, `exclude_outside`, `antialias`): one matmul per resized "
                 "axis with an interpolation matrix computed by ONNX's reference implementation.")
def convert_resize(n: NodeEmitter):
    if n.attr("mode", "nearest") in INTERPOLATING_MODES:
        return _interpolate(n)
    coordinate_mode, nearest_mode = _modes(n)
    return n.emit("resize_nearest", n.input(0), scales=resize_scales(n),
                  coordinate_transformation_mode=coordinate_mode, nearest_mode=nearest_mode)
