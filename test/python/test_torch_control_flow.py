"""PyTorch-exported recurrent layers and loops against onnxruntime, at graph level and on the CPU path."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from torch_recurrent_models import torch_models

from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

TOLERANCE = 1e-4
MODELS = torch_models()


def reference(name: str) -> tuple:
    model, feeds = MODELS[name]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return model, feeds, dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))


def assert_close(actual: dict, expected: dict) -> None:
    assert set(actual) == set(expected)
    for name, want in expected.items():
        assert np.abs(want).max() > 1e-3, f"{name}: outputs near zero compare trivially"
        np.testing.assert_allclose(actual[name], want, atol=TOLERANCE, rtol=TOLERANCE, err_msg=name)


@pytest.mark.parametrize("name", list(MODELS))
def test_graph_level_matches_onnxruntime(name):
    model, feeds, expected = reference(name)
    assert_close(run(import_model(model, make_context()), feeds), expected)


# Compiling the recurrent models through LLVM takes tens of seconds each: the loop runs by
# default, the recurrent ones with `-m slow` (test_recurrent.py covers each cell on the CPU path).
CPU_CASES = [pytest.param(name, marks=() if "loop" in name else pytest.mark.slow) for name in MODELS]


@pytest.mark.parametrize("name", CPU_CASES)
def test_cpu_path_matches_onnxruntime(name):
    model, feeds, expected = reference(name)
    compiled = cpu_executor.compile_model(import_model(model, make_context()))
    assert_close(compiled.run(feeds), expected)


def test_the_loop_runs_as_many_times_as_the_data_says():
    model, feeds, _ = reference("scripted data-dependent loop")
    module = import_model(model, make_context())
    data, counts = feeds
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in ([0, 0], [1, 0], [4, 3]):
        inputs = {data: feeds[data], counts: np.array(n, np.int64)}
        (want,) = session.run(None, inputs)
        (got,) = run(module, inputs).values()
        np.testing.assert_allclose(got, want, atol=TOLERANCE, rtol=TOLERANCE)
