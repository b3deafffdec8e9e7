"""ONNX's node test suite through the CPU path (import, graph-optimize, linalg, LLVM JIT).

The same tests as `test_onnx_node_suite.py` (every CPU node test the
importer accepts, all of which pass on the reference interpreter), with the
model compiled by `lamina/runtime/cpu_executor.py` instead of interpreted; ONNX's
runner compares with the tests' expected outputs at its own tolerances. The
whole suite compiles one model per test and takes minutes, so it is
`slow`; the default run takes a sample: at least one test of every
operator family the CPU path lowers.
"""

from __future__ import annotations

import re
import unittest
import warnings

import onnx
import onnx.backend.test
import pytest

from lamina.runtime import cpu_executor
from test_onnx_node_suite import NodeSuiteBackend

# Test-name patterns of the default sample (one or a few tests per op family).
SAMPLE = [
    r"test_(add|sub|mul|div|pow|max|min|sum|equal|less|greater|where)(_example)?_cpu$",
    r"test_(relu|sigmoid|tanh|erf|exp|log|sqrt|reciprocal|neg|abs|leakyrelu|hardsigmoid|clip|gelu|softplus|identity)_cpu$",
    r"test_cast_FLOAT_to_(INT32|DOUBLE|FLOAT16)_cpu$",
    r"test_(add_uint64|div_uint32|greater_uint16|max_int16)_cpu$",  # unsigned stored as signless
    r"test_(sin|acosh|round|sign|mod_mixed_sign_int8|mod_mixed_sign_float16|bitshift_right_int8_negative_input|"
    r"bitwise_not_3d|argmax_keepdims_example_select_last_index|argmin_no_keepdims_example)_cpu$",
    r"test_(scatter_elements_with_duplicate_indices|scatternd_multiply|onehot_with_axis|einsum_batch_matmul|"
    r"eyelike_with_dtype|range_int32_type_negative_delta|top_k_same_values_2d|top_k_smallest)_cpu$",
    r"test_(gridsample_bicubic|gridsample_volumetric_nearest_align_corners_1|gathernd_example_int32_batch_dim1)_cpu$",
    r"test_reduce_(sum|mean|max|min|prod)_default_axes_keepdims_random_cpu$",
    r"test_(softmax|layer_normalization|batchnorm)_(example|default_axis|epsilon|2d_axis0)_cpu$",
    r"test_(reshape_reordered_all_dims|transpose_default|concat_2d_axis_0|slice_neg_steps|tile|gather_0|"
    r"expand_dim_changed|flatten_axis1|squeeze|unsqueeze_axis_0)_cpu$",
    r"test_(constant_pad|edge_pad|reflect_pad)_cpu$",
    r"test_(conv_with_strides_padding|maxpool_2d_default|averagepool_2d_default|globalaveragepool|matmul_2d|gemm_default_single_elem_vector_bias|lrn)_cpu$",
    # Control flow (scf.if, scf.while, scf.for) and recurrent layers (lowered to matmuls first).
    r"test_(if|scan9_sum|loop11|range_float_type_positive_delta_expanded|lstm_bidirectional|gru_batchwise|rnn_seq_length)_cpu$",
]


class CpuNodeSuiteBackend(NodeSuiteBackend):
    """The node-suite backend compiling for the CPU; skips what the importer refuses, as the reference run does."""

    @classmethod
    def executor(cls, module):
        return cpu_executor.compile_model(module).run


def node_test_case(patterns: list[str], backend: type = CpuNodeSuiteBackend,
                   module_name: str = __name__) -> type[unittest.TestCase]:
    """ONNX's node tests (CPU) matching any of `patterns`, run by `backend`."""
    with warnings.catch_warnings():  # the generators of the cast and reduce tests overflow on purpose
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"onnx\.backend\.test\.case")
        backend_test = onnx.backend.test.BackendTest(backend, module_name)
    case = backend_test.test_cases["OnnxBackendNodeModelTest"]
    for name in [name for name in vars(case) if name.startswith("test_")]:
        if not any(re.search(pattern, name) for pattern in patterns):
            delattr(case, name)  # the runner would list each as skipped
    return case


OnnxCpuNodeSample = node_test_case(SAMPLE)
OnnxCpuNodeSuite = pytest.mark.slow(node_test_case([r"_cpu$"]))
