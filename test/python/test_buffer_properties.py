"""Properties of the buffer level on random models (`random_graphs.graph_recipes`).

For any small model, `graph-to-buffers` (schedule, IRGen, the low-level
optimizations, memory planning), and the same with every buffer pass run
(`buffer-share` and copy propagation included, in an order of their own):
- leaves a module that verifies (lifetimes, aliasing, planned offsets);
- places no two allocs that are live at the same time on shared bytes,
  checked here from the lifetime analysis itself rather than trusting the
  verifier, which shares the rule;
- computes, in the buffer interpreter's one byte arena, what the graph
  interpreter computes on the graph. The same kernels run on the same
  values, so results agree to the last bit but where BLAS sums a matrix
  product in another order (the graph interpreter may pass it a transposed
  view, the buffer level contiguous bytes): hence a 1e-6 tolerance, far
  below what a buffer overwritten too early (another value, or NaN poison)
  would change.

The default run tries a modest number of models, derandomized so that it is
reproducible; `pytest -m slow` tries many more, and larger ones. A failure
prints the model as a `GraphRecipe` listing, already shrunk by Hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import analyze, nbytes
from lamina.dialects.context import check_module, make_context
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter
from random_graphs import GraphRecipe, graph_recipes

# Every buffer pass, each at least once, around the pipeline's own choices.
EVERY_PASS = ("graph-schedule,convert-graph-to-buffer,buffer-hoist-deallocs,buffer-sink-allocs,buffer-share,"
              "buffer-copy-propagation,buffer-dce,buffer-inplace,buffer-eliminate-copies,buffer-dce,"
              "buffer-hoist-deallocs,buffer-sink-allocs,buffer-make-weights-const,buffer-allocate")
PIPELINES = {"graph-to-buffers": "graph-to-buffers", "every-pass": EVERY_PASS,
             "topological": "graph-to-buffers{scheduler=topological}"}


def _common(max_examples: int):
    return settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


DEFAULT = _common(max_examples=25)
SLOW = _common(max_examples=400)


def overlapping_live_allocs(module) -> list[tuple[str, str]]:
    """Pairs of allocs whose lifetimes and planned byte ranges both overlap."""
    program, buffers = analyze(module)
    allocs = []
    for info in buffers.values():
        if info.kind == "alloc":
            offset = BUFFER.view(info.buffer.owner).attr("offset")
            end = len(program) if info.end is None else info.end
            allocs.append((info, offset, offset + nbytes(info.buffer), end))
    return [(BUFFER.view(a.buffer.owner).attr("name"), BUFFER.view(b.buffer.owner).attr("name"))
            for i, (a, a_begin, a_end, a_death) in enumerate(allocs)
            for b, b_begin, b_end, b_death in allocs[i + 1:]
            if a.start < b_death and b.start < a_death and a_begin < b_end and b_begin < a_end]


def check_buffers_compute_the_graph(recipe: GraphRecipe, pipeline: str) -> None:
    context = make_context()
    feeds = recipe.inputs(seed=0)
    expected = graph_interpreter.run(recipe.build(context), feeds)
    module = recipe.build(context)
    run_pipeline(module, f"builtin.module({pipeline})")
    check_module(module)
    assert overlapping_live_allocs(module) == []
    results = buffer_interpreter.run(module, feeds)
    assert results.keys() == expected.keys()
    for name, value in expected.items():
        np.testing.assert_allclose(results[name], value, rtol=1e-6, atol=1e-6,
                                   err_msg=f"output '{name}' after {pipeline}")


@pytest.mark.parametrize("pipeline", list(PIPELINES))
@DEFAULT
@given(recipe=graph_recipes())
def test_buffers_compute_random_models(pipeline, recipe):
    check_buffers_compute_the_graph(recipe, PIPELINES[pipeline])


@pytest.mark.slow
@pytest.mark.parametrize("pipeline", list(PIPELINES))
@SLOW
@given(recipe=graph_recipes(max_ops=16))
def test_buffers_compute_many_random_models(pipeline, recipe):
    check_buffers_compute_the_graph(recipe, PIPELINES[pipeline])
