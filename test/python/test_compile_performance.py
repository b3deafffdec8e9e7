"""What makes lamina-compile faster and leaner computes what the slower way did (benchmarks/compile.py times it).

- the random weights are drawn in place, and one probe run gives both the batch norms' statistics and
  the activation peak;
- the probe changes the model only while it runs;
- calibration splits the samples over threads and measures what one thread measures;
- the HIR moves to a fresh context, so the graph levels' constants are freed before scheduling;
- the graph interpreter reads constants in place (read-only) instead of copying them on every run.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import onnx
import pytest

from lamina.dialects.context import make_context, parse_module
from lamina.driver import compiler
from lamina.driver.accuracy import calibration_samples
from lamina.driver.compiler import compile_model, in_fresh_context
from lamina.dialects import model as model_dialect
from lamina.frontend.onnx_importer import import_model
from lamina.frontend.random_weights import (activation_peak, random_inputs, randomize_weights, randomize_weights_in_place,
                                           run_onnx)
from lamina.passes.graph.rewriting import is_uniform
from lamina.runtime import graph_interpreter
from lamina.runtime.calibration import value_ranges

from accelerator_models import small_cnn
from light_models import load_light_model
from resnet20v2_model import resnet20v2


@pytest.mark.parametrize("build", [resnet20v2, lambda: load_light_model("squeezenet")], ids=["batch-norms", "none"])
def test_randomizing_in_place_draws_what_a_copy_draws_and_measures_its_peak(build):
    given = build()
    copied = randomize_weights(given, 0)
    expected_peak = activation_peak(copied, random_inputs(copied, 0))
    peak = randomize_weights_in_place(given, 0)
    assert given.SerializeToString() == copied.SerializeToString()
    assert peak == pytest.approx(expected_peak, rel=1e-5)


def test_the_probe_leaves_the_model_as_it_was_even_when_the_run_fails():
    model = randomize_weights(resnet20v2(), 0)
    before = model.SerializeToString()
    activation_peak(model, random_inputs(model, 0))
    assert model.SerializeToString() == before

    def failing(probe, inputs, external):
        assert [node.op_type for node in probe.graph.node].count("BatchNormalization") == 0  # it is the probe
        raise RuntimeError("the run failed")

    with pytest.raises(RuntimeError, match="the run failed"):
        randomize_weights_in_place(model, 1, run=failing)
    drawn_again = randomize_weights(resnet20v2(), 1)
    assert [node.op_type for node in model.graph.node] == [node.op_type for node in drawn_again.graph.node]
    assert [output.name for output in model.graph.output] == [output.name for output in drawn_again.graph.output]


def test_calibration_in_threads_measures_what_one_thread_measures():
    module = import_model(small_cnn(), make_context())
    samples, _ = calibration_samples(model_dialect.inputs(module), None, 5, 0)
    ranges, first = value_ranges(module, samples, threads=1)
    threaded_ranges, threaded_first = value_ranges(module, samples, threads=2)
    assert ranges.keys() == threaded_ranges.keys() and first.keys() == threaded_first.keys()
    for value, magnitude in ranges.items():
        assert threaded_ranges[value] == pytest.approx(magnitude, rel=1e-6)
    for value, array in first.items():
        np.testing.assert_allclose(threaded_first[value], array, rtol=1e-6)
    # the largest |x| of the samples, not of the first one or of one thread's: with one sample only, ranges shrink
    alone, _ = value_ranges(module, samples[:1], threads=2)
    assert any(alone[value] < magnitude for value, magnitude in ranges.items())


def test_a_module_in_a_fresh_context_prints_the_same_and_the_old_context_is_freed():
    context = make_context()
    text = ('module { func.func @main() -> tensor<2048xf32> { %0 = "graph.constant"() '
            '{value = dense<1.5> : tensor<2048xf32>} : () -> tensor<2048xf32> \n return %0 : tensor<2048xf32> } }')
    module = parse_module(text, context)
    old = weakref.ref(context)
    moved = in_fresh_context(module)
    assert str(moved) == str(module) and moved.context is not context
    del module, context
    gc.collect()  # cycles among the old context's ops are not what this checks
    assert old() is None


def test_the_graph_levels_context_is_freed_before_scheduling(tmp_path, monkeypatch):
    contexts = []

    def recording_context():
        contexts.append(weakref.ref(made := make_context()))
        return made

    alive_at = {}

    def progress(stage: str) -> None:
        alive_at[stage] = [ref() is not None for ref in contexts]

    monkeypatch.setattr(compiler, "make_context", recording_context)
    path = tmp_path / "small_cnn.onnx"
    onnx.save(small_cnn(), str(path))
    compile_model(path, "ultra96v2", tmp_path / "out", check=False, progress=progress)
    assert alive_at["graph-to-hir"] == [True]
    assert alive_at["schedule"] == [False, True]  # the import's context is gone, the HIR's is the new one


def test_drawn_weights_are_the_tensors_numpy_helper_makes():
    model = randomize_weights(resnet20v2(), 0)
    for tensor in model.graph.initializer:
        again = onnx.numpy_helper.from_array(onnx.numpy_helper.to_array(tensor), tensor.name)
        assert tensor.SerializeToString() == again.SerializeToString()


@pytest.mark.parametrize("array, uniform", [
    (np.full((300, 7), 2.5, np.float32), True),
    (np.full((300, 7), 2.5, np.float32).T, True),  # not contiguous
    (np.concatenate([np.zeros(1000, np.float32), [-0.0]]), False),  # differs past the first elements, in bits only
    (np.arange(1000.0).reshape(10, 100).T, False),
    (np.array(3, np.int8), True),
    (np.zeros(0, np.float32), False),
])
def test_a_folded_constant_is_uniform_when_every_element_has_the_same_bits(array, uniform):
    assert is_uniform(array) is uniform


def test_the_interpreter_reads_large_constants_in_place_and_computes_the_same():
    module = import_model(small_cnn(), make_context())
    seen = {}
    outputs = graph_interpreter.run(module, random_inputs(small_cnn(), 0),
                                    lambda value, array: seen.setdefault(value, array))
    constants = [array for value, array in seen.items() if value.owner.name == "graph.constant" and array.size > 16]
    assert constants and not any(array.flags.writeable for array in constants)  # MLIR's storage, not a copy
    expected = run_onnx(small_cnn(), random_inputs(small_cnn(), 0))
    for name, array in expected.items():
        np.testing.assert_allclose(outputs[name], array, rtol=1e-5, atol=1e-6)
