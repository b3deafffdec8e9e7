"""graph.conv_transpose on the CPU path against the reference interpreter.

Each case is a one-node ONNX ConvTranspose model, compiled with `graph-to-cpu`
alone (see `test_cpu_path.py`, whose comparison and tolerance these reuse),
over strides, pads (asymmetric, and beyond the dilated kernel so the input
itself is cropped), dilations, output_padding, groups and 1-D/2-D/3-D inputs;
with and without the vectorizing schedule.
"""

from __future__ import annotations

import pytest
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.runtime import cpu_executor, graph_interpreter
from test_cpu_path import assert_close, check_node

# x shape, w shape ([C, M/group, k...]), ConvTranspose attributes.
CASES = {
    "plain": ((1, 3, 5, 5), (3, 2, 3, 3), {}),
    "strided": ((2, 3, 4, 5), (3, 4, 3, 3), dict(strides=[2, 2])),
    "strided_uneven": ((1, 2, 4, 3), (2, 3, 3, 2), dict(strides=[3, 2])),
    "asymmetric_pads": ((1, 3, 5, 4), (3, 2, 3, 3), dict(strides=[2, 1], pads=[1, 0, 2, 1])),
    "pads_beyond_kernel": ((1, 2, 6, 6), (2, 2, 3, 3), dict(strides=[2, 2], pads=[3, 4, 2, 5])),
    "pads_beyond_kernel_unit_stride": ((1, 2, 6, 6), (2, 2, 2, 3), dict(pads=[2, 0, 1, 3])),
    "output_padding": ((1, 3, 4, 4), (3, 2, 3, 3), dict(strides=[2, 3], output_padding=[1, 2])),
    "output_padding_and_pads": ((1, 2, 3, 4), (2, 3, 3, 3), dict(strides=[3, 2], pads=[1, 2, 0, 1],
                                                                  output_padding=[2, 1])),
    "dilated": ((1, 2, 4, 4), (2, 3, 3, 2), dict(dilations=[2, 3], pads=[1, 1, 2, 0])),
    "dilated_strided": ((1, 2, 4, 5), (2, 2, 3, 3), dict(strides=[2, 2], dilations=[2, 1], output_padding=[1, 0])),
    "kernel_1x1_strided": ((1, 4, 3, 3), (4, 2, 1, 1), dict(strides=[2, 2])),
    "groups": ((1, 4, 4, 4), (4, 3, 3, 3), dict(group=2, strides=[2, 1], pads=[1, 0, 0, 1])),
    "groups_one_channel": ((1, 3, 4, 4), (3, 2, 3, 3), dict(group=3, strides=[2, 2], output_padding=[1, 1])),
    "depthwise": ((2, 4, 5, 5), (4, 1, 3, 3), dict(group=4, strides=[2, 2], pads=[1, 1, 1, 1])),
    "many_groups": ((1, 18, 3, 3), (18, 2, 2, 2), dict(group=9, strides=[2, 2], dilations=[1, 2])),
    "conv1d": ((1, 3, 7), (3, 2, 3), dict(strides=[2], pads=[1, 2], output_padding=[1])),
    "conv1d_grouped_dilated": ((2, 4, 6), (4, 3, 4), dict(group=2, dilations=[2], pads=[3, 0])),
    "conv3d": ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), dict(strides=[2, 1, 2], pads=[0, 1, 1, 1, 0, 0],
                                                      output_padding=[1, 0, 0])),
    "conv3d_grouped": ((1, 4, 3, 3, 3), (4, 1, 3, 2, 3), dict(group=2, dilations=[1, 2, 1], strides=[1, 2, 1])),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_conv_transpose(case):
    x_shape, w_shape, attrs = CASES[case]
    group = attrs.get("group", 1)
    check_node("ConvTranspose", {"x": randn(*x_shape)}, {"w": randn(*w_shape), "b": randn(w_shape[1] * group)},
               **attrs)


def test_conv_transpose_without_bias_and_weights_as_input():
    """A missing bias is a zero splat; a runtime filter is flipped at run time."""
    check_node("ConvTranspose", {"x": randn(1, 3, 4, 4), "w": randn(3, 2, 3, 3)}, strides=[2, 2],
               pads=[0, 1, 1, 0])


def test_conv_transpose_reading_no_input():
    """Pads crop the whole spread input: every output is the bias."""
    check_node("ConvTranspose", {"x": randn(1, 2, 1, 1)}, {"w": randn(2, 3, 1, 1), "b": randn(3)},
               strides=[4, 4], pads=[1, 1, 0, 0], output_padding=[2, 2])


@pytest.mark.parametrize("case", ["strided", "groups", "asymmetric_pads"])
def test_conv_transpose_scalar_loops(case):
    """The same lowering without the vectorizing schedule (`vectorize=false`)."""
    x_shape, w_shape, attrs = CASES[case]
    x = {"x": randn(*x_shape)}
    initializers = {"w": randn(*w_shape), "b": randn(w_shape[1] * attrs.get("group", 1))}
    node = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="n", **attrs)
    module, _context = imported(make_model([node], x, ["y"], initializers))
    compiled = cpu_executor.compile_model(module, "builtin.module(graph-to-cpu{vectorize=false})")
    assert_close(compiled.run(x), graph_interpreter.run(module, x))
