"""Models whose inputs only host steps read compile and simulate like onnxruntime.

`memory_map` used to look every model input up among the accelerator's Vars
objects; an input read only by host ops (element-wise-only, reshape-only,
identity, Pad/ReduceMean/Clip, Gather, LayerNorm) has none, and compiling
ended in a KeyError. Such an input lives on the host only (base null).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.driver.compiler import compile_model
from lamina.target.tcu.model_files import read_manifest
from lamina.runtime.tcu_simulator import simulate

RNG = np.random.default_rng(7)


def _const(name: str, array: np.ndarray) -> onnx.TensorProto:
    return numpy_helper.from_array(array, name)


def _model(nodes, initializers=(), inputs=(("x", TensorProto.FLOAT, [1, 4, 8]),)) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "host_only", [helper.make_tensor_value_info(*spec) for spec in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              initializer=list(initializers))
    model = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8))
    onnx.checker.check_model(model, full_check=True)
    return model


def _weights(*shape):
    return (RNG.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


MODELS = {
    "elementwise": lambda: _model([helper.make_node("Relu", ["x"], ["y"])]),
    "identity": lambda: _model([helper.make_node("Identity", ["x"], ["y"])]),
    "reshape": lambda: _model([helper.make_node("Reshape", ["x", "s"], ["y"])],
                              [_const("s", np.array([4, 8], np.int64))]),
    "pad-reducemean-clip": lambda: _model(
        [helper.make_node("Pad", ["x", "p"], ["a"]), helper.make_node("ReduceMean", ["a"], ["b"], axes=[2]),
         helper.make_node("Clip", ["b", "lo", "hi"], ["y"])],
        [_const("p", np.array([0, 0, 1, 0, 1, 1], np.int64)), _const("lo", np.array(0.1, np.float32)),
         _const("hi", np.array(0.6, np.float32))]),
    "gather": lambda: _model(
        [helper.make_node("Gather", ["e", "i"], ["a"]), helper.make_node("MatMul", ["a", "w"], ["y"])],
        [_const("e", _weights(10, 8)), _const("w", _weights(8, 8))],
        inputs=(("i", TensorProto.INT64, [1, 4]),)),
    "layernorm-block": lambda: _model(
        [helper.make_node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1),
         helper.make_node("MatMul", ["n", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("MatMul", ["r", "w2"], ["f"]), helper.make_node("Add", ["x", "f"], ["y"])],
        [_const("g", np.ones(8, np.float32)), _const("b", np.zeros(8, np.float32)),
         _const("w1", _weights(8, 16)), _const("w2", _weights(16, 8))]),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_host_only_input_compiles_and_matches_onnxruntime(name, tmp_path):
    model = MODELS[name]()
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, str(path))
    result = compile_model(path, "pynq-z1", tmp_path / "out")
    manifest = read_manifest(result.files["model.tmodel"])
    feeds = {}
    for entry in manifest.inputs:
        if name == "gather":
            feeds[entry.name] = RNG.integers(0, 10, entry.shape)
        else:
            feeds[entry.name] = RNG.uniform(-1, 1, entry.shape).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)[0]
    simulated = simulate(result.files["model.tmodel"], feeds).outputs["y"]
    assert simulated.shape == expected.shape
    # FP16BP8 on the accelerator parts: a few steps of 1/256 at these magnitudes
    np.testing.assert_allclose(simulated, expected, atol=0.05)
