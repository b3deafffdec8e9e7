"""The ONNX importer: what each converter emits, locations, the light models, and every error path."""

from __future__ import annotations

import re

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from importer_models import graph_ops, imported, make_model, ops_named, randn
from lamina.dialects.context import make_context, parse_module, print_module, verify_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops, inputs, outputs
from lamina.dialects.types import TensorSpec, spec_of
from lamina.frontend import coverage
from lamina.frontend.onnx_importer import (
    LIGHT_MODELS, SUPPORTED_OPS, import_model, load_onnx, parse_input_shape, resolve_model_path, unsupported_nodes,
)

node = helper.make_node


def ints(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def location_names(module) -> list[str]:
    return [op.location.name_str for op in body_ops(module)]


# ---------------------------------------------------------------------------
# What converters emit.
# ---------------------------------------------------------------------------


def test_model_io_constants_and_locations():
    model = make_model([node("Conv", ["x", "w"], ["c"], name="conv1", auto_pad="SAME_UPPER", strides=[2, 2]),
                        node("Relu", ["c"], ["y"])],
                       {"x": randn(1, 3, 5, 5)}, ["y"], {"w": randn(4, 3, 3, 3)})
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "constant", "splat", "convolution", "relu", "save"]
    assert location_names(module) == ["x", "w", "conv1", "conv1", "Relu_1", "y"]
    (conv,) = ops_named(module, "convolution")
    assert conv.attrs() == {"strides": (2, 2), "pads": (1, 1, 1, 1), "dilations": (1, 1), "group": 1}
    assert conv.result_specs() == [TensorSpec((1, 4, 3, 3), np.float32)]
    (bias,) = ops_named(module, "splat")
    assert bias.attr("value") == 0.0 and bias.result_specs() == [TensorSpec((4,), np.float32)]
    assert inputs(module) == {"x": TensorSpec((1, 3, 5, 5), np.float32)}
    assert outputs(module) == {"y": TensorSpec((1, 4, 3, 3), np.float32)}
    assert verify_module(module) == []


def test_locations_are_printed_and_parse_back():
    model = make_model([node("Relu", ["x"], ["y"], name="my_relu")], {"x": randn(2)}, ["y"])
    module, context = imported(model)
    text = print_module(module, debug_info=True)
    assert 'loc("my_relu")' in text and '"graph.relu"' in text
    assert print_module(parse_module(text, context), debug_info=True) == text


def test_initializer_listed_as_input_is_a_constant():
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(2, 3), "w": randn(2, 3)}, ["y"],
                       {"w": randn(2, 3)})
    module, _ = imported(model)
    assert list(inputs(module)) == ["x"]
    assert graph_ops(module) == ["placeholder", "constant", "add", "save"]


def test_broadcasting_is_explicit():
    model = make_model([node("Add", ["a", "b"], ["y"])], {"a": randn(3, 1), "b": randn(4)}, ["y"])
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "placeholder", "broadcast", "broadcast", "add", "save"]
    assert [b.result_specs()[0].shape for b in ops_named(module, "broadcast")] == [(3, 4), (3, 4)]


def test_gemm_is_fully_connected_when_it_fits():
    fits = make_model([node("Gemm", ["a", "b", "c"], ["y"], transB=1)], {"a": randn(2, 5)}, ["y"],
                      {"b": randn(3, 5), "c": randn(1, 3)})
    module, _ = imported(fits)
    assert graph_ops(module) == ["placeholder", "constant", "transpose", "constant", "reshape", "fully_connected",
                                 "save"]
    scaled = make_model([node("Gemm", ["a", "b", "c"], ["y"], alpha=2.0)], {"a": randn(2, 5)}, ["y"],
                        {"b": randn(5, 3), "c": randn(3)})
    module, _ = imported(scaled)
    assert graph_ops(module) == ["placeholder", "constant", "constant", "matmul", "splat", "mul", "broadcast", "add",
                                 "save"]


def test_matmul_of_vectors_reshapes_around_matmul():
    model = make_model([node("MatMul", ["a", "b"], ["y"])], {"a": randn(4), "b": randn(4, 3)}, ["y"])
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "placeholder", "reshape", "matmul", "reshape", "save"]
    assert outputs(module)["y"].shape == (3,)


