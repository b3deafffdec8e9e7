"""Control flow at the buffer level: If, Loop and Scan through `graph-to-buffers` and the buffer interpreter.

ONNX's If, Loop, Scan and recurrent-layer node tests (recurrent layers
lowered to matmuls first, `reference-lowered`) are compared with the tests'
expected outputs by ONNX's runner; PyTorch exports (stacked, bidirectional
LSTM/GRU/RNN and a scripted loop with a data-dependent trip count) with
onnxruntime. The buffer interpreter runs on the planned arena and poisons
every buffer when it is allocated and freed, so a lifetime the planner gets
wrong across iterations reads garbage instead of the carried value.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper, numpy_helper
from test_control_flow_import import BOOL, CASES, FLOAT, INT64, model, value
from test_cpu_node_suite import node_test_case
from test_onnx_node_suite import NodeSuiteBackend
from test_torch_control_flow import MODELS, assert_close, reference

from lamina.dialects import buffer_analysis
from lamina.dialects.context import make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.onnx_importer import import_model
from lamina.passes.buffer import allocate
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import buffer_interpreter

TO_BUFFERS = "builtin.module(graph-optimize{backend=reference-lowered},graph-to-buffers)"
CONTROL_FLOW_TESTS = r"test_(if|loop\d+|scan|scan9|lstm|gru|rnn|simple_rnn)[a-z0-9_]*_cpu$"


def on_buffers(module):
    """Compile a graph module to a planned buffer module; a function running it in the buffer interpreter."""
    run_pipeline(module, TO_BUFFERS)
    return lambda feeds: buffer_interpreter.run(module, feeds)


class BufferNodeSuiteBackend(NodeSuiteBackend):
    """The node-suite backend running the buffer level."""

    @classmethod
    def executor(cls, module):
        return on_buffers(module)


OnnxBufferControlFlowNodeTests = node_test_case([CONTROL_FLOW_TESTS], BufferNodeSuiteBackend, __name__)


@pytest.mark.parametrize("name", list(MODELS))
def test_torch_exports_match_onnxruntime_on_buffers(name):
    model, feeds, expected = reference(name)
    assert_close(on_buffers(import_model(model, make_context()))(feeds), expected)


# ---------------------------------------------------------------------------
# Hand-written models against onnxruntime: carried values swapped, a scan
# along axis 1 with outputs stacked backward, a Loop holding an If, slices at
# the iteration number, a backward Scan (test_control_flow_import's cases).
# ---------------------------------------------------------------------------


def swap_model() -> onnx.ModelProto:
    """A Loop whose body swaps its two carried values, adds an outer value to one, and stacks the other."""
    body = helper.make_graph(
        [helper.make_node("Add", ["b", "x"], ["b1"]),
         helper.make_node("Identity", ["condition"], ["keep"]),
         helper.make_node("Identity", ["a"], ["row"])],
        "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("a"), value("b")],
        [value("keep", BOOL, ()), value("b1"), value("a"), value("row")])
    return model([helper.make_node("Loop", ["trips", "", "x", "y"], ["a_last", "b_last", "rows"], body=body)],
                 [value("x"), value("y")], [value("a_last"), value("b_last"), value("rows", FLOAT, (5, 3))],
                 [numpy_helper.from_array(np.array(5, np.int64), "trips")])


def scan_axis_model() -> onnx.ModelProto:
    """A Scan over axis 1 of a [3, 4] input with two states; outputs stacked backward along axis 1."""
    body = helper.make_graph([helper.make_node("Mul", ["s", "w"], ["sw"]),
                              helper.make_node("Add", ["sw", "column"], ["s1"]),
                              helper.make_node("Max", ["m", "column"], ["m1"]),
                              helper.make_node("Tanh", ["s1"], ["out"])],
                             "body", [value("s"), value("m"), value("column")], [value("s1"), value("m1"), value("out")])
    node = helper.make_node("Scan", ["s0", "m0", "xs"], ["s_last", "m_last", "outs"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_output_axes=[1], scan_output_directions=[1])
    return model([node], [value("s0"), value("m0"), value("xs", FLOAT, (3, 4)), value("w")],
                 [value("s_last"), value("m_last"), value("outs", FLOAT, (3, 4))])


def nested_loops_model() -> onnx.ModelProto:
    """A Loop of 2 iterations whose body runs a Loop of 3 (stacking its states) that reads the outer carried value
    and an outer input, then sums the stacked rows into the carried value."""
    inner = helper.make_graph(
        [helper.make_node("Mul", ["h", "w"], ["hw"]),
         helper.make_node("Add", ["hw", "acc"], ["h1"]),
         helper.make_node("Identity", ["c2"], ["k2"]),
         helper.make_node("Identity", ["h1"], ["r2"])],
        "inner", [value("j", INT64, ()), value("c2", BOOL, ()), value("h")],
        [value("k2", BOOL, ()), value("h1"), value("r2")])
    outer = helper.make_graph(
        [helper.make_node("Loop", ["three", "", "acc"], ["hl", "rows"], body=inner),
         helper.make_node("ReduceSum", ["rows", "zero_axis"], ["colsum"], keepdims=0),
         helper.make_node("Add", ["acc", "colsum"], ["acc1"]),
         helper.make_node("Identity", ["c"], ["k"]),
         helper.make_node("Identity", ["hl"], ["out"])],
        "outer", [value("i", INT64, ()), value("c", BOOL, ()), value("acc")],
        [value("k", BOOL, ()), value("acc1"), value("out")])
    constants = {"two": np.array(2, np.int64), "three": np.array(3, np.int64), "zero_axis": np.array([0], np.int64)}
    return model([helper.make_node("Loop", ["two", "", "x"], ["final", "outs"], body=outer)],
                 [value("x"), value("w")], [value("final"), value("outs", FLOAT, (2, 3))],
                 [numpy_helper.from_array(array, name) for name, array in constants.items()])


HAND_WRITTEN = {
    **CASES,
    "carried values swapped": (swap_model, {"x": np.array([1.0, -2.0, 0.5], np.float32),
                                            "y": np.array([3.0, 0.25, -1.0], np.float32)}),
    "scan along axis 1, stacked backward": (scan_axis_model, {
        "s0": np.array([0.1, -0.2, 0.3], np.float32), "m0": np.full(3, -5.0, np.float32),
        "xs": np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), "w": np.array([0.5, 1.5, -0.5], np.float32)}),
    "a Loop inside a Loop": (nested_loops_model, {"x": np.array([0.1, -0.2, 0.3], np.float32),
                                                  "w": np.array([0.5, 1.0, -1.0], np.float32)}),
}


@pytest.mark.parametrize("name", list(HAND_WRITTEN))
def test_hand_written_models_match_onnxruntime_on_buffers(name):
    build, feeds = HAND_WRITTEN[name]
    proto = build()
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    module = import_model(proto, make_context())
    got = on_buffers(module)(feeds)
    assert any(name in print_module(module) for name in ('"buffer.loop"', '"buffer.scan"'))
    for key, array in want.items():
        np.testing.assert_allclose(got[key], array, rtol=1e-5, atol=1e-6, err_msg=key)


# ---------------------------------------------------------------------------
# A wrong lifetime gives wrong numbers: the test above would catch a planner
# that lets a value crossing iterations die inside the body.
# ---------------------------------------------------------------------------


def invariant_model() -> onnx.ModelProto:
    """A Loop carrying `acc` and a value `w` it never changes; the body reads `w` first, then keeps four
    temporaries of its size live at once. A planner that ends `w`'s lifetime at its last use in the body's
    text lets a temporary take its bytes, and the next iteration reads that temporary instead of `w`."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["acc", "w"], ["a"]),
         helper.make_node("Tanh", ["a"], ["b"]),
         helper.make_node("Sin", ["a"], ["c"]),
         helper.make_node("Cos", ["a"], ["d"]),
         helper.make_node("Exp", ["a"], ["e"]),
         helper.make_node("Add", ["b", "c"], ["f"]),
         helper.make_node("Sub", ["d", "e"], ["g"]),
         helper.make_node("Add", ["f", "g"], ["next"]),
         helper.make_node("Identity", ["condition"], ["keep"])],
        "body", [value("i", INT64, ()), value("condition", BOOL, ()), value("acc"), value("w")],
        [value("keep", BOOL, ()), value("next"), value("w")])
    return model([helper.make_node("Loop", ["trips", "", "x", "w0"], ["acc_last", "w_last"], body=body)],
                 [value("x"), value("w0")], [value("acc_last")],
                 [numpy_helper.from_array(np.array(4, np.int64), "trips")])


