"""Run a compiled `.tmodel` on the simulated processing unit, following its plan.

As docs/accelerator.md ("Program files") says: inputs are converted to the
data type and written at their DRAM0 bases in the channel-tile-major layout,
the consts entries no plan step names (`.tdata`) are loaded into DRAM1,
then the plan runs in order. Accelerator steps execute instruction ranges
on `tcu_machine.Machine`; consts steps load a page of weights into DRAM1
(host DMA, not counted in cycles); host steps run
their graph module with the reference interpreter, reading host values
(model inputs and earlier host results, exact floats) or else Vars from
DRAM0, and writing results back to DRAM0 when a Vars entry has their name.
Cycles are the latency model's estimate of the executed instructions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from lamina.target.tcu.data_layout import from_vectors, to_vectors
from lamina.target.tcu.encoding import decode
from lamina.target.tcu.latency import OpcodeSummary, instruction_cycles, summarize_by_opcode
from lamina.target.tcu.model_files import AcceleratorStep, ConstsStep, LoadedModel, TensorEntry, read_model
from lamina.dialects import model as model_module
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError

from . import graph_interpreter
from .graph_interpreter import describe
from .tcu_machine import DRAM0, DRAM1, Machine, memory_extents


@dataclass(frozen=True)
class SimulationResult:
    outputs: dict[str, np.ndarray]  # float32, by output name
    cycles: int  # latency-model estimate of the executed instructions
    instructions: int
    instructions_by_opcode: dict[str, OpcodeSummary]
    saturations: dict[str, int]  # lanes clipped by saturation, by opcode


def check_inputs(entries: tuple[TensorEntry, ...], given: Mapping[str, np.ndarray], source: str) -> None:
    """The given inputs are exactly the manifest's, with its shapes; else a LaminaError."""
    expected = {entry.name: entry.shape for entry in entries}
    unknown = sorted(set(given) - set(expected))
    missing = [name for name in expected if name not in given]
    if unknown or missing:
        parts = ([f"missing input(s) {', '.join(missing)}"] if missing else []) + \
                ([f"unknown input(s) {', '.join(unknown)}"] if unknown else [])
        raise LaminaError(f"{source}: {'; '.join(parts)}; the model's inputs are "
                          + ", ".join(f"'{name}' {list(shape)}" for name, shape in expected.items()))
    for name, shape in expected.items():
        array = np.asarray(given[name])
        if array.shape != shape or not np.issubdtype(array.dtype, np.floating):
            raise LaminaError(f"{source}: input '{name}': expected float32 {list(shape)}, "
                              f"got {describe(array.shape, array.dtype)}")


class _Run:
    """One simulation: the machine, the host's values, and the model's tables."""

    def __init__(self, loaded: LoadedModel, program: np.ndarray):
        manifest = loaded.manifest
        self.loaded = loaded
        self.arch = manifest.arch
        self.vars = {entry.name: entry for entry in manifest.vars}
        self.host_values: dict[str, np.ndarray] = {}
        extents = memory_extents(program, self.arch)
        dram0 = max([extents[DRAM0]] + [e.base + e.size for e in (*manifest.inputs, *manifest.outputs,
                                                                     *manifest.vars) if e.base is not None])
        dram1 = max([extents[DRAM1]] + [c.base + c.size for c in manifest.consts])
        self.machine = Machine(self.arch, dram0, dram1)
        paged = {step.index for step in manifest.plan if isinstance(step, ConstsStep)}
        for index in range(len(manifest.consts)):
            if index not in paged:
                self.load_consts(index)

    def load_consts(self, index: int) -> None:
        consts = self.loaded.manifest.consts[index]
        self.machine.memories[DRAM1][consts.base:consts.base + consts.size] = self.loaded.consts_images[index]

    def write_tensor(self, entry: TensorEntry, value: np.ndarray) -> None:
        fixed = self.arch.data_type.from_float(value)
        self.machine.memories[DRAM0][entry.base:entry.base + entry.size] = to_vectors(fixed, self.arch.array_size)

    def read_tensor(self, entry: TensorEntry) -> np.ndarray:
        vectors = self.machine.memories[DRAM0][entry.base:entry.base + entry.size]
        return self.arch.data_type.to_float(from_vectors(vectors, entry.shape, self.arch.array_size))

    def host_step(self, file_name: str) -> None:
        source = str(self.loaded.path.parent / file_name)
        module = parse_module(self.loaded.host_modules[file_name], make_context(), source)
        feeds = {}
        for name in model_module.inputs(module):
            if name in self.host_values:
                feeds[name] = self.host_values[name]
            elif name in self.vars and self.vars[name].base is not None:
                feeds[name] = self.read_tensor(self.vars[name])
            else:
                raise LaminaError(f"{source}: placeholder '{name}' is neither a model input, an earlier "
                                  f"host result nor a Vars entry of {self.loaded.path}")
        try:
            results = graph_interpreter.run(module, feeds)
        except LaminaError as error:
            raise LaminaError(f"{source}: host step failed: {error}") from None
        for name, value in results.items():
            self.host_values[name] = value
            if name in self.vars and self.vars[name].base is not None:
                self.write_tensor(self.vars[name], value)

    def output(self, entry: TensorEntry) -> np.ndarray:
        if entry.base is None:
            if entry.name not in self.host_values:
                raise LaminaError(f"{self.loaded.path}: output '{entry.name}' has base null but no host "
                                  f"step produced it")
            return np.asarray(self.host_values[entry.name], dtype=np.float32)
        return self.read_tensor(entry)


def simulate(model_path: str | Path, inputs: Mapping[str, np.ndarray], *,
             batch: bool = True) -> SimulationResult:
    """Run a compiled model on `inputs` (float arrays by input name)."""
    loaded = read_model(model_path)
    manifest = loaded.manifest
    check_inputs(manifest.inputs, inputs, str(loaded.path))
    program = decode(loaded.program_bytes, manifest.arch, source=str(loaded.path.parent / manifest.prog.file_name))
    run = _Run(loaded, program)
    for entry in manifest.inputs:
        run.host_values[entry.name] = np.asarray(inputs[entry.name], dtype=np.float32)
        if entry.base is not None:
            run.write_tensor(entry, inputs[entry.name])
    executed = []
    for step in manifest.plan:
        if isinstance(step, AcceleratorStep):
            run.machine.run(program, step.first, step.count, batch=batch)
            executed.append(np.arange(step.first, step.first + step.count))
        elif isinstance(step, ConstsStep):
            run.load_consts(step.index)
        else:
            run.host_step(step.file_name)
    executed = np.concatenate(executed) if executed else np.zeros(0, np.int64)
    cycles = instruction_cycles(program, manifest.arch)[executed]
    return SimulationResult(
        outputs={entry.name: run.output(entry) for entry in manifest.outputs},
        cycles=int(cycles.sum()),
        instructions=len(executed),
        instructions_by_opcode=summarize_by_opcode(program[executed], cycles),
        saturations=dict(run.machine.saturations.by_opcode))
