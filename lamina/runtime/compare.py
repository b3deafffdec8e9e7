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
    """

    name: str
    max_abs: float | None
    max_rel: float | None
    mismatch: str | None = None


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
    return Difference(name, float(error.max()), float(relative.max()) if relative.size else 0.0, mismatch)