INVARIANT_FEEDS = {"x": np.array([0.5, -1.0, 2.0], np.float32), "w0": np.array([1.5, 0.75, -2.0], np.float32)}


def _text_order_lifetimes(module):
    """What a planner unaware of iterations sees: each alloc live from its alloc to its last use in the
    program's text (regions' ops numbered in place), not to its dealloc after the loop."""
    program, buffers = buffer_analysis.analyze_flat(module)
    for info in buffers.values():
        if info.kind == "alloc" and info.accesses:
            info.end = info.accesses[-1].index + 1
    return program, buffers


def test_a_carried_value_freed_inside_the_body_gives_wrong_numbers(monkeypatch):
    session = ort.InferenceSession(invariant_model().SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, INVARIANT_FEEDS)
    module = import_model(invariant_model(), make_context())
    np.testing.assert_allclose(on_buffers(module)(INVARIANT_FEEDS)["acc_last"], want, rtol=1e-5, atol=1e-6)

    monkeypatch.setattr(allocate, "analyze_flat", _text_order_lifetimes)
    with pytest.raises(LaminaError, match="overlap those of"):  # the verifier sees the overlap...
        on_buffers(import_model(invariant_model(), make_context()))
    broken = import_model(invariant_model(), make_context())
    run_pipeline(broken, TO_BUFFERS, verify_each=False)
    monkeypatch.setattr(buffer_interpreter, "check_module", lambda module: None)
    got = buffer_interpreter.run(broken, INVARIANT_FEEDS)["acc_last"]  # ...and the numbers are wrong
    assert not np.allclose(got, want, rtol=1e-3, atol=1e-3, equal_nan=False)


