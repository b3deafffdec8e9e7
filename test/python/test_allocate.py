"""Memory planning: `memory_plan`'s placements and the `buffer-allocate` pass.

A plan is valid when buffers live at the same time never share a byte and
every offset is aligned; it is good when its size is near the lower bound
(the most bytes live at once). The planner is checked on random lifetimes,
the pass on whole models through `graph-to-buffers`, with the validity
recomputed from the shared analysis (not by the verifier alone), and the
planned module run by the buffer interpreter, which places every buffer at
its offset in one arena: an overlap would change the numbers.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from mlir import ir

from lamina.dialects.buffer_analysis import analyze, nbytes
from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.passes.buffer.memory_plan import (ALIGNMENT, FITS, ORDERS, Lifetime, aligned, live_peak, place,
                                              place_with)
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter
from light_models import LIGHT_MODELS, load_light_model, random_inputs, randomize_weights
from random_graphs import GraphRecipe, graph_recipes

# ---------------------------------------------------------------------------
# The planner on lifetimes.
# ---------------------------------------------------------------------------


def _assert_valid(lifetimes: list[Lifetime], offsets, size: int) -> None:
    assert all(offset % ALIGNMENT == 0 for offset in offsets)
    assert all(offset + t.size <= size for offset, t in zip(offsets, lifetimes))
    for (i, a), (j, b) in itertools.combinations(enumerate(lifetimes), 2):
        if a.overlaps(b):
            assert offsets[i] + a.size <= offsets[j] or offsets[j] + b.size <= offsets[i], (a, b)


def test_glow_allocate_all_example():
    """Glow's MemoryAllocatorTest: a(10), b(10), free a, c(20), free b, free c, in 64-byte units.

    One request at a time, first fit, puts c above b (40 units); seeing the
    whole sequence reaches the lower bound, 30 units.
    """
    unit = 10 * ALIGNMENT
    lifetimes = [Lifetime(0, 2, unit), Lifetime(1, 4, unit), Lifetime(3, 5, 2 * unit)]
    assert live_peak(lifetimes) == 3 * unit
    assert place_with(lifetimes, "program order", "first fit").size == 4 * unit
    assert place(lifetimes).size == 3 * unit


def test_aligned_footprints():
    assert [aligned(n) for n in (0, 1, 64, 65, 640)] == [64, 64, 64, 128, 640]


lifetime_lists = st.lists(
    st.builds(lambda start, length, units: Lifetime(start, start + length, units * ALIGNMENT),
              st.integers(0, 30), st.integers(1, 12), st.integers(1, 40)),
    max_size=40)


@settings(max_examples=150, derandomize=True, database=None, deadline=None)
@given(lifetimes=lifetime_lists)
def test_every_heuristic_is_valid_and_place_keeps_the_best(lifetimes):
    results = [place_with(lifetimes, order, fit) for order in ORDERS for fit in FITS]
    for result in results:
        _assert_valid(lifetimes, result.offsets, result.size)
    best = place(lifetimes)
    _assert_valid(lifetimes, best.offsets, best.size)
    assert live_peak(lifetimes) <= best.size <= min(r.size for r in results) <= sum(t.size for t in lifetimes)


# ---------------------------------------------------------------------------
# The pass, through the named pipeline.
# ---------------------------------------------------------------------------


def _attribute(module: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(module.attributes[name]).value


def _check_plan(module: ir.Operation) -> dict[str, int]:
    """Validity of the activation plan, from the analysis; returns the module's sizes and the naive total."""
    program, buffers = analyze(module)
    allocs = [info for info in buffers.values() if info.kind == "alloc"]
    offsets = [ir.IntegerAttr(info.buffer.owner.attributes["offset"]).value for info in allocs]
    lifetimes = [Lifetime(info.start, info.end, aligned(nbytes(info.buffer))) for info in allocs]
    sizes = {name: _attribute(module, f"buffer.{name}")
             for name in ("activation_bytes", "activation_lower_bound_bytes", "constant_bytes", "mutable_bytes")}
    _assert_valid(lifetimes, offsets, sizes["activation_bytes"])
    sizes["naive"] = sum(t.size for t in lifetimes)
    assert sizes["activation_lower_bound_bytes"] == live_peak(lifetimes)
    assert sizes["activation_lower_bound_bytes"] <= sizes["activation_bytes"] <= sizes["naive"]
    return sizes


def _assert_same_outputs(expected: dict, actual: dict) -> None:
    """Same values up to float rounding: in-place and fused buffer kernels may differ from the graph's by an ULP."""
    assert actual.keys() == expected.keys()
    for name in expected:
        scale = float(np.max(np.abs(expected[name]), initial=1.0))
        np.testing.assert_allclose(actual[name], expected[name], rtol=1e-5, atol=1e-6 * scale)


@pytest.mark.parametrize("scheduler", ["memory", "topological"])
@settings(max_examples=20, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.too_slow], phases=[Phase.explicit, Phase.generate])
@given(recipe=graph_recipes())
def test_planned_random_models_are_valid_and_compute_the_same(scheduler: str, recipe: GraphRecipe):
    module = recipe.build(make_context())
    expected = graph_interpreter.run(module, recipe.inputs())
    run_pipeline(module, f"builtin.module(graph-to-buffers{{scheduler={scheduler}}})")
    _check_plan(module)
    _assert_same_outputs(expected, buffer_interpreter.run(module, recipe.inputs()))


def test_squeezenet_plan_is_near_its_lower_bound_and_computes_the_same():
    model = load_light_model("squeezenet")
    module = import_model(model, make_context())
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference})")
    inputs = random_inputs(model, 0)
    expected = graph_interpreter.run(module, inputs)
    run_pipeline(module, "builtin.module(graph-to-buffers)")
    sizes = _check_plan(module)
    assert sizes["activation_bytes"] <= 1.1 * sizes["activation_lower_bound_bytes"]
    assert sizes["activation_bytes"] < sizes["naive"] / 3  # memory is reused, not one buffer per value
    _assert_same_outputs(expected, buffer_interpreter.run(module, inputs))


@pytest.mark.slow
@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_model_plans_are_valid_and_near_their_lower_bound(name: str):
    """The target `benchmarks/memory_table.py` reports on: peak within 10% of the lower bound."""
    module = import_model(randomize_weights(load_light_model(name), 0), make_context())
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference},graph-to-buffers)")
    sizes = _check_plan(module)
    assert sizes["activation_bytes"] <= 1.1 * sizes["activation_lower_bound_bytes"]
