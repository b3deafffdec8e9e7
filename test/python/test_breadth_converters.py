"""Converters built from existing graph ops (Split, InstanceNormalization, logic, CumSum, linear Resize, Einsum,
OneHot, Elu, Selu, PRelu, Softplus, ...).

Each case runs on the graph interpreter and the CPU path against onnxruntime:
since these operators need no new graph op, both levels (and the
accelerator's rules for the ops they become) cover them.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from importer_models import graph_ops, imported, make_model, randn, run_onnxruntime
from lamina import LaminaError
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

node = helper.make_node
RNG = np.random.default_rng(0)
BOOLS_A, BOOLS_B = RNG.random((3, 4)) > 0.5, RNG.random(4) > 0.5
SPECIAL = np.array([[np.nan, 1.0, np.inf], [-np.inf, -2.0, 0.0]], np.float32)


def case(nodes, inputs, initializers=None, opset=17, outputs=("y",)):
    return make_model(nodes, inputs, list(outputs), initializers, opset=opset), inputs


CASES = {
    "split_num_outputs": case([node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)], {"x": randn(2, 7)},
                              opset=18, outputs=("a", "b", "c")),
    "split_sizes_input": case([node("Split", ["x", "s"], ["a", "b"], axis=-1)], {"x": randn(2, 7)},
                              {"s": np.array([2, 5])}, opset=13, outputs=("a", "b")),
    "split_attribute": case([node("Split", ["x"], ["a", "b"], axis=0, split=[1, 3])], {"x": randn(4, 2)},
                            opset=11, outputs=("a", "b")),
    "instance_norm": case([node("InstanceNormalization", ["x", "s", "b"], ["y"], epsilon=1e-3)],
                          {"x": randn(2, 3, 4, 5)}, {"s": randn(3), "b": randn(3)}),
    "elu_opset13_no_function_body": case([node("Elu", ["x"], ["y"], alpha=0.7)], {"x": randn(3, 4)}, opset=13),
    "selu_opset13": case([node("Selu", ["x"], ["y"], gamma=2.0)], {"x": randn(3, 4)}, opset=13),
    "prelu_channel_slope": case([node("PRelu", ["x", "s"], ["y"])], {"x": randn(2, 3, 4)}, {"s": randn(3, 1)},
                                opset=13),
    "softplus_large_magnitudes": case([node("Softplus", ["x"], ["y"])], {"x": randn(3, 4) * 50}, opset=13),
    "and": case([node("And", ["a", "b"], ["y"])], {"a": BOOLS_A, "b": BOOLS_B}),
    "or": case([node("Or", ["a", "b"], ["y"])], {"a": BOOLS_A, "b": BOOLS_B}),
    "xor": case([node("Xor", ["a", "b"], ["y"])], {"a": BOOLS_A, "b": BOOLS_B}),
    "not": case([node("Not", ["a"], ["y"])], {"a": BOOLS_A}),
    "is_nan": case([node("IsNaN", ["x"], ["y"])], {"x": SPECIAL}, opset=20),
    "is_inf": case([node("IsInf", ["x"], ["y"])], {"x": SPECIAL}, opset=20),
    "is_inf_negative_only": case([node("IsInf", ["x"], ["y"], detect_positive=0)], {"x": SPECIAL}, opset=20),
    "cumsum_last_axis": case([node("CumSum", ["x", "axis"], ["y"])], {"x": randn(2, 5)}, {"axis": np.array(-1)}),
    "cumsum_axis0_exclusive_reverse": case([node("CumSum", ["x", "axis"], ["y"], exclusive=1, reverse=1)],
                                           {"x": randn(4, 3, 2)}, {"axis": np.array(0, np.int32)}),
    "cumsum_1d_int64": case([node("CumSum", ["x", "axis"], ["y"], reverse=1)],
                            {"x": np.arange(6, dtype=np.int64)}, {"axis": np.array(0)}),
    "cumsum_int32_exclusive": case([node("CumSum", ["x", "axis"], ["y"], exclusive=1)],
                                   {"x": RNG.integers(-5, 5, (2, 6)).astype(np.int32)}, {"axis": np.array(1)}),
    "resize_linear_half_pixel": case([node("Resize", ["x", "", "s"], ["y"], mode="linear")], {"x": randn(1, 2, 5, 6)},
                                     {"s": np.array([1, 1, 2, 1.5], np.float32)}, opset=19),
    "resize_linear_align_corners": case([node("Resize", ["x", "", "s"], ["y"], mode="linear",
                                              coordinate_transformation_mode="align_corners")],
                                        {"x": randn(1, 2, 5, 6)}, {"s": np.array([1, 1, 2, 1.5], np.float32)}, opset=19),
    "resize_cubic_sizes_three_axes": case([node("Resize", ["x", "", "", "z"], ["y"], mode="cubic")],
                                          {"x": randn(1, 2, 5, 6)}, {"z": np.array([1, 2, 9, 4])}, opset=19),
    "resize_linear_antialias_down": case([node("Resize", ["x", "", "s"], ["y"], mode="linear", antialias=1)],
                                         {"x": randn(1, 2, 5, 6)}, {"s": np.array([1, 1, 0.6, 0.5], np.float32)},
                                         opset=19),
    "resize_cubic_asymmetric_exclude_outside": case(
        [node("Resize", ["x", "", "s"], ["y"], mode="cubic", coordinate_transformation_mode="asymmetric",
              cubic_coeff_a=-0.5, exclude_outside=1)],
        {"x": randn(1, 2, 5, 6)}, {"s": np.array([1, 1, 1.7, 2], np.float32)}, opset=19),
    "resize_10_linear": case([node("Resize", ["x", "s"], ["y"], mode="linear")], {"x": randn(1, 1, 3, 4)},
                             {"s": np.array([1, 1, 2, 2], np.float32)}, opset=10),
    "gather_elements_axis1_negative": case([node("GatherElements", ["x", "i"], ["y"], axis=1)], {"x": randn(3, 4)},
                                           {"i": np.array([[0, -1], [2, 3], [-4, 1]])}),
    "gather_elements_axis0_int32": case([node("GatherElements", ["x", "i"], ["y"], axis=0)],
                                        {"x": RNG.integers(0, 9, (3, 2, 2)).astype(np.int64)},
                                        {"i": RNG.integers(0, 3, (2, 2, 2)).astype(np.int32)}),
    "trilu_upper_k": case([node("Trilu", ["x", "k"], ["y"])], {"x": randn(2, 4, 5)}, {"k": np.array(1)}),
    "trilu_lower_negative_k": case([node("Trilu", ["x", "k"], ["y"], upper=0)], {"x": randn(5, 3)},
                                   {"k": np.array(-1)}),
    "trilu_int_default_k": case([node("Trilu", ["x"], ["y"])], {"x": RNG.integers(-9, 9, (3, 3))}),
    "einsum_three_operands": case([node("Einsum", ["a", "b", "c"], ["y"], equation="ij,jk,kl->il")],
                                  {"a": randn(2, 3), "b": randn(3, 4), "c": randn(4, 5)}),
    "einsum_implicit_output_ellipsis": case([node("Einsum", ["a", "b"], ["y"], equation="...ij,...jk")],
                                            {"a": randn(2, 3, 4), "b": randn(2, 4, 5)}),
    "einsum_outer_trace_and_sum": case([node("Einsum", ["a", "b"], ["y"], equation="iij,k->jk")],
                                       {"a": randn(3, 3, 2), "b": randn(4)}),
    "onehot_axis0_negative_indices": case([node("OneHot", ["i", "d", "v"], ["y"], axis=0)],
                                          {"i": np.array([[0, -1], [5, 2]], np.int64),
                                           "v": np.array([-2, 7], np.float32)}, {"d": np.array(4)}),
    "onehot_float_indices": case([node("OneHot", ["i", "d", "v"], ["y"])], {"i": np.array([1.7, 0.2, 3.0], np.float32)},
                                 {"d": np.array([3.0], np.float32), "v": np.array([0, 1], np.float32)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_converter_matches_onnxruntime_on_the_interpreter_and_the_cpu_path(name):
    model, inputs = CASES[name]
    expected = run_onnxruntime(model, inputs)
    module, _context = imported(model)
    for actual in (run(module, inputs), cpu_executor.compile_model(module).run(inputs)):
        for output, value in expected.items():
            np.testing.assert_allclose(actual[output], value, rtol=1e-5, atol=1e-5)


def test_a_pad_before_a_convolution_folds_into_it_and_keeps_the_numbers():
    nodes = [node("Pad", ["x", "pads"], ["p"]), node("Conv", ["p", "w"], ["y"])]
    model = make_model(nodes, {"x": randn(1, 2, 5, 5)}, ["y"],
                       {"pads": np.array([0, 0, 1, 0, 0, 0, 0, 2]), "w": randn(3, 2, 3, 3)})
    inputs = {"x": randn(1, 2, 5, 5)}
    module, _context = imported(model)
    run_pipeline(module, "builtin.module(graph-optimize{backend=accelerator})")
    assert "pad" not in graph_ops(module)
    np.testing.assert_allclose(run(module, inputs)["y"], run_onnxruntime(model, inputs)["y"], rtol=1e-5, atol=1e-5)


def test_an_einsum_that_broadcasts_a_label_is_refused_naming_the_node():
    model = make_model([node("Einsum", ["a", "b"], ["y"], equation="ij,ij->i", name="e")],
                       {"a": randn(2, 3), "b": randn(1, 3)}, ["y"])
    with pytest.raises(LaminaError, match=r"'e'.*label 'i' has sizes 2 and 1 \(broadcasting is not supported\)"):
        imported(model)


def test_a_prelu_slope_that_does_not_broadcast_is_refused_naming_the_node():
    model = make_model([node("PRelu", ["x", "s"], ["y"], name="p")], {"x": randn(2, 3, 4)}, ["y"], {"s": randn(3)},
                       opset=13)
    with pytest.raises(LaminaError, match=r"node 'p' \(PRelu\): shapes \(3,\) and \(2, 3, 4\) do not broadcast"):
        imported(model)
