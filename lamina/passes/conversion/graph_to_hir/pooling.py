"""HIR emission of the pooling family: max_pool and avg_pool, a layer of their own (load -> pool -> save).

Average pools arrive split by `average_pools.py` so that window sums stay in range.
"""

from __future__ import annotations

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.values import op_name

from .emit import HirEmitter, Temps
from .rules import POOL, rule


@rule("max_pool", "avg_pool", form=POOL)
def emit_pool(emitter: HirEmitter, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
    kind, loc, attrs = op_name(op), op.location, GRAPH.view(op).attrs()
    source = emitter.loaded(op.operands[0], temps, loc)
    temps[op.result] = emitter.temp(op.result, loc)
    emitter.op("pool", temps[op.result], source, loc=loc, kind=kind.removesuffix("_pool"), kernel=attrs["kernel"],
               strides=attrs["strides"], pads=attrs["pads"], count_include_pad=attrs.get("count_include_pad", False))
