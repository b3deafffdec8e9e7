"""onnxruntime's com.microsoft QOperator ops (contrib_quantized.py) against onnxruntime's own quantized execution."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.onnx_importer import import_model
from lamina.runtime import cpu_executor, graph_interpreter

from qdq_models import calibration_inputs, output_step, quantize_model

MS = "com.microsoft"
SHAPE = [1, 4, 6, 6]


def _model(nodes, initializers: dict, inputs: dict, opset: int = 13) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "contrib", [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape) for name, shape in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(value), name) for name, value in initializers.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)],
                             ir_version=8)


def _params(stored=np.int8) -> dict:
    """Scales and zero points: x (int8 or uint8), x2 (another scale), y (the output's)."""
    zero = (lambda z: np.array(z, stored)) if stored == np.int8 else (lambda z: np.array(z + 128, stored))
    return {"xs": np.float32(0.02), "xz": zero(3), "x2s": np.float32(0.03), "x2z": zero(-5),
            "ys": np.float32(0.025), "yz": zero(-2)}


def _around(op_type: str, inputs: list[str], stored=np.int8, model_opset: int = 13, **attributes) -> onnx.ModelProto:
    """QuantizeLinear(x[, x2]) -> the contrib op -> DequantizeLinear: y (a softmax's at scale 1/256, as
    onnxruntime quantizes it)."""
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
             helper.make_node("QuantizeLinear", ["x2", "x2s", "x2z"], ["x2q"], name="qx2"),
             helper.make_node(op_type, inputs, ["yq"], name="op", domain=MS, **attributes),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dqy")]
    params = _params(stored)
    if op_type == "QLinearSoftmax":
        params.update(ys=np.float32(1 / 256), yz=np.array(0 if stored == np.uint8 else -128, stored))
    return _model(nodes, params, {"x": SHAPE, "x2": SHAPE}, model_opset)


UNARY = ["xq", "xs", "xz", "ys", "yz"]
BINARY = ["xq", "xs", "xz", "x2q", "x2s", "x2z", "ys", "yz"]
CASES = {
    "add": lambda stored: _around("QLinearAdd", BINARY, stored),
    "mul": lambda stored: _around("QLinearMul", BINARY, stored),
    "sigmoid": lambda stored: _around("QLinearSigmoid", UNARY, stored),
    "leaky_relu": lambda stored: _around("QLinearLeakyRelu", UNARY, stored, alpha=0.2),
    "concat": lambda stored: _around("QLinearConcat", ["ys", "yz", "xq", "xs", "xz", "x2q", "x2s", "x2z"], stored,
                                     axis=1),
    "average_pool": lambda stored: _around("QLinearAveragePool", UNARY, stored, kernel_shape=[3, 3],
                                           strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
    "global_average_pool": lambda stored: _around("QLinearGlobalAveragePool", UNARY, stored, channels_last=0),
    "softmax": lambda stored: _around("QLinearSoftmax", UNARY, stored, axis=-1, opset=13),
    # Softmax-11's form (normalized over axes 2 and 3 flattened) in an opset-13 model, and in its own opset
    "softmax_opset11": lambda stored: _around("QLinearSoftmax", UNARY, stored, axis=2, opset=11),
    "softmax_opset11_model11": lambda stored: _around("QLinearSoftmax", UNARY, stored, 11, axis=2, opset=11),
}


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _samples(model: onnx.ModelProto, count: int = 3) -> list[dict[str, np.ndarray]]:
    rng = np.random.default_rng(5)
    return [{value.name: rng.uniform(-2.5, 2.5, [d.dim_value for d in value.type.tensor_type.shape.dim])
             .astype(np.float32) for value in model.graph.input} for _ in range(count)]


def _assert_within_one_step(model: onnx.ModelProto, step: float, runs=(graph_interpreter.run, cpu_executor.run)):
    module = import_model(model, make_context())
    assert "com.microsoft" not in str(module)
    session = _session(model)
    for sample in _samples(model):
        theirs = session.run(None, sample)[0]
        for run in runs:
            ours = run(module, sample)["y"]
            assert ours.shape == theirs.shape
            assert np.abs(ours - theirs).max() <= step * 1.001, run.__module__


@pytest.mark.parametrize("stored", [np.int8, np.uint8])
@pytest.mark.parametrize("case", sorted(CASES))
def test_contrib_op_matches_onnxruntime_within_one_step(case, stored):
    model = CASES[case](stored)
    step = 1 / 256 if case.startswith("softmax") else float(_params()["ys"])
    assert model.opset_import[0].version == (11 if case.endswith("model11") else 13)
    _assert_within_one_step(model, step, runs=(graph_interpreter.run,))


def _gemm(per_column: bool, float_output: bool = False) -> onnx.ModelProto:
    rng = np.random.default_rng(2)
    b = rng.integers(-127, 128, (5, 12)).astype(np.int8)  # transB: (N, K)
    b_scale = (rng.uniform(0.005, 0.01, 5) if per_column else np.array(0.008)).astype(np.float32)
    b_zero = np.zeros(b_scale.shape, np.int8)
    alpha = 0.5
    bias = rng.integers(-2000, 2000, 5).astype(np.int32)
    tail = [] if float_output else ["ys", "yz"]
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
             helper.make_node("QGemm", ["xq", "xs", "xz", "b", "bs", "bz", "c", *tail], ["yq" if tail else "y"],
                              name="gemm", domain=MS, transB=1, alpha=alpha)]
    if tail:
        nodes.append(helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dqy"))
    params = {key: value for key, value in _params().items() if key in ("xs", "xz", "ys", "yz")}
    params["ys"] = np.float32(0.05)
    return _model(nodes, {**params, "b": b, "bs": b_scale, "bz": b_zero, "c": bias}, {"x": [2, 12]})


@pytest.mark.parametrize("per_column, float_output", [(False, False), (True, False), (True, True)])
def test_qgemm_matches_onnxruntime_within_one_step(per_column, float_output):
    """alpha, transB, an i32 bias at alpha x a_scale x b_scale; per-tensor or per-column B; float output
    without y_scale (then within float rounding)."""
    _assert_within_one_step(_gemm(per_column, float_output), 1e-5 if float_output else 0.05)


def test_dequantize_linear_without_a_zero_point_reads_zero_of_the_stored_type():
    """DequantizeLinear of int8 integers without a zero point: 0 of int8 (ONNX's default), not of uint8, which
    made MLIR abort on a quant type of i8 storage over 0..255 (found by fuzzing the contrib rewrite)."""
    weights = np.random.default_rng(4).integers(-128, 128, SHAPE).astype(np.int8)
    nodes = [helper.make_node("DequantizeLinear", ["w", "ws"], ["wf"], name="dqw"),
             helper.make_node("Add", ["x", "wf"], ["y"], name="add")]
    model = _model(nodes, {"w": weights, "ws": np.float32(0.01)}, {"x": SHAPE})
    _assert_within_one_step(model, 1e-6)


def test_qlinear_where_matches_onnxruntime_within_one_step():
    condition = np.random.default_rng(3).random(SHAPE) > 0.5
    nodes = [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
             helper.make_node("QuantizeLinear", ["x2", "x2s", "x2z"], ["x2q"], name="qx2"),
             helper.make_node("QLinearWhere", ["c", "xq", "xs", "xz", "x2q", "x2s", "x2z", "ys", "yz"], ["yq"],
                              name="where", domain=MS),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dqy")]
    model = _model(nodes, {**_params(), "c": condition}, {"x": SHAPE, "x2": SHAPE})
    _assert_within_one_step(model, float(_params()["ys"]), runs=(graph_interpreter.run,))


def _cnn() -> onnx.ModelProto:
    """conv, a residual QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat, QLinearAveragePool,
    QLinearGlobalAveragePool, QGemm, QLinearSoftmax once quantized by onnxruntime."""
    rng = np.random.default_rng(0)

    def he(*shape):
        return (rng.standard_normal(shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32)

    weights = {"w1": he(8, 3, 3, 3), "b1": np.zeros(8, np.float32), "w2": he(8, 8, 1, 1),
               "b2": np.zeros(8, np.float32), "w3": he(10, 16), "b3": (rng.standard_normal(10) * 0.1).astype(np.float32)}
    node = helper.make_node
    nodes = [node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
             node("Conv", ["c1", "w2", "b2"], ["c2"], name="conv2"),
             node("Add", ["c1", "c2"], ["a"], name="add"),
             node("Mul", ["a", "c2"], ["m"], name="mul"),
             node("Sigmoid", ["m"], ["s"], name="sigmoid"),
             node("LeakyRelu", ["a"], ["l"], name="leaky", alpha=0.1),
             node("Concat", ["s", "l"], ["cat"], name="concat", axis=1),
             node("AveragePool", ["cat"], ["ap"], name="avgpool", kernel_shape=[2, 2], strides=[2, 2]),
             node("GlobalAveragePool", ["ap"], ["g"], name="gap"),
             node("Flatten", ["g"], ["f"], name="flatten"),
             node("Gemm", ["f", "w3", "b3"], ["z"], name="fc", transB=1),
             node("Softmax", ["z"], ["y"], name="softmax", axis=1)]
    graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
                              [numpy_helper.from_array(array, name) for name, array in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("per_channel", [False, True])
def test_quantize_static_qoperator_model_matches_onnxruntime(tmp_path, per_channel):
    """A CNN quantized by onnxruntime's quantize_static in QOperator format: interpreter and CPU path."""
    path = quantize_model(_cnn(), tmp_path, per_channel, calibration_inputs(8), operators=True)
    model = onnx.load(path)
    contrib = {node.op_type for node in model.graph.node if node.domain == MS}
    assert contrib == {"QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearLeakyRelu", "QLinearConcat",
                       "QLinearAveragePool", "QLinearGlobalAveragePool", "QGemm", "QLinearSoftmax"}
    module = import_model(model, make_context())
    session = _session(model)
    for sample in calibration_inputs(4, seed=7):
        theirs = session.run(None, sample)[0]
        for run in (graph_interpreter.run, cpu_executor.run):
            assert np.abs(run(module, sample)["y"] - theirs).max() <= output_step(model) * 1.001


@pytest.mark.parametrize("change, message", [
    (lambda node: node.attribute.append(helper.make_attribute("beta", 2.0)), "unknown attribute 'beta'"),
    (lambda node: node.attribute.append(helper.make_attribute("channels_last", 1)), "channels_last = 1"),
    (lambda node: node.input.__setitem__(1, "x"), "scale or zero point 'x' must be a compile-time constant"),
    (lambda node: node.input.pop(), "the output's zero point must be given"),
    (lambda node: setattr(node, "op_type", "QLinearConvTranspose"), "com.microsoft operator not supported"),
    # onnxruntime's CPU provider has no QLinearReduceMean kernel to check one against
    (lambda node: setattr(node, "op_type", "QLinearReduceMean"), "com.microsoft operator not supported"),
    (lambda node: node.input.__setitem__(3, ""), "input 3 is missing"),
    (lambda node: setattr(node, "op_type", "QLinearConcat") or node.input.append("x2q")
     or node.attribute.append(helper.make_attribute("axis", 1)), "must come in (data, scale, zero point) triples"),
    (lambda node: setattr(node, "op_type", "QLinearSoftmax") or node.attribute.append(helper.make_attribute("opset", 13)),
     "opset >= 13 (Softmax of one axis) needs a model of default opset 13 or later"),
])
def test_unsupported_contrib_nodes_get_one_line_errors_naming_the_node(change, message):
    model = _around("QLinearGlobalAveragePool" if "channels" in message else "QLinearSigmoid", UNARY,
                    model_opset=11 if "opset >= 13" in message else 13)
    change(next(node for node in model.graph.node if node.domain == MS))
    with pytest.raises(LaminaError) as error:
        import_model(model, make_context())
    (line,) = [line for line in str(error.value).splitlines() if "node 'op'" in line]
    assert message in line


def _output_steps(model: onnx.ModelProto) -> dict[str, float]:
    """Each output's quantization step: the scale of the DequantizeLinear producing it."""
    initializers = {tensor.name: numpy_helper.to_array(tensor) for tensor in model.graph.initializer}
    producers = {node.output[0]: node for node in model.graph.node if node.op_type == "DequantizeLinear"}
    return {output.name: float(initializers[producers[output.name].input[1]]) for output in model.graph.output}


@pytest.mark.parametrize("name", ["squeezenet", pytest.param("shufflenet", marks=pytest.mark.slow),
                                  pytest.param("resnet50", marks=pytest.mark.slow)])
def test_light_model_in_qoperator_format_matches_onnxruntime(tmp_path, name):
    """A light model (seeded random weights, its logits a second output) quantized by onnxruntime in QOperator
    format: SqueezeNet has QLinearConcat, QLinearGlobalAveragePool and QLinearSoftmax; ShuffleNet and ResNet-50
    QLinearAveragePool and QGemm too. Every output within one of its quantization steps, on the interpreter."""
    from light_models import load_light_model, random_inputs, randomize_weights, with_logits_output

    model = with_logits_output(randomize_weights(load_light_model(name), 0))
    model.ir_version = 8  # IR 3 lists initializers as inputs, and quantize_static's new ones are not
    path = quantize_model(model, tmp_path, True, [random_inputs(model, k) for k in range(4)], operators=True)
    quantized = onnx.load(path)
    assert {node.op_type for node in quantized.graph.node if node.domain == MS} >= {"QLinearSoftmax"}
    module = import_model(quantized, make_context())
    session, steps = _session(quantized), _output_steps(quantized)
    assert len(steps) == 2
    for seed in (100, 101):
        sample = random_inputs(model, seed)
        ours = graph_interpreter.run(module, sample)
        for name_, theirs in zip(steps, session.run(list(steps), sample)):
            assert np.abs(ours[name_].reshape(theirs.shape) - theirs).max() <= steps[name_] * 1.001, name_
