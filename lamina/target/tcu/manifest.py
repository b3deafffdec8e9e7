"""The `.tmodel` manifest as data: Tensil's fields plus Lamina's plan (docs/accelerator.md, "Program files").

`.tmodel` is Tensil's JSON manifest plus what a host-fallback plan needs:
each input/output/Vars entry's logical shape, the data layout, and the plan
of accelerator instruction ranges, host graph modules and consts pages.
Consts entries that no plan step names are loaded into DRAM1 before the plan
runs; a `consts` step loads its entry (a page of weights) when the plan
reaches it. `manifest_schema` reads and checks one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from .architecture import Architecture

LAYOUT = "channel-tile-major"


@dataclass(frozen=True)
class TensorEntry:
    """A model input, output or Vars object in DRAM0.

    `base` None: the tensor lives on the host only (an output a host step
    computes, or an input only host steps read), with size 0.
    """

    name: str
    base: int | None
    size: int
    shape: tuple[int, ...]
    binary_point: int | None = None  # its format in DRAM0 (calibrated formats); None: the data type's


@dataclass(frozen=True)
class ProgramFile:
    file_name: str
    size: int  # bytes
    instructions: int


@dataclass(frozen=True)
class ConstsFile:
    file_name: str
    base: int  # DRAM1 vector address
    size: int  # vectors


@dataclass(frozen=True)
class AcceleratorStep:
    """Execute instructions [first, first + count)."""

    first: int
    count: int


@dataclass(frozen=True)
class ConstsStep:
    """Load consts entry `index` into DRAM1 at its base (over the previous page of weights)."""

    index: int


@dataclass(frozen=True)
class HostStep:
    """Run the graph module in `file_name` on the host (reads and writes are tensor names)."""

    file_name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]


PlanStep = Union[AcceleratorStep, ConstsStep, HostStep]


@dataclass(frozen=True)
class ModelManifest:
    name: str
    prog: ProgramFile
    consts: tuple[ConstsFile, ...]
    inputs: tuple[TensorEntry, ...]
    outputs: tuple[TensorEntry, ...]
    vars: tuple[TensorEntry, ...]
    arch: Architecture
    plan: tuple[PlanStep, ...]
    layout: str = LAYOUT

    def to_json(self) -> dict:
        def tensor(entry: TensorEntry) -> dict:
            fields = {"name": entry.name, "base": entry.base, "size": entry.size, "shape": list(entry.shape)}
            if entry.binary_point is not None:
                fields["binary_point"] = entry.binary_point
            return fields

        def step(entry: PlanStep) -> dict:
            if isinstance(entry, AcceleratorStep):
                return {"kind": "accelerator", "first": entry.first, "count": entry.count}
            if isinstance(entry, ConstsStep):
                return {"kind": "consts", "index": entry.index}
            return {"kind": "host", "file_name": entry.file_name,
                    "reads": list(entry.reads), "writes": list(entry.writes)}

        return {
            "name": self.name,
            "prog": {"file_name": self.prog.file_name, "size": self.prog.size,
                     "instructions": self.prog.instructions},
            "consts": [{"file_name": c.file_name, "base": c.base, "size": c.size} for c in self.consts],
            "inputs": [tensor(e) for e in self.inputs],
            "outputs": [tensor(e) for e in self.outputs],
            "vars": [tensor(e) for e in self.vars],
            "arch": self.arch.to_json(),
            "layout": self.layout,
            "plan": [step(s) for s in self.plan],
        }