@pytest.mark.parametrize("opset, axis, expected", [
    (9, 1, ["reshape", "softmax", "reshape"]),
    (9, 2, ["softmax"]),
    (13, 1, ["softmax"]),
])
def test_softmax_before_opset_13_is_coerced_to_2d(opset, axis, expected):
    model = make_model([node("Softmax", ["x"], ["y"], axis=axis)], {"x": randn(2, 3, 4)}, ["y"], opset=opset)
    module, _ = imported(model)
    assert graph_ops(module)[1:-1] == expected
    (softmax,) = ops_named(module, "softmax")
    assert softmax.attr("axis") == (1 if len(expected) == 3 else axis)


def test_compile_time_nodes_still_become_ops():
    model = make_model([node("Shape", ["x"], ["s"]), node("ConstantOfShape", ["s"], ["z"]),
                        node("Add", ["x", "z"], ["y"])], {"x": randn(2, 3)}, ["y"])
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "constant", "splat", "add", "save"]
    (shape,) = ops_named(module, "constant")
    np.testing.assert_array_equal(shape.attr("value"), ints(2, 3))
    assert shape.result_specs() == [TensorSpec((2,), np.int64)]


def test_concat_of_three_is_a_chain_of_binary_concats():
    model = make_model([node("Concat", ["a", "b", "c"], ["y"], axis=-1)],
                       {"a": randn(2, 1), "b": randn(2, 2), "c": randn(2, 3)}, ["y"])
    module, _ = imported(model)
    concats = ops_named(module, "concat")
    assert [c.result_specs()[0].shape for c in concats] == [(2, 3), (2, 6)]
    assert all(c.attr("axis") == 1 for c in concats)


def test_slice_bounds_are_normalized():
    model = make_model([node("Slice", ["x", "s", "e", "a", "p"], ["y"])], {"x": randn(3, 4, 5)}, ["y"],
                       {"s": ints(-1, 100), "e": ints(-1000, 1), "a": ints(0, 1), "p": ints(-1, -2)})
    module, _ = imported(model)
    (slice_,) = ops_named(module, "slice")
    assert slice_.attrs() == {"starts": (2, 3, 0), "ends": (-1, 1, 5), "steps": (-1, -2, 1)}
    assert slice_.result_specs()[0].shape == (3, 1, 5)


def test_resize_sizes_become_scales_that_give_the_sizes():
    model = make_model([node("Resize", ["x", "", "", "z"], ["y"], mode="nearest")], {"x": randn(1, 1, 3, 3)}, ["y"],
                       {"z": ints(1, 1, 7, 2)})
    module, _ = imported(model)
    (resize,) = ops_named(module, "resize_nearest")
    assert resize.result_specs()[0].shape == (1, 1, 7, 2)
    assert resize.attr("coordinate_transformation_mode") == "half_pixel"


def test_foldable_node_without_converter_becomes_a_constant():
    model = make_model([node("Range", ["start", "limit", "delta"], ["r"]), node("Add", ["x", "r"], ["y"])],
                       {"x": randn(4)}, ["y"], {"start": np.float32(0), "limit": np.float32(4), "delta": np.float32(1)})
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "constant", "add", "save"]
    np.testing.assert_array_equal(ops_named(module, "constant")[0].attr("value"), np.arange(4, dtype=np.float32))


def test_shapes_ONNX_cannot_propagate_are_refined_with_folded_values():
    # Div on a shape tensor stops ONNX's data propagation; Lamina's folding does not stop there.
    model = make_model([node("Shape", ["x"], ["s"]), node("Div", ["s", "two"], ["half"]),
                        node("Mul", ["half", "twice"], ["target"]), node("Reshape", ["x", "target"], ["r"]),
                        node("Relu", ["r"], ["y"])],
                       {"x": randn(4, 6)}, ["y"], {"two": ints(2, 1), "twice": ints(1, 2)})
    module, _ = imported(model)
    assert outputs(module)["y"].shape == (2, 12)


def test_dropout_mask_is_all_true():
    model = make_model([node("Dropout", ["x"], ["y", "m"])], {"x": randn(3)}, ["y", "m"], opset=13)
    module, _ = imported(model)
    assert graph_ops(module) == ["placeholder", "dropout", "splat", "save", "save"]
    (mask,) = ops_named(module, "splat")
    assert mask.attr("value") is True and mask.result_specs() == [TensorSpec((3,), np.bool_)]


