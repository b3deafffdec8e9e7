"""`graph-optimize` keeps the results of every model it can compile, for every backend.

Each light model (seeded random weights, `randomize_weights(seed=0)`, its
final softmax's logits as a second output, `random_inputs(seed=0)`) and each
ONNX node test that Lamina imports runs in the graph interpreter before and
after `graph-optimize{backend=B}`, for every registered backend B. When B
cannot run an op the pipeline leaves (the accelerator cannot compute
softmax's exp), the pipeline stops at its last stage, `graph-check-support`:
the numbers are then compared after the stages before it, and the check must
report exactly the ops B's `is_op_supported` rejects, at their locations.

Tolerance, per float output y: |after - before| <= 1e-4 |before| + 1e-5 max|before|
(`assert_allclose`). The rewrites change float32 rounding only: batch norms
and per-channel scales folded into weights compute w * (scale / sqrt(var +
eps)) once instead of scaling each output; lowered ops compute in another
order. Each change is a few ulps of the values involved, and it grows
through a network's depth as a change of summation order does. The absolute
part is relative to the output's scale because rounding errors are relative
to the terms summed, not to a result near zero. Measured (`-s`): at most
7e-6 of the scale on the light models (VGG-19's softmax output; 1e-6 or less
on every model's logits), at most 1.1e-7 on the node tests (1212 outputs
and backends, all but 9 exactly equal). Bugs put in on purpose move
ResNet-50's softmax output by far more: a batch-norm fold forgetting to
scale the mean by 0.36 of its scale; one dropping epsilon (1e-5 next to
variances near 1) by 7e-5, which fails too. Integer and boolean outputs
must be equal.

A light model or two per backend are in the default run; all nine and the
node tests are `slow` (`pytest -m slow`; `-s` prints errors and op counts).
"""

from __future__ import annotations

import collections
import functools
import warnings

import numpy as np
import onnx
import pytest
from mlir import ir
from onnx import numpy_helper
from onnx.backend.test.loader import load_model_tests

from lamina.backends import BACKENDS, backend_named
from lamina.dialects.context import check_module, make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model
from lamina.passes.options import instantiate
from lamina.passes.pass_manager import PipelineFailed, run_pipeline
from lamina.passes.pipeline_syntax import NestedPipeline, parse_elements, split_options
from lamina.passes.registry import REGISTRY, Pipeline
from lamina.runtime.graph_interpreter import run
from lamina.runtime.onnx_backend import LaminaBackend
from light_models import LIGHT_MODELS, load_light_model, random_inputs, randomize_weights, with_logits_output

RTOL = 1e-4
ATOL_OF_SCALE = 1e-5
SUPPORT_CHECK = "graph-check-support"
DEFAULT_LIGHT_MODELS = ("squeezenet", "resnet50")


# ---------------------------------------------------------------------------
# Pipelines as their passes.
# ---------------------------------------------------------------------------


def leaf_elements(elements: str) -> list[str]:
    """The passes an element list runs, in order, with named pipelines expanded (as `lamina-opt` does)."""
    leaves = []
    for element in parse_elements(elements, "pipeline"):
        assert not isinstance(element, NestedPipeline), f"nested pipelines are not expected here: {elements}"
        entry = REGISTRY.lookup(element.name)
        if entry is not None and issubclass(entry, Pipeline):
            pipeline = instantiate(entry, split_options(element, elements))
            leaves += leaf_elements(pipeline.expand())
        else:
            leaves.append(element.text())
    return leaves


@functools.cache
def optimize_stages(backend: str) -> tuple[str, str]:
    """`graph-optimize{backend=B}` as the passes before its support check, and the check."""
    *stages, check = leaf_elements(f"graph-optimize{{backend={backend}}}")
    assert check == f"{SUPPORT_CHECK}{{backend={backend}}}", f"graph-optimize ends with {check}, not the support check"
    return ",".join(stages), check


# ---------------------------------------------------------------------------
# Checking one model.
# ---------------------------------------------------------------------------


def assert_same_outputs(after: dict[str, np.ndarray], before: dict[str, np.ndarray], what: str,
                        scale_floor: float = 0.0) -> dict[str, float]:
    """Outputs agree within the module's tolerance; returns each output's max error over its scale.

    The absolute part is `ATOL_OF_SCALE * max(max|before|, scale_floor)`.
    """
    assert after.keys() == before.keys(), what
    errors = {}
    for name, expected in before.items():
        actual = after[name]
        assert (actual.shape, actual.dtype) == (expected.shape, expected.dtype), f"{what}: output '{name}'"
        if expected.dtype.kind != "f":
            np.testing.assert_array_equal(actual, expected, err_msg=f"{what}: output '{name}'")
            continue
        finite = np.isfinite(expected)  # inf and nan must match exactly (assert_allclose checks that)
        scale = max(float(np.abs(expected[finite]).max(initial=0.0)), scale_floor)
        np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL_OF_SCALE * scale,
                                   err_msg=f"{what}: output '{name}'")
        difference = np.abs(actual[finite].astype(np.float64) - expected[finite]).max(initial=0.0)
        errors[name] = float(difference) / scale if scale else 0.0
    return errors


