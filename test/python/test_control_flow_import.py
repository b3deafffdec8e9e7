"""ONNX If, Loop and Scan: subgraphs with outer-scope references imported as regions,
run by the interpreter and the CPU path against onnxruntime; bad subgraphs named in one line."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.onnx_importer import import_model
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def value(name, elem=FLOAT, shape=(3,)):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "control_flow", inputs, outputs, list(initializers))
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    result.ir_version = 8
    return result


def branch(name, nodes, outputs):
    return helper.make_graph(nodes, name, [], outputs)


def nested_model() -> onnx.ModelProto:
    """A Loop whose body reads an outer input and an outer initializer, holding an If
    on a value computed in the body; the loop also has a scan output."""
    then = branch("then", [helper.make_node("Mul", ["v", "scale"], ["t"])], [value("t")])
    other = branch("else", [helper.make_node("Sub", ["v", "bias"], ["e"])], [value("e")])
    body = helper.make_graph(
        [helper.make_node("Add", ["carried", "x"], ["v"]),
         helper.make_node("ReduceSum", ["v"], ["total"], keepdims=0),
         helper.make_node("Greater", ["total", "zero"], ["positive"]),
         helper.make_node("If", ["positive"], ["next"], then_branch=then, else_branch=other),
         helper.make_node("Identity", ["condition"], ["keep"]),
         helper.make_node("Identity", ["next"], ["row"])],
        "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("carried")],
        [value("keep", BOOL, ()), value("next"), value("row")])
    return model([helper.make_node("Loop", ["trips", "", "x"], ["last", "rows"], body=body)],
                 [value("x")], [value("last"), value("rows", FLOAT, (4, 3))],
                 [numpy_helper.from_array(np.array(4, np.int64), "trips"),
                  numpy_helper.from_array(np.array(0.5, np.float32), "scale"),
                  numpy_helper.from_array(np.array(1.0, np.float32), "bias"),
                  numpy_helper.from_array(np.array(0.0, np.float32), "zero")])


def scan_model() -> onnx.ModelProto:
    """A backward Scan accumulating rows plus an outer-scope vector."""
    body = helper.make_graph([helper.make_node("Add", ["state", "row"], ["s1"]),
                              helper.make_node("Mul", ["s1", "w"], ["out"])],
                             "body", [value("state"), value("row")], [value("s1"), value("out")])
    node = helper.make_node("Scan", ["init", "xs"], ["final", "outs"], body=body, num_scan_inputs=1,
                            scan_input_directions=[1])
    return model([node], [value("init"), value("xs", FLOAT, (5, 3)), value("w")],
                 [value("final"), value("outs", FLOAT, (5, 3))])


def window_model(start_offset: int = 0, width: int = 2, carried_start: bool = False,
                 start_from_input: bool = False) -> onnx.ModelProto:
    """A Loop of 4 iterations whose body slices columns [i + start_offset, i + start_offset + width) of a
    [3, 6] input (outer scope) and sums them into its carried value; each slice is also a scan output.
    With `carried_start`, the start is a carried counter instead (starting at 0, incremented each iteration);
    with `start_from_input` too, the counter starts at a model input: data the importer cannot enumerate."""
    start = "counter" if carried_start else "i"
    body = helper.make_graph(
        [helper.make_node("Add", [start, "offset"], ["begin"]),
         helper.make_node("Add", ["begin", "width"], ["end"]),
         helper.make_node("Unsqueeze", ["begin", "axis"], ["begins"]),
         helper.make_node("Unsqueeze", ["end", "axis"], ["ends"]),
         helper.make_node("Slice", ["x", "begins", "ends", "one", "one"], ["window"], name="window"),  # axis 1, step 1
         helper.make_node("Add", ["total", "window"], ["sum"]),
         helper.make_node("Add", ["counter", "step"], ["next"]),
         helper.make_node("Identity", ["condition"], ["keep"]),
         helper.make_node("Identity", ["window"], ["row"])],
        "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("total", FLOAT, (3, width)),
                 value("counter", INT64, ())],
        [value("keep", BOOL, ()), value("sum", FLOAT, (3, width)), value("next", INT64, ()),
         value("row", FLOAT, (3, width))])
    constants = {"trips": np.array(4, np.int64), "offset": np.array(start_offset, np.int64),
                 "width": np.array(width, np.int64), "axis": np.array([0], np.int64), "one": np.array([1], np.int64),
                 "step": np.array(1, np.int64), "zeros": np.zeros((3, width), np.float32),
                 **({} if start_from_input else {"start": np.array(0, np.int64)})}
    return model([helper.make_node("Loop", ["trips", "", "zeros", "start"], ["sum", "count", "rows"], name="windows",
                                   body=body)],
                 [value("x", FLOAT, (3, 6))] + ([value("start", INT64, ())] if start_from_input else []),
                 [value("sum", FLOAT, (3, width)), value("rows", FLOAT, (4, 3, width))],
                 [numpy_helper.from_array(array, name) for name, array in constants.items()])


def scan8_model(direction: int = 0, lengths=(4, 2, 1), lengths_input: bool = False) -> onnx.ModelProto:
    """Opset-8 Scan (batch axis first) over sequences of 4 steps with `sequence_lens`: each batch element
    scans its first steps (backward: from its last one), and its outputs are padded with zeros."""
    body = helper.make_graph([helper.make_node("Add", ["s", "x"], ["s1"]), helper.make_node("Tanh", ["s1"], ["o"])],
                             "body", [value("s", FLOAT, (2,)), value("x", FLOAT, (2,))],
                             [value("s1", FLOAT, (2,)), value("o", FLOAT, (2,))])
    node = helper.make_node("Scan", ["lens", "init", "xs"], ["final", "outs"], name="scan8", body=body,
                            num_scan_inputs=1, directions=[direction])
    lens = numpy_helper.from_array(np.array(lengths, np.int64), "lens")
    inputs = [value("init", FLOAT, (3, 2)), value("xs", FLOAT, (3, 4, 2))]
    graph = helper.make_graph([node], "scan8", inputs + ([value("lens", INT64, (3,))] if lengths_input else []),
                              [value("final", FLOAT, (3, 2)), value("outs", FLOAT, (3, 4, 2))],
                              [] if lengths_input else [lens])
    result = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    result.ir_version = 8
    return result


SCAN8_FEEDS = {"init": np.array([[0.5, -0.5], [1.0, 0.0], [-1.0, 2.0]], np.float32),
               "xs": np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 4, 2)}

CASES = {"nested loop and if": (nested_model, {"x": np.array([1.0, -2.0, 0.5], np.float32)}),
         "slice at the iteration number": (window_model, {"x": np.arange(18, dtype=np.float32).reshape(3, 6)}),
         "slice from the end": (lambda: window_model(start_offset=-6),
                                         {"x": np.arange(18, dtype=np.float32).reshape(3, 6) - 9}),
         "slice at a carried counter": (lambda: window_model(start_offset=1, carried_start=True),
                                        {"x": np.arange(18, dtype=np.float32).reshape(3, 6) / 5}),
         "backward scan": (scan_model, {"init": np.ones(3, np.float32), "w": np.array([1.0, 0.5, -1.0], np.float32),
                                        "xs": np.arange(15, dtype=np.float32).reshape(5, 3) / 7}),
         "opset-8 scan with sequence_lens": (scan8_model, SCAN8_FEEDS),
         "opset-8 backward scan with sequence_lens": (lambda: scan8_model(direction=1), SCAN8_FEEDS)}


def expected(name):
    build, feeds = CASES[name]
    proto = build()
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return proto, feeds, dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))


@pytest.mark.parametrize("name", list(CASES))
def test_interpreter_and_cpu_path_match_onnxruntime(name):
    proto, feeds, want = expected(name)
    module = import_model(proto, make_context())
    for got in (run(module, feeds), cpu_executor.compile_model(module).run(feeds)):
        for key, array in want.items():
            np.testing.assert_allclose(got[key], array, rtol=1e-5, atol=1e-6, err_msg=key)


def problems(proto) -> list[str]:
    """The problem lines of the import error (after its 'cannot import the model' line)."""
    with pytest.raises(LaminaError) as error:
        import_model(proto, make_context())
    lines = str(error.value).splitlines()
    assert "cannot import the model" in lines[0]
    return lines[1:]


def problem(proto) -> str:
    (line,) = problems(proto)
    return line


def test_undefined_outer_value():
    then = branch("then", [helper.make_node("Neg", ["nowhere"], ["t"])], [value("t")])
    proto = model([helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then, else_branch=then)],
                  [value("c", BOOL, ())], [value("y")])
    # ONNX shape inference fails on it too, naming the node.
    assert ("node 'pick' (If): then_branch reads 'nowhere', which no enclosing graph defines before this node"
            in problems(proto))


def test_if_branches_with_different_types():
    then = branch("then", [helper.make_node("Identity", ["x"], ["t"])], [value("t", FLOAT, None)])
    other = branch("else", [helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], [value("e", FLOAT, None)])
    proto = model([helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then, else_branch=other)],
                  [value("c", BOOL, ()), value("x")], [value("y", FLOAT, None)])
    assert problem(proto) == ("node 'pick' (If): If branches yield different types: then_branch "
                              "(tensor<3xf32>), else_branch (tensor<6xf32>)")


def test_loop_carried_value_changing_type():
    body = helper.make_graph([helper.make_node("Concat", ["v", "v"], ["grown"], axis=0),
                              helper.make_node("Identity", ["condition"], ["keep"])],
                             "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("v", FLOAT, None)],
                             [value("keep", BOOL, ()), value("grown", FLOAT, None)])
    proto = model([helper.make_node("Loop", ["trips", "", "x"], ["y"], name="grow", body=body)],
                  [value("x")], [value("y", FLOAT, None)], [numpy_helper.from_array(np.array(2, np.int64), "trips")])
    assert problem(proto) == ("node 'grow' (Loop): loop-carried value 'grown' changes type between iterations, "
                              "from tensor<3xf32> to tensor<6xf32>")


def test_loop_without_trip_count_or_condition():
    body = helper.make_graph([helper.make_node("Identity", ["condition"], ["keep"]),
                              helper.make_node("Identity", ["v"], ["same"])],
                             "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("v")],
                             [value("keep", BOOL, ()), value("same")])
    proto = model([helper.make_node("Loop", ["", "", "x"], ["y"], name="forever", body=body)], [value("x")],
                  [value("y")])
    assert problem(proto) == "node 'forever' (Loop): Loop has neither a trip count nor a condition: it would never end"


def test_slice_whose_size_changes_between_iterations():
    proto = window_model(start_offset=3, width=2)  # columns [3 + i, 5 + i) of 6: 2, 2, 1, 0 of them
    assert problem(proto) == ("node 'windows' (Loop): body: node 'window' (Slice): the slice's shape changes between "
                              "iterations ([3, 0], [3, 1], [3, 2])")


def test_slice_bounds_from_a_carried_value_starting_at_data():
    assert problem(window_model(carried_start=True, start_from_input=True)) == (
        "node 'windows' (Loop): body: node 'window' (Slice): inputs 'starts' and 'ends' must be compile-time "
        "constants, or computed from the iteration number (and carried values with compile-time initial values) of "
        "a Loop with a compile-time trip count")


def test_scan8_sequence_lens_from_data():
    assert problem(scan8_model(lengths_input=True)) == (
        "node 'scan8' (Scan): Scan's sequence_lens (opset 8) must be a compile-time constant")


def test_scan8_sequence_lens_out_of_range():
    assert problem(scan8_model(lengths=(4, 0, 5))) == (
        "node 'scan8' (Scan): Scan's sequence_lens must hold 3 lengths in [1, 4], got [4, 0, 5]")
