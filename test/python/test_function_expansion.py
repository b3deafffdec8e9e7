"""Operators without a converter, imported through their ONNX function bodies.

Each case is checked against onnxruntime on the graph interpreter and the CPU
path; the error cases show that a body's problems name the original node and
that a body Lamina cannot run (Range's Loop) is reported as the operator.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper

from importer_models import graph_ops, imported, make_model, randn, run_onnxruntime
from lamina.dialects.diagnostics import LaminaError
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

node = helper.make_node

CASES = {
    "mish": ([node("Mish", ["x"], ["y"])], {"x": randn(2, 5)}, 18),
    "hard_swish": ([node("HardSwish", ["x"], ["y"])], {"x": 4 * randn(3, 4)}, 22),
    "celu_default_alpha": ([node("Celu", ["x"], ["y"])], {"x": randn(3, 4)}, 22),
    "selu": ([node("Selu", ["x"], ["y"], alpha=1.5)], {"x": randn(3, 4)}, 22),
    "cast_like": ([node("CastLike", ["x", "t"], ["y"])], {"x": 10 * randn(6), "t": np.zeros(1, np.int32)}, 15),
    "log_softmax": ([node("LogSoftmax", ["x"], ["y"], axis=1)], {"x": randn(2, 7)}, 13),
    "reduce_l2": ([node("Constant", [], ["axes"], value_ints=[1]), node("ReduceL2", ["x", "axes"], ["y"])],
                  {"x": randn(2, 3, 4)}, 18),
    "reduce_log_sum_exp": ([node("ReduceLogSumExp", ["x"], ["y"], keepdims=0)], {"x": randn(2, 3)}, 18),
    "group_normalization": ([node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2)],
                            {"x": randn(2, 4, 3, 3), "s": randn(4), "b": randn(4)}, 21),
    "layer_norm_with_statistics": ([node("LayerNormalization", ["x", "s"], ["y", "mean", "inv"], axis=1)],
                                   {"x": randn(2, 3, 4), "s": randn(3, 4)}, 18),
    "softsign": ([node("Softsign", ["x"], ["y"])], {"x": randn(4)}, 22),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_expanded_operator_matches_onnxruntime(name):
    nodes, inputs, opset = CASES[name]
    outputs = [name for name in nodes[-1].output]
    model = make_model(nodes, inputs, outputs, opset=opset)
    expected = run_onnxruntime(model, inputs)
    module, _context = imported(model)
    assert nodes[-1].op_type.lower() not in "".join(graph_ops(module))  # really expanded
    for actual in (run(module, inputs), cpu_executor.compile_model(module).run(inputs)):
        for name in outputs:
            np.testing.assert_allclose(actual[name], expected[name], rtol=1e-5, atol=1e-5)


def test_a_range_of_run_time_inputs_is_reported_as_the_range_not_its_loop_body():
    inputs = {name: np.array(1, np.float32) for name in ("a", "b", "c")}
    model = make_model([node("Range", ["a", "b", "c"], ["y"], name="steps")], inputs, ["y"])
    with pytest.raises(LaminaError, match=r"node 'steps' \(Range\): input 'a' \(start\) must be a compile-time "
                                          r"constant; .*\(delta\) must be a compile-time constant$"):
        imported(model)


def test_a_range_of_constants_still_folds():
    model = make_model([node("Range", ["a", "b", "c"], ["r"]), node("Add", ["x", "r"], ["y"])], {"x": randn(4)},
                       ["y"], initializers={"a": np.float32(0), "b": np.float32(4), "c": np.float32(1)})
    module, _context = imported(model)
    assert "constant" in graph_ops(module)
    np.testing.assert_allclose(run(module, {"x": np.zeros(4, np.float32)})["y"], [0, 1, 2, 3])


def test_problems_inside_a_body_name_the_original_node():
    """Bernoulli's body draws with RandomUniformLike, which has no converter (Lamina is deterministic)."""
    model = make_model([node("Bernoulli", ["x"], ["y"], name="act")], {"x": randn(2, 3)}, ["y"], opset=15)
    with pytest.raises(LaminaError,
                       match=r"node 'act/RandomUniformLike_\w+' \(RandomUniformLike\): operator not supported"):
        imported(model)
