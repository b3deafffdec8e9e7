"""graph-lower: expand high-level ops into linear-algebra and element-wise ops, as a backend asks."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.backends import BackendName, backend_named
from lamina.dialects.graph import GRAPH
from lamina.dialects.values import defining_op, op_name
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from .lowerings import LOWERINGS, Emitter
from .rewriting import erase_if_unused, graph_ops, replace_op


@register_pass
@dataclass(frozen=True)
class GraphLower(Pass):
    """Replace each op that has a lowering and that the backend's `should_lower` wants
    lowered by the simpler ops computing the same value (Glow's `lower` stage).

    Lowerings (`lamina/passes/graph/lowerings/`): fully_connected -> matmul, broadcast,
    add; batch_norm -> sub, mul, add by per-channel vectors (the factor
    scale / sqrt(variance + epsilon) computed at compile time when constant);
    layer_norm -> reduce_mean and arithmetic; softmax -> reduce_max, sub, exp,
    reduce_sum, div; lrn -> square, channel pad, slices, sum and arithmetic;
    gelu -> erf or tanh arithmetic; swish -> mul by sigmoid; global_avg_pool
    and global_max_pool -> avg_pool and max_pool over the whole image. Each
    rebuilds the interpreter's formula, so results are bit-for-bit the same,
    except global_avg_pool's (summation order: a few ulps).

    Always legal: every lowering computes the op's value from its operands;
    the new ops take the lowered op's location. A backend that can run an
    op as it is just does not ask for its lowering. Constants only the
    lowered op read are erased with it.
    """

    name = "graph-lower"
    summary = "Lower high-level graph ops into linear-algebra and element-wise ops where the backend asks"

    backend: BackendName = option("reference", "the backend whose should_lower decides what is lowered")

    def run(self, op: ir.Operation) -> None:
        backend = backend_named(self.backend)
        for candidate in graph_ops(op):
            lowering = LOWERINGS.get(op_name(candidate))
            view = GRAPH.view(candidate) if lowering is not None else None
            if view is None or not backend.should_lower(view):
                continue
            with candidate.location, ir.InsertionPoint(candidate):
                result = lowering(view, Emitter(candidate.location))
            producers = [defining_op(value) for value in dict.fromkeys(candidate.operands)]
            replace_op(candidate, [result])
            for producer in producers:
                erase_if_unused(producer)
