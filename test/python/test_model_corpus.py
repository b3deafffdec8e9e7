"""The real-model corpus (`corpus_models.py`): exported models import and match onnxruntime.

The default run takes the tiny fast subset (`FAST`) through import and the
graph interpreter; `-m slow` runs every corpus model through the interpreter
and the CPU path. `benchmarks/model_corpus.py` adds the accelerator and
writes the table (`docs/model-corpus.md`).
"""

from __future__ import annotations

import warnings

import numpy as np
import onnxruntime
import pytest

import corpus_models
from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

TOLERANCE = 1e-4  # max |lamina - onnxruntime| / max |onnxruntime|


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