def test_coverage_page_is_current():
    page = Path(__file__).resolve().parents[2] / "docs" / "onnx-op-coverage.md"
    assert page.read_text() == coverage.markdown(), f"stale: run {coverage.COMMAND}"


def test_supported_ops_cover_the_light_models():
    used = {n.op_type for name in LIGHT_MODELS for n in load_onnx(f"light:{name}").graph.node}
    assert used <= SUPPORTED_OPS
    assert {"Conv", "Gemm", "MatMul", "Resize", "LayerNormalization", "Gelu", "Where"} <= SUPPORTED_OPS


# ---------------------------------------------------------------------------
# The nine light models.
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", LIGHT_MODELS)
def test_light_model_imports_verifies_and_round_trips(name):
    context = make_context()
    module = import_model(f"light:{name}", context)
    assert verify_module(module) == []
    onnx_model = load_onnx(f"light:{name}")
    assert list(outputs(module)) == [value.name for value in onnx_model.graph.output]
    text = print_module(module, debug_info=True)
    assert print_module(parse_module(text, context), debug_info=True) == text


def test_light_model_names_resolve():
    assert LIGHT_MODELS == sorted(LIGHT_MODELS) and len(LIGHT_MODELS) == 9 and "resnet50" in LIGHT_MODELS
    assert resolve_model_path("light:vgg19").endswith("light_vgg19.onnx")
    assert resolve_model_path("model.onnx") == "model.onnx"
    with pytest.raises(LaminaError, match="light:vgg: unknown light model; known: bvlc_alexnet, densenet121"):
        resolve_model_path("light:vgg")


# ---------------------------------------------------------------------------
# Errors for people.
# ---------------------------------------------------------------------------


def test_missing_file(tmp_path):
    with pytest.raises(LaminaError, match=r"nope\.onnx: no such file$"):
        load_onnx(str(tmp_path / "nope.onnx"))


def test_directory(tmp_path):
    with pytest.raises(LaminaError, match="is a directory, not an ONNX model"):
        load_onnx(str(tmp_path))


def test_truncated_file(tmp_path):
    path = tmp_path / "truncated.onnx"
    path.write_bytes(open(resolve_model_path("light:resnet50"), "rb").read()[:30000])
    with pytest.raises(LaminaError, match=r"truncated\.onnx: not a valid ONNX model \(the protobuf does not decode"):
        load_onnx(str(path))


@pytest.mark.parametrize("content", [b"", b"hello, this is text\n"])
def test_not_an_onnx_file(tmp_path, content):
    path = tmp_path / "text.onnx"
    path.write_bytes(content)
    with pytest.raises(LaminaError, match=r"text\.onnx: not a valid ONNX model"):
        load_onnx(str(path))


def test_missing_external_data(tmp_path):
    model = make_model([node("Add", ["x", "w"], ["y"])], {"x": randn(64)}, ["y"], {"w": randn(64)})
    onnx.save(model, str(tmp_path / "m.onnx"), save_as_external_data=True, location="w.bin", size_threshold=0)
    (tmp_path / "w.bin").unlink()
    with pytest.raises(LaminaError, match=r"m\.onnx: cannot load the model's external data"):
        load_onnx(str(tmp_path / "m.onnx"))


def _unsupported_model() -> onnx.ModelProto:
    branch = helper.make_graph([node("Identity", ["nowhere"], ["t"])], "branch", [],
                               [helper.make_empty_tensor_value_info("t")])
    nodes = [
        node("Relu", ["x"], ["r"], name="relu"),
        node("Foo", ["r"], ["f"], name="custom", domain="com.example"),
        node("Relu", ["f"], ["g"], name="after_custom"),
        node("Unique", ["r"], ["u"], name="unique"),
        node("Resize", ["r", "", "s"], ["z"], name="resize", mode="linear",
             coordinate_transformation_mode="tf_crop_and_resize"),
        node("Dropout", ["r", "ratio", "train"], ["d"], name="drop"),
        node("Reshape", ["r", "shape"], ["rs"], name="reshape"),
        node("If", ["cond"], ["i"], name="if", then_branch=branch, else_branch=branch),
        node("MaxPool", ["r"], ["mp", "idx"], name="pool", kernel_shape=[1, 1]),
    ]
    model = make_model(nodes, {"x": randn(1, 2, 3, 4), "shape": ints(2, 12), "cond": np.array(True)},
                       ["g", "u", "z", "d", "rs", "i", "idx"],
                       {"s": np.array([1, 1, 2, 2], np.float32), "ratio": np.float32(0.5), "train": np.array(True)})
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    return model


