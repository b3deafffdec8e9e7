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

from collections import ChainMap
from typing import Callable, Mapping, MutableMapping

import numpy as np
from mlir import ir

from lamina.dialects.attr_kinds import elements_view
from lamina.dialects.context import check_module
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import block_ops, nested_operands, yielded
from lamina.dialects.irdl import OpView
from lamina.dialects.model import body_ops
from lamina.dialects.model import inputs as model_inputs
from lamina.dialects.types import TensorSpec

from lamina.kernels.control_flow import REGION_KERNELS, RunRegion
from lamina.kernels.graph_kernels import KernelError, Node
from lamina.kernels.quantization import evaluate


def run(module: ir.Operation, inputs: Mapping[str, np.ndarray],
        observe: Callable[[ir.Value, np.ndarray], None] | None = None,
        function: str | None = None, verify: bool = True) -> dict[str, np.ndarray]:
    """Execute a graph-dialect model (its function `function`, if it holds several); returns save name -> array.

    `inputs` maps every placeholder name to an array of exactly its type.
    `observe`, if given, sees every op result as it is computed (calibration
    measures ranges with it, the accuracy check layer values).
    Raises LaminaError for invalid IR, ops that are not graph ops, wrong
    inputs and data-dependent failures (naming the op's location). `verify`
    False skips checking the IR, for a caller that ran this module already.
    """
    if verify:
        check_module(module)
    ops = body_ops(module, function)
    feeds = check_inputs(model_inputs(module, function), inputs)
    outputs: dict[str, np.ndarray] = {}
    with np.errstate(all="ignore"):  # IEEE semantics: x / 0 is inf, log(-1) is nan, as in onnxruntime
        execute(ops, {}, Node({}, [], feeds, outputs), free=True, observe=observe)
    return outputs


def execute(ops: list[ir.Operation], values: MutableMapping[ir.Value, np.ndarray], io: Node,
            free: bool = False, observe: Callable[[ir.Value, np.ndarray], None] | None = None) -> None:
    """Run `ops` of one block in order, binding their results in `values`.

    `io` carries the model's inputs and outputs (for placeholders and saves);
    with `free`, values are dropped after their last use in this block (uses
    inside nested regions count as uses by the op holding them).
    """
    dying = _dying_values(ops) if free else [[] for _ in ops]
    for index, op in enumerate(ops):
        definition = GRAPH.require(op, "the graph interpreter")
        view = OpView(op, definition)
        specs = view.result_specs()
        if definition.name == "constant":  # its data read in place (read-only), not decoded into a copy per run
            results = [elements_view(op.attributes["value"]).astype(specs[0].dtype, copy=False)]
        else:
            results = _results(op, definition, Node(view.attrs(), specs, io.inputs, io.outputs, view.operand_specs()),
                                values, io, observe)
        for value, array, spec in zip(op.results, results or (), specs):
            values[value] = checked_result(array, spec, op)
            if observe is not None:
                observe(value, values[value])
        for value in dying[index]:
            values.pop(value, None)


def _results(op: ir.Operation, definition, node: Node, values: MutableMapping[ir.Value, np.ndarray], io: Node,
             observe: Callable[[ir.Value, np.ndarray], None] | None) -> list | None:
    """What the op's kernel computes, one array per result."""
    operands = [values[v] for v in op.operands]
    try:
        if definition.regions:
            return REGION_KERNELS[definition.name](op, node, operands, _region_runner(values, io, observe))
        result = evaluate(definition.name, node, *operands)
        return [result] if len(node.results) == 1 else result
    except KernelError as error:
        raise LaminaError(f"{format_location(op.location)}: error: {error}") from None


def _region_runner(values: MutableMapping[ir.Value, np.ndarray], io: Node,
                   observe: Callable[[ir.Value, np.ndarray], None] | None) -> RunRegion:
    """Runs a region's block on its arguments in the scope of `values`; returns what it yields."""

    def run_region(block: ir.Block, arguments: list[np.ndarray]) -> list[np.ndarray]:
        scope = ChainMap(dict(zip(block.arguments, arguments)), values)
        execute(block_ops(block), scope, io, observe=observe)
        return [scope[value] for value in yielded(block)]

    return run_region


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
        for value in (*op.results, *op.operands, *nested_operands(op)):
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