def op_counts(module: ir.Operation) -> collections.Counter:
    return collections.Counter(op.name.removeprefix("graph.") for op in body_ops(module))


def unsupported_ops(module: ir.Operation, backend: str) -> list[ir.Operation]:
    target = backend_named(backend)
    return [op for op in body_ops(module) if not target.is_op_supported(GRAPH.view(op))]


def check_support_report(module: ir.Operation, backend: str) -> None:
    """The support check fails exactly when ops are unsupported: one error at each one's location
    naming it, then a summary counting them."""
    unsupported = unsupported_ops(module, backend)
    _, check = optimize_stages(backend)
    try:
        run_pipeline(module, f"builtin.module({check})")
    except PipelineFailed as failure:
        *per_op, summary = failure.problems
        reported = collections.Counter((str(p.location), p.message.split("'")[1]) for p in per_op)
        expected = collections.Counter((str(op.location), op.name) for op in unsupported)
        assert reported == expected, f"{check} reported {dict(reported)}, unsupported ops are {dict(expected)}"
        assert f"cannot run {len(unsupported)} op" in summary.message, summary.message
        return
    assert not unsupported, f"{check} passed, but {backend} cannot run {[op.name for op in unsupported]}"


def check_optimize(module: ir.Operation, inputs: dict[str, np.ndarray], before: dict[str, np.ndarray],
                   backend: str, what: str) -> tuple[dict[str, float], ir.Operation]:
    """Optimize a clone of `module` for `backend` and compare; the errors and the optimized clone."""
    optimized = module.clone().operation
    stages, _ = optimize_stages(backend)
    run_pipeline(optimized, f"builtin.module({stages})")
    check_module(optimized)
    errors = assert_same_outputs(run(optimized, inputs), before, f"{what} ({backend})")
    check_support_report(optimized, backend)
    return errors, optimized


# ---------------------------------------------------------------------------
# The light models.
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)  # one model at a time: VGG-19's weights take 0.6 GB
def light_case(name: str):
    """(context, module, inputs, outputs before optimizing) of a light model with random weights."""
    model = with_logits_output(randomize_weights(load_light_model(name), seed=0))
    inputs = random_inputs(model, seed=0)
    context = make_context()
    module = import_model(model, context)
    return context, module, inputs, run(module, inputs)


LIGHT_MODEL_PARAMS = [pytest.param(name, id=name, marks=() if name in DEFAULT_LIGHT_MODELS else pytest.mark.slow)
                      for name in LIGHT_MODELS]


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("name", LIGHT_MODEL_PARAMS)  # innermost varies slowest: each model is imported once
def test_light_model_keeps_its_outputs(name, backend):
    _, module, inputs, before = light_case(name)
    errors, optimized = check_optimize(module, inputs, before, backend, name)
    counts_before, counts_after = op_counts(module), op_counts(optimized)
    print(f"{name} {backend}: {sum(counts_before.values())} -> {sum(counts_after.values())} ops; "
          f"max error / scale {', '.join(f'{k} {v:.1e}' for k, v in errors.items())}")
    assert counts_after != counts_before, f"graph-optimize{{backend={backend}}} changed nothing in {name}"


# ---------------------------------------------------------------------------
# The ONNX node tests Lamina imports.
# ---------------------------------------------------------------------------


def importable_node_tests():
    """ONNX's node test cases whose model Lamina imports (the ones `test_onnx_node_suite` runs)."""
    with warnings.catch_warnings():  # the generators of the cast and reduce tests overflow on purpose
        warnings.simplefilter("ignore", RuntimeWarning)
        cases = load_model_tests(kind="node")
    return [case for case in cases if LaminaBackend.is_compatible(case.model)]


def _feeds(model: onnx.ModelProto, values) -> dict[str, np.ndarray]:
    """A test's inputs (arrays, or TensorProtos for some) by the model's runtime input names."""
    initialized = {tensor.name for tensor in model.graph.initializer}
    names = [value.name for value in model.graph.input if value.name not in initialized]
    arrays = (numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else np.asarray(v) for v in values)
    return dict(zip(names, arrays))


@pytest.mark.slow
@pytest.mark.parametrize("backend", list(BACKENDS))
def test_node_tests_keep_their_outputs(backend):
    failures = []
    cases = importable_node_tests()
    for case in cases:
        context = make_context()
        module = import_model(case.model, context)
        inputs = _feeds(case.model, case.data_sets[0][0])
        try:
            check_optimize(module, inputs, run(module, inputs), backend, case.name)
        except (AssertionError, PipelineFailed) as error:
            failures.append(f"{case.name}: {' '.join(str(error).split())[:400]}")
    print(f"{len(cases)} node tests, {len(failures)} failed ({backend})")
    assert not failures, "\n".join(failures)
