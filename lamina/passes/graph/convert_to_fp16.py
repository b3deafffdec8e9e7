"""graph-convert-to-fp16: Glow's ConvertToFP16 precision mode."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import CONSTANT
from lamina.dialects.types import spec_of
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from lamina.dialects.values import constant_value, defining_op, has_uses, producer

from .rewriting import create_constant, graph_ops, replace_op

F32, F16 = np.dtype(np.float32), np.dtype(np.float16)


@register_pass
@dataclass(frozen=True)
class GraphConvertToFP16(Pass):
    """Compute every f32 op in f16, converting at the borders; the model's interface stays f32.

    Glow's ConvertToFP16 (`transformForPrecisionMode`), which runs after
    quantization, so the two combine into mixed precision: quantized ops and
    ops of kinds in `keep` are left alone. An op converts when all its
    operands and results are f32; constants become f16 constants, other
    operands pass through a `graph.convert` (one per value), and a convert
    back to f32 feeds consumers that stay f32. Placeholders, saves and
    constants are not ops that compute, so they stay as they are.
    """

    name = "graph-convert-to-fp16"
    summary = "Compute f32 ops in f16 with converts at the borders (Glow's ConvertToFP16)"
    op_name = "builtin.module"

    keep: tuple[str, ...] = option((), "graph op kinds to keep in f32 (e.g. softmax)")

    def run(self, op: ir.Operation) -> None:
        unknown = [kind for kind in self.keep if kind not in GRAPH.ops]
        if unknown:
            raise LaminaError(f"graph-convert-to-fp16: option 'keep' names '{unknown[0]}', which is not a graph op kind")
        narrowed: dict[ir.Value, ir.Value] = {}
        for candidate in graph_ops(op):
            view = GRAPH.view(candidate)
            specs = [*view.operand_specs(), *view.result_specs()]
            if (view.definition.quantized == "carrier" or view.definition.has(CONSTANT) or view.name == "convert"
                    or view.name in self.keep or not view.op.results
                    or not all(s.quant is None and s.dtype == F32 for s in specs)):
                continue
            with ir.InsertionPoint(candidate), candidate.location:
                operands = [_narrow(value, narrowed) for value in candidate.operands]
                results = [s.with_dtype(F16) for s in view.result_specs()]
                new = GRAPH.create(view.name, *operands, result_types=results, loc=candidate.location, **view.attrs())
                widened = [GRAPH.create("convert", r, result_types=[spec_of(old.type)], loc=candidate.location).result
                           for r, old in zip(new.results, candidate.results)]
            replace_op(candidate, widened)
        for dead in reversed(graph_ops(op)):
            if dead.name == "graph.convert" and not has_uses(dead.results[0]):
                dead.erase()


def _narrow(value: ir.Value, narrowed: dict[ir.Value, ir.Value]) -> ir.Value:
    """`value` as f16: the f16 result a convert widened, an f16 constant, or one convert per value."""
    widening = producer(value, "convert")
    if widening is not None and spec_of(widening.operands[0].type).dtype == F16:
        return widening.operands[0]
    array = constant_value(value)
    if array is not None:
        return create_constant(array.astype(F16), defining_op(value).location)
    if value not in narrowed:
        owner = defining_op(value)
        with ir.InsertionPoint.after(owner):
            narrowed[value] = GRAPH.create("convert", value, result_types=[spec_of(value.type).with_dtype(F16)],
                                           loc=owner.location).result
    return narrowed[value]
