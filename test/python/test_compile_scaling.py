"""A wide Concat compiles for the accelerator in work proportional to its inputs (issue 17).

The times are in `benchmarks/buffer_scaling.py`; these tests check, at a
modest size, what made it super-linear: an N-input Concat (a chain of
binary concats) copied each link's whole output into the next.
"""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from lamina.driver.compiler import compile_model


def ragged_concat(count: int) -> onnx.ModelProto:
    """A Concat of `count` inputs of 3 and 5 channels, so most inputs straddle a channel tile."""
    names = ["x" if index % 3 else "z" for index in range(count)]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2]),
              helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 5, 2, 2])]
    graph = helper.make_graph([helper.make_node("Concat", names, ["c"], axis=1), helper.make_node("Relu", ["c"], ["y"])],
                              "ragged", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """count -> the compile summary, for a Concat of 32 and of 64 inputs."""
    summaries = {}
    for count in (32, 64):
        workdir = tmp_path_factory.mktemp(f"concat{count}")
        onnx.save(ragged_concat(count), workdir / "model.onnx")
        summaries[count] = compile_model(workdir / "model.onnx", "ultra96v2", workdir / "out").summary
    return summaries


def test_a_wide_concat_is_exact_on_the_simulated_accelerator(compiled):
    """Select copies into tile groups, load -> save copies into views: onnxruntime is the oracle."""
    for summary in compiled.values():
        (output,) = summary.accuracy.outputs
        assert output.cosine_min > 0.99999 and output.sqnr_db > 60, output


def test_a_wide_concat_compiles_to_a_program_linear_in_its_inputs(compiled):
    """Twice the inputs, at most about twice the instructions and weights (quadratic before: each link
    of the chain copied everything before it)."""
    small, large = compiled[32], compiled[64]
    assert len(large.program) <= 2.2 * len(small.program)
    assert large.consts_vectors <= 2.2 * small.consts_vectors
