"""A training function at the buffer level: the SGD step writes each trained weight in place
(Glow's mutable WeightVar), after every read of its old value, and the buffer interpreter's
updated weights match the graph interpreter's."""

from __future__ import annotations

import numpy as np
from gradient_check import build_module

from lamina.dialects.buffer import BUFFER
from lamina.dialects.model import body_ops, extract_function, inputs
from lamina.passes.graph.differentiate import TrainingConfig, differentiate
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter, graph_interpreter


def training_function():
    """A two-layer MLP with momentum SGD; its training function, lowered for the reference backend."""
    rng = np.random.default_rng(0)
    weights = {"w1": rng.standard_normal((4, 6)).astype(np.float32), "b1": np.zeros(6, np.float32),
               "w2": rng.standard_normal((6, 3)).astype(np.float32), "b2": np.zeros(3, np.float32)}

    def body(op, values):
        hidden = op("relu", op("fully_connected", values["x"], values["w1"], values["b1"]))
        return op("fully_connected", hidden, values["w2"], values["b2"])

    module = build_module({"x": np.zeros((5, 4), np.float32)}, weights, body)
    name = differentiate(module, TrainingConfig(learning_rate=0.1, momentum=0.9, batch_size=5))
    training = extract_function(module, name)
    run_pipeline(training, "builtin.module(graph-optimize{backend=reference-lowered})")
    return training, rng


def test_sgd_updates_the_weights_in_place():
    training, rng = training_function()
    specs = inputs(training)
    feeds = {name: (rng.integers(0, 3, spec.shape) if spec.dtype == np.int64 else
                    rng.standard_normal(spec.shape)).astype(spec.dtype) for name, spec in specs.items()}
    expected = graph_interpreter.run(training, feeds)
    run_pipeline(training, "builtin.module(graph-to-buffers)")
    weights = [BUFFER.view(op).attr("name") for op in body_ops(training) if op.name == "buffer.weight"]
    assert sorted(weights) == sorted(set(weights)), "one weight per name: the update writes the input's buffer"
    interface = buffer_interpreter.interface(training)
    for name in ("w1", "b1", "w2", "b2", "w1.velocity"):
        assert interface.inputs[name] == interface.outputs[name]
    got = buffer_interpreter.run(training, feeds)
    assert got.keys() == expected.keys()
    for name, want in expected.items():
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)
        if name in feeds:
            assert not np.allclose(got[name], feeds[name]), f"{name} was not updated"