UNSUPPORTED_LINES = [
    "node 'custom' (Foo): operator domain 'com.example' is not supported",
    "node 'unique' (Unique): operator not supported",
    "node 'resize' (Resize): coordinate_transformation_mode 'tf_crop_and_resize' is not supported in linear and "
    "cubic modes",
    "node 'drop' (Dropout): training_mode = true is not supported (inference only)",
    "node 'reshape' (Reshape): input 'shape' (shape) must be a compile-time constant",
    "node 'if' (If): then_branch reads 'nowhere', which no enclosing graph defines before this node",
    "node 'pool' (MaxPool): the Indices output is not supported",
]


def test_every_unsupported_node_is_listed_in_one_error():
    with pytest.raises(LaminaError) as error:
        imported(_unsupported_model())
    lines = str(error.value).splitlines()
    assert lines[0] == "test: cannot import the model (7 problems):"
    assert lines[1:] == UNSUPPORTED_LINES  # 'after_custom' only follows from 'custom'


def test_unsupported_nodes_without_importing():
    assert [str(problem) for problem in unsupported_nodes(_unsupported_model())] == UNSUPPORTED_LINES
    assert unsupported_nodes("light:squeezenet") == []


def test_dynamic_input_names_the_dimension_and_the_fix():
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(1, 3, 4)}, ["y"])
    dims = model.graph.input[0].type.tensor_type.shape.dim
    dims[0].dim_param = "batch"
    dims[2].Clear()
    with pytest.raises(LaminaError, match=r"^test: input 'x' has dynamic dimensions 0 \('batch'\), 2; "
                                          r"fix it with --input-shape x=1x3x1$"):
        imported(model)
    module, _ = imported(model, input_shapes={"x": (2, 3, 5)})
    assert outputs(module)["y"] == TensorSpec((2, 3, 5), np.float32)
    assert [str(p) for p in unsupported_nodes(model)] == [
        "node 'Relu_0' (Relu): the shape of input 'x' is unknown after shape inference (a dynamic shape)"]


@pytest.mark.parametrize("unknown", [-1, 0])
def test_minus_one_and_zero_input_dims_are_dynamic_and_fixed_by_input_shapes(unknown):
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(1, 3)}, ["y"])
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = unknown
    model.graph.output.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, [unknown, 3]))
    del model.graph.output[0]
    with pytest.raises(LaminaError, match=r"^test: input 'x' has dynamic dimension 0; fix it with --input-shape x=1x3$"):
        imported(model)
    module, _ = imported(model, input_shapes={"x": (4, 3)})
    assert outputs(module)["y"] == TensorSpec((4, 3), np.float32)


def test_an_empty_input_is_given_with_input_shapes():
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(0, 3)}, ["y"])
    module, _ = imported(model, input_shapes={"x": (0, 3)})
    assert outputs(module)["y"] == TensorSpec((0, 3), np.float32)


def test_input_without_shape():
    model = make_model([node("Relu", ["x"], ["y"])], {}, ["y"])
    model.graph.input.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, None))
    with pytest.raises(LaminaError, match="input 'x' has no shape; give it one with --input-shape x=DIMxDIM"):
        imported(model)


@pytest.mark.parametrize("shapes, message", [
    ({"y": (1,)}, r"--input-shape names 'y', which is not a model input; inputs: x"),
    ({"x": (2,)}, r"input 'x' has rank 2, but --input-shape gives 1 dimensions"),
    ({"x": (2, 4)}, r"input 'x' dimension 1 is 3 in the model, --input-shape gives 4"),
    ({"x": (-1, 3)}, r"input 'x' is given the negative dimension in \(-1, 3\)"),
])
def test_input_shapes_that_do_not_fit(shapes, message):
    model = make_model([node("Relu", ["x"], ["y"])], {"x": randn(2, 3)}, ["y"])
    with pytest.raises(LaminaError, match=message):
        imported(model, input_shapes=shapes)


