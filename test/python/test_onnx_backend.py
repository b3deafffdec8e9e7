"""LaminaBackend keeps the `onnx.backend.base` contract: positional inputs in
graph-input order, outputs in graph-output order, unsupported models refused."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.diagnostics import LaminaError
from lamina.runtime.onnx_backend import LaminaBackend

F32 = TensorProto.FLOAT


def make_model(nodes, inputs, outputs, initializers=(), ir_version=None, opset=17, domains=()):
    graph = helper.make_graph(nodes, "test", inputs, outputs, initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), *domains])
    if ir_version is not None:
        model.ir_version = ir_version
    return model


def tensor(name, shape, elem_type=F32):
    return helper.make_tensor_value_info(name, elem_type, shape)


@pytest.fixture
def two_input_model():
    """y = relu(a - b) + w, z = a * b; outputs listed z first; `w` is an initializer also listed as an input."""
    w = np.array([10, 20, 30], np.float32)
    nodes = [helper.make_node("Sub", ["a", "b"], ["d"]), helper.make_node("Relu", ["d"], ["r"]),
             helper.make_node("Add", ["r", "w"], ["y"]), helper.make_node("Mul", ["a", "b"], ["z"])]
    return make_model(nodes, [tensor("a", [3]), tensor("w", [3]), tensor("b", [3])],
                      [tensor("z", [3]), tensor("y", [3])], [numpy_helper.from_array(w, "w")], ir_version=3)


A = np.array([1, 5, -2], np.float32)
B = np.array([3, 2, -7], np.float32)


def test_run_takes_inputs_in_graph_order_without_initializers_and_returns_graph_output_order(two_input_model):
    rep = LaminaBackend.prepare(two_input_model)
    z, y = rep.run([A, B])
    np.testing.assert_array_equal(z, A * B)
    np.testing.assert_array_equal(y, np.maximum(A - B, 0) + [10, 20, 30])


def test_outputs_are_addressable_by_name_and_inputs_by_dict(two_input_model):
    outputs = LaminaBackend.run_model(two_input_model, {"b": B, "a": A})
    np.testing.assert_array_equal(outputs["z"], A * B)
    np.testing.assert_array_equal(outputs["y"], outputs[1])


@pytest.mark.parametrize("inputs", [[A], [A, B, B], {"a": A}, {"a": A, "c": B}])
def test_wrong_inputs_are_a_lamina_error(two_input_model, inputs):
    rep = LaminaBackend.prepare(two_input_model)
    with pytest.raises(LaminaError, match="input"):
        rep.run(inputs)


def test_wrong_input_shape_is_a_lamina_error(two_input_model):
    with pytest.raises(LaminaError, match="input 'b'"):
        LaminaBackend.run_model(two_input_model, [A, B[:2]])


def test_run_node_types_the_node_by_its_inputs():
    node = helper.make_node("Gemm", ["a", "b"], ["y"], transB=1, alpha=2.0)
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    (y,) = LaminaBackend.run_node(node, [a, b])
    np.testing.assert_allclose(y, 2 * a @ b.T)


def test_run_node_honours_the_opset_version():
    # Opset 12 Clip takes min and max as inputs; opset 6 as attributes.
    node = helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=1.0)
    x = np.array([-3, 0.5, 3], np.float32)
    (y,) = LaminaBackend.run_node(node, [x], opset_version=10)
    np.testing.assert_array_equal(y, [-1, 0.5, 1])


def test_cpu_is_the_only_device(two_input_model):
    assert LaminaBackend.supports_device("CPU")
    assert not LaminaBackend.supports_device("CUDA")
    assert not LaminaBackend.is_compatible(two_input_model, "CUDA")
    with pytest.raises(LaminaError, match="CPU only"):
        LaminaBackend.prepare(two_input_model, "CUDA:0")


def test_models_with_unsupported_nodes_are_not_compatible_and_do_not_prepare():
    model = make_model([helper.make_node("Frobnicate", ["x"], ["y"], name="frob", domain="lamina.test")],
                       [tensor("x", [2])], [tensor("y", [2])], domains=[helper.make_opsetid("lamina.test", 1)])
    assert LaminaBackend.is_compatible(make_model([helper.make_node("Relu", ["x"], ["y"])],
                                                  [tensor("x", [2])], [tensor("y", [2])]))
    assert not LaminaBackend.is_compatible(model)
    with pytest.raises(LaminaError, match="node 'frob'"):
        LaminaBackend.prepare(model)


@pytest.mark.parametrize("batch", ["N", -1, 0])
def test_dynamic_input_dimensions_are_fixed_by_input_shapes_or_the_arrays_given(batch):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [batch, 2])], [tensor("y", [batch, 2])])
    (y,) = LaminaBackend.run_model(model, [np.array([[-1, 2]], np.float32)], input_shapes={"x": (1, 2)})
    np.testing.assert_array_equal(y, [[0, 2]])
    rep = LaminaBackend.prepare(model)
    for rows in (3, 1, 3):
        (y,) = rep.run([np.full((rows, 2), -1, np.float32)])
        assert y.shape == (rows, 2)
    assert len(rep._reps) == 2


def test_invalid_node_is_a_lamina_error():
    node = helper.make_node("Gemm", ["a", "b"], ["y"])
    with pytest.raises(LaminaError, match="Gemm"):
        LaminaBackend.run_node(node, [np.ones((2, 3), np.float32), np.ones((2, 3), np.float32)])


@pytest.mark.parametrize("node", [helper.make_node("Frobnicate", ["x"], ["y"]),
                                  helper.make_node("Relu", ["x"], ["y"], alpha=2.0)])
def test_nodes_the_onnx_checker_rejects_are_a_lamina_error(node):
    with pytest.raises(LaminaError, match="is not valid ONNX"):
        LaminaBackend.run_node(node, [np.ones(2, np.float32)])


def test_models_the_importer_cannot_analyse_are_not_compatible():
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [tensor("x", [2])], [tensor("y", [2])], opset=6)
    assert not LaminaBackend.is_compatible(model)
    with pytest.raises(LaminaError, match="opset 6"):
        LaminaBackend.prepare(model)


def _reshape_by_input_model() -> onnx.ModelProto:
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])], "reshape_by_input",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
                               helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_a_shape_fed_as_an_input_is_bound_at_run_time_and_each_value_imports_once():
    rep = LaminaBackend.prepare(_reshape_by_input_model())
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for shape in ([3, 4], [4, -1], [3, 4]):
        (y,) = rep.run([x, np.array(shape, np.int64)])
        np.testing.assert_array_equal(y, x.reshape(shape))
    assert len(rep._reps) == 2


def test_a_bound_value_the_importer_refuses_is_a_lamina_error():
    rep = LaminaBackend.prepare(_reshape_by_input_model())
    with pytest.raises(LaminaError, match="Reshape"):
        rep.run([np.zeros((2, 6), np.float32), np.array([5, 5], np.int64)])
