"""Special functions NumPy lacks, vectorized and accurate to double precision.

The reference interpreter needs `erf` (for `graph.erf` and the exact form of
`graph.gelu`), and scipy is not a dependency. Values are computed in float64
and the caller casts back, so a float32 result is correctly rounded or one ulp
away: far inside any tolerance the interpreter is compared at.
"""

from __future__ import annotations

import math

import numpy as np

# |x| below this: the positive-term series; above: the erfc approximation.
_SERIES_LIMIT = 3.0
# Terms of the series: at |x| = 3 the 48th term is below 1e-16 of the sum.
_SERIES_TERMS = 48
# Chebyshev fit of erfc(z) * exp(z^2) in t = 1 / (1 + z/2), fractional error
# below 1.2e-7 for z >= 0 (Press et al., Numerical Recipes, `erfcc`). Used only
# for |x| >= 3, where erfc(x) < 2.3e-5, so erf's absolute error stays < 3e-12.
_ERFC_COEFFICIENTS = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
                      0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _erf_series(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)).

    Every term has the sign of x, so the sum has no cancellation (unlike the
    Maclaurin series) and is accurate to a few ulps wherever it converges fast.
    """
    squared = x * x
    term = x.copy()
    total = x.copy()
    for n in range(1, _SERIES_TERMS):
        term *= 2.0 * squared / (2 * n + 1)
        total += term
    return (2.0 / math.sqrt(math.pi)) * np.exp(-squared) * total


def _erfc_tail(z: np.ndarray) -> np.ndarray:
    """erfc(z) for z >= 0 (used for z >= 3)."""
    t = 1.0 / (1.0 + 0.5 * z)
    polynomial = np.zeros_like(t)
    for coefficient in reversed(_ERFC_COEFFICIENTS[1:]):
        polynomial = (polynomial + coefficient) * t
    return t * np.exp(-z * z + _ERFC_COEFFICIENTS[0] + polynomial)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, element-wise, in x's floating-point dtype."""
    x = np.asarray(x)
    wide = x.astype(np.float64)
    magnitude = np.abs(wide)
    near = magnitude < _SERIES_LIMIT
    result = np.empty_like(wide)
    result[near] = _erf_series(wide[near])
    far = ~near & ~np.isnan(wide)
    result[far] = np.copysign(1.0 - _erfc_tail(magnitude[far]), wide[far])
    result[np.isnan(wide)] = np.nan
    return result.astype(x.dtype, copy=False)
