"""Backends as data, the backend-driven passes, and graph-optimize on light models.

The light models get seeded random weights (`randomize_weights`): with the
shipped constant weights every channel computes the same thing, which would
hide a wrong fold or lowering. Outputs after `graph-optimize` must match the
interpreter's outputs before it within 1e-4 of each output's largest
magnitude: folding batch norms into weights, reassociating constant
arithmetic and pooling in another summation order change float32 rounding,
not the result (measured on the nine light models: at most 7.4e-6 of the
scale on the softmax outputs, 1.1e-6 on the logits).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from light_models import load_light_model, random_inputs, randomize_weights, with_logits_output
from mlir import ir

from lamina.backends import BACKENDS, Backend, backend_named
from lamina.backends.accelerator import LOWERED, SUPPORTED
from lamina.dialects.context import make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model
from lamina.passes.graph.lowerings import LOWERINGS
from lamina.passes.pass_manager import PipelineFailed, run_pipeline
from lamina.pipelines.graph_optimize import GraphOptimize
from lamina.runtime.graph_interpreter import run
from lamina.kernels.control_flow import REGION_KERNELS
from lamina.kernels.graph_kernels import KERNELS

# ---------------------------------------------------------------------------
# The registry and the tables.
# ---------------------------------------------------------------------------


def test_backends_are_found_by_name():
    assert set(BACKENDS) == {"reference", "reference-lowered", "accelerator", "cpu"}
    for name, backend in BACKENDS.items():
        assert backend_named(name) is backend and backend.name == name


def test_an_unknown_backend_is_a_clear_error():
    with pytest.raises(LaminaError, match="unknown backend 'gpu'; known backends: reference, reference-lowered, "
                                          "accelerator"):
        backend_named("gpu")


def test_reference_backends_run_every_graph_op():
    assert {name for name, op in GRAPH.ops.items() if not op.training} <= set(KERNELS) | set(REGION_KERNELS)


def test_every_backend_lowers_every_training_op():
    """Gradients, losses and SGD have no kernel: every backend asks for their lowering."""
    training = [op for op in GRAPH.ops.values() if op.training]
    assert training and {op.name for op in training} <= set(LOWERINGS)
    for backend in BACKENDS.values():
        assert all(backend.should_lower(OpView(None, op)) for op in training), backend.name


def test_accelerator_tables_name_real_ops_and_lowerings():
    assert set(SUPPORTED) <= set(GRAPH.ops)
    # What it asks to lower has a lowering and is not run as it is.
    assert set(LOWERED) <= set(LOWERINGS) and not set(LOWERED) & set(SUPPORTED)


ONE_OP = """
func.func @main() {{
  %x = "graph.placeholder"() {{name = "x"}} : () -> {type}
  %c = "graph.constant"() {{value = dense<1.0> : tensor<2xf32>}} : () -> tensor<2xf32>
  %y = {op}
  "graph.save"(%y) {{name = "y"}} : ({result}) -> ()
  return
}}
"""


# Parsed modules stay alive for the views into them.
MODULES: list[ir.Operation] = []


def only_op(text: str) -> OpView:
    """The op computing `%y` in ONE_OP."""
    MODULES.append(parse_module(text, make_context()))
    return GRAPH.view(body_ops(MODULES[-1])[2])


def test_accelerator_support_reads_types_and_operands():
    accelerator = backend_named("accelerator")
    pool = ('"graph.max_pool"(%x) {{ceil_mode = false, dilations = array<i64: {d}>, kernel = array<i64: {d}>, '
            'pads = array<i64: {p}>, strides = array<i64: {d}>}} : ({t}) -> {t}')
    two_d = only_op(ONE_OP.format(type="tensor<1x2x3x3xf32>", result="tensor<1x2x3x3xf32>",
                                  op=pool.format(d="1, 1", p="0, 0, 0, 0", t="tensor<1x2x3x3xf32>")))
    one_d = only_op(ONE_OP.format(type="tensor<1x2x3xf32>", result="tensor<1x2x3xf32>",
                                  op=pool.format(d="1", p="0, 0", t="tensor<1x2x3xf32>")))
    assert accelerator.is_op_supported(two_d)
    assert not accelerator.is_op_supported(one_d)
    assert accelerator.why_unsupported(one_d) == "only 2-D windows over N x C x H x W tensors"
    # A broadcast runs only of constants (laid out at compile time).
    of_constant = only_op(ONE_OP.format(type="tensor<2xf32>", result="tensor<3x2xf32>",
                                        op='"graph.broadcast"(%c) : (tensor<2xf32>) -> tensor<3x2xf32>'))
    of_input = only_op(ONE_OP.format(type="tensor<2xf32>", result="tensor<3x2xf32>",
                                     op='"graph.broadcast"(%x) : (tensor<2xf32>) -> tensor<3x2xf32>'))
    assert accelerator.is_op_supported(of_constant) and not accelerator.is_op_supported(of_input)


def test_accelerator_runs_what_it_asks_to_lower_once_lowered():
    text = """
    func.func @main() {
      %x = "graph.placeholder"() {name = "x"} : () -> tensor<1x2x3x3xf32>
      %c = "graph.constant"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
      %bn = "graph.batch_norm"(%x, %c, %c, %c, %c) {epsilon = 1.0e-5 : f32} : (tensor<1x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
      %avg = "graph.global_avg_pool"(%bn) : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
      %max = "graph.global_max_pool"(%bn) : (tensor<1x2x3x3xf32>) -> tensor<1x2x1x1xf32>
      "graph.save"(%avg) {name = "avg"} : (tensor<1x2x1x1xf32>) -> ()
      "graph.save"(%max) {name = "max"} : (tensor<1x2x1x1xf32>) -> ()
      return
    }
    """
    module = parse_module(text, make_context())
    assert {op.name.removeprefix("graph.") for op in body_ops(module)} >= set(LOWERED)
    with pytest.raises(PipelineFailed):
        run_pipeline(module, "builtin.module(graph-check-support{backend=accelerator})")
    run_pipeline(module, "builtin.module(graph-lower{backend=accelerator},"
                         "graph-check-support{backend=accelerator})")


# ---------------------------------------------------------------------------
# graph-backend-transform calls the hook.
# ---------------------------------------------------------------------------


class RecordingBackend(Backend):
    """The reference backend's answers, plus a post-lowering transform that records its calls."""

    name = "reference"
    summary = "records transform_post_lowering calls"

    def __init__(self):
        self.modules: list[str] = []

    def why_unsupported(self, op):
        return None

    def should_lower(self, op):
        return False

    def transform_post_lowering(self, module: ir.Operation) -> None:
        self.modules.append(module.name)


def test_backend_transform_runs_the_backends_hook_once_on_the_module(monkeypatch):
    recording = RecordingBackend()
    monkeypatch.setitem(BACKENDS, "reference", recording)
    module = parse_module(ONE_OP.format(type="tensor<2xf32>", result="tensor<2xf32>",
                                        op='"graph.relu"(%x) : (tensor<2xf32>) -> tensor<2xf32>'), make_context())
    run_pipeline(module, "builtin.module(graph-backend-transform)")
    assert recording.modules == ["builtin.module"]


def test_no_backend_transforms_anything_yet():
    module = parse_module(ONE_OP.format(type="tensor<2xf32>", result="tensor<2xf32>",
                                        op='"graph.softmax"(%x) {axis = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>'),
                          make_context())
    text = print_module(module)
    for name in BACKENDS:
        run_pipeline(module, f"builtin.module(graph-backend-transform{{backend={name}}})")
        assert print_module(module) == text


# ---------------------------------------------------------------------------
# graph-optimize on light models.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LightModel:
    name: str
    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]  # the interpreter's outputs before any pass


