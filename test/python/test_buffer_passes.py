"""The buffer-level optimizations keep what a model computes, and do their job.

Numerics, two ways, each memory-planned (`buffer-allocate`) and run by the
buffer interpreter in its byte arena, so a pass that breaks a lifetime or an
alias gives wrong numbers:
- graph models through IRGen and each pass (after the lifetime-tightening
  passes where it needs them) compute what the graph interpreter computes on
  the graph: the same kernels on the same values, bit for bit;
- every case of each pass's lit test (`test/Transforms/buffer-*.mlir`)
  computes the same outputs before and after the pass.

Effect: each pass fires on the models it is for (fewer allocs, copies or
live bytes, measured on the IR), the default sequence shrinks a light model's
activation memory, and the verifier rejects a plan broken after the fact.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from lamina.dialects.buffer_analysis import analyze
from lamina.dialects.context import InvalidIR, check_module, make_context, parse_module
from lamina.dialects.model import body_ops
from lamina.dialects.model import inputs as model_inputs
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter
from light_models import load_light_model, random_inputs

TRANSFORMS = Path(__file__).parent.parent / "Transforms"
IRGEN = "graph-schedule,convert-graph-to-buffer"
TIGHTEN = "buffer-hoist-deallocs,buffer-sink-allocs"

# Each pass, with what must run before it for it to have work (IRGen frees
# every buffer at the end of the function).
PASSES = {
    "buffer-hoist-deallocs": "",
    "buffer-sink-allocs": TIGHTEN,
    "buffer-make-weights-const": "",
    "buffer-dce": TIGHTEN,
    "buffer-copy-propagation": TIGHTEN,
    "buffer-eliminate-copies": TIGHTEN,
    "buffer-inplace": "",
    "buffer-share": TIGHTEN,
}

# Element-wise chains, a reshaped output, a value saved twice and read again.
ELEMENTWISE = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %c = "graph.constant"() {value = dense<[[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]> : tensor<2x3xf32>}
      : () -> tensor<2x3xf32>
  %0 = "graph.add"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "graph.reshape"(%1) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %3 = "graph.sigmoid"(%2) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %4 = "graph.transpose"(%3) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %5 = "graph.mul"(%4, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = "graph.tanh"(%5) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = "graph.exp"(%6) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%7) {name = "y"} : (tensor<2x3xf32>) -> ()
  "graph.save"(%2) {name = "z"} : (tensor<3x2xf32>) -> ()
  "graph.save"(%2) {name = "z2"} : (tensor<3x2xf32>) -> ()
  return
}
"""

