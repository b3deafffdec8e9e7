"""Which executor runs a module: one per level, chosen by the module's dialect.

`lamina-run` executes any stage's `.mlir`. Each level registers here how to
find its program's inputs and how to run it; the module's ops say which
level it is. A level that runs from other files (the accelerator binary)
adds its own entry point beside this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np
from mlir import ir

from lamina.dialects import model
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.types import TensorSpec

from . import buffer_interpreter, graph_interpreter


@dataclass(frozen=True)
class Executor:
    """How to run the modules of one dialect."""

    description: str
    input_types: Callable[[ir.Operation], dict[str, TensorSpec]]
    run: Callable[[ir.Operation, Mapping[str, np.ndarray]], dict[str, np.ndarray]]


# Dialect namespace -> executor of the modules written in it.
EXECUTORS: dict[str, Executor] = {
    "graph": Executor("graph reference interpreter", model.inputs, graph_interpreter.run),
    "buffer": Executor("buffer interpreter", buffer_interpreter.inputs, buffer_interpreter.run),
}

_STRUCTURAL = frozenset({"builtin", "func"})


def executor_for(module: ir.Operation) -> Executor:
    """The executor of the one Lamina level the module's ops belong to."""
    namespaces: set[str] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        namespaces.add(op.name.partition(".")[0])
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    levels = sorted(namespaces & EXECUTORS.keys())
    if len(levels) == 1:
        return EXECUTORS[levels[0]]
    if levels:
        raise LaminaError(f"the module mixes the dialects {', '.join(levels)}; each level runs on its own")
    found = ", ".join(sorted(namespaces - _STRUCTURAL)) or "none"
    raise LaminaError(f"no executor for this module (its dialects: {found}); "
                      f"executable dialects: {', '.join(sorted(EXECUTORS))}")
