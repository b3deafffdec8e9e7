"""Accelerator rules: the graph ops with an HIR form, the form's kind, and the function emitting it.

The partition asks this table whether an op can run on the accelerator
(`form_of`), the layering how it joins a layer, and the emitter how to emit
it. The rules live in one module per op family, named as at every other
level (`convolution.py`, `linear.py`, `pooling.py`, `activations.py`,
`elementwise.py`, `shape_ops.py`); placements (concat, reshape) have no
emitter: the memory manager places their values instead of computing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lamina.dialects.graph import GRAPH
from lamina.dialects.op_registry import OpRegistry

# Kinds of HIR form.
MATMUL = "matmul"  # convolution, fully-connected, matmul: weights through the array
POOL = "pool"  # a layer of its own (load -> pool -> save)
ELEMENTWISE = "elementwise"  # two operands, or one with a per-channel constant, in the accumulators
ACTIVATION = "activation"  # one operand, in the accumulators
PLACEMENT = "placement"  # no computation: the value is placed in DRAM0


@dataclass(frozen=True)
class Rule:
    form: str
    emit: Callable | None  # (emitter, op, temps, escaping) -> None; None for a placement


RULES: OpRegistry[Rule] = OpRegistry("accelerator rule", GRAPH)


def rule(*names: str, form: str):
    """Decorator: the decorated emitter method is the HIR form of the graph ops `names`."""

    def decorate(emit: Callable) -> Callable:
        for name in names:
            RULES.add(name, Rule(form, emit))
        return emit

    return decorate


def form_of(name: str) -> str | None:
    """The kind of HIR form of `graph.<name>`, or None if it has none."""
    return RULES[name].form if name in RULES else None
