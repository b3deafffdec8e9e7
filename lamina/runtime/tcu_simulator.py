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
A simulation that runs longer than `PROGRESS_SECONDS` reports instructions
done / total on stderr every `PROGRESS_SECONDS`.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import numpy as np

from lamina.target.tcu.data_layout import from_vectors, to_vectors
from lamina.target.tcu.encoding import decode
from lamina.target.tcu.latency import OpcodeSummary, instruction_cycles, summarize_by_opcode
from lamina.target.tcu.model_files import AcceleratorStep, ConstsStep, LoadedModel, TensorEntry, read_model
from lamina.dialects import model as model_module
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError

from . import graph_interpreter
from .dram_writes import DramWrites
from .graph_interpreter import describe
from .tcu_machine import DRAM0, DRAM1, Machine, memory_extents


PROGRESS_SECONDS = 2.0


class _Progress:
    """Instructions done / total on stderr, every `PROGRESS_SECONDS` once that long has passed."""

    def __init__(self, total: int, inputs: int):
        self.total, self.inputs, self.done = total, inputs, 0
        self.start = self.last = time.monotonic()

    def __call__(self, done_in_step: int) -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_SECONDS:
            self.last = now
            print(f"simulating {self.inputs} input(s): {self.done + done_in_step:,} / {self.total:,} instructions "
                  f"({now - self.start:.0f} s)", file=sys.stderr, flush=True)

    def step_done(self, count: int) -> None:
        self.done += count


@dataclass(frozen=True)
class SimulationResult:
    outputs: dict[str, np.ndarray]  # float32, by output name
    cycles: int  # latency-model estimate of the executed instructions
    instructions: int
    instructions_by_opcode: dict[str, OpcodeSummary]
    saturations: dict[str, int]  # lanes clipped by saturation, by opcode (over the inputs run together)


def check_inputs(entries: tuple[TensorEntry, ...], given: Mapping[str, np.ndarray], source: str) -> None:
    """The given inputs are exactly the manifest's, with its shapes; else a LaminaError.

    Inputs are floats, or integers such as Gather's indices: host steps read
    them as given, the accelerator converted to its data type.
    """
    expected = {entry.name: entry.shape for entry in entries}
    unknown = sorted(set(given) - set(expected))
    missing = [name for name in expected if name not in given]
    if unknown or missing:
        parts = ([f"missing input(s) {', '.join(missing)}"] if missing else []) + \
                ([f"unknown input(s) {', '.join(unknown)}"] if unknown else [])
        raise LaminaError(f"{source}: {'; '.join(parts)}; the model's inputs are "
                          + ", ".join(f"'{name}' {list(shape)}" for name, shape in expected.items()))
    for entry in entries:
        array = np.asarray(given[entry.name])
        if array.shape != entry.shape or not np.issubdtype(array.dtype, np.number) or \
                np.issubdtype(array.dtype, np.complexfloating):
            raise LaminaError(f"{source}: input '{entry.name}': expected float32 {list(entry.shape)}, "
                              f"got {describe(array.shape, array.dtype)}")


class _Run:
    """One simulation of `inputs` inputs at once: the machine, the host's values per input, the model's tables."""

    def __init__(self, loaded: LoadedModel, program: np.ndarray, inputs: int = 1):
        manifest = loaded.manifest
        self.loaded = loaded
        self.arch = manifest.arch
        self.vars = {entry.name: entry for entry in manifest.vars}
        self.host_values: list[dict[str, np.ndarray]] = [{} for _ in range(inputs)]
        extents = memory_extents(program, self.arch)
        dram0 = max([extents[DRAM0]] + [e.base + e.size for e in (*manifest.inputs, *manifest.outputs,
                                                                     *manifest.vars) if e.base is not None])
        dram1 = max([extents[DRAM1]] + [c.base + c.size for c in manifest.consts])
        self.machine = Machine(self.arch, dram0, dram1, inputs)
        self.writes = DramWrites(dram0, dram1)
        paged = {step.index for step in manifest.plan if isinstance(step, ConstsStep)}
        for index in range(len(manifest.consts)):
            if index not in paged:
                self.load_consts(index)

    def load_consts(self, index: int) -> None:
        consts = self.loaded.manifest.consts[index]
        self.machine.batched[DRAM1][0, consts.base:consts.base + consts.size] = self.loaded.consts_images[index]
        self.writes.mark(DRAM1, consts.base, consts.size)

    def data_type(self, entry: TensorEntry):
        """The format of a DRAM0 tensor: its own binary point under calibrated formats."""
        data_type = self.arch.data_type
        return data_type if entry.binary_point is None else data_type.at(entry.binary_point)

    def write_tensor(self, entry: TensorEntry, value: np.ndarray, index: int) -> None:
        fixed = self.data_type(entry).from_float(value)
        dram0 = self.machine.batched[DRAM0][index]
        dram0[entry.base:entry.base + entry.size] = to_vectors(fixed, self.arch.array_size)
        self.writes.mark(DRAM0, entry.base, entry.size)

    def read_tensor(self, entry: TensorEntry, index: int) -> np.ndarray:
        vectors = self.machine.batched[DRAM0][index][entry.base:entry.base + entry.size]
        return self.data_type(entry).to_float(from_vectors(vectors, entry.shape, self.arch.array_size))

    def host_step(self, file_name: str) -> None:
        source = str(self.loaded.path.parent / file_name)
        module = parse_module(self.loaded.host_modules[file_name], make_context(), source)
        placeholders = model_module.inputs(module)
        for index, host_values in enumerate(self.host_values):
            feeds = {}
            for name, spec in placeholders.items():
                if name in host_values:
                    value = host_values[name]
                elif name in self.vars and self.vars[name].base is not None:
                    entry = self.vars[name]
                    self.writes.check_tensor(name, entry.base, entry.size, str(self.loaded.path))
                    value = self.read_tensor(entry, index)
                else:
                    raise LaminaError(f"{source}: placeholder '{name}' is neither a model input, an earlier "
                                      f"host result nor a Vars entry of {self.loaded.path}")
                # Model inputs are kept as given, Vars come back from fixed point: a float placeholder
                # (float32, or a float64 model's) reads either in its own type.
                floats = np.issubdtype(value.dtype, np.floating) and np.issubdtype(spec.dtype, np.floating)
                feeds[name] = value.astype(spec.dtype) if floats else value
            try:
                results = graph_interpreter.run(module, feeds)
            except LaminaError as error:
                raise LaminaError(f"{source}: host step failed: {error}") from None
            for name, value in results.items():
                host_values[name] = value
                if name in self.vars and self.vars[name].base is not None:
                    self.write_tensor(self.vars[name], value, index)

    def output(self, entry: TensorEntry, index: int) -> np.ndarray:
        if entry.base is None:
            if entry.name not in self.host_values[index]:
                raise LaminaError(f"{self.loaded.path}: output '{entry.name}' has base null but no host "
                                  f"step produced it")
            return np.asarray(self.host_values[index][entry.name], dtype=np.float32)
        self.writes.check_tensor(entry.name, entry.base, entry.size, str(self.loaded.path))
        return self.read_tensor(entry, index)


