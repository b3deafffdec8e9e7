"""Profiling a float graph over calibration samples (Glow's Profile mode, run by `lamina-profile`).

The graph gets `graph.profile` probes (`graph-profile-instrument`), runs in
the reference interpreter once per sample, and each probe's values update a
running range and histogram. When a later sample widens the range, the
histogram so far is re-binned into the wider one by bin centres, as Glow
does. Values that are NaN or infinite stop profiling: no format can hold them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

import numpy as np
from mlir import ir

from lamina.dialects.model import inputs as model_inputs
from lamina.kernels.quantization import PROFILE_PREFIX
from lamina.passes.graph.profile_instrument import PROFILED_HASH_ATTRIBUTE
from lamina.passes.pass_manager import run_pipeline
from lamina.quantization.profile import Profile, ProfileError, TensorProfile

from . import graph_interpreter
from .graph_interpreter import describe

DEFAULT_BINS = 512  # fine enough for KL calibration's threshold search
DEFAULT_SAMPLES = 16


@dataclass
class RangeHistogram:
    """A range and an equal-width histogram over it, grown sample by sample."""

    bins: int
    low: float = np.inf
    high: float = -np.inf
    counts: np.ndarray = field(default=None)

    def add(self, values: np.ndarray) -> None:
        values = values.astype(np.float64).ravel()
        if values.size == 0:
            return
        low, high = min(self.low, values.min()), max(self.high, values.max())
        if self.counts is None:
            self.counts = np.zeros(self.bins, np.int64)
        elif (low, high) != (self.low, self.high):
            centres = (self._edges()[:-1] + self._edges()[1:]) / 2
            self.counts = self._binned(centres, low, high, weights=self.counts)
        self.low, self.high = low, high
        self.counts += self._binned(values, low, high)

    def profile(self) -> TensorProfile:
        if self.counts is None:
            return TensorProfile(0.0, 0.0, (0,) * self.bins)
        return TensorProfile(float(self.low), float(self.high), tuple(int(c) for c in self.counts))

    def _edges(self) -> np.ndarray:
        return np.linspace(self.low, self.high, self.bins + 1)

    def _binned(self, values: np.ndarray, low: float, high: float, weights=None) -> np.ndarray:
        width = (high - low) / self.bins
        index = np.zeros(values.shape, np.int64) if width == 0 else np.floor((values - low) / width).astype(np.int64)
        return np.bincount(np.clip(index, 0, self.bins - 1), weights=weights, minlength=self.bins).astype(np.int64)


def profile_graph(module: ir.Operation, samples: Iterable[Mapping[str, np.ndarray]], bins: int = DEFAULT_BINS) -> Profile:
    """Instrument `module` in place, run it on every sample and return the profile."""
    run_pipeline(module, "builtin.module(graph-profile-instrument)")
    graph_hash = ir.StringAttr(module.attributes[PROFILED_HASH_ATTRIBUTE]).value
    ranges: dict[str, RangeHistogram] = {}
    for index, sample in enumerate(samples):
        for key, values in graph_interpreter.run(module, sample).items():
            if not key.startswith(PROFILE_PREFIX):
                continue
            name = key[len(PROFILE_PREFIX):]
            if not np.isfinite(values).all():
                raise ProfileError(f"node output '{name}' is NaN or infinite on calibration sample {index}; "
                                   "no number format holds it")
            ranges.setdefault(name, RangeHistogram(bins)).add(values)
    return Profile(graph_hash, {name: r.profile() for name, r in ranges.items()})


def calibration_samples(module: ir.Operation, arrays: Mapping[str, np.ndarray], source: str) -> list[dict[str, np.ndarray]]:
    """Per-sample input dicts from arrays with a leading sample axis; a one-line error if they do not fit."""
    expected = model_inputs(module)
    unknown = sorted(set(arrays) - set(expected))
    if unknown:
        raise ProfileError(f"{source}: '{unknown[0]}' is not an input of the model; its inputs are "
                           + ", ".join(f"'{n}'" for n in expected))
    counts = set()
    for name, spec in expected.items():
        if name not in arrays:
            raise ProfileError(f"{source}: no calibration data for input '{name}' ({describe(spec.shape, spec.dtype)})")
        array = arrays[name]
        if array.ndim == 0 or array.shape[0] == 0:
            raise ProfileError(f"{source}: input '{name}' has no calibration samples")
        if tuple(array.shape[1:]) != spec.shape:
            raise ProfileError(f"{source}: input '{name}' has shape {list(array.shape)}, expected "
                               f"[samples, {', '.join(map(str, spec.shape))}] (a leading sample axis, then the input's shape)")
        counts.add(array.shape[0])
    if len(counts) > 1:
        raise ProfileError(f"{source}: inputs hold different numbers of samples ({', '.join(map(str, sorted(counts)))})")
    count = counts.pop() if counts else 1
    return [{name: np.asarray(arrays[name][i]).astype(spec.dtype, copy=False) for name, spec in expected.items()}
            for i in range(count)]
