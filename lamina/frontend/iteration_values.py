"""Values of a Loop body that depend only on its iteration number, at every iteration.

A Loop with a compile-time trip count N runs its body with the iteration
numbers 0 .. N-1 (fewer when its condition stops it first). A value the
body computes from the iteration number and compile-time values alone takes
at most those N values; evaluating its nodes (ONNX's reference
implementation) for each one tells the importer every value it can have.
Slice bounds computed so (ONNX's `test_loop11`: `x[i:i+1]`) then give a
slice whose size is the same at every iteration: a `graph.dynamic_slice`
with a static result type.
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
    compile-time trip count and each name is computed from the iteration number and compile-time values only."""
    if analysis.iteration is None or not 0 < analysis.iteration[1] <= MAX_ITERATIONS:
        return None
    iteration, count = analysis.iteration
    nodes = _nodes_computing(analysis, names, iteration)
    if nodes is None:
        return None
    used = {name for node in nodes for name in node.input if name}
    constants = [numpy_helper.from_array(analysis.constants[name], name) for name in sorted(used)
                 if name in analysis.constants]
    graph = helper.make_graph(nodes, "iteration_values",
                              [helper.make_tensor_value_info(iteration, onnx.TensorProto.INT64, [])],
                              [helper.make_empty_tensor_value_info(name) for name in names], constants)
    evaluator = ReferenceEvaluator(helper.make_model(graph, opset_imports=list(analysis.model.opset_import)))
    try:
        return [[np.asarray(v) for v in evaluator.run(None, {iteration: np.array(i, np.int64)})]
                for i in range(count)]
    except Exception:  # noqa: BLE001 - a node the reference cannot evaluate: the values stay unknown
        return None


def _nodes_computing(analysis: ModelAnalysis, names: list[str], iteration: str) -> list[onnx.NodeProto] | None:
    """The nodes `names` need, in program order, when they read only `iteration` and compile-time values."""
    nodes = list(analysis.nodes)
    producer = {output: index for index, node in enumerate(nodes) for output in node.output if output}
    needed: set[int] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name in analysis.constants or name == iteration:
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
