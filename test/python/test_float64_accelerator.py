"""A float64 model compiles for the accelerator, passes its own check and simulates like onnxruntime.

The array computes in fixed point from float32 inputs, but a host segment
keeps the model's float64 placeholders: both the simulator's host step and
the compile check's HIR executor must hand it float64 values (they handed
float32 and refused the model, as the onnx wheel's `test_operator_add*` showed).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from lamina.driver.compiler import compile_model
from lamina.runtime.compare import cosine_similarity
from lamina.runtime.tcu_simulator import simulate


def _float64_add(path):
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"], name="add")], "add64",
        [helper.make_tensor_value_info("a", TensorProto.DOUBLE, [2, 3]),
         helper.make_tensor_value_info("b", TensorProto.DOUBLE, [3])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), str(path))


def test_a_float64_model_compiles_checks_and_simulates(tmp_path):
    source = tmp_path / "add64.onnx"
    _float64_add(source)
    result = compile_model(source, "pynq-z1", tmp_path / "out", samples=2)
    assert result.summary.accuracy.outputs[0].cosine_min >= 0.9999
    rng = np.random.default_rng(0)
    feeds = {"a": rng.standard_normal((2, 3)), "b": rng.standard_normal(3)}
    simulated = simulate(tmp_path / "out" / "model.tmodel", feeds, progress=False).outputs["y"]
    expected = ort.InferenceSession(str(source), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    assert cosine_similarity(simulated, expected) >= 0.9999
    assert np.abs(simulated - expected).max() <= 1e-3
