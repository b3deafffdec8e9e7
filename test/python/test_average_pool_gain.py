"""The accelerator's average pools with calibrated formats: the rounded 1/count is undone (average_pools.py)."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.passes.conversion.graph_to_hir import convert_graph_to_hir
from lamina.passes.conversion.graph_to_hir.average_pools import division_gain
from lamina.runtime import graph_interpreter
from lamina.runtime.calibration import value_ranges
from lamina.runtime.hir_interpreter import run_hir
from lamina.target.tcu.fixed_point import FP16BP8

GLOBAL_POOL = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x16x7x7xf32> loc("x")
  %p = "graph.avg_pool"(%x) {kernel = array<i64: 7, 7>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, ceil_mode = false, count_include_pad = false} : (tensor<1x16x7x7xf32>) -> tensor<1x16x1x1xf32> loc("pool")
  "graph.save"(%p) {name = "y"} : (tensor<1x16x1x1xf32>) -> () loc("y")
  return
}
"""


def test_division_gain_is_what_scale_factors_multiply_by():
    assert division_gain(1, FP16BP8) == division_gain(2, FP16BP8) == 1.0  # exact powers of two
    assert division_gain(7, FP16BP8) == pytest.approx(146 / 256 * 7 / 4)  # 1/7 = 146/256 x 1/4: 0.2% low


@pytest.mark.parametrize("calibrated, largest_error", [(True, 1e-3), (False, 2e-2)])
def test_a_global_average_pool_keeps_its_gain_only_with_calibrated_formats(calibrated, largest_error):
    """Calibrated: within a rounding of the mean. FP16BP8 (Tensil's mode, unchanged): 1/7 twice, 0.4% low,
    and 8 fractional bits."""
    context = make_context()
    module = parse_module(GLOBAL_POOL, context, "pool.mlir")
    samples = [{"x": np.random.default_rng(k).uniform(1.0, 2.0, (1, 16, 7, 7)).astype(np.float32)} for k in range(4)]
    expected = graph_interpreter.run(parse_module(print_module(module), context, "pool.mlir"), samples[0])["y"]
    measure = (lambda m: value_ranges(m, samples)) if calibrated else None
    convert_graph_to_hir(module, "pynq-z1", measure, calibrated=calibrated)
    relative = np.abs(run_hir(module, samples[0])["y"] / expected - 1)
    assert relative.max() <= largest_error
    assert calibrated or relative.max() >= 3e-3  # the uncorrected gain is there without calibration
