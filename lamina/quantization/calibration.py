"""From a profiled range (or a weight tensor) to a `!quant.uniform` format, as Glow chooses them.

Schemas (Glow's `quantization::Schema`): `asymmetric` maps [min, max] onto
the whole integer range with a zero point; `symmetric` centres it on zero;
`symmetric_power2` also rounds the scale up to a power of two. Every range
is widened to include 0, so that zero (padding, ReLU's floor) is exact.
Calibration `minmax` takes the profiled range as it is; `kl` clips it at the
threshold minimizing the KL divergence between the histogram and its
quantized copy (TensorRT's entropy calibration, Glow's `-quantization-calibration=KL`).
Weights are symmetric (zero point 0, narrow range), per output channel on request;
biases are i32 with scale input scale x weight scale.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from lamina.dialects.types import QuantParams

from .profile import ProfileError, TensorProfile

Precision = Literal["int8", "int16"]
Schema = Literal["asymmetric", "symmetric", "symmetric_power2"]
Calibration = Literal["minmax", "kl"]

STORAGE = {"int8": np.dtype(np.int8), "int16": np.dtype(np.int16)}
_F32 = np.finfo(np.float32)


def storage_range(precision: str) -> tuple[int, int]:
    info = np.iinfo(STORAGE[precision])
    return int(info.min), int(info.max)


def range_params(low: float, high: float, precision: str, schema: str, what: str) -> QuantParams:
    """The format of a tensor whose values lie in [low, high]; a one-line error if none holds it."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    qmin, qmax = storage_range(precision)
    if schema == "asymmetric":
        scale = (high - low) / (qmax - qmin)
    else:
        scale = max(-low, high) / qmax
    if scale == 0.0:
        return QuantParams((1.0,), (0,), None, qmin, qmax)
    if schema == "symmetric_power2":
        scale = 2.0 ** math.ceil(math.log2(scale))
    if not (float(_F32.tiny) <= scale <= float(_F32.max)):
        raise ProfileError(f"{what}: range [{low:g}, {high:g}] fits no {precision} format "
                           f"(its scale {scale:g} is not a normal float32)")
    zero_point = 0 if schema != "asymmetric" else int(np.clip(round(qmin - low / scale), qmin, qmax))
    return QuantParams((scale,), (zero_point,), None, qmin, qmax)


def activation_params(profile: TensorProfile, precision: str, schema: str, calibration: str, what: str) -> QuantParams:
    low, high = profile.min, profile.max
    if calibration == "kl":
        threshold = kl_threshold(profile, magnitude_levels(profile, precision, schema))
        low, high = max(low, -threshold), min(high, threshold)
    return range_params(low, high, precision, schema, what)


def weight_params(weights: np.ndarray, axis: int | None, precision: str, schema: str, what: str) -> QuantParams:
    """Symmetric narrow-range scales for constant weights, per index of `axis` if given."""
    power2 = "symmetric_power2" if schema == "symmetric_power2" else "symmetric"
    qmin, qmax = storage_range(precision)
    if axis is None:
        ranges = [np.abs(weights).max(initial=0.0)]
    else:
        ranges = np.abs(np.moveaxis(weights, axis, 0).reshape(weights.shape[axis], -1)).max(axis=1, initial=0.0)
    scales = [range_params(-float(r), float(r), precision, power2, f"{what}[{i}]" if axis is not None else what).scales[0]
              for i, r in enumerate(ranges)]
    return QuantParams(scales, [0] * len(scales), axis, qmin + 1, qmax)


def bias_params(input_scale: float, weights: QuantParams) -> QuantParams:
    """i32 bias in the accumulator's units: scale = input scale x weight scale (per channel)."""
    info = np.iinfo(np.int32)
    scales = [input_scale * s for s in weights.scales]
    return QuantParams(scales, [0] * len(scales), weights.axis if len(scales) > 1 else None, int(info.min), int(info.max))


def accumulator_params(data: QuantParams, weights: QuantParams) -> tuple[QuantParams, np.dtype]:
    """An i32 layer result read only by float code: the accumulator at input scale x the largest weight
    scale (per tensor; channels with smaller weight scales lose less than one of their own steps in a
    thousand of the result's magnitude, and nothing can exceed the i32 range the products already fit)."""
    info = np.iinfo(np.int32)
    return QuantParams([data.scales[0] * max(weights.scales)], [0], None, int(info.min), int(info.max)), \
        np.dtype(np.int32)


def quantize_constant(values: np.ndarray, params: QuantParams, storage: np.dtype) -> np.ndarray:
    """Stored values of a constant (float64 arithmetic, ties to even, clamped)."""
    scale = params.broadcast(np.asarray(params.scales, np.float64), values.ndim)
    zero = params.broadcast(np.asarray(params.zero_points, np.float64), values.ndim)
    stored = np.rint(values.astype(np.float64) / scale) + zero
    return np.clip(stored, params.qmin, params.qmax).astype(storage)


def magnitude_levels(profile: TensorProfile, precision: str, schema: str) -> int:
    """How many integer levels the format spends on |x|: all of them for one-signed data under the
    asymmetric schema (a ReLU's output), else one side's (TensorRT's 128 for int8)."""
    qmin, qmax = storage_range(precision)
    one_signed = profile.min >= 0 or profile.max <= 0
    return qmax - qmin + 1 if schema == "asymmetric" and one_signed else (qmax - qmin + 1) // 2


def kl_threshold(profile: TensorProfile, levels: int) -> float:
    """TensorRT's entropy calibration on the histogram of |x|: the clipping threshold of least KL divergence
    when |x| up to it is rounded to `levels` levels (none when the histogram is not finer than that)."""
    edges = profile.bin_edges()
    counts = np.asarray(profile.histogram, np.float64)
    top = max(abs(profile.min), abs(profile.max))
    bins = len(counts)
    if top == 0.0 or bins <= levels:
        return top
    centres = np.abs((edges[:-1] + edges[1:]) / 2)
    magnitude = np.bincount(np.minimum((centres / top * bins).astype(np.int64), bins - 1), counts, bins)
    best, best_divergence = bins, math.inf
    for cut in range(levels, bins + 1):
        reference = magnitude[:cut].copy()
        reference[-1] += magnitude[cut:].sum()
        divergence = _kl(reference, _expanded(magnitude[:cut], levels))
        if divergence < best_divergence:
            best, best_divergence = cut, divergence
    return top * best / bins


def _expanded(histogram: np.ndarray, levels: int) -> np.ndarray:
    """`histogram` merged into `levels` levels, then spread back over its non-empty bins."""
    groups = np.array_split(np.arange(len(histogram)), levels)
    expanded = np.zeros_like(histogram)
    for group in groups:
        part = histogram[group]
        nonzero = part > 0
        if nonzero.any():
            expanded[group[nonzero]] = part.sum() / nonzero.sum()
    return expanded


def _kl(p: np.ndarray, q: np.ndarray) -> float:
    p = p / p.sum()
    q_total = q.sum()
    if q_total == 0:
        return math.inf
    q = q / q_total
    mask = p > 0
    if (q[mask] == 0).any():
        return math.inf
    return float(np.sum(p[mask] * np.log(p[mask] / q[mask])))
