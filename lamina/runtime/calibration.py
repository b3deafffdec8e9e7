"""Calibration: what the float graph computes on sample inputs, for the accelerator's formats.

`convert_graph_to_hir` asks for this on the graph as it converts it (after
its own rewrites), so every value it places gets a measured range.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
from mlir import ir

from lamina.dialects.values import is_constant_view

from . import graph_interpreter


def value_ranges(module: ir.Operation, samples: Iterable[Mapping[str, np.ndarray]]
                 ) -> tuple[dict[ir.Value, float], dict[ir.Value, np.ndarray]]:
    """The largest |x| each op result reaches when the float graph runs on each sample, and every
    computed value of the first sample (the accuracy check compares each layer with it)."""
    ranges: dict[ir.Value, float] = {}
    first: dict[ir.Value, np.ndarray] = {}
    constant: dict[ir.Value, bool] = {}  # asked once per value, not once per sample

    def observe(value: ir.Value, array: np.ndarray) -> None:
        if value not in constant:
            constant[value] = is_constant_view(value)
        if array.size and np.issubdtype(array.dtype, np.floating) and not constant[value]:
            magnitude = float(np.max(np.abs(array)))
            if math.isnan(magnitude):
                magnitude = math.inf
            ranges[value] = max(ranges.get(value, 0.0), magnitude)
            if keep_first:
                first[value] = array

    for index, feeds in enumerate(samples):
        keep_first = index == 0
        graph_interpreter.run(module, feeds, observe, verify=keep_first)  # the module does not change
    return ranges, first
