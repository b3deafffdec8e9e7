"""Each converter's numbers: import + graph interpreter against onnxruntime.

Every case is a small ONNX model exercising one converter's tricky corner
(broadcasting, auto_pad, ceil_mode, negative steps, opset forms, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from onnx import TensorProto, helper

from importer_models import imported, make_model, randn, run_onnxruntime
from lamina.runtime.graph_interpreter import run

node = helper.make_node


@dataclass
class Case:
    id: str
    nodes: list
    inputs: dict
    initializers: dict = field(default_factory=dict)
    opset: int = 17
    outputs: list | None = None


def ints(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


X4 = {"x": randn(2, 4, 7, 6)}
W = randn(6, 4, 3, 3)

CASES = [
    # Convolution.
    Case("conv_bias", [node("Conv", ["x", "w", "b"], ["y"], pads=[1, 0, 1, 2])], X4, {"w": W, "b": randn(6)}),
    Case("conv_no_bias_strided_dilated", [node("Conv", ["x", "w"], ["y"], strides=[2, 1], dilations=[2, 2])], X4,
         {"w": W}),
    Case("conv_groups", [node("Conv", ["x", "w"], ["y"], group=2)], X4, {"w": randn(6, 2, 3, 3)}),
    Case("conv_depthwise", [node("Conv", ["x", "w", "b"], ["y"], group=4, pads=[1, 1, 1, 1])], X4,
         {"w": randn(4, 1, 3, 3), "b": randn(4)}),
    Case("conv_same_upper", [node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER", strides=[2, 2])], X4, {"w": W}),
    Case("conv_same_lower", [node("Conv", ["x", "w"], ["y"], auto_pad="SAME_LOWER", strides=[2, 2])], X4, {"w": W}),
    Case("conv_valid_1d", [node("Conv", ["x", "w"], ["y"], auto_pad="VALID")], {"x": randn(1, 3, 10)},
         {"w": randn(2, 3, 4)}),
    Case("conv_3d", [node("Conv", ["x", "w"], ["y"], pads=[1, 0, 1, 0, 1, 1])], {"x": randn(1, 2, 4, 5, 3)},
         {"w": randn(3, 2, 2, 3, 2)}),
    Case("conv_transpose", [node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 2], pads=[1, 0, 0, 1])],
         {"x": randn(1, 3, 4, 5)}, {"w": randn(3, 2, 3, 3), "b": randn(2)}),
    Case("conv_transpose_output_padding_group",
         [node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 3], output_padding=[1, 2], group=3)],
         {"x": randn(1, 6, 3, 3)}, {"w": randn(6, 1, 3, 3)}),
    Case("conv_transpose_output_shape", [node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], output_shape=[8, 9])],
         {"x": randn(1, 1, 4, 4)}, {"w": randn(1, 2, 3, 3)}),
    Case("conv_transpose_output_shape_beyond_full",
         [node("ConvTranspose", ["x", "w"], ["y"], strides=[3, 2], output_shape=[10, 8])],
         {"x": randn(1, 1, 3, 3)}, {"w": randn(1, 2, 3, 3)}),
    Case("conv_transpose_same_upper", [node("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], auto_pad="SAME_UPPER")],
         {"x": randn(1, 1, 3, 3)}, {"w": randn(1, 2, 4, 4)}),
    # Pooling.
    Case("max_pool_pads_strides", [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 2], strides=[2, 2], pads=[1, 1, 1, 0])],
         X4),
    Case("max_pool_ceil_dilations", [node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1,
                                          dilations=[2, 1])], X4),
    Case("max_pool_same_upper", [node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                      auto_pad="SAME_UPPER")], X4),
    Case("max_pool_same_lower_1d", [node("MaxPool", ["x"], ["y"], kernel_shape=[4], auto_pad="SAME_LOWER")],
         {"x": randn(1, 2, 9)}),
    Case("avg_pool_exclude_pad", [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])], X4),
    Case("avg_pool_include_pad", [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                       count_include_pad=1)], X4),
    Case("avg_pool_ceil", [node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)], X4),
    Case("avg_pool_same_upper", [node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                      auto_pad="SAME_UPPER")], X4),
    Case("global_pools", [node("GlobalAveragePool", ["x"], ["a"]), node("GlobalMaxPool", ["x"], ["m"])], X4,
         outputs=["a", "m"]),
    # Matrix products.
    Case("gemm_fully_connected", [node("Gemm", ["a", "b", "c"], ["y"])], {"a": randn(3, 5)},
         {"b": randn(5, 4), "c": randn(4)}),
    Case("gemm_transposed_no_c", [node("Gemm", ["a", "b"], ["y"], transA=1, transB=1)], {"a": randn(5, 3)},
         {"b": randn(4, 5)}),
    Case("gemm_alpha_beta_matrix_c", [node("Gemm", ["a", "b", "c"], ["y"], alpha=0.5, beta=2.0)], {"a": randn(3, 5)},
         {"b": randn(5, 4), "c": randn(3, 4)}),
    Case("gemm_column_c", [node("Gemm", ["a", "b", "c"], ["y"])], {"a": randn(3, 5)},
         {"b": randn(5, 4), "c": randn(3, 1)}),
    Case("gemm_scalar_c", [node("Gemm", ["a", "b", "c"], ["y"], transB=1)], {"a": randn(3, 5)},
         {"b": randn(4, 5), "c": np.float32(0.25)}),
    Case("gemm_row_c_beta", [node("Gemm", ["a", "b", "c"], ["y"], beta=-1.0)], {"a": randn(3, 5)},
         {"b": randn(5, 4), "c": randn(1, 4)}),
    Case("matmul_batched_broadcast", [node("MatMul", ["a", "b"], ["y"])], {"a": randn(2, 1, 3, 4), "b": randn(5, 4, 2)}),
    Case("matmul_vector_matrix", [node("MatMul", ["a", "b"], ["y"])], {"a": randn(4), "b": randn(2, 4, 3)}),
    Case("matmul_matrix_vector", [node("MatMul", ["a", "b"], ["y"])], {"a": randn(2, 3, 4), "b": randn(4)}),
    Case("matmul_vector_vector", [node("MatMul", ["a", "b"], ["y"])], {"a": randn(4), "b": randn(4)}),
    # Normalization.
    Case("batch_norm", [node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], epsilon=1e-3)], X4,
         {"s": randn(4), "b": randn(4), "m": randn(4), "v": np.abs(randn(4)) + 0.5}),
    Case("layer_norm_last_axis", [node("LayerNormalization", ["x", "s", "b"], ["y"])], {"x": randn(2, 3, 8)},
         {"s": randn(8), "b": randn(8)}),
    Case("layer_norm_axis1_no_bias", [node("LayerNormalization", ["x", "s"], ["y"], axis=1, epsilon=1e-3)],
         {"x": randn(2, 3, 4)}, {"s": randn(3, 4)}),
    Case("lrn", [node("LRN", ["x"], ["y"], size=3, alpha=1e-2, beta=0.6, bias=2.0)], X4),
    Case("softmax_opset9_coerced", [node("Softmax", ["x"], ["y"], axis=1)], {"x": randn(2, 3, 4)}, opset=9),
    Case("softmax_opset13_axis", [node("Softmax", ["x"], ["y"], axis=1)], {"x": randn(2, 3, 4)}, opset=13),
    Case("softmax_opset11_default", [node("Softmax", ["x"], ["y"])], {"x": randn(2, 3, 4)}, opset=11),
    # Element-wise.
    Case("add_broadcast", [node("Add", ["a", "b"], ["y"])], {"a": randn(3, 1), "b": randn(4)}),
    Case("sub_mul_div", [node("Sub", ["a", "b"], ["s"]), node("Mul", ["s", "b"], ["m"]), node("Div", ["m", "a"], ["y"])],
         {"a": randn(2, 3), "b": randn(3)}),
    Case("pow_int_exponent", [node("Pow", ["a", "e"], ["y"])], {"a": np.abs(randn(2, 3)) + 0.1},
         {"e": np.array([2, 3, 1], dtype=np.int64)}),
    Case("max_min_variadic", [node("Max", ["a", "b", "c"], ["mx"]), node("Min", ["a", "b", "c"], ["mn"])],
         {"a": randn(2, 3), "b": randn(3), "c": randn(2, 1)}, outputs=["mx", "mn"]),
    Case("sum_mean_variadic", [node("Sum", ["a", "b", "c"], ["s"]), node("Mean", ["a", "b", "c"], ["m"])],
         {"a": randn(2, 3), "b": randn(3), "c": randn(2, 1)}, outputs=["s", "m"]),
    Case("comparisons_where", [node("Less", ["a", "b"], ["lt"]), node("Greater", ["a", "b"], ["gt"]),
                               node("Equal", ["i", "j"], ["eq"]), node("Where", ["lt", "a", "c"], ["y"])],
         {"a": randn(2, 3), "b": randn(3), "c": randn(2, 1), "i": ints(1, 2, 3), "j": ints(1, 0, 3)},
         outputs=["y", "gt", "eq"]),
    Case("unary_math", [node(op, ["x"], [op.lower()]) for op in ("Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Neg",
                                                                 "Abs", "Identity")],
         {"x": randn(3, 4)}, outputs=["relu", "sigmoid", "tanh", "erf", "exp", "neg", "abs", "identity"]),
    Case("positive_unary_math", [node(op, ["x"], [op.lower()]) for op in ("Log", "Sqrt", "Reciprocal")],
         {"x": np.abs(randn(3, 4)) + 0.1}, outputs=["log", "sqrt", "reciprocal"]),
    Case("leaky_relu", [node("LeakyRelu", ["x"], ["y"], alpha=0.2)], {"x": randn(3, 4)}),
    Case("gelu_erf_and_tanh", [node("Gelu", ["x"], ["e"]), node("Gelu", ["x"], ["t"], approximate="tanh")],
         {"x": randn(3, 4)}, opset=20, outputs=["e", "t"]),
    Case("clip_attributes", [node("Clip", ["x"], ["y"], min=-0.5, max=0.7)], {"x": randn(3, 4)}, opset=7),
    Case("clip_constant_max_only", [node("Clip", ["x", "", "hi"], ["y"])], {"x": randn(3, 4)},
         {"hi": np.float32(0.3)}, opset=13),
    Case("clip_runtime_bounds_int", [node("Clip", ["x", "lo", "hi"], ["y"])],
         {"x": np.arange(-5, 7, dtype=np.int32).reshape(3, 4), "lo": np.array(-2, np.int32),
          "hi": np.array(3, np.int32)}, opset=13),
    Case("dropout_with_mask", [node("Dropout", ["x"], ["y", "mask"])], {"x": randn(3, 4)}, opset=12,
         outputs=["y", "mask"]),
    Case("dropout_opset7", [node("Dropout", ["x"], ["y"], ratio=0.3)], {"x": randn(3, 4)}, opset=7),
    Case("cast", [node("Cast", ["x"], ["i"], to=TensorProto.INT32), node("Cast", ["i"], ["f"], to=TensorProto.FLOAT),
                  node("Cast", ["x"], ["b"], to=TensorProto.BOOL)],
         {"x": randn(3, 4) * 4}, outputs=["i", "f", "b"]),
    # Data movement.
    Case("reshape_zero_and_minus_one", [node("Reshape", ["x", "s"], ["y"])], {"x": randn(2, 3, 4)},
         {"s": ints(0, -1)}),
    Case("reshape_allowzero", [node("Reshape", ["x", "s"], ["y"], allowzero=1)], {"x": randn(2, 3, 4)},
         {"s": ints(4, 3, 2)}, opset=14),
    Case("flatten_axes", [node("Flatten", ["x"], ["a"], axis=0), node("Flatten", ["x"], ["b"], axis=-1)],
         {"x": randn(2, 3, 4)}, outputs=["a", "b"]),
    Case("squeeze_unsqueeze_attrs", [node("Squeeze", ["x"], ["s"], axes=[1]), node("Unsqueeze", ["s"], ["y"], axes=[-1, 0])],
         {"x": randn(2, 1, 4)}, opset=11),
    Case("squeeze_unsqueeze_inputs", [node("Squeeze", ["x"], ["s"]), node("Unsqueeze", ["s", "axes"], ["y"])],
         {"x": randn(1, 3, 1, 4)}, {"axes": ints(1, -1)}, opset=13),
    Case("expand_bidirectional", [node("Expand", ["x", "s"], ["y"])], {"x": randn(3, 1)}, {"s": ints(2, 1, 4)}),
    Case("transpose", [node("Transpose", ["x"], ["a"]), node("Transpose", ["x"], ["b"], perm=[1, 2, 0])],
         {"x": randn(2, 3, 4)}, outputs=["a", "b"]),
    Case("concat_three_negative_axis", [node("Concat", ["a", "b", "c"], ["y"], axis=-1)],
         {"a": randn(2, 1), "b": randn(2, 3), "c": randn(2, 2)}),
    Case("slice_attributes", [node("Slice", ["x"], ["y"], starts=[1, -3], ends=[1000, -1], axes=[0, 2])],
         {"x": randn(3, 4, 5)}, opset=9),
    Case("slice_negative_steps_clamped", [node("Slice", ["x", "st", "en", "ax", "sp"], ["y"])], {"x": randn(3, 4, 5)},
         {"st": ints(-1, 100, 0), "en": ints(-1000, 0, 5), "ax": ints(0, -2, 2), "sp": ints(-1, -2, 2)}),
    Case("slice_out_of_range_empty_default_axes", [node("Slice", ["x", "st", "en"], ["y"])], {"x": randn(3, 4)},
         {"st": ints(5, 1), "en": ints(7, 3)}),
    Case("pad_constant_value_input", [node("Pad", ["x", "p", "v"], ["y"])], {"x": randn(2, 3)},
         {"p": ints(0, 1, 2, 0), "v": np.float32(1.5)}),
    Case("pad_reflect", [node("Pad", ["x", "p"], ["y"], mode="reflect")], {"x": randn(3, 4)}, {"p": ints(2, 1, 1, 3)}),
    Case("pad_edge_axes", [node("Pad", ["x", "p", "", "a"], ["y"], mode="edge")], {"x": randn(2, 3, 4)},
         {"p": ints(1, 2, 0, 1), "a": ints(-1, 0)}, opset=18),
    Case("pad_attributes", [node("Pad", ["x"], ["y"], pads=[1, 0, 0, 2], value=-1.0)], {"x": randn(2, 3)}, opset=9),
    Case("tile", [node("Tile", ["x", "r"], ["y"])], {"x": randn(2, 3)}, {"r": ints(2, 3)}),
    Case("gather_axis_negative_indices", [node("Gather", ["x", "i"], ["y"], axis=-1)], {"x": randn(2, 5)},
         {"i": np.array([[0, -1], [2, -3]], dtype=np.int64)}),
    Case("gather_scalar_index", [node("Gather", ["x", "i"], ["y"])], {"x": randn(4, 3)}, {"i": np.array(2, np.int32)}),
    # Reductions.
    Case("reduce_attrs_opset11", [node(op, ["x"], [op], axes=[-1, 0], keepdims=k)
                                  for op, k in (("ReduceSum", 1), ("ReduceMean", 0), ("ReduceMax", 1),
                                                ("ReduceMin", 0), ("ReduceProd", 1))],
         {"x": randn(2, 3, 4)}, opset=11, outputs=["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"]),
    Case("reduce_axes_inputs_opset18", [node("ReduceSum", ["x", "a"], ["s"], keepdims=0),
                                        node("ReduceMean", ["x", "a"], ["m"]), node("ReduceMax", ["x"], ["all"])],
         {"x": randn(2, 3, 4)}, {"a": ints(1)}, opset=18, outputs=["s", "m", "all"]),
    Case("reduce_noop_with_empty_axes", [node("ReduceSum", ["x", "a"], ["y"], noop_with_empty_axes=1)],
         {"x": randn(2, 3)}, {"a": np.zeros(0, np.int64)}, opset=13),
    # Compile-time values.
    Case("constant_forms", [node("Constant", [], ["c"], value_floats=[1.0, 2.0, 3.0]),
                            node("Constant", [], ["k"], value=helper.make_tensor("k", TensorProto.FLOAT, [3], [4, 5, 6])),
                            node("Add", ["c", "k"], ["s"]), node("Mul", ["s", "x"], ["y"]),
                            node("Constant", [], ["i"], value_int=3), node("Constant", [], ["v"], value_ints=[1, 2]),
                            node("Constant", [], ["f"], value_float=0.5)],
         {"x": randn(2, 3)}, outputs=["y", "i", "v", "f"]),
    Case("constant_of_shape", [node("ConstantOfShape", ["s"], ["y"],
                                    value=helper.make_tensor("v", TensorProto.INT64, [1], [7]))], {}, {"s": ints(2, 3)},
         outputs=["y"]),
    Case("size", [node("Size", ["x"], ["n"]), node("Cast", ["n"], ["f"], to=TensorProto.FLOAT),
                  node("Mul", ["x", "f"], ["y"])], {"x": randn(2, 3)}),
    Case("shape_arithmetic_reshape", [node("Shape", ["x"], ["shape"], start=1), node("ReduceProd", ["shape"], ["n"]),
                                      node("Div", ["n", "two"], ["half"]), node("Concat", ["two", "half"], ["target"],
                                                                               axis=0),
                                      node("Reshape", ["x", "target"], ["y"])],
         {"x": randn(1, 4, 6)}, {"two": ints(2)}, opset=15),
    # Resize (nearest).
    Case("resize_scales_half_pixel", [node("Resize", ["x", "", "s"], ["y"], mode="nearest")], {"x": randn(1, 2, 3, 4)},
         {"s": np.array([1, 1, 1.7, 0.6], np.float32)}, opset=13),
    Case("resize_sizes_asymmetric_floor", [node("Resize", ["x", "", "", "z"], ["y"], mode="nearest",
                                                coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
         {"x": randn(1, 2, 3, 4)}, {"z": ints(1, 2, 7, 3)}, opset=13),
    Case("resize_align_corners_ceil", [node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                                            coordinate_transformation_mode="align_corners", nearest_mode="ceil")],
         {"x": randn(1, 1, 4, 4)}, {"s": np.array([1, 1, 2, 1.5], np.float32)}, opset=13),
    Case("resize_pytorch_half_pixel_round_ceil", [node("Resize", ["x", "", "s"], ["y"], mode="nearest",
                                                       coordinate_transformation_mode="pytorch_half_pixel",
                                                       nearest_mode="round_prefer_ceil")],
         {"x": randn(1, 1, 5, 4)}, {"s": np.array([1, 1, 0.6, 2.5], np.float32)}, opset=13),
    Case("resize_axes_sizes", [node("Resize", ["x", "", "", "z"], ["y"], mode="nearest", axes=[3, 2])],
         {"x": randn(1, 1, 3, 4)}, {"z": ints(6, 5)}, opset=18),
    Case("resize_opset10_upsample", [node("Resize", ["x", "s"], ["y"], mode="nearest")], {"x": randn(1, 1, 3, 4)},
         {"s": np.array([1, 1, 2.5, 1.7], np.float32)}, opset=10),
    Case("resize_opset10_downsample", [node("Resize", ["x", "s"], ["y"], mode="nearest")], {"x": randn(1, 1, 7, 6)},
         {"s": np.array([1, 1, 0.6, 0.3], np.float32)}, opset=10),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_converter_matches_onnxruntime(case: Case):
    outputs = case.outputs or [case.nodes[-1].output[0]]
    model = make_model(case.nodes, case.inputs, outputs, case.initializers, opset=case.opset, name=case.id)
    expected = run_onnxruntime(model, case.inputs)
    module, _context = imported(model)
    actual = run(module, case.inputs)
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        assert actual[name].dtype == value.dtype, name
        assert actual[name].shape == value.shape, name
        np.testing.assert_allclose(actual[name], value, rtol=1e-5, atol=1e-5, err_msg=f"{case.id}: output {name}")
