"""lamina-train end to end on a tiny model, and every bad input as a one-line error."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from lamina.runtime.tensor_files import save_tensors
from lamina.tools.lamina_train import main

RNG = np.random.default_rng(0)
CLASSES = 3


def mlp(path, output_shape=("batch", CLASSES), extra_nodes=(), logits="logits"):
    """x [batch, 4] -> Gemm(w1, b1) -> Relu -> Gemm(w2, b2) -> logits [batch, 3], symbolic batch."""
    initializers = [numpy_helper.from_array(RNG.standard_normal(shape).astype(np.float32) * 0.5, name)
                    for name, shape in (("w1", (4, 8)), ("b1", (8,)), ("w2", (8, CLASSES)), ("b2", (CLASSES,)))]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"], name="fc1"),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["z"], name="fc2"), *extra_nodes]
    graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                              [helper.make_tensor_value_info(logits, TensorProto.FLOAT, list(output_shape))],
                              initializers)
    if not extra_nodes:
        graph.node[-1].output[0] = logits
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), str(path))
    return str(path)


def blobs(path, count=96, labels=None):
    """Three separable clusters in 4-D; labels are the cluster index."""
    classes = RNG.integers(0, CLASSES, count) if labels is None else labels
    centers = np.eye(4, dtype=np.float32)[:CLASSES] * 3
    x = (centers[np.minimum(classes, CLASSES - 1)] + RNG.standard_normal((count, 4)).astype(np.float32) * 0.5).astype(np.float32)
    save_tensors(str(path), {"x": x, "labels": classes})
    return str(path)


def train(tmp_path, capsys, model, data, *extra, loss="softmax-cross-entropy", lr="0.1"):
    code = main([model, "--data", data, "--loss", loss, "--epochs", "2", "--batch", "16", "--lr", lr,
                 "-o", str(tmp_path / "trained.onnx"), *extra])
    return code, capsys.readouterr()


def one_line_error(captured) -> str:
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lamina-train: error: "), captured.err
    return lines[0]


def test_trains_and_writes_a_model_onnxruntime_runs(tmp_path, capsys):
    model, data = mlp(tmp_path / "m.onnx"), blobs(tmp_path / "train.npz")
    valid = blobs(tmp_path / "valid.npz", count=40)
    code, captured = train(tmp_path, capsys, model, data, "--epochs", "8", "--validation", valid, "--momentum", "0.9",
                           "--l2", "1e-4", "--freeze", "b2")
    assert code == 0, captured.err
    assert "epoch 8: loss" in captured.out and "validation accuracy" in captured.out
    trained = onnx.load(str(tmp_path / "trained.onnx"))
    before = {i.name: numpy_helper.to_array(i) for i in onnx.load(model).graph.initializer}
    after = {i.name: numpy_helper.to_array(i) for i in trained.graph.initializer}
    assert not np.allclose(before["w1"], after["w1"]) and np.array_equal(before["b2"], after["b2"])
    arrays = np.load(valid)
    session = onnxruntime.InferenceSession(str(tmp_path / "trained.onnx"), providers=["CPUExecutionProvider"])
    accuracy = (session.run(None, {"x": arrays["x"]})[0].argmax(axis=1) == arrays["labels"]).mean()
    assert accuracy > 0.9


def test_nan_loss_stops_with_epoch_and_step(tmp_path, capsys):
    code, captured = train(tmp_path, capsys, mlp(tmp_path / "m.onnx"), blobs(tmp_path / "d.npz"), lr="1e30")
    assert code == 1
    assert "at epoch 1, step" in one_line_error(captured) and "training stopped" in captured.err


def test_labels_out_of_range(tmp_path, capsys):
    data = blobs(tmp_path / "d.npz", count=20, labels=np.array([0, 1, 2, 7] * 5))
    code, captured = train(tmp_path, capsys, mlp(tmp_path / "m.onnx"), data)
    assert code == 1
    assert "'labels' value 7 at sample 3 is out of range [0, 3)" in one_line_error(captured)


def test_loss_not_matching_the_output_shape(tmp_path, capsys):
    reshape = helper.make_node("Unsqueeze", ["z", "axes"], ["logits"], name="unsqueeze")
    model = mlp(tmp_path / "m.onnx", output_shape=("batch", 1, CLASSES), extra_nodes=[reshape])
    proto = onnx.load(model)
    proto.graph.initializer.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axes"))
    onnx.save(proto, model)
    code, captured = train(tmp_path, capsys, model, blobs(tmp_path / "d.npz"))
    assert code == 1
    assert "needs [batch, classes] logits, output 'logits' is tensor<16x1x3xf32>" in one_line_error(captured)


def test_mse_targets_not_matching_the_output(tmp_path, capsys):
    code, captured = train(tmp_path, capsys, mlp(tmp_path / "m.onnx"), blobs(tmp_path / "d.npz"), loss="mse")
    assert code == 1
    assert "the mse loss needs targets shaped like the output, [96, 3]" in one_line_error(captured)


def test_op_without_gradient_names_the_node(tmp_path, capsys):
    resize = helper.make_node("Resize", ["z", "", "scales"], ["logits"], name="upsample", mode="nearest")
    model = mlp(tmp_path / "m.onnx", output_shape=("batch", 2 * CLASSES), extra_nodes=[resize])
    proto = onnx.load(model)
    proto.graph.initializer.append(numpy_helper.from_array(np.array([1, 2], dtype=np.float32), "scales"))
    onnx.save(proto, model)
    code, captured = train(tmp_path, capsys, model, blobs(tmp_path / "d.npz"))
    assert code == 1
    assert "upsample" in one_line_error(captured) and "graph.resize_nearest has no gradient" in captured.err


def test_frozen_name_that_does_not_exist(tmp_path, capsys):
    code, captured = train(tmp_path, capsys, mlp(tmp_path / "m.onnx"), blobs(tmp_path / "d.npz"), "--freeze", "w9")
    assert code == 1
    assert "--freeze: 'w9' is not a weight of the model; its weights are b1, b2, w1, w2" in one_line_error(captured)


@pytest.mark.parametrize("arrays, message", [
    ({"labels": np.zeros(4, np.int64)}, "missing array 'x'"),
    ({"x": np.zeros((4, 4), np.float32), "labels": np.zeros(4, np.int64), "y": np.zeros(4)}, "unknown array 'y'"),
    ({"x": np.zeros((4, 5), np.float32), "labels": np.zeros(4, np.int64)}, "'x' has shape [4, 5]; expected [4, 4]"),
])
def test_bad_training_files(tmp_path, capsys, arrays, message):
    save_tensors(str(tmp_path / "d.npz"), arrays)
    code, captured = train(tmp_path, capsys, mlp(tmp_path / "m.onnx"), str(tmp_path / "d.npz"))
    assert code == 1 and message in one_line_error(captured)
