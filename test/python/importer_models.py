"""Small ONNX models for the importer's tests, and the ways to run them.

A model is described by its nodes, example inputs (which give the input
types) and initializers; outputs are left untyped for ONNX to infer.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper

from lamina.dialects.context import make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model

# onnxruntime 1.31 reads IR versions up to 13; onnx 1.23 writes 14 by default.
IR_VERSION = 10
RNG = np.random.default_rng(0)


def value_info(name: str, array_or_dtype, shape=None) -> onnx.ValueInfoProto:
    if isinstance(array_or_dtype, np.ndarray):
        array_or_dtype, shape = array_or_dtype.dtype, array_or_dtype.shape
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(array_or_dtype)), shape)


def make_model(nodes, inputs: dict[str, np.ndarray], outputs: list[str], initializers: dict | None = None,
               opset: int = 17, name: str = "test") -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, name,
        [value_info(n, a) for n, a in inputs.items()],
        [helper.make_empty_tensor_value_info(n) for n in outputs],
        [numpy_helper.from_array(np.asarray(a), n) for n, a in (initializers or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION)


def randn(*shape, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def imported(model: onnx.ModelProto, **options):
    """The module and its context (the module lives only as long as the context)."""
    context = make_context()
    return import_model(model, context, **options), context


def graph_ops(module) -> list[str]:
    """Names (without `graph.`) of the body's ops, in order."""
    return [op.name.removeprefix("graph.") for op in body_ops(module)]


def ops_named(module, name: str):
    return [GRAPH.view(op) for op in body_ops(module) if op.name == f"graph.{name}"]


def run_onnxruntime(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(None, inputs)))
