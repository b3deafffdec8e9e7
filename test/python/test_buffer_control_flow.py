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
import pytest
from test_cpu_node_suite import node_test_case
from test_onnx_node_suite import NodeSuiteBackend
from test_torch_control_flow import MODELS, assert_close, reference

from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
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