def simulate(model_path: str | Path, inputs: Mapping[str, np.ndarray], *, batch: bool = True,
             progress: bool = True) -> SimulationResult:
    """Run a compiled model on `inputs` (float arrays by input name)."""
    (result,) = list(simulate_samples(model_path, [inputs], batch=batch, progress=progress))
    return result


def simulate_samples(model_path: str | Path, samples: Iterable[Mapping[str, np.ndarray]], *,
                     batch: bool = True, together: int = 1, progress: bool = True) -> Iterator[SimulationResult]:
    """Run a compiled model on each of `samples`, reading and decoding its files once; `together` inputs
    at a time run as one machine with that many copies of its memories (the same instructions apply to
    all: much faster per input, `together` times the memory). `progress`: report long runs on stderr."""
    loaded = read_model(model_path)
    manifest = loaded.manifest
    program = decode(loaded.program_bytes, manifest.arch, source=str(loaded.path.parent / manifest.prog.file_name))
    group: list[Mapping[str, np.ndarray]] = []
    for inputs in samples:
        group.append(inputs)
        if len(group) == together:
            yield from _simulate(loaded, program, group, batch, progress)
            group = []
    if group:
        yield from _simulate(loaded, program, group, batch, progress)


def _simulate(loaded: LoadedModel, program: np.ndarray, group: list[Mapping[str, np.ndarray]],
              batch: bool, progress: bool) -> list[SimulationResult]:
    manifest = loaded.manifest
    for inputs in group:
        check_inputs(manifest.inputs, inputs, str(loaded.path))
    run = _Run(loaded, program, len(group))
    for index, inputs in enumerate(group):
        for entry in manifest.inputs:
            given = np.asarray(inputs[entry.name])
            run.host_values[index][entry.name] = given  # a host step reads it in its placeholder's type
            if entry.base is not None:
                run.write_tensor(entry, inputs[entry.name], index)
    executed = []
    steps = [step for step in manifest.plan if isinstance(step, AcceleratorStep)]
    reporter = _Progress(sum(step.count for step in steps), len(group)) if progress else None
    for step in manifest.plan:
        if isinstance(step, AcceleratorStep):
            run.writes.replay(program, step.first, step.count, str(loaded.path))
            run.machine.run(program, step.first, step.count, batch=batch, progress=reporter, checked=True)
            executed.append(np.arange(step.first, step.first + step.count))
            if reporter is not None:
                reporter.step_done(step.count)
        elif isinstance(step, ConstsStep):
            run.load_consts(step.index)
        else:
            run.host_step(step.file_name)
    executed = np.concatenate(executed) if executed else np.zeros(0, np.int64)
    cycles = instruction_cycles(program, manifest.arch)[executed]
    by_opcode = summarize_by_opcode(program[executed], cycles)
    return [SimulationResult(outputs={entry.name: run.output(entry, index) for entry in manifest.outputs},
                             cycles=int(cycles.sum()), instructions=len(executed), instructions_by_opcode=by_opcode,
                             saturations=dict(run.machine.saturations.by_opcode))
            for index in range(len(group))]
