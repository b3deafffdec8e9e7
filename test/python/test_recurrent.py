"""RNN, GRU and LSTM against onnxruntime: imported and interpreted, lowered to
matmuls and element-wise ops, and compiled for the CPU."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import helper
from recurrent_models import RECURRENT_CASES, RecurrentCase

from lamina.dialects.context import make_context
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

TOLERANCE = 1e-4


def expected(case: RecurrentCase):
    model, feeds = case.model()
    oracle = as_layout_0(model) if case.attrs.get("layout") == 1 else model
    session = ort.InferenceSession(oracle.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return model, feeds, dict(zip(names, session.run(None, feeds)))


def as_layout_0(model: onnx.ModelProto) -> onnx.ModelProto:
    """The same model for onnxruntime, which runs only layout 0: transposes around a layout-0 node."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    (node,) = copy.graph.node
    next(a for a in node.attribute if a.name == "layout").i = 0
    before = []
    for index in (0, 5, 6):  # X, initial_h, initial_c
        if index < len(node.input) and node.input[index]:
            name = node.input[index]
            before.append(helper.make_node("Transpose", [name], [name + "_t"], perm=[1, 0, 2]))
            node.input[index] = name + "_t"
    after = []
    for index, name in enumerate(node.output):
        after.append(helper.make_node("Transpose", [name + "_t"], [name], perm=[2, 0, 1, 3] if index == 0 else [1, 0, 2]))
        node.output[index] = name + "_t"
    del copy.graph.node[:]
    copy.graph.node.extend([*before, node, *after])
    return copy


def assert_close(actual: dict, reference: dict) -> None:
    for name, want in reference.items():
        np.testing.assert_allclose(actual[name], want, atol=TOLERANCE, rtol=TOLERANCE, err_msg=name)


@pytest.mark.parametrize("case", RECURRENT_CASES, ids=lambda c: f"{c.op_type}: {c.id}")
def test_interpreter_matches_onnxruntime(case):
    model, feeds, reference = expected(case)
    assert_close(run(import_model(model, make_context()), feeds), reference)


@pytest.mark.parametrize("case", RECURRENT_CASES, ids=lambda c: f"{c.op_type}: {c.id}")
def test_lowered_matches_onnxruntime(case):
    model, feeds, reference = expected(case)
    module = import_model(model, make_context())
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference-lowered})")
    names = {op.name for op in body_ops(module)}
    assert not names & {"graph.rnn", "graph.gru", "graph.lstm"} and "graph.matmul" in names
    assert_close(run(module, feeds), reference)


# One case per cell on the CPU path (each compiles a model through LLVM: seconds).
CPU_CASES = [c for c in RECURRENT_CASES if c.id in ("bidirectional batch-first", "short sequences", "reverse batch-first")]


@pytest.mark.parametrize("case", CPU_CASES, ids=lambda c: f"{c.op_type}: {c.id}")
def test_cpu_path_matches_onnxruntime(case):
    model, feeds, reference = expected(case)
    assert_close(cpu_executor.compile_model(import_model(model, make_context())).run(feeds), reference)
