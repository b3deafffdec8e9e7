"""Properties of the graph optimizer on random models (`random_graphs.graph_recipes`).

For any small model, `graph-simplify` (Glow's optimize stage) and the whole
`graph-optimize` for every backend, stopped before its support check as in
`test_graph_optimize_sweep`:
- leave a module that verifies and prints and parses back to the same text;
- keep the model's interface (its inputs and outputs, names and types);
- give every op a known location (a rewrite names what it replaces);
- compute what the model computed, within `assert_same_outputs`'s tolerance
  with a scale of at least 1: inputs and weights are O(1), so an output near
  zero may carry the rounding error of O(1) values that cancelled.

The default run tries a modest number of models, derandomized so that it is
reproducible; `pytest -m slow` tries many more, and larger. A failure prints
the model as a `GraphRecipe` listing, already shrunk by Hypothesis. Bugs put
in on purpose: a transpose chain composed in the wrong order, CSE ignoring
attributes and a batch-norm fold forgetting to scale the mean fail the
default run; `c - conv(x)` folded as `conv(x) - c` fails the slow run.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from lamina.backends import BACKENDS
from lamina.dialects.context import check_module, make_context, parse_module, print_module
from lamina.dialects.model import body_ops, inputs, outputs
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime.graph_interpreter import run
from random_graphs import GraphRecipe, graph_recipes
from test_graph_optimize_sweep import SUPPORT_CHECK, assert_same_outputs, leaf_elements

PIPELINES = ["graph-simplify", *(f"graph-optimize{{backend={backend}}}" for backend in BACKENDS)]


def _common(max_examples: int):
    return settings(max_examples=max_examples, derandomize=True, database=None, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


DEFAULT = _common(max_examples=60)
SLOW = _common(max_examples=600)


def passes_of(pipeline: str) -> str:
    """The passes of `pipeline` but a final support check: stopping at an op the backend cannot
    run is not a wrong result (`test_graph_optimize_sweep` checks what the check reports)."""
    *passes, last = leaf_elements(pipeline)
    return ",".join(passes if last.startswith(SUPPORT_CHECK) else [*passes, last])


def check_pipeline_preserves_the_model(recipe: GraphRecipe, pipeline: str) -> None:
    context = make_context()
    module = recipe.build(context)
    feeds = recipe.inputs(seed=0)
    before = run(module, feeds)
    interface = (inputs(module), outputs(module))
    run_pipeline(module, f"builtin.module({passes_of(pipeline)})")
    check_module(module)
    text = print_module(module, debug_info=True)
    assert print_module(parse_module(text, context), debug_info=True) == text
    assert (inputs(module), outputs(module)) == interface
    unknown = [op.name for op in body_ops(module) if str(op.location) == "loc(unknown)"]
    assert not unknown, f"ops without a location after {pipeline}: {unknown}"
    assert_same_outputs(run(module, feeds), before, pipeline, scale_floor=1.0)


@pytest.mark.parametrize("pipeline", PIPELINES)
@DEFAULT
@given(recipe=graph_recipes())
def test_optimizing_preserves_random_models(pipeline, recipe):
    check_pipeline_preserves_the_model(recipe, pipeline)


@pytest.mark.slow
@pytest.mark.parametrize("pipeline", PIPELINES)
@SLOW
@given(recipe=graph_recipes(max_ops=16))
def test_optimizing_preserves_many_random_models(pipeline, recipe):
    check_pipeline_preserves_the_model(recipe, pipeline)
