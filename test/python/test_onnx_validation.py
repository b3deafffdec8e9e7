"""ONNX strictness: what ONNX forbids or leaves ambiguous is one error line, never a silent pick."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.loading import load_onnx
from lamina.frontend.onnx_importer import import_model

from importer_models import imported, make_model, randn

node = helper.make_node


def _softmax(**attributes) -> onnx.ModelProto:
    return make_model([node("Softmax", ["x"], ["y"], name="sm", **attributes)], {"x": randn(2, 3)}, ["y"])


def _error(model: onnx.ModelProto, **options) -> str:
    with pytest.raises(LaminaError) as error:
        imported(model, **options)
    return str(error.value)


def test_unknown_attribute_is_an_error_with_a_did_you_mean():
    message = _error(_softmax(Axis=0))
    assert "node 'sm' (Softmax): unknown attribute 'Axis' (did you mean 'axis'?)" in message
    assert "\n" not in message


def test_unknown_attribute_without_a_close_name():
    assert "unknown attribute 'zebra'; Softmax (opset 17) has axis" in _error(_softmax(zebra=1))


def test_known_attribute_imports():
    imported(_softmax(axis=0))


def test_duplicate_attribute_is_an_error():
    model = _softmax(axis=0)
    model.graph.node[0].attribute.append(helper.make_attribute("axis", 1))
    assert "node 'sm' (Softmax): attribute 'axis' is given twice" in _error(model)


def test_duplicate_initializer_is_an_error():
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(3)}, ["y"], {"w": randn(3)})
    model.graph.initializer.append(numpy_helper.from_array(randn(3), "w"))
    assert "initializer 'w' is defined twice" in _error(model)


def test_raw_and_typed_data_together_is_an_error():
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(3)}, ["y"], {"w": randn(3)})
    model.graph.initializer[0].float_data.extend([1.0, 2.0, 3.0])
    assert "initializer 'w': holds both raw_data and float_data" in _error(model)


@pytest.mark.parametrize("field, values, message", [
    ("raw_data", np.zeros(2, np.float32).tobytes(), "raw_data has 8 bytes but dims [3] need 12"),
    ("float_data", [1.0, 2.0], "float_data has 2 values but dims [3] need 3"),
])
def test_data_not_matching_dims_is_an_error(field, values, message):
    tensor = helper.make_tensor("w", TensorProto.FLOAT, [3], [0.0, 0.0, 0.0])
    tensor.ClearField("float_data")
    if field == "raw_data":
        tensor.raw_data = values
    else:
        tensor.float_data.extend(values)
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(3)}, ["y"])
    model.graph.initializer.append(tensor)
    assert message in _error(model)


def test_constant_attribute_tensor_is_checked_too():
    value = helper.make_tensor("c", TensorProto.FLOAT, [2], [1.0, 2.0])
    value.dims[0] = 4
    model = make_model([node("Constant", [], ["c"], name="k", value=value), node("Add", ["x", "c"], ["y"])],
                       {"x": randn(4)}, ["y"])
    assert "node 'k' (Constant), attribute 'value': float_data has 2 values but dims [4] need 4" in _error(model)


def test_checker_rejection_is_reported_with_its_reason():
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(3)}, ["y"])
    model.graph.node.append(helper.make_node("Relu", ["x"], ["y"]))  # y defined twice
    message = _error(model)
    assert "the ONNX checker rejects the model:" in message and "y" in message


def test_input_shape_over_int64_is_an_error():
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(3)}, ["y"])
    message = _error(model, input_shapes={"x": (2 ** 64,)})
    assert "--input-shape x: dimension 18446744073709551616 is larger than 2^63 - 1" in message


def test_binary_model_named_json(tmp_path):
    path = tmp_path / "model.json"
    path.write_bytes(_softmax(axis=0).SerializeToString())
    with pytest.raises(LaminaError, match="model.json: not a valid ONNX model in the text format its suffix names"):
        load_onnx(str(path))


def test_external_data_offset_not_a_number(tmp_path):
    weights = numpy_helper.from_array(np.ones(4, np.float32), "w")
    weights.ClearField("raw_data")
    weights.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "w.bin"), ("offset", "abc"), ("length", "16")):
        weights.external_data.add(key=key, value=value)
    (tmp_path / "w.bin").write_bytes(np.ones(4, np.float32).tobytes())
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(4)}, ["y"])
    model.graph.initializer.append(weights)
    (tmp_path / "m.onnx").write_bytes(model.SerializeToString())
    with pytest.raises(LaminaError, match=r"m.onnx: cannot load the model's external data \(invalid literal"):
        import_model(str(tmp_path / "m.onnx"), None)


def test_opset_newer_than_onnx_is_an_error():
    model = _softmax(axis=0)
    model.opset_import[0].version = onnx.defs.onnx_opset_version() + 2
    assert f"opset {onnx.defs.onnx_opset_version() + 2} is newer than the newest ONNX release" in _error(model)


def test_undefined_element_type_is_an_error():
    model = _softmax(axis=0)
    model.graph.input[0].type.tensor_type.elem_type = 0
    assert "value 'x': element type 0 is not an ONNX tensor type" in _error(model)


def test_converter_surprise_names_the_node():
    model = make_model([node("Clip", ["x", "lo"], ["y"], name="clip")], {"x": randn(3)}, ["y"],
                       {"lo": np.zeros(2, np.float32)})
    assert "node 'clip' (Clip)" in _error(model)


def test_names_that_are_not_utf8_are_an_error():
    data = _softmax(axis=0).SerializeToString().replace(b"Softmax", b"Soft\xffax")
    model = onnx.ModelProto()
    model.ParseFromString(data)
    assert "node 0: a name, op type or domain is not UTF-8 text" in _error(model)