# Same-size buffers whose lifetimes follow each other, an input saved as is,
# a constant saved, non-element-wise ops (matmul, softmax, concat).
LAYERS = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<4x4xf32>
  %w = "graph.constant"() {value = dense<0.25> : tensor<4x4xf32>} : () -> tensor<4x4xf32>
  %0 = "graph.matmul"(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "graph.softmax"(%0) {axis = 1 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = "graph.matmul"(%1, %x) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = "graph.softmax"(%2) {axis = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %4 = "graph.concat"(%3, %1) {axis = 0 : i64} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %5 = "graph.neg"(%4) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  "graph.save"(%5) {name = "y"} : (tensor<8x4xf32>) -> ()
  "graph.save"(%x) {name = "x_out"} : (tensor<4x4xf32>) -> ()
  "graph.save"(%w) {name = "w_out"} : (tensor<4x4xf32>) -> ()
  return
}
"""

GRAPHS = {"elementwise": ELEMENTWISE, "layers": LAYERS}


def graph_results(text: str) -> tuple[dict, dict]:
    """The graph module's inputs (seeded) and what the graph interpreter computes from them."""
    context = make_context()
    graph = parse_module(text, context)
    rng = np.random.default_rng(0)
    feeds = {name: rng.standard_normal(spec.shape).astype(spec.dtype) for name, spec in model_inputs(graph).items()}
    return feeds, graph_interpreter.run(graph, feeds)


def lowered(text: str, passes: str):
    """The graph module through IRGen, then `passes`, then memory planning."""
    module = parse_module(text, make_context())
    run_pipeline(module, f"builtin.module({','.join(p for p in (IRGEN, passes, 'buffer-allocate') if p)})")
    check_module(module)
    return module


def assert_same(actual: dict, expected: dict, what: str) -> None:
    assert actual.keys() == expected.keys(), what
    for name in expected:
        np.testing.assert_array_equal(actual[name], expected[name], err_msg=f"output '{name}' {what}")


def op_count(module, name: str) -> int:
    return sum(op.name == name for op in body_ops(module))


def activation_bytes(module) -> int:
    return int(module.attributes["buffer.activation_bytes"].value)


def lower_bound(module) -> int:
    return int(module.attributes["buffer.activation_lower_bound_bytes"].value)


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("pass_name", list(PASSES))
def test_pass_keeps_graph_results(pass_name: str, graph: str):
    feeds, expected = graph_results(GRAPHS[graph])
    before = lowered(GRAPHS[graph], PASSES[pass_name])
    after = lowered(GRAPHS[graph], ",".join(p for p in (PASSES[pass_name], pass_name) if p))
    assert_same(buffer_interpreter.run(before, feeds), expected, f"of {graph} before {pass_name}")
    assert_same(buffer_interpreter.run(after, feeds), expected, f"of {graph} after {pass_name}")


# What each pass changes on the graph models, as (graph, measure, before, after).
EFFECTS = {
    # IRGen frees everything at the end, so all 7 allocs (64 bytes each,
    # aligned) are live at once; hoisted, at most 3 are.
    "buffer-hoist-deallocs": ("elementwise", lower_bound, 448, 192),
    # relu, sigmoid, mul, tanh and exp run in place (transpose cannot).
    "buffer-inplace": ("elementwise", lambda m: op_count(m, "buffer.alloc"), 7, 3),
    # Copies into y and z go (producers write the outputs); z2 reads z.
    "buffer-eliminate-copies": ("elementwise", lambda m: op_count(m, "buffer.copy"), 3, 1),
    # The second matmul reuses the first one's 4x4 buffer, freed after the
    # first softmax (the second softmax's starts while both are live).
    "buffer-share": ("layers", lambda m: op_count(m, "buffer.alloc"), 6, 5),
}


@pytest.mark.parametrize("pass_name", list(EFFECTS))
def test_pass_fires_on_the_graph_it_is_for(pass_name: str):
    graph, measure, before, after = EFFECTS[pass_name]
    prerequisites = PASSES[pass_name]
    assert measure(lowered(GRAPHS[graph], prerequisites)) == before
    assert measure(lowered(GRAPHS[graph], ",".join(p for p in (prerequisites, pass_name) if p))) == after


def test_irgen_output_has_no_private_weights_to_make_const():
    """IRGen makes public weights only (inputs, outputs): the pass has nothing to do there."""
    module = lowered(ELEMENTWISE, "buffer-make-weights-const")
    weights = [op for op in body_ops(module) if op.name == "buffer.weight"]
    assert weights and all(op.attributes["mutable"].value for op in weights)


def lit_cases(pass_name: str) -> list[str]:
    """The input of each `// -----` case of the pass's lit test."""
    text = (TRANSFORMS / f"{pass_name}.mlir").read_text()
    return [case for case in re.split(r"^// -----$", text, flags=re.MULTILINE) if "func.func" in case]


def planned_results(text: str, passes: str, feeds: dict | None = None) -> tuple[dict, dict]:
    module = parse_module(text, make_context())
    run_pipeline(module, f"builtin.module({passes})")
    if feeds is None:
        rng = np.random.default_rng(0)
        feeds = {name: rng.standard_normal(spec.shape).astype(spec.dtype)
                 for name, spec in buffer_interpreter.inputs(module).items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cases may read a weight nothing wrote (NaN on both sides)
        return feeds, buffer_interpreter.run(module, feeds)


@pytest.mark.parametrize("pass_name", list(PASSES))
def test_lit_cases_compute_the_same_before_and_after(pass_name: str):
    cases = lit_cases(pass_name)
    assert cases
    for number, case in enumerate(cases):
        feeds, expected = planned_results(case, "buffer-allocate")
        _, actual = planned_results(case, f"{pass_name},buffer-allocate", feeds)
        assert_same(actual, expected, f"of case {number} of {pass_name}.mlir")


def test_default_sequence_shrinks_a_light_model():
    """squeezenet through `graph-to-buffers`: fewer allocs and copies, far less memory than IRGen's."""
    model = load_light_model("squeezenet")
    context = make_context()
    graph = import_model(model, context)
    feeds = random_inputs(model, seed=0)
    expected = graph_interpreter.run(graph, feeds)
    plain = import_model(model, context)
    run_pipeline(plain, f"builtin.module({IRGEN},{TIGHTEN},buffer-allocate)")
    optimized = import_model(model, context)
    run_pipeline(optimized, "builtin.module(graph-to-buffers)")
    assert op_count(optimized, "buffer.copy") == 0
    assert op_count(optimized, "buffer.alloc") < op_count(plain, "buffer.alloc")
    assert activation_bytes(optimized) < activation_bytes(plain)
    results = buffer_interpreter.run(optimized, feeds)
    assert results.keys() == expected.keys()
    for name in expected:
        np.testing.assert_allclose(results[name], expected[name], rtol=1e-5, atol=1e-6)


def test_verifier_rejects_a_plan_broken_after_planning():
    """Two allocs live at once moved onto the same bytes: the module no longer verifies."""
    module = lowered(LAYERS, TIGHTEN)
    _, buffers = analyze(module)
    first, second = [info for info in buffers.values() if info.kind == "alloc"][:2]
    assert first.end > second.start  # live at the same time
    second.buffer.owner.attributes["offset"] = first.buffer.owner.attributes["offset"]
    with pytest.raises(InvalidIR, match="overlap those of"):
        check_module(module)