def test_unsupported_element_types():
    nodes = [node("Cast", ["x"], ["b"], to=TensorProto.BFLOAT16, name="to_bf16"), node("Identity", ["s"], ["t"])]
    model = make_model(nodes, {"x": randn(2)}, ["b", "t"], {"c": np.ones(2, np.complex64)})
    model.graph.input.append(helper.make_tensor_value_info("s", TensorProto.STRING, [2]))
    with pytest.raises(LaminaError) as error:
        imported(model)
    assert str(error.value).splitlines()[1:] == [
        "initializer 'c': element type COMPLEX64 is not supported",
        "input 's': element type STRING is not supported",
        "node 'to_bf16' (Cast): element type BFLOAT16 ('b') is not supported",
    ]


def test_non_tensor_input():
    model = make_model([node("Identity", ["s"], ["t"])], {}, ["t"])
    model.graph.input.append(helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2]))
    assert [str(p) for p in unsupported_nodes(model)] == ["input 's': a sequence, not a tensor"]


def test_undefined_values():
    model = make_model([node("Relu", ["ghost"], ["y"], name="r")], {"x": randn(2)}, ["y", "nothing"])
    assert [str(p) for p in unsupported_nodes(model)][1:] == [
        "output 'nothing': no node, initializer or input produces it",
        "node 'r' (Relu): input 'ghost' is not defined by an earlier node, initializer or graph input",
    ]


@pytest.mark.parametrize("opset", [1, 6])
def test_old_opset_is_the_one_problem(opset):
    nodes = [node("Relu", ["x"], ["r"]), node("Reshape", ["r"], ["y"], shape=[3, 2])]  # Reshape-1's attribute form
    model = make_model(nodes, {"x": randn(2, 3)}, ["y"], opset=opset)
    assert [str(p) for p in unsupported_nodes(model)] == [
        f"the model: opset {opset} is older than 7, the oldest Lamina supports; upgrade it with onnx.version_converter"]


def test_shape_inference_failure_names_the_node():
    model = make_model([node("Add", ["a", "b"], ["y"], name="add0")], {"a": randn(2, 3), "b": randn(4, 3)}, ["y"])
    with pytest.raises(LaminaError, match=r"the model: ONNX shape inference failed: \(op_type:Add, node name: add0\)"):
        imported(model)


def test_conversion_error_names_the_node():
    # Erf-9 accepts integers; graph.erf does not.
    model = make_model([node("Erf", ["x"], ["y"], name="erf0")], {"x": np.arange(3, dtype=np.int32)}, ["y"], opset=9)
    with pytest.raises(LaminaError, match=r"^test: node 'erf0' \(Erf\): expects a floating-point operand"):
        imported(model)


def test_source_name_names_the_model_in_errors():
    model = make_model([node("Unique", ["x"], ["y"])], {"x": randn(2)}, ["y"])
    with pytest.raises(LaminaError, match="^my.onnx: cannot import the model"):
        import_model(model, make_context(), source_name="my.onnx")


@pytest.mark.parametrize("text, expected", [
    ("data=1x3x224x224", ("data", (1, 3, 224, 224))),
    ("gpu_0/data_0=1x3", ("gpu_0/data_0", (1, 3))),
    ("a=b=5", ("a=b", (5,))),
    ("scalar=", ("scalar", ())),
])
def test_parse_input_shape(text, expected):
    assert parse_input_shape(text) == expected


@pytest.mark.parametrize("text", ["data", "data=1x", "=1x3", "data=1,3"])
def test_parse_input_shape_rejects(text):
    with pytest.raises(LaminaError, match="--input-shape expects NAME=DIMxDIM"):
        parse_input_shape(text)


@pytest.mark.parametrize("text", ["data=-1", "data=-1x3x224x224"])
def test_parse_input_shape_rejects_negative_dims_and_says_what_to_give(text):
    with pytest.raises(LaminaError, match="negative dimension .* give every dimension its size"):
        parse_input_shape(text)


def test_result_types_follow_onnx_shape_inference():
    model = make_model([node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], ceil_mode=1, strides=[2, 2])],
                       {"x": randn(1, 1, 5, 5)}, ["y"])
    module, _ = imported(model)
    (pool,) = ops_named(module, "max_pool")
    assert spec_of(pool.op.results[0].type) == TensorSpec((1, 1, 3, 3), np.float32)
    assert GRAPH.verify_op(pool.op) is None


