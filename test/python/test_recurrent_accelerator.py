"""A PyTorch RNN compiled for the accelerator: its input and recurrent matmuls run on
the array (one layer per step), the tanh gates on the host, and the simulated
outputs match onnxruntime within the data type's tolerance."""

from __future__ import annotations

import onnxruntime as ort
from accelerator_models import assert_matches_reference, quantized_reference
from torch_recurrent_models import accelerator_model

from lamina.driver.compiler import compile_model
from lamina.runtime.tcu_simulator import simulate

ARCH = "pynq-z1"
STEPS = 5


def test_rnn_cells_run_on_the_array(tmp_path):
    model, inputs = accelerator_model()
    source = tmp_path / "rnn.onnx"
    source.write_bytes(model.SerializeToString())
    result = compile_model(source, ARCH, tmp_path / "out")
    summary = result.summary
    text = (tmp_path / "out" / "summary.txt").read_text()
    recurrent_layers = [layer for layer in summary.layers if "RNN" in layer.name and layer.macs > 0]
    # The input projection of the whole sequence, then one recurrent matmul per step after
    # the first (its initial state is zero, so that matmul folds away).
    assert len(recurrent_layers) == STEPS
    assert "Estimated cycles" in text and "graph.tanh" in text
    data_type = summary.arch.data_type
    simulated = simulate(tmp_path / "out" / "model.tmodel", inputs).outputs
    reference = quantized_reference((tmp_path / "out" / "graph-optimized.mlir").read_text(), inputs, data_type)
    assert_matches_reference(simulated, reference, data_type)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, inputs)
    assert_matches_reference(simulated, {model.graph.output[0].name: expected}, data_type)
