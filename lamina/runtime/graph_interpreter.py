"""The graph dialect's reference interpreter: a model module run in NumPy.

`run` executes the ops of the model function in program order with the
kernels of `graph_kernels`, feeding `graph.placeholder`s from the given
inputs and collecting what `graph.save`s write. It is the numeric contract
every lower level is compared with, so it checks everything it is given:
the module verifies, every op is a graph op, the inputs match the
placeholders exactly (names, shapes, dtypes), and every kernel result has
the type its op declares. Values are dropped after their last use, so peak
memory stays near a real executor's.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from mlir import ir

from lamina.dialects.context import check_module
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.dialects.model import body_ops
from lamina.dialects.model import inputs as model_inputs
from lamina.dialects.types import TensorSpec

from lamina.kernels.graph_kernels import KERNELS, KernelError, Node


def run(module: ir.Operation, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Execute a graph-dialect model; returns save name -> array.

    `inputs` maps every placeholder name to an array of exactly its type.
    Raises LaminaError for invalid IR, ops that are not graph ops, wrong
    inputs and data-dependent failures (naming the op's location).
    """
    check_module(module)
    program = [(op, GRAPH.require(op, "the graph interpreter")) for op in body_ops(module)]
    feeds = check_inputs(model_inputs(module), inputs)
    dying = _dying_values([op for op, _ in program])
    values: dict[ir.Value, np.ndarray] = {}
    outputs: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):  # IEEE semantics: x / 0 is inf, log(-1) is nan, as in onnxruntime
        for index, (op, definition) in enumerate(program):
            view = OpView(op, definition)
            node = Node(view.attrs(), view.result_specs(), feeds, outputs)
            try:
                result = KERNELS[definition.name](node, *(values[v] for v in op.operands))
            except KernelError as error:
                raise LaminaError(f"{format_location(op.location)}: error: {error}") from None
            if node.results:
                values[op.results[0]] = checked_result(result, node.result, op)
            for value in dying[index]:
                del values[value]
    return outputs


def check_inputs(expected: Mapping[str, TensorSpec], given: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The inputs as arrays, once they match the placeholders exactly; else a one-line LaminaError."""
    unknown = [name for name in given if name not in expected]
    if unknown:
        raise LaminaError(f"unknown {_inputs(unknown)}; the model's inputs are {_names(expected)}")
    missing = [name for name in expected if name not in given]
    if missing:
        raise LaminaError(f"missing {_inputs(missing)}: expected "
                          + ", ".join(describe(expected[name].shape, expected[name].dtype) for name in missing))
    arrays = {}
    for name, spec in expected.items():
        array = np.asarray(given[name])
        if array.shape != spec.shape or array.dtype != spec.dtype:
            raise LaminaError(f"input '{name}': expected {describe(spec.shape, spec.dtype)}, "
                              f"got {describe(array.shape, array.dtype)}")
        arrays[name] = array
    return arrays


def describe(shape, dtype) -> str:
    """A tensor type the way NumPy users read it: `float32 [1, 3, 224, 224]`."""
    return f"{np.dtype(dtype).name} {list(shape)}"


def _names(names) -> str:
    return ", ".join(f"'{name}'" for name in names)


def _inputs(names: list[str]) -> str:
    return f"input{'s' if len(names) > 1 else ''} {_names(names)}"




def _dying_values(ops: list[ir.Operation]) -> list[list[ir.Value]]:
    """For each op, the values last used (or, if never used, defined) there."""
    last_use: dict[ir.Value, int] = {}
    for index, op in enumerate(ops):
        for value in (*op.results, *op.operands):
            last_use[value] = index
    dying: list[list[ir.Value]] = [[] for _ in ops]
    for value, index in last_use.items():
        dying[index].append(value)
    return dying


def checked_result(result, declared: TensorSpec, op: ir.Operation) -> np.ndarray:
    """The kernel's result, which must have exactly the op's result type (else a Lamina bug)."""
    array = np.asarray(result)
    if array.shape != declared.shape or array.dtype != declared.dtype:
        raise AssertionError(f"kernel of {op.name} at {format_location(op.location)} produced "
                             f"{describe(array.shape, array.dtype)}, the op declares {declared}")
    return array
