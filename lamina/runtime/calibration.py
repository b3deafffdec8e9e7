"""Calibration: what the float graph computes on sample inputs, for the accelerator's formats.

`convert_graph_to_hir` asks for this on the graph as it converts it (after
its own rewrites), so every value it places gets a measured range.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from typing import Mapping, Sequence

import numpy as np
from mlir import ir

from lamina.dialects.context import check_module
from lamina.dialects.values import is_constant_view

from . import graph_interpreter


def value_ranges(module: ir.Operation, samples: Sequence[Mapping[str, np.ndarray]], threads: int = 1
                 ) -> tuple[dict[ir.Value, float], dict[ir.Value, np.ndarray]]:
    """The largest |x| each op result reaches when the float graph runs on each sample, and every
    computed value of the first sample (the accuracy check compares each layer with it).

    With `threads` > 1 the samples are split into that many groups, each run in its own thread: the
    time is in NumPy kernels, which release the GIL, so groups of samples use the cores without the
    fine-grained synchronization of a multithreaded BLAS inside each small matrix product."""
    samples = list(samples)
    check_module(module)  # once: every run below reads the same module
    constant: dict[ir.Value, bool] = {}  # asked once per value, not once per sample
    count = max(1, min(threads, len(samples)))
    bounds = np.linspace(0, len(samples), count + 1).astype(int)
    groups = [samples[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    if count == 1:
        measured = [_measure(module, groups[0], constant, keep_first=True)]
    else:
        with ThreadPoolExecutor(max_workers=count, thread_name_prefix="lamina-calibration") as pool:
            measured = list(pool.map(lambda k: _measure(module, groups[k], constant, keep_first=k == 0),
                                     range(count)))
    ranges: dict[ir.Value, float] = {}
    for group_ranges, _ in measured:
        for value, magnitude in group_ranges.items():
            ranges[value] = max(ranges.get(value, 0.0), magnitude)
    return ranges, measured[0][1]


def _measure(module: ir.Operation, samples: list[Mapping[str, np.ndarray]], constant: dict[ir.Value, bool],
             keep_first: bool) -> tuple[dict[ir.Value, float], dict[ir.Value, np.ndarray]]:
    """`value_ranges` over `samples` in this thread; with `keep_first`, also the first sample's values."""
    ranges: dict[ir.Value, float] = {}
    first: dict[ir.Value, np.ndarray] = {}

    def observe(value: ir.Value, array: np.ndarray) -> None:
        if value not in constant:
            constant[value] = is_constant_view(value)
        if array.size and np.issubdtype(array.dtype, np.floating) and not constant[value]:
            magnitude = float(np.max(np.abs(array)))
            if math.isnan(magnitude):
                magnitude = math.inf
            ranges[value] = max(ranges.get(value, 0.0), magnitude)
            if keeping:
                first[value] = array

    for index, feeds in enumerate(samples):
        keeping = keep_first and index == 0
        graph_interpreter.run(module, feeds, observe, verify=False)  # verified once by the caller
    return ranges, first
