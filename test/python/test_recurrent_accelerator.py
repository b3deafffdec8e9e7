"""PyTorch RNN, GRU and LSTM classifiers compiled for the accelerator: the input and recurrent
matmuls run on the array (one layer per step), the gates' products too (a layer started from
one load and a Vars operand), the tanh/sigmoid gates on the host; the simulated outputs match
onnxruntime within the data type's tolerance, by cosine and SQNR as well. A scripted loop
whose trip count is data runs whole in a host segment between array layers."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from accelerator_models import assert_matches_reference, quantized_reference
from torch_recurrent_models import accelerator_model, loop_accelerator_model

from lamina.driver.compiler import compile_model
from lamina.runtime.compare import cosine_similarity, sqnr_db
from lamina.runtime.tcu_simulator import simulate

ARCH = "pynq-z1"
STEPS = 5
GATES = {"RNN": ("graph.tanh",), "GRU": ("graph.sigmoid", "graph.tanh"), "LSTM": ("graph.sigmoid", "graph.tanh")}


# Each compiles and simulates for ~15 s on a loaded machine: the GRU (gate products like the LSTM's) runs with -m slow.
@pytest.mark.parametrize("cell", ["RNN", pytest.param("GRU", marks=pytest.mark.slow), "LSTM"])
def test_recurrent_cells_run_on_the_array(tmp_path, cell):
    model, inputs = accelerator_model(cell)
    source = tmp_path / f"{cell}.onnx"
    source.write_bytes(model.SerializeToString())
    result = compile_model(source, ARCH, tmp_path / "out", emit=("graph-optimized",))
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
    reference = quantized_reference((tmp_path / "out" / "graph-optimized.mlir"), inputs, data_type)
    assert_matches_reference(simulated, reference, data_type)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, inputs)
    output = model.graph.output[0].name
    assert_matches_reference(simulated, {output: expected}, data_type)
    assert cosine_similarity(simulated[output], expected) > 0.995  # 20 inputs: benchmarks/recurrent_accelerator.py
    assert sqnr_db(simulated[output], expected) > 20
    assert np.argmax(simulated[output]) == np.argmax(expected)


def test_data_dependent_loop_runs_on_the_host(tmp_path):
    model, inputs = loop_accelerator_model()
    source = tmp_path / "loop.onnx"
    source.write_bytes(model.SerializeToString())
    result = compile_model(source, ARCH, tmp_path / "out")
    text = (tmp_path / "out" / "summary.txt").read_text()
    assert len([layer for layer in result.summary.layers if layer.macs > 0]) == 2  # the two linear layers
    assert "graph.loop x1" in text and "because control flow:" in text and result.summary.cycles > 0
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    data_type = result.summary.arch.data_type
    for counts in ([2, 1], [0, 0], [4, 0]):  # 3, 0 and 4 iterations of one compiled program
        feeds = {**inputs, model.graph.input[1].name: np.array(counts, np.int64)}
        simulated = simulate(tmp_path / "out" / "model.tmodel", feeds).outputs
        (expected,) = session.run(None, feeds)
        assert_matches_reference(simulated, {model.graph.output[0].name: expected}, data_type)
