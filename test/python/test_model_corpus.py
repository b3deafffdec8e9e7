"""The real-model corpus (`corpus_models.py`): exported models import and match onnxruntime.

The default run takes the tiny fast subset (`FAST`) through import and the
graph interpreter; `-m slow` runs every corpus model through the interpreter
and the CPU path, and compiles and simulates each for the accelerator.
`benchmarks/model_corpus.py` measures the accelerator's accuracy too and
writes the table (`docs/model-corpus.md`).
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import helper

import corpus_models
from importer_models import make_model, randn, run_onnxruntime
from lamina.driver.compiler import MODEL_FILES_NAME, compile_model
from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.runtime import cpu_executor, tcu_simulator
from lamina.runtime.graph_interpreter import run

TOLERANCE = 1e-4  # max |lamina - onnxruntime| / max |onnxruntime|
node = helper.make_node


def relative_error(actual: np.ndarray, reference: np.ndarray) -> float:
    return float(np.abs(actual.astype(np.float64) - reference).max() / np.abs(reference).max())


def check_model(name: str, tmp_path, levels: tuple[str, ...]) -> None:
    spec = corpus_models.by_name(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = corpus_models.export(spec, tmp_path)
    inputs = spec.inputs(np.random.default_rng(corpus_models.SEED))
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (expected,) = session.run(["output"], inputs)
    assert np.std(expected) > 1e-2, "activations vanished: the comparison would prove nothing"
    context = make_context()
    module = import_model(str(path), context, input_shapes={key: value.shape for key, value in inputs.items()})
    runners = {"graph": lambda: run(module, inputs), "cpu": lambda: cpu_executor.compile_model(module).run(inputs)}
    for level in levels:
        assert relative_error(runners[level]()["output"], expected) < TOLERANCE, level


@pytest.mark.parametrize("name", corpus_models.FAST)
def test_fast_corpus_models_match_onnxruntime_on_the_interpreter(name, tmp_path):
    check_model(name, tmp_path, ("graph",))


@pytest.mark.slow
@pytest.mark.parametrize("name", [spec.name for spec in corpus_models.CORPUS])
def test_corpus_models_match_onnxruntime_on_the_interpreter_and_the_cpu_path(name, tmp_path):
    check_model(name, tmp_path, ("graph", "cpu"))



@pytest.mark.slow
@pytest.mark.parametrize("name", [spec.name for spec in corpus_models.CORPUS])
def test_corpus_models_compile_for_the_accelerator_with_host_parts(name, tmp_path):
    """What the accelerator cannot run goes to host segments; accuracy is `benchmarks/model_corpus.py`'s table."""
    spec = corpus_models.by_name(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        path = corpus_models.export(spec, tmp_path)
    inputs = spec.inputs(np.random.default_rng(corpus_models.SEED))
    compile_model(path, "pynq-z1", tmp_path / "out", input_shapes={key: value.shape for key, value in inputs.items()},
                  check=False, samples=1)
    outputs = tcu_simulator.simulate(str(tmp_path / "out" / f"{MODEL_FILES_NAME}.tmodel"), inputs).outputs
    assert np.all(np.isfinite(outputs["output"]))


def test_a_host_computed_mask_of_minus_infinity_compiles_for_the_accelerator(tmp_path):
    """Decoders (GPT-2, T5, BART) add a causal mask of -inf or the float minimum on the host before a softmax:
    no format holds that range, so the value takes the widest format and saturates, which keeps the softmax's
    zeros (before, calibration refused the model)."""
    rng = np.random.default_rng(0)
    mask = np.array([[0, -np.inf, 0, -np.inf], [0, 0, np.finfo(np.float32).min, 0]], np.float32)
    model = make_model([node("MatMul", ["x", "w"], ["h"]), node("Add", ["h", "mask"], ["s"]),
                        node("Softmax", ["s"], ["output"], axis=-1)],
                       {"x": randn(2, 4)}, ["output"], {"w": randn(4, 4), "mask": mask}, opset=17)
    path = tmp_path / "masked.onnx"
    onnx.save(model, str(path))
    inputs = {"x": rng.standard_normal((2, 4)).astype(np.float32)}
    compile_model(path, "pynq-z1", tmp_path / "out", check=False)
    actual = tcu_simulator.simulate(str(tmp_path / "out" / f"{MODEL_FILES_NAME}.tmodel"), inputs).outputs["output"]
    expected = run_onnxruntime(model, inputs)["output"]
    assert np.all(actual[expected == 0] == 0)
    np.testing.assert_allclose(actual, expected, atol=0.05)


@pytest.mark.parametrize("rank", [3, 5])
def test_one_and_three_dimensional_average_pools_compile_for_the_accelerator(rank, tmp_path):
    """They run on the host; the average-pool rewrite read every pool's window as 2-D first and crashed."""
    shape = (1, 2) + (6,) * (rank - 2)
    model = make_model([node("AveragePool", ["x"], ["output"], kernel_shape=[3] * (rank - 2))], {"x": randn(*shape)},
                       ["output"], opset=13)
    path = tmp_path / "pool.onnx"
    onnx.save(model, str(path))
    inputs = {"x": np.random.default_rng(0).random(shape, np.float32)}
    compile_model(path, "pynq-z1", tmp_path / "out", check=False, samples=1)
    actual = tcu_simulator.simulate(str(tmp_path / "out" / f"{MODEL_FILES_NAME}.tmodel"), inputs).outputs["output"]
    np.testing.assert_allclose(actual, run_onnxruntime(model, inputs)["output"], atol=0.02)


def test_a_float64_model_compiles_for_the_accelerator_on_its_default_samples(tmp_path):
    """The default calibration samples take the inputs' element type (they were f32 for every model, which the
    interpreter refused for an f64 input, as in the onnx wheel's pytorch-operator add tests)."""
    model = make_model([node("Add", ["x", "c"], ["output"])], {"x": randn(2, 3).astype(np.float64)}, ["output"],
                       {"c": np.ones((2, 3))}, opset=13)
    path = tmp_path / "add64.onnx"
    onnx.save(model, str(path))
    compile_model(path, "pynq-z1", tmp_path / "out", check=False, samples=2)
    inputs = {"x": np.random.default_rng(0).random((2, 3))}
    actual = tcu_simulator.simulate(str(tmp_path / "out" / f"{MODEL_FILES_NAME}.tmodel"), inputs).outputs["output"]
    np.testing.assert_allclose(actual, inputs["x"] + 1, atol=0.01)