# A loop's scan outputs have a static length: running it another number of times is an error at the op.
COUNTED_LOOP = """
func.func @main() {
  %n = "buffer.weight"() {name = "n", mutable = true, public = true, offset = -1 : i64} : () -> memref<i64>
  %x = "buffer.weight"() {name = "x", mutable = true, public = true, offset = -1 : i64} : () -> memref<2xf32>
  %y = "buffer.weight"() {name = "y", mutable = true, public = true, offset = -1 : i64} : () -> memref<3x2xf32>
  %on = "buffer.constant"() {name = "on", offset = -1 : i64, value = dense<true> : tensor<i1>} : () -> memref<i1>
  %c = "buffer.alloc"() {name = "c", offset = -1 : i64} : () -> memref<i1>
  "buffer.copy"(%c, %on) : (memref<i1>, memref<i1>) -> ()
  %i = "buffer.alloc"() {name = "i", offset = -1 : i64} : () -> memref<i64>
  "buffer.loop"(%n, %c, %i, %y) ({
  ^bb0(%row: memref<2xf32>):
    "buffer.neg"(%row, %x) : (memref<2xf32>, memref<2xf32>) -> ()
    gpu.yield
  }) {num_scan_outputs = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<i64>, memref<i1>, memref<i64>, memref<3x2xf32>) -> ()
  "buffer.dealloc"(%c) : (memref<i1>) -> ()
  "buffer.dealloc"(%i) : (memref<i64>) -> ()
  return
}
"""