@pytest.mark.parametrize("nodes, inputs, opset, message", [
    ([node("Constant", [], ["c"], name="k"), node("Add", ["x", "c"], ["y"])], {"x": randn(2)}, 17,
     r"node name: k\): One and only one of the attributes"),
    ([node("Add", ["x", ""], ["y"], name="a")], {"x": randn(2)}, 17,
     r"^node 'a' \(Add\): input 1 \('B'\) is required but given as ''$"),
    ([node("Loop", ["", ""], ["y"], name="l")], {"x": randn(2)}, 17,  # fuzz seed 61 case 5639: a traceback
     r"^\s*node 'l' \(Loop\): attribute 'body' is required but missing$"),
    ([node("Pad", ["x"], ["y"], name="p")], {"x": randn(2)}, 17,  # fuzz seed 61 case 9000: a traceback
     r"^\s*node 'p' \(Pad\): input 1 \('pads'\) is required but missing$"),
    ([node("Softmax", ["x"], ["y"], axis=1.5, name="s")], {"x": randn(2, 3)}, 17,
     r"^node 's' \(Softmax\): attribute 'axis' is FLOAT, the operator takes INT$"),
    ([node("Gather", ["x", "x"], ["y"], axis=[1], name="g")], {"x": randn(2, 3)}, 17,
     r"^node 'g' \(Gather\): attribute 'axis' is INTS, the operator takes INT$"),
    ([node("ReduceSum", ["x"], ["y"], axes=[0.5], name="r")], {"x": randn(2, 3)}, 11,
     r"^node 'r' \(ReduceSum\): attribute 'axes' is FLOATS, the operator takes INTS$"),
])
def test_malformed_nodes_are_one_line_naming_the_node(nodes, inputs, opset, message):
    model = make_model(nodes, inputs, ["y"], opset=opset)
    with pytest.raises(LaminaError) as error:
        imported(model)
    assert any(re.search(message, line) for line in str(error.value).splitlines()[1:]), str(error.value)


def test_a_constant_with_two_values_is_refused_by_name():
    constant = node("Constant", [], ["c"], name="k", value_float=1.0)
    constant.attribute.append(helper.make_attribute("value_int", 2))
    view_problems = [str(p) for p in unsupported_nodes(make_model([constant], {}, ["c"]))]
    assert any("node 'k' (Constant)" in line for line in view_problems), view_problems


def test_problems_inside_nested_subgraphs_are_listed_with_the_node():
    inner = helper.make_graph([node("Unique", ["x"], ["u"], name="uniq"), node("Relu", ["x"], ["v"]),
                               node("Foo", ["x"], ["w"], name="custom", domain="com.example")],
                              "branch", [], [helper.make_tensor_value_info("v", TensorProto.FLOAT, [2])])
    model = make_model([node("If", ["c"], ["y"], name="choose", then_branch=inner, else_branch=inner)],
                       {"c": np.array(True), "x": randn(2)}, ["y"])
    (problem,) = [str(p) for p in unsupported_nodes(model) if str(p).startswith("node 'choose'")]
    # Control flow imports, so the problems are those of the branches, each named with its branch.
    assert "then_branch: node 'custom' (Foo): operator domain 'com.example' is not supported" in problem
    assert "else_branch" in problem and "\n" not in problem


def test_a_model_the_function_inliner_cannot_parse_is_one_line():
    """Fuzz seed 61 case 4571: IR version 1 and a Softmax reading a value nothing defines, so the
    Softmax is expanded, and ONNX's inliner asserted in its version converter (a traceback)."""
    model = make_model([node("MatMul", ["x", "w"], ["m"]), node("Softmax", ["a"], ["y"])], {"x": randn(2, 8)}, ["y"],
                       initializers={"w": randn(8, 6)})
    model.graph.value_info.extend(helper.make_tensor_value_info(name, TensorProto.FLOAT, [2, 6]) for name in "ma")
    model.ir_version = 1
    with pytest.raises(LaminaError, match=r"^model.onnx: ONNX's function inliner cannot expand f1_Softmax: .*"
                                          r"unable to parse input model"):
        import_model(model, make_context(), source_name="model.onnx")
