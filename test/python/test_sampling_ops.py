"""GridSample and GatherND (`graph.grid_sample`, `graph.gather_nd`) against ONNX's reference implementation on the
graph interpreter and the CPU path, their refusals, and GridSample's place on the accelerator (the host).

ONNX's node tests cover the modes on grids inside [-1, 1]; here grids reach
well outside it, so every padding mode folds and clamps, with every mode and
both `align_corners` in one model per padding mode (one CPU compile each).
The oracle is `onnx.reference` (the standard's own implementation, which
made the node tests' data): onnxruntime agrees with it except for cubic mode
with border padding, where it follows PyTorch (clamping each tap's index
instead of the position); the reference does not know GridSample-16's mode
names, so that case is checked against onnxruntime.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

from importer_models import imported, make_model, ops_named, run_onnxruntime
from lamina import LaminaError
from lamina.passes.conversion.graph_to_hir.partition import why_on_host
from lamina.runtime import cpu_executor
from lamina.runtime.graph_interpreter import run

node = helper.make_node
RNG = np.random.default_rng(7)


def _grid(*shape: int) -> np.ndarray:
    return RNG.uniform(-2.5, 2.5, shape).astype(np.float32)


def _every_mode(padding_mode: str):
    """One GridSample per (mode, align_corners) over one 4-D input and grid, at opset 20."""
    nodes, outputs = [], []
    for mode in ("linear", "nearest", "cubic"):
        for align_corners in (0, 1):
            outputs.append(f"{mode}_{align_corners}")
            nodes.append(node("GridSample", ["x", "g"], [outputs[-1]], mode=mode, padding_mode=padding_mode,
                              align_corners=align_corners))
    inputs = {"x": RNG.standard_normal((2, 3, 4, 5)).astype(np.float32), "g": _grid(2, 6, 7, 2)}
    return make_model(nodes, inputs, outputs, opset=20), inputs


CASES = {
    **{f"grid_sample_{padding}": _every_mode(padding) for padding in ("zeros", "border", "reflection")},
    "grid_sample_16_bicubic_reflection": (
        make_model([node("GridSample", ["x", "g"], ["y"], mode="bicubic", padding_mode="reflection")],
                   {"x": np.zeros((1, 2, 3, 6), np.float32), "g": np.zeros((1, 4, 4, 2), np.float32)}, ["y"],
                   opset=16),
        {"x": RNG.standard_normal((1, 2, 3, 6)).astype(np.float32), "g": _grid(1, 4, 4, 2)}),
    "grid_sample_volumetric_reflection": (
        make_model([node("GridSample", ["x", "g"], ["y"], mode="linear", padding_mode="reflection",
                         align_corners=1)],
                   {"x": np.zeros((1, 2, 3, 4, 5), np.float32), "g": np.zeros((1, 2, 3, 4, 3), np.float32)}, ["y"],
                   opset=20),
        {"x": RNG.standard_normal((1, 2, 3, 4, 5)).astype(np.float32), "g": _grid(1, 2, 3, 4, 3)}),
    "gather_nd_batch_dims_negative_indices": (
        make_model([node("GatherND", ["x", "i"], ["y"], batch_dims=1)],
                   {"x": np.zeros((2, 3, 4, 5), np.float32), "i": np.zeros((2, 6, 2), np.int64)}, ["y"], opset=13),
        {"x": RNG.standard_normal((2, 3, 4, 5)).astype(np.float32),
         "i": np.stack([RNG.integers(-3, 3, (2, 6)), RNG.integers(-4, 4, (2, 6))], -1)}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_the_onnx_reference_on_the_interpreter_and_the_cpu_path(name):
    model, inputs = CASES[name]
    if model.opset_import[0].version < 20:
        expected = run_onnxruntime(model, inputs)
    else:
        expected = dict(zip((out.name for out in model.graph.output), ReferenceEvaluator(model).run(None, inputs)))
    module, _context = imported(model)
    for actual in (run(module, inputs), cpu_executor.compile_model(module).run(inputs)):
        for output, value in expected.items():
            np.testing.assert_allclose(actual[output], value, rtol=1e-6, atol=1e-6, err_msg=output)


@pytest.mark.parametrize("attrs, opset, message", [
    ({"mode": "linear"}, 16, r"mode 'linear' is not supported \(only bilinear, bicubic, nearest at opset 16\)"),
    ({"mode": "bicubic"}, 20, r"mode 'bicubic' is not supported \(only linear, nearest, cubic at opset 20\)"),
    ({"padding_mode": "wrap"}, 20, r"padding_mode 'wrap' is not supported \(only zeros, border, reflection\)"),
])
def test_a_bad_grid_sample_mode_is_refused_naming_the_node(attrs, opset, message):
    model = make_model([node("GridSample", ["x", "g"], ["y"], name="sampler", **attrs)],
                       {"x": np.zeros((1, 1, 3, 3), np.float32), "g": np.zeros((1, 2, 2, 2), np.float32)}, ["y"],
                       opset=opset)
    with pytest.raises(LaminaError, match=r"node 'sampler' \(GridSample\): " + message):
        imported(model)


def test_gather_nd_batch_dimensions_that_differ_are_refused_naming_the_node():
    model = make_model([node("GatherND", ["x", "i"], ["y"], name="picker", batch_dims=1)],
                       {"x": np.zeros((2, 3), np.float32), "i": np.zeros((3, 1), np.int64)}, ["y"], opset=13)
    with pytest.raises(LaminaError, match=r"node 'picker' \(GatherND\): the indices' batch dimensions \(3,\) differ"):
        imported(model)


def test_grid_sample_runs_on_the_host_and_says_why():
    module, _context = imported(CASES["grid_sample_zeros"][0])
    samplers = ops_named(module, "grid_sample")
    assert samplers and all(why_on_host(view.op).startswith("no unit of the accelerator computes it")
                            for view in samplers)
