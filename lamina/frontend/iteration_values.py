"""Values of a Loop body that depend only on its iteration number, at every iteration.

A Loop with a compile-time trip count N runs its body with the iteration
numbers 0 .. N-1 (fewer when its condition stops it first). A value the
body computes from the iteration number and compile-time values alone takes
at most those N values; evaluating its nodes (ONNX's reference
implementation) for each one tells the importer every value it can have.
Slice bounds computed so (ONNX's `test_loop11`: `x[i:i+1]`) then give a
slice whose size is the same at every iteration: a `graph.dynamic_slice`
with a static result type. A carried value whose initial value is known at
compile time and whose next value is computed so too (a counter the body
increments) takes known values as well: the evaluation carries it from one
iteration to the next.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from .analysis import DEFAULT_DOMAINS, NOT_FOLDABLE, ModelAnalysis, has_subgraph

# Beyond this trip count the importer does not enumerate: each iteration is one reference evaluation.
MAX_ITERATIONS = 1024


def per_iteration(analysis: ModelAnalysis, names: list[str]) -> list[list[np.ndarray]] | None:
    """For each iteration number 0 .. N-1, the values of `names`; None unless `analysis` is a Loop body with a
    compile-time trip count and each name is computed from the iteration number, compile-time values and
    carried values that are themselves so computed from compile-time initial values (a counter)."""
    loop = analysis.iteration
    if loop is None or not 0 < loop.count <= MAX_ITERATIONS:
        return None
    recurrences = _recurrences(analysis, names)
    if recurrences is None:
        return None
    nodes, carried = recurrences
    targets = [*names, *(output for _, _, output in carried)]
    used = {name for node in nodes for name in node.input if name} | set(targets)
    constants = [numpy_helper.from_array(analysis.constants[name], name) for name in sorted(used)
                 if name in analysis.constants]
    inputs = [helper.make_tensor_value_info(loop.name, onnx.TensorProto.INT64, [])]
    for name, value, _ in carried:
        inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape))
    graph = helper.make_graph(nodes, "iteration_values", inputs,
                              [helper.make_empty_tensor_value_info(name) for name in targets], constants)
    evaluator = ReferenceEvaluator(helper.make_model(graph, opset_imports=list(analysis.model.opset_import)))
    state = {name: value for name, value, _ in carried}
    found = []
    try:
        for i in range(loop.count):
            values = [np.asarray(v) for v in evaluator.run(None, {loop.name: np.array(i, np.int64), **state})]
            found.append(values[:len(names)])
            state = {name: value for (name, _, _), value in zip(carried, values[len(names):])}
    except Exception:  # noqa: BLE001 - a node the reference cannot evaluate: the values stay unknown
        return None
    return found


def _recurrences(analysis: ModelAnalysis, names: list[str]):
    """(the nodes computing `names` and the next values of the carried values they read, those carried
    values as (input, initial value, output)), or None when something else is read."""
    loop = analysis.iteration
    known = {name: (name, value, output) for name, value, output in loop.carried}
    carried: dict[str, tuple] = {}
    while True:
        targets = [*names, *(output for _, _, output in carried.values())]
        nodes = _nodes_computing(analysis, targets, {loop.name, *known})
        if nodes is None:
            return None
        read = {name for node in nodes for name in node.input} | set(targets)
        more = {name: known[name] for name in read if name in known and name not in carried}
        if not more:
            return nodes, list(carried.values())
        carried.update(more)


def _nodes_computing(analysis: ModelAnalysis, names: list[str], leaves: set[str]) -> list[onnx.NodeProto] | None:
    """The nodes `names` need, in program order, when they read only `leaves` and compile-time values."""
    nodes = list(analysis.nodes)
    producer = {output: index for index, node in enumerate(nodes) for output in node.output if output}
    needed: set[int] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in analysis.constants or name in leaves:
            continue
        index = producer.get(name)
        if index is None:
            return None
        node = nodes[index]
        if node.domain not in DEFAULT_DOMAINS or has_subgraph(node) or node.op_type in NOT_FOLDABLE:
            return None
        if index not in needed:
            needed.add(index)
            pending.extend(n for n in node.input if n)
    return [nodes[index] for index in sorted(needed)]
