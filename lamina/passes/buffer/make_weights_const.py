"""buffer-make-weights-const: private weights nothing writes become read-only."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import analyze
from lamina.dialects.irdl import BOOL
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class MakeWeightsConst(Pass):
    """Mark a mutable, non-public `buffer.weight` that no op writes as `mutable = false` (Glow's MakeWeightsConst).

    A weight only ever read keeps the value it was loaded with, so it can
    live in the read-only region that memory planning shares across runs;
    the verifier then rejects any later pass that tries to write it. Public
    weights (model inputs and outputs) stay mutable: the caller writes and
    reads them between runs, whatever the program does. Writes count through
    views, with the roles of `lamina/dialects/buffer.py`. Always legal.
    """

    name = "buffer-make-weights-const"
    summary = "Mark private weights that nothing writes as read-only (mutable = false)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        _, buffers = analyze(op)
        for info in buffers.values():
            if info.kind != "weight" or any(access.role != "in" for access in info.accesses):
                continue
            weight = BUFFER.view(info.buffer.owner)
            if weight.attr("mutable") and not weight.attr("public"):
                weight.op.attributes["mutable"] = BOOL.encode(False)
