"""The light models on the CPU path give the reference interpreter's outputs.

Seeded random weights and inputs (seed 0); the whole CPU pipeline
(`cpu_executor.compile_model`: graph-optimize, graph-to-cpu with
vectorization, JIT). Tolerance: max |cpu - reference| <= 1e-4 * max
|reference| per output (float32; the two paths sum in different orders and
graph-optimize folds batch norms into weights). squeezenet runs by default,
all nine under `-m slow`.
"""

from __future__ import annotations

import numpy as np
import pytest

from light_models import LIGHT_MODELS, load_light_model, random_inputs
from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.frontend.random_weights import randomize_weights
from lamina.runtime import cpu_executor, graph_interpreter

RTOL = 1e-4
DEFAULT_MODEL = "squeezenet"


def check_light_model(name: str) -> None:
    onnx_model = randomize_weights(load_light_model(name), 0)
    feeds = random_inputs(onnx_model, 0)
    context = make_context()
    module = import_model(onnx_model, context)
    actual = cpu_executor.compile_model(module).run(feeds)
    for output, expected in graph_interpreter.run(module, feeds).items():
        error = float(np.abs(actual[output] - expected).max())
        assert error <= RTOL * float(np.abs(expected).max()), f"{name} {output}: max abs error {error:.3g}"


def test_default_light_model_matches_the_interpreter():
    check_light_model(DEFAULT_MODEL)


@pytest.mark.slow
@pytest.mark.parametrize("name", [m for m in LIGHT_MODELS if m != DEFAULT_MODEL])
def test_light_model_matches_the_interpreter(name):
    check_light_model(name)
