"""graph-lower: every lowering against the interpreter, and what each backend asks to lower.

Each case is a model computing one high-level op from placeholders and
constants. Lowered with the `reference-lowered` backend (which asks for
every lowering), it must compute the same outputs in the interpreter:
bit-for-bit for the lowerings that rebuild the interpreter's own formula,
within float rounding for global average pooling (the pool sums in window
order, the mean pairwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from mlir import ir

from lamina.dialects.context import make_context, print_module
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import body_ops, create_model
from lamina.dialects.types import TensorSpec
from lamina.passes.graph.lowerings import LOWERINGS
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime.graph_interpreter import run

F32 = np.float32
RNG = np.random.default_rng(0)
LOWERED_OP_LOCATION = "lowered_op"


def normal(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(F32)


def positive(*shape) -> np.ndarray:
    return RNG.uniform(0.5, 2.0, shape).astype(F32)


@dataclass(frozen=True)
class Case:
    """One op on operands: arrays fed through placeholders (`inputs`) or held as constants."""

    op: str
    operands: tuple[tuple[str, np.ndarray], ...]  # ("input" | "constant", array), in operand order
    attrs: dict = field(default_factory=dict)
    exact: bool = True
    id: str = ""

    def model(self, context: ir.Context) -> tuple[ir.Operation, dict[str, np.ndarray]]:
        module, block = create_model(context)
        feeds = {}
        with context, ir.Location.unknown(), ir.InsertionPoint.at_block_terminator(block):
            values = []
            for index, (kind, array) in enumerate(self.operands):
                if kind == "input":
                    feeds[f"x{index}"] = array
                    op = GRAPH.create("placeholder", result_types=[TensorSpec(array.shape, array.dtype)],
                                      name=f"x{index}")
                else:
                    op = GRAPH.create("constant", value=array)
                values.append(op.result)
            op = GRAPH.create(self.op, *values, loc=ir.Location.name(LOWERED_OP_LOCATION), **self.attrs)
            GRAPH.create("save", op.result, name="y")
        return module, feeds


def inputs(*arrays: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
    return tuple(("input", a) for a in arrays)


def constants(*arrays: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
    return tuple(("constant", a) for a in arrays)


BN = {"epsilon": 1e-5}
LRN = {"alpha": 1e-2, "beta": 0.75, "bias": 2.0}
CASES = [
    Case("fully_connected", inputs(normal(3, 4)) + constants(normal(4, 5), normal(5)), id="constant weights"),
    Case("fully_connected", inputs(normal(3, 4), normal(4, 5), normal(5)), id="input weights"),
    Case("batch_norm", inputs(normal(2, 3, 4, 5)) + constants(normal(3), normal(3), normal(3), positive(3)), BN,
         id="constant parameters: factor folded"),
    Case("batch_norm", inputs(normal(2, 3, 4, 5), normal(3), normal(3), normal(3), positive(3)), BN,
         id="input parameters: factor computed"),
    Case("batch_norm", inputs(normal(4, 3)) + constants(normal(3), normal(3), normal(3), positive(3)), BN,
         id="2-D input"),
    Case("layer_norm", inputs(normal(2, 3, 8)) + constants(normal(8), normal(8)), {"axis": 2, "epsilon": 1e-5},
         id="last axis"),
    Case("layer_norm", inputs(normal(2, 3, 8), normal(3, 8), normal(3, 8)), {"axis": 1, "epsilon": 1e-3},
         id="two axes"),
    Case("softmax", inputs(normal(3, 7) * 10), {"axis": 1}, id="last axis"),
    Case("softmax", inputs(normal(2, 5, 3)), {"axis": 1}, id="middle axis"),
    Case("lrn", inputs(normal(1, 6, 3, 3)), {"size": 3, **LRN}, id="size 3"),
    Case("lrn", inputs(normal(2, 5, 4)), {"size": 2, **LRN}, id="even size, 1-D"),
    Case("lrn", inputs(normal(1, 3, 2, 2)), {"size": 5, **LRN}, id="window wider than the channels"),
    Case("lrn", inputs(normal(1, 4, 2, 2)), {"size": 1, **LRN}, id="size 1"),
    Case("gelu", inputs(normal(4, 6) * 3), {"approximate": "none"}, id="erf"),
    Case("gelu", inputs(normal(4, 6) * 3), {"approximate": "tanh"}, id="tanh"),
    Case("swish", inputs(normal(4, 6) * 3), id="swish"),
    Case("global_avg_pool", inputs(normal(2, 3, 7, 5)), exact=False, id="2-D"),
    Case("global_avg_pool", inputs(normal(1, 4, 9)), exact=False, id="1-D"),
    Case("global_max_pool", inputs(normal(2, 3, 7, 5)), id="2-D"),
]


def lower(module: ir.Operation, backend: str = "reference-lowered") -> None:
    run_pipeline(module, f"builtin.module(graph-lower{{backend={backend}}})")


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.op}: {case.id}")
def test_lowering_computes_what_the_op_computes(case: Case):
    module, feeds = case.model(make_context())
    expected = run(module, feeds)["y"]
    lower(module)
    names = [op.name for op in body_ops(module)]
    assert f"graph.{case.op}" not in names
    actual = run(module, feeds)["y"]
    if case.exact:
        np.testing.assert_array_equal(actual, expected)
    else:  # summation order only: a few ulps of the result
        np.testing.assert_allclose(actual, expected, rtol=4 * np.finfo(F32).eps, atol=0)


# Their numeric cases compare with onnxruntime, in test_recurrent.py.
RECURRENT_LOWERINGS = {"rnn", "gru", "lstm"}


def test_every_lowering_has_a_numeric_case():
    """The training ops' lowerings are checked numerically by test_gradients.py and test_training_torch.py."""
    assert {name for name in LOWERINGS if not GRAPH.ops[name].training} == {case.op for case in CASES} | RECURRENT_LOWERINGS


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.op}: {case.id}")
def test_lowered_ops_are_primitives_at_the_lowered_ops_location(case: Case):
    """Every op the lowering creates keeps the location of the op it replaces, and none
    has a lowering itself (so one walk lowers a graph completely)."""
    module, _ = case.model(make_context())
    lower(module)
    created = [op for op in body_ops(module) if op.location.is_a_name()]
    assert all(op.location.name_str == LOWERED_OP_LOCATION for op in created)
    assert created and not any(GRAPH.lookup(op).name in LOWERINGS for op in created)
    # The rest is the model's interface and its constants, all at unknown locations.
    assert {op.name for op in body_ops(module) if not op.location.is_a_name()} <= {
        "graph.placeholder", "graph.constant", "graph.save"}


def test_batch_norm_factor_is_computed_at_compile_time_when_constant():
    module, _ = CASES[2].model(make_context())
    lower(module)
    names = [op.name.removeprefix("graph.") for op in body_ops(module)]
    # Three element-wise ops by broadcast [1, C, 1, 1] constants; the [C] parameters are gone.
    assert names == ["placeholder", "constant", "broadcast", "sub", "constant", "broadcast", "mul", "constant",
                     "broadcast", "add", "save"]


def test_reference_backend_lowers_nothing():
    for case in CASES:
        module, _ = case.model(make_context())
        text = print_module(module)
        lower(module, "reference")
        assert print_module(module) == text, case.op


ACCELERATOR_LOWERS = {"batch_norm", "global_avg_pool", "global_max_pool"}


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.op}: {case.id}")
def test_accelerator_lowers_only_what_it_then_runs(case: Case):
    module, _ = case.model(make_context())
    lower(module, "accelerator")
    still_there = f"graph.{case.op}" in {op.name for op in body_ops(module)}
    assert still_there == (case.op not in ACCELERATOR_LOWERS)
