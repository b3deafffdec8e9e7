"""The accelerator's fixed-point arithmetic, exactly, on NumPy integer arrays.

A data type `FPwBPb` stores a scalar as a w-bit two's-complement integer q
meaning q / 2**b. Every operation is computed exactly on int64 and then
rounded once (to nearest, ties to even, at bit b) and saturated to w bits.
These functions define the semantics: the compiler converts constants with
them, the simulator executes instructions with them, and the HIR reference
executor and the tests' NumPy models call the same ones.

One deliberate difference from Tensil: the systolic array keeps an exact wide
sum along a column and rounds once per output (`matmul`), where Tensil rounds
and saturates after every MAC. Real arrays accumulate wide, and one rounding
per output keeps FP16BP8 usable for deep networks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DataType:
    """A fixed-point format: `width` bits, `binary_point` fractional bits."""

    name: str
    width: int
    binary_point: int

    @property
    def storage(self) -> np.dtype:
        """The little-endian integer type one scalar is stored as in `.tdata` and DRAM."""
        return np.dtype("<i2") if self.width <= 16 else np.dtype("<i4")

    @property
    def minimum(self) -> int:
        return -(1 << (self.width - 1))

    @property
    def maximum(self) -> int:
        return (1 << (self.width - 1)) - 1

    @property
    def one(self) -> int:
        return 1 << self.binary_point

    @property
    def lsb(self) -> float:
        """The value of one unit in the last place: the format's resolution."""
        return 2.0 ** -self.binary_point

    def saturate(self, q: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(q, dtype=np.int64), self.minimum, self.maximum)

    def from_float(self, x: np.ndarray) -> np.ndarray:
        """Round floats to the nearest representable value (ties to even), saturating."""
        scaled = np.rint(np.asarray(x, dtype=np.float64) * self.one)
        return self.saturate(np.clip(scaled, self.minimum, self.maximum)).astype(np.int64)

    def to_float(self, q: np.ndarray) -> np.ndarray:
        return (np.asarray(q, dtype=np.float64) / self.one).astype(np.float32)

    def round_shift(self, exact: np.ndarray, shift: int) -> np.ndarray:
        """exact / 2**shift rounded to nearest, ties to even (exact on int64)."""
        exact = np.asarray(exact, dtype=np.int64)
        if shift == 0:
            return exact
        floor = exact >> shift
        remainder = exact - (floor << shift)
        half = 1 << (shift - 1)
        round_up = (remainder > half) | ((remainder == half) & ((floor & 1) == 1))
        return floor + round_up

    # -- the operations the hardware performs --------------------------------

    def add(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.saturate(np.asarray(a, np.int64) + np.asarray(b, np.int64))

    def sub(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.saturate(np.asarray(a, np.int64) - np.asarray(b, np.int64))

    def mul(self, a: np.ndarray, b: np.ndarray, shift: int | None = None) -> np.ndarray:
        """sat(rne(a * b, shift)); `shift` defaults to the binary point (both factors and the result in it)."""
        product = np.asarray(a, np.int64) * np.asarray(b, np.int64)
        return self.saturate(self.round_shift(product, self.binary_point if shift is None else shift))

    def matmul(self, inputs: np.ndarray, weights: np.ndarray, bias: np.ndarray, shift: int | None = None
               ) -> np.ndarray:
        """One array pass: rows of `inputs` (v x N) times `weights` (N x N) plus `bias` (N).

        The column sums are exact (products of w-bit integers summed in
        float64 stay exact below 2**53, far above N * 2**(2w) for w <= 16;
        32-bit types use int64 arithmetic instead), then the bias shifted up by
        `shift` is added, and the sum rounded once at bit `shift` and
        saturated. `shift` (the binary point by default) is the array's output
        rounding position: input bp + weight bp - output bp (calibrated formats).
        """
        shift = self.binary_point if shift is None else shift
        if self._exact_in_float(np.shape(weights)[-2], shift):
            # The sum scaled by 2**-shift is exact too, so `rint` (ties to even) is the rounding: 3x faster.
            sums = np.asarray(inputs).astype(np.float64) @ (np.asarray(weights).astype(np.float64) * 2.0 ** -shift)
            sums += bias
            return self.saturate(np.rint(sums, out=sums))
        inputs = np.asarray(inputs, np.int64)
        weights = np.asarray(weights, np.int64)
        if self.width <= 16:
            products = (inputs.astype(np.float64) @ weights.astype(np.float64)).astype(np.int64)
        else:
            products = inputs @ weights
        exact = products + (np.asarray(bias, np.int64) << shift)
        return self.saturate(self.round_shift(exact, shift))

    def _exact_in_float(self, terms: int, shift: int) -> bool:
        """Whether `terms` w-bit products plus a w-bit bias, in units of 2**-shift, fit float64's 53 bits."""
        half = 1 << (self.width - 1)
        return terms * half * half + (half << shift) <= 1 << 53

    def at(self, binary_point: int) -> "DataType":
        """The same width with another binary point: one tensor's format under calibrated formats."""
        return self if binary_point == self.binary_point else DataType(
            f"FP{self.width}BP{binary_point}", self.width, binary_point)


FP16BP8 = DataType("FP16BP8", 16, 8)
FP32BP16 = DataType("FP32BP16", 32, 16)

DATA_TYPES = {data_type.name: data_type for data_type in (FP16BP8, FP32BP16)}


def scale_factors(multiplier: float, data_type: DataType) -> list[int]:
    """Fixed-point factors whose successive `mul`s multiply by `multiplier` accurately.

    A small constant such as 1/49 has few significant bits in FP16BP8 (it
    would be 5/256, 4% off). Written as a mantissa in [0.5, 1) times powers
    of two, each factor is representable with full relative precision, and a
    power of two 2**-k (k <= binary point) multiplies exactly up to rounding.
    Returns the factors as stored integers, mantissa first.
    """
    if multiplier <= 0:
        raise ValueError(f"scale_factors needs a positive multiplier, got {multiplier}")
    mantissa, exponent = np.frexp(multiplier)  # multiplier = mantissa * 2**exponent, mantissa in [0.5, 1)
    factors = [int(data_type.from_float(mantissa))]
    if exponent > 0:
        raise ValueError(f"scale_factors covers multipliers below 1, got {multiplier}")
    remaining = -int(exponent)
    while remaining > 0:
        step = min(remaining, data_type.binary_point)
        factors.append(1 << (data_type.binary_point - step))
        remaining -= step
    return factors
