"""The light models compiled in Tensil's FP16BP8 mode for the named architectures, simulated from their files.

Each model gets seeded random weights (`lamina/frontend/random_weights.py`), is
compiled by `compile_model`, and the simulator's outputs (reading only the
files in the output directory) are compared with the graph interpreter's on
the optimized model with constants rounded to the data type
(`accelerator_models.quantized_reference`): within `accelerator_models.tolerance` and with the same
top-1 class. One small model and architecture run by default; every model
on every architecture is `slow`. Calibrated formats are checked against
onnxruntime in test_accelerator_accuracy.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from lamina.target.tcu.architecture import architecture_names
from lamina.driver.compiler import compile_model
from lamina.frontend.random_weights import random_inputs, randomize_weights
from lamina.runtime.tcu_simulator import simulate

from accelerator_models import assert_matches_reference, quantized_reference, softmax_inputs
from light_models import LIGHT_MODELS, load_light_model, with_logits_output

SEED = 0
DEFAULT_CASE = ("shufflenet", "ultra96v2")


def check_model_on_arch(name: str, arch: str, outdir) -> None:
    """Compile, simulate from the files, compare outputs and logits (weights larger than DRAM1 are paged)."""
    model = with_logits_output(randomize_weights(load_light_model(name), SEED))
    source = outdir / f"{name}.onnx"
    source.write_bytes(model.SerializeToString())
    result = compile_model(source, arch, outdir / "out", formats="tensil", check=False,
                           emit=("graph-optimized",))
    inputs = random_inputs(model, SEED + 1)
    data_type = result.summary.arch.data_type
    reference = quantized_reference((outdir / "out" / "graph-optimized.mlir"), inputs, data_type)
    simulated = simulate(outdir / "out" / "model.tmodel", inputs)
    assert_matches_reference(simulated.outputs, reference, data_type, softmax_inputs(model))
    assert np.isfinite(result.summary.mac_efficiency)


def test_default_model_on_one_architecture(tmp_path):
    check_model_on_arch(*DEFAULT_CASE, tmp_path)


def cases():
    for name in LIGHT_MODELS:
        for arch in architecture_names():
            yield pytest.param(name, arch, id=f"{name}-{arch}")


@pytest.mark.slow
@pytest.mark.parametrize("name, arch", list(cases()))
def test_light_model_on_architecture(name, arch, tmp_path):
    check_model_on_arch(name, arch, tmp_path)
