"""PyTorch RNN, GRU and LSTM classifiers compiled for the accelerator: the input and recurrent
matmuls run on the array (one layer per step), the gates' products too (a layer started from
one load and a Vars operand), the tanh/sigmoid gates on the host; the simulated outputs match
onnxruntime within the data type's tolerance, by cosine and SQNR as well."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from accelerator_models import assert_matches_reference, quantized_reference
from torch_recurrent_models import accelerator_model

from lamina.driver.compiler import compile_model
from lamina.runtime.compare import cosine_similarity, sqnr_db
from lamina.runtime.tcu_simulator import simulate

ARCH = "pynq-z1"
STEPS = 5
GATES = {"RNN": ("graph.tanh",), "GRU": ("graph.sigmoid", "graph.tanh"), "LSTM": ("graph.sigmoid", "graph.tanh")}


@pytest.mark.parametrize("cell", ["RNN", "GRU", "LSTM"])
def test_recurrent_cells_run_on_the_array(tmp_path, cell):
    model, inputs = accelerator_model(cell)
    source = tmp_path / f"{cell}.onnx"
    source.write_bytes(model.SerializeToString())
    result = compile_model(source, ARCH, tmp_path / "out")
    summary = result.summary
    text = (tmp_path / "out" / "summary.txt").read_text()
    cell_layers = [layer for layer in summary.layers if cell in layer.name]
    # The input projection of the whole sequence, then one recurrent matmul per step after
    # the first (its initial state is zero, so that matmul folds away).
    assert len([layer for layer in cell_layers if layer.macs > 0]) == STEPS
    if cell != "RNN":  # the gates' products of two activations (i * g, f * c, z * h) are array layers too
        assert any(layer.macs == 0 for layer in cell_layers)
    assert "Estimated cycles" in text and summary.cycles > 0
    assert all(gate in text for gate in GATES[cell])
    data_type = summary.arch.data_type
    simulated = simulate(tmp_path / "out" / "model.tmodel", inputs).outputs
    reference = quantized_reference((tmp_path / "out" / "graph-optimized.mlir").read_text(), inputs, data_type)
    assert_matches_reference(simulated, reference, data_type)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, inputs)
    output = model.graph.output[0].name
    assert_matches_reference(simulated, {output: expected}, data_type)
    assert cosine_similarity(simulated[output], expected) > 0.995  # 20 inputs: benchmarks/recurrent_accelerator.py
    assert sqnr_db(simulated[output], expected) > 20
    assert np.argmax(simulated[output]) == np.argmax(expected)
