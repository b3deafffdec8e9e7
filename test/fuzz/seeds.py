"""The valid inputs the fuzzer mutates: small ONNX models, the modules and model files Lamina makes of them.

Everything is generated here (nothing downloaded, no weights kept in the
repository): a few ONNX graphs covering the importer's op families, their
graph, buffer, HIR and LIR modules, one compiled `.tmodel` directory, an
npz of inputs and the named `.tarch` files.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lamina.target.tcu.architecture import ARCHITECTURES_DIR
from lamina.driver.compiler import compile_model
from lamina.dialects.context import make_context, print_module
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime.tensor_files import save_tensors

RNG = np.random.default_rng(1234)


def _weights(*shape) -> np.ndarray:
    return (RNG.standard_normal(shape) / np.sqrt(np.prod(shape[1:]) or 1)).astype(np.float32)


def _model(name, nodes, inputs, initializers) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(value, key) for key, value in initializers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return onnx.shape_inference.infer_shapes(model)


def onnx_seeds() -> dict[str, onnx.ModelProto]:
    node = helper.make_node
    return {
        "cnn": _model("cnn", [
            node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
            node("Relu", ["c1"], ["r1"]),
            node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
            node("Conv", ["p1", "w2"], ["c2"], strides=[1, 1], name="conv2"),
            node("GlobalAveragePool", ["c2"], ["g"]),
            node("Flatten", ["g"], ["f"]),
            node("Gemm", ["f", "w3", "b3"], ["y"], transB=1)],
            [("x", [1, 3, 8, 8])],
            {"w1": _weights(8, 3, 3, 3), "b1": _weights(8), "w2": _weights(8, 8, 1, 1), "w3": _weights(4, 8),
             "b3": _weights(4)}),
        "mlp": _model("mlp", [
            node("MatMul", ["x", "w"], ["m"]), node("Add", ["m", "b"], ["a"]),
            node("Softmax", ["a"], ["y"], axis=-1)], [("x", [2, 8])], {"w": _weights(8, 6), "b": _weights(6)}),
        "concat": _model("concat", [
            node("Sigmoid", ["x"], ["s"]), node("Concat", ["x", "s", "x"], ["c"], axis=1),
            node("Transpose", ["c"], ["t"], perm=[0, 2, 1]), node("Reshape", ["t", "shape"], ["y"])],
            [("x", [1, 2, 3])], {"shape": np.array([1, -1], np.int64)}),
        "norm": _model("norm", [
            node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1), node("Mul", ["n", "x"], ["m"]),
            node("ReduceMean", ["m"], ["y"], axes=[1], keepdims=1)], [("x", [1, 4, 8])],
            {"g": np.ones(8, np.float32), "b": np.zeros(8, np.float32)}),
    }


@dataclass
class Seeds:
    """Files under `directory` the mutators start from."""

    directory: Path
    onnx: dict[str, bytes] = field(default_factory=dict)
    mlir: dict[str, str] = field(default_factory=dict)  # name -> module text (graph, buffer, hir, lir)
    model_dir: Path | None = None  # compiled cnn: model.tmodel, .tprog, .tdata, host modules
    npz: bytes = b""  # inputs of the graph module "graph-mlp"
    tarch: dict[str, str] = field(default_factory=dict)


def make_seeds(directory: Path) -> Seeds:
    """Generate every seed into `directory` (a few seconds: one accelerator compile)."""
    directory.mkdir(parents=True, exist_ok=True)
    seeds = Seeds(directory)
    context = make_context()
    for name, model in onnx_seeds().items():
        seeds.onnx[name] = model.SerializeToString()
        module = import_model(model, context, source_name=f"{name}.onnx")
        seeds.mlir[f"graph-{name}"] = print_module(module, debug_info=True)
    buffers = import_model(onnx_seeds()["mlp"], context)
    run_pipeline(buffers, "builtin.module(graph-to-buffers)")
    seeds.mlir["buffer-mlp"] = print_module(buffers)
    (directory / "cnn.onnx").write_bytes(seeds.onnx["cnn"])
    compiled = compile_model(directory / "cnn.onnx", "pynq-z1", directory / "compiled", emit=("hir", "lir"))
    seeds.mlir["hir-cnn"] = (directory / "compiled" / "hir.mlir").read_text()
    seeds.mlir["lir-cnn"] = (directory / "compiled" / "lir.mlir").read_text()
    seeds.model_dir = directory / "model"
    shutil.rmtree(seeds.model_dir, ignore_errors=True)
    seeds.model_dir.mkdir()
    for name, path in compiled.files.items():
        if name.startswith("model.") or name.startswith("host-"):
            shutil.copy(path, seeds.model_dir / name)
    save_tensors(str(directory / "inputs.npz"), {"x": RNG.random((2, 8)).astype(np.float32)})
    seeds.npz = (directory / "inputs.npz").read_bytes()
    seeds.tarch = {path.stem: path.read_text() for path in sorted(ARCHITECTURES_DIR.glob("*.tarch"))}
    return seeds
