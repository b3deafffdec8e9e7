"""How far one run's outputs are from another's: the per-stage check.

Every level of Lamina is compared with onnxruntime and with the levels above
it on the same inputs; this module computes the numbers those comparisons
report, output by output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class Difference:
    """One output present on both sides.

    `max_rel` is taken over the elements whose reference value is non-zero
    (a zero reference has no relative error; `max_abs` covers it). Both are
    None when the shapes differ. `mismatch` says what differs besides values
    (shapes, element types); it is None when the tensors are alike.
    `cosine` and `sqnr_db` (`cosine_similarity`, `sqnr_db`) say how much of
    the signal survives, which max errors alone hide; None when the shapes
    differ or the values are not finite.
    """

    name: str
    max_abs: float | None
    max_rel: float | None
    mismatch: str | None = None
    cosine: float | None = None
    sqnr_db: float | None = None


@dataclass(frozen=True)
class Comparison:
    differences: list[Difference]
    only_actual: list[str]  # outputs the reference lacks
    only_reference: list[str]  # outputs the run did not produce


def compare(actual: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray]) -> Comparison:
    """Output-by-output errors of `actual` against `reference`, in `actual`'s order."""
    differences = [difference(name, actual[name], reference[name]) for name in actual if name in reference]
    return Comparison(differences,
                      only_actual=[name for name in actual if name not in reference],
                      only_reference=[name for name in reference if name not in actual])


def difference(name: str, actual: np.ndarray, reference: np.ndarray) -> Difference:
    if actual.shape != reference.shape:
        return Difference(name, None, None, f"shapes differ: {list(actual.shape)} vs {list(reference.shape)}")
    mismatch = None if actual.dtype == reference.dtype else f"element types differ: {actual.dtype} vs {reference.dtype}"
    if actual.size == 0:
        return Difference(name, 0.0, 0.0, mismatch)
    wide_actual, wide_reference = actual.astype(np.float64), reference.astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, replaced below
        error = np.abs(wide_actual - wide_reference)
    alike = (wide_actual == wide_reference) | (np.isnan(wide_actual) & np.isnan(wide_reference))
    error[alike] = 0.0  # equal infinities and NaN against NaN are no error; any other NaN shows as NaN
    differing = ~alike & (wide_reference != 0)
    relative = error[differing] / np.abs(wide_reference[differing])
    finite = bool(np.isfinite(wide_actual).all() and np.isfinite(wide_reference).all())
    return Difference(name, float(error.max()), float(relative.max()) if relative.size else 0.0, mismatch,
                      cosine_similarity(wide_actual, wide_reference) if finite else None,
                      sqnr_db(wide_actual, wide_reference) if finite else None)


def cosine_similarity(actual: np.ndarray, reference: np.ndarray) -> float:
    """cos(actual, reference) over all elements as one vector; 1.0 when both are zero, 0.0 when one is."""
    a, r = np.asarray(actual, np.float64).ravel(), np.asarray(reference, np.float64).ravel()
    norms = float(np.linalg.norm(a) * np.linalg.norm(r))
    if norms == 0:
        return 1.0 if not a.any() and not r.any() else 0.0
    return float(np.dot(a, r) / norms)


def sqnr_db(actual: np.ndarray, reference: np.ndarray) -> float:
    """Signal-to-quantization-noise ratio: 10 log10(sum r^2 / sum (a - r)^2); inf when equal."""
    a, r = np.asarray(actual, np.float64).ravel(), np.asarray(reference, np.float64).ravel()
    noise, signal = float(np.sum((a - r) ** 2)), float(np.sum(r ** 2))
    if noise == 0:
        return float("inf")
    return float(10 * np.log10(signal / noise)) if signal else float("-inf")
