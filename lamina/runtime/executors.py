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

from lamina.target.tcu.model_files import read_manifest

from . import buffer_interpreter, cpu_executor, graph_interpreter, hir_interpreter, tcu_simulator


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
    "hir": Executor("HIR executor (the accelerator's fixed point)", hir_interpreter.inputs, hir_interpreter.run_hir),
}

_STRUCTURAL = frozenset({"builtin", "func"})

# Targets that compile a graph module instead of interpreting it (`lamina-run --target`),
# by name, then by fallback policy ("none" or "interpreter").
TARGETS: dict[str, dict[str, Executor]] = {
    "cpu": {
        "none": Executor("CPU, upstream MLIR + ExecutionEngine", model.inputs, cpu_executor.run),
        "interpreter": Executor("CPU, or the graph interpreter if it does not compile", model.inputs,
                                cpu_executor.run_or_interpret),
    },
}


def target_executor(module: ir.Operation, target: str, fallback: str = "none") -> Executor:
    """The executor compiling a graph module for `target`."""
    if executor_for(module) is not EXECUTORS["graph"]:
        raise LaminaError(f"--target {target} compiles graph modules; this module is not one")
    return TARGETS[target][fallback]


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


# A compiled accelerator model runs from its files (`NAME.tmodel` and those it names), not a module.
TMODEL_SUFFIX = ".tmodel"


def accelerator_inputs(path: str) -> dict[str, TensorSpec]:
    """The float32 inputs a `.tmodel` expects."""
    return {entry.name: TensorSpec(entry.shape, np.float32) for entry in read_manifest(path).inputs}


def accelerator_executor(on_result: Callable[[tcu_simulator.SimulationResult], None]) -> Executor:
    """Runs a `.tmodel` path on the simulator; `on_result` receives the cycles and instruction counts."""
    def run(path: str, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        result = tcu_simulator.simulate(path, inputs)
        on_result(result)
        return result.outputs

    return Executor("TCU simulator", accelerator_inputs, run)