# SqueezeNet: global pool, concats, softmax. ResNet-50: batch norms folded
# into convolutions, residual sums, softmax. DenseNet-121 (slow: ~30 s): batch
# norms after concats (lowered for the accelerator), no softmax: it runs on
# the accelerator.
MODELS = ("squeezenet", "resnet50", pytest.param("densenet121", marks=pytest.mark.slow))


@pytest.fixture(scope="module", params=MODELS)
def light(request) -> LightModel:
    model = with_logits_output(randomize_weights(load_light_model(request.param), seed=0))
    feeds = random_inputs(model, seed=0)
    return LightModel(request.param, model, feeds, run(import_model(model, make_context()), feeds))


def assert_same_outputs(module: ir.Operation, light: LightModel) -> None:
    actual = run(module, light.feeds)
    assert actual.keys() == light.expected.keys()
    for name, expected in light.expected.items():
        np.testing.assert_allclose(actual[name], expected, rtol=0, atol=1e-4 * np.abs(expected).max(), err_msg=name)


@pytest.mark.parametrize("backend", ["reference", "reference-lowered"])
def test_graph_optimize_keeps_the_results(light: LightModel, backend: str):
    module = import_model(light.model, make_context())
    run_pipeline(module, f"builtin.module(graph-optimize{{backend={backend}}})")
    names = {op.name for op in body_ops(module)}
    assert "graph.batch_norm" not in names or light.name == "densenet121"  # folded, where a conv precedes it
    if backend == "reference-lowered":
        assert not names & {f"graph.{op}" for op in LOWERINGS}
    assert_same_outputs(module, light)


def test_graph_optimize_for_the_accelerator(light: LightModel):
    """Everything but the softmax runs on the accelerator: check-support reports each
    softmax at its ONNX node; the pipeline without the check keeps the results."""
    module = import_model(light.model, make_context())
    softmaxes = [format_location(op.location) for op in body_ops(module) if op.name == "graph.softmax"]
    if softmaxes:
        with pytest.raises(PipelineFailed) as failure:
            run_pipeline(module, "builtin.module(graph-optimize{backend=accelerator})")
        *reported, summary = failure.value.problems
        assert [(format_location(p.location), p.message.split(":")[0]) for p in reported] == [
            (location, "'graph.softmax' is not supported by backend 'accelerator'") for location in softmaxes]
        assert summary.message.startswith(f"backend 'accelerator' cannot run {len(softmaxes)} op")
        module = import_model(light.model, make_context())
        run_pipeline(module, f"builtin.module({','.join(GraphOptimize(backend='accelerator').stages()[:-1])})")
    else:
        run_pipeline(module, "builtin.module(graph-optimize{backend=accelerator})")
    names = {op.name for op in body_ops(module)}
    assert not names & {"graph.batch_norm", "graph.global_avg_pool"}
    assert_same_outputs(module, light)