@pytest.mark.parametrize("trips, message", [
    (3, None),
    (5, r"counted_loop.mlir:10:3: error: the loop runs more than the 3 iterations its scan outputs hold"),
    (2, r"counted_loop.mlir:10:3: error: the loop ran 2 iterations, but its scan outputs have the static length 3"),
])
def test_a_loop_runs_as_long_as_its_scan_outputs(trips, message):
    module = parse_module(COUNTED_LOOP, make_context(), "counted_loop.mlir")
    run_pipeline(module, "builtin.module(buffer-allocate)")
    feeds = {"n": np.array(trips, np.int64), "x": np.array([1.0, -2.0], np.float32)}
    if message is None:
        np.testing.assert_array_equal(buffer_interpreter.run(module, feeds)["y"], np.tile([-1.0, 2.0], (3, 1)))
    else:
        with pytest.raises(LaminaError, match=message):
            buffer_interpreter.run(module, feeds)


# ---------------------------------------------------------------------------
# Random loops: each carried value's next value is another carried value (any
# permutation, repeats included: parallel assignments the yield copies must
# read before they write), that value plus an outer input, or its Tanh; some
# are also stacked as scan outputs.
# ---------------------------------------------------------------------------

NEXT_VALUE = st.sampled_from(("same", "plus_x", "tanh"))


@st.composite
def random_loops(draw):
    count = draw(st.integers(1, 4))
    sources = draw(st.lists(st.integers(0, count - 1), min_size=count, max_size=count))
    kinds = draw(st.lists(NEXT_VALUE, min_size=count, max_size=count))
    stacked = draw(st.lists(st.integers(0, count - 1), max_size=2))
    return count, sources, kinds, stacked, draw(st.integers(1, 4))


def random_loop_model(count, sources, kinds, stacked, trips) -> onnx.ModelProto:
    nodes, outputs = [], []
    for j, (source, kind) in enumerate(zip(sources, kinds)):
        if kind == "same":
            nodes.append(helper.make_node("Identity", [f"c{source}"], [f"n{j}"]))
        elif kind == "plus_x":
            nodes.append(helper.make_node("Add", [f"c{source}", "x"], [f"n{j}"]))
        else:
            nodes.append(helper.make_node("Tanh", [f"c{source}"], [f"n{j}"]))
        outputs.append(value(f"n{j}"))
    for k, source in enumerate(stacked):
        nodes.append(helper.make_node("Identity", [f"c{source}"], [f"row{k}"]))
        outputs.append(value(f"row{k}"))
    nodes.append(helper.make_node("Identity", ["condition"], ["keep"]))
    body = helper.make_graph(nodes, "body", [value("i", INT64, ()), value("condition", BOOL, ()),
                                             *[value(f"c{j}") for j in range(count)]],
                             [value("keep", BOOL, ()), *outputs])
    results = [f"last{j}" for j in range(count)] + [f"rows{k}" for k in range(len(stacked))]
    return model([helper.make_node("Loop", ["trips", "", *[f"init{j}" for j in range(count)]], results, body=body)],
                 [value("x"), *[value(f"init{j}") for j in range(count)]],
                 [*[value(f"last{j}") for j in range(count)],
                  *[value(f"rows{k}", FLOAT, (trips, 3)) for k in range(len(stacked))]],
                 [numpy_helper.from_array(np.array(trips, np.int64), "trips")])


@settings(max_examples=12)
@given(random_loops())
def test_random_loops_match_onnxruntime_on_buffers(loop):
    proto = random_loop_model(*loop)
    feeds = {name: np.linspace(-1, 1, 3, dtype=np.float32) * (index + 1) + index / 7
             for index, name in enumerate(["x", *[f"init{j}" for j in range(loop[0])]])}
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    want = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    got = on_buffers(import_model(proto, make_context()))(feeds)
    for key, array in want.items():
        np.testing.assert_allclose(got[key], array, rtol=1e-5, atol=1e-6, err_msg=key)
