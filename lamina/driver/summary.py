"""The compile summary: what Tensil's `COMPILER SUMMARY` and `LAYERS SUMMARY` print, and more.

Every statistic of ACCELERATOR.md's list (tensil-facts §5.1) with Lamina's
definitions:

- memory sizes: each memory's depth in vectors, scalars and address bits;
- DRAM0 (Vars) and DRAM1 (Consts) usage: the highest vector the model files
  place anything at, in vectors and scalars, and as a share of the bank;
- local memory and accumulator usage: *maximum* = the largest per-layer high
  water mark, *aggregate* = the sum of the per-layer high water marks (what
  the scheduler allocated over the whole program); utilization = usage /
  depth;
- true MACs: the scheduler's count of multiply-accumulates with real
  operands (kernel taps on zero padding and padding lanes excluded, as
  Tensil counts them);
- cycles: the latency model (`latency.py`) summed over the whole program;
  MAC efficiency = true MACs / (cycles x N^2), overall and per layer;
- true consts scalars: scalars of the weights and constants the accelerator
  reads, before padding to tiles; consts utilization = true consts scalars /
  (vectors of all consts files x N), Tensil's measure of padding waste;
- consts pages: pages of weights the host loads into DRAM1 during a run
  when the consts do not fit at once (0: everything is loaded before it),
  and the bytes those loads move per run;
- host transfers: the page loads and the DRAM0 vectors host segments read
  and write, which the latency model does not see (they are not
  instructions), charged at its DataMove rate of one cycle per vector on
  their own lines: cycles and MAC efficiency *with host transfers* beside
  the program's own (the host's computation itself is not charged);
- DRAM traffic: bytes moved by DataMove instructions between DRAM and local
  memory, counted from the program itself;
- accuracy (when the compile checked itself, `accuracy.py`): per output the
  simulated binary against the float model on the calibration samples, and
  the worst layer by SQNR.

The summary is built once (`CompileSummary`) and printed as an aligned table
(`summary_text`) or JSON (`summary_json`), so both always agree.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.instruction_layout import InstructionLayout, bits_to_address
from lamina.target.tcu.latency import mac_efficiency, vectors_moved
from lamina.target.tcu.program import DataMoveKind, Opcode

from .accuracy import AccuracyReport, accuracy_text

DRAM0_KINDS = (DataMoveKind.DRAM0_TO_LOCAL, DataMoveKind.LOCAL_TO_DRAM0)
DRAM1_KINDS = (DataMoveKind.DRAM1_TO_LOCAL, DataMoveKind.LOCAL_TO_DRAM1)


@dataclass(frozen=True)
class LayerSummary:
    """One accelerator layer as the scheduler built it; usages in vectors."""

    index: int
    name: str
    stages: int
    partitions: int
    instructions: int
    cycles: int
    macs: int
    local_usage: int
    accumulator_usage: int


@dataclass(frozen=True)
class HostSegment:
    """Graph ops run on the host between accelerator steps, and why they cannot run on the array."""

    file_name: str
    ops: dict[str, int]  # graph op name -> how many
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class CompileSummary:
    model: str
    arch: Architecture
    program: np.ndarray = field(repr=False)  # INSTRUCTION records
    cycles: int
    layers: tuple[LayerSummary, ...]
    host_segments: tuple[HostSegment, ...]
    vars_vectors: int  # DRAM0 vectors the manifest places inputs, outputs and Vars in
    consts_vectors: int  # the highest DRAM1 vector used (+1)
    consts_file_vectors: int  # vectors of all consts files (resident and pages)
    consts_pages: int  # pages the host loads during a run
    page_vectors: int  # vectors of those pages (each loaded once per run)
    true_consts_scalars: int
    host_dram0_vectors: int  # DRAM0 vectors host segments read and write per run (`host_dram0_vectors`)
    stage_seconds: dict[str, float]  # wall clock
    accuracy: AccuracyReport | None = None  # the compile's self-check (accuracy.py)
    # CPU seconds of the whole process (every thread) during each stage: what a loaded machine does not inflate
    stage_cpu_seconds: dict[str, float] = field(default_factory=dict)

    # -- derived statistics --------------------------------------------------

    @property
    def layout(self) -> InstructionLayout:
        return InstructionLayout.of(self.arch)

    @property
    def instructions(self) -> int:
        return len(self.program)

    @property
    def program_bytes(self) -> int:
        return self.instructions * self.layout.instruction_bytes

    @property
    def macs(self) -> int:
        return sum(layer.macs for layer in self.layers)

    @property
    def mac_efficiency(self) -> float:
        return mac_efficiency(self.macs, self.cycles, self.arch)

    @property
    def host_transfer_cycles(self) -> int:
        """Page loads and host-segment DRAM0 traffic at the latency model's DataMove rate (1 vector/cycle)."""
        return self.page_vectors + self.host_dram0_vectors

    @property
    def vector_bytes(self) -> int:
        return self.arch.array_size * self.arch.data_type.width // 8

    def dram_traffic_vectors(self, kinds: tuple[DataMoveKind, ...]) -> int:
        """Vectors moved by the program's DataMoves of these kinds."""
        program = self.program
        selected = (program["opcode"] == Opcode.DATA_MOVE) & np.isin(program["flags"], [int(k) for k in kinds])
        return int(vectors_moved(program)[selected].sum())

    @property
    def compile_seconds(self) -> float:
        return sum(self.stage_seconds.values())

    def to_json(self) -> dict:
        """Every statistic, raw and derived, as JSON-ready values."""
        arch = self.arch
        n = arch.array_size
        layout = self.layout
        local_max = max((layer.local_usage for layer in self.layers), default=0)
        accumulator_max = max((layer.accumulator_usage for layer in self.layers), default=0)
        dram0_traffic = self.dram_traffic_vectors(DRAM0_KINDS)
        dram1_traffic = self.dram_traffic_vectors(DRAM1_KINDS)
        return {
            "model": self.model,
            "architecture": arch.name,
            "data_type": arch.data_type.name,
            "array_size": n,
            "memories": {name: {"vectors": depth, "scalars": depth * n, "address_bits": bits_to_address(depth)}
                         for name, depth in self._memories()},
            "instruction_layout": {"stride0_bits": layout.stride0_bits, "stride1_bits": layout.stride1_bits,
                                   "operand0_bits": layout.operand0_bits, "operand1_bits": layout.operand1_bits,
                                   "operand2_bits": layout.operand2_bits,
                                   "instruction_bytes": layout.instruction_bytes},
            "dram0_usage": _usage(self.vars_vectors, arch.dram0_depth, n),
            "dram1_usage": _usage(self.consts_vectors, arch.dram1_depth, n),
            "local_usage": {**_usage(local_max, arch.local_depth, n),
                            "aggregate_vectors": sum(layer.local_usage for layer in self.layers)},
            "accumulator_usage": {**_usage(accumulator_max, arch.accumulator_depth, n),
                                  "aggregate_vectors": sum(layer.accumulator_usage for layer in self.layers)},
            "layers": len(self.layers),
            "max_stages": max((layer.stages for layer in self.layers), default=0),
            "max_partitions": max((layer.partitions for layer in self.layers), default=0),
            "instructions": self.instructions,
            "program_bytes": self.program_bytes,
            "cycles": self.cycles,
            "true_macs": self.macs,
            "mac_efficiency": self.mac_efficiency,
            "true_consts_scalars": self.true_consts_scalars,
            "consts_utilization": _ratio(self.true_consts_scalars, self.consts_file_vectors * n),
            "consts_pages": self.consts_pages,
            "consts_page_bytes": self.page_vectors * self.vector_bytes,
            "dram0_traffic_bytes": dram0_traffic * self.vector_bytes,
            "dram1_traffic_bytes": dram1_traffic * self.vector_bytes,
            "host_dram0_bytes": self.host_dram0_vectors * self.vector_bytes,
            "host_transfer_cycles": self.host_transfer_cycles,
            "cycles_with_host_transfers": self.cycles + self.host_transfer_cycles,
            "mac_efficiency_with_host_transfers": mac_efficiency(self.macs, self.cycles + self.host_transfer_cycles,
                                                                 arch),
            "compile_seconds": self.compile_seconds,
            "stage_seconds": dict(self.stage_seconds),
            "stage_cpu_seconds": dict(self.stage_cpu_seconds),
            "host_segments": [asdict(segment) for segment in self.host_segments],
            "layer_table": [{**asdict(layer),
                             "mac_efficiency": mac_efficiency(layer.macs, layer.cycles, arch),
                             "local_utilization": _ratio(layer.local_usage, arch.local_depth),
                             "accumulator_utilization": _ratio(layer.accumulator_usage, arch.accumulator_depth)}
                            for layer in self.layers],
        }

    def _memories(self) -> list[tuple[str, int]]:
        arch = self.arch
        return [("dram0", arch.dram0_depth), ("dram1", arch.dram1_depth), ("local", arch.local_depth),
                ("accumulator", arch.accumulator_depth)]


def host_dram0_vectors(segments: tuple[HostSegment, ...], input_names: list[str], dram0_vectors: dict[str, int]
                       ) -> int:
    """DRAM0 vectors the host segments move per run, in plan order.

    A segment reads a Vars entry from DRAM0 unless the host has that value
    already (a model input or an earlier segment's result), and writes each
    result that has a Vars entry (`dram0_vectors`: name -> vectors placed in
    DRAM0) back for later accelerator steps (docs/accelerator.md, the plan).
    """
    on_host = set(input_names)
    moved = 0
    for segment in segments:
        moved += sum(dram0_vectors.get(name, 0) for name in segment.reads if name not in on_host)
        moved += sum(dram0_vectors.get(name, 0) for name in segment.writes)
        on_host.update(segment.writes)
    return moved


def _ratio(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _usage(vectors: int, depth: int, n: int) -> dict:
    return {"vectors": vectors, "scalars": vectors * n, "utilization": _ratio(vectors, depth)}


# -- text ---------------------------------------------------------------------

def summary_json(summary: CompileSummary) -> str:
    return json.dumps(_with_accuracy(summary.to_json(), summary), indent=2) + "\n"


def _with_accuracy(stats: dict, summary: CompileSummary) -> dict:
    return {**stats, "accuracy": summary.accuracy.to_json()} if summary.accuracy else stats


def summary_text(summary: CompileSummary) -> str:
    """Tensil-like aligned text: the compile summary, the host partition, the layers table, the accuracy."""
    stats = summary.to_json()
    sections = [_compiler_section(stats), _host_section(stats), _layers_section(stats),
                accuracy_text(summary.accuracy) if summary.accuracy else ""]
    return "\n\n".join(section for section in sections if section) + "\n"


def _count(value: int) -> str:
    return f"{value:,}"


def _percent(value: float) -> str:
    return f"{100 * value:.3f}"


def _compiler_section(stats: dict) -> str:
    memories = stats["memories"]
    layout = stats["instruction_layout"]
    rows = [
        ("Model", stats["model"]),
        ("Architecture", stats["architecture"]),
        ("Data type", stats["data_type"]),
        ("Array size", str(stats["array_size"])),
    ]
    for key, label in (("dram0", "DRAM0"), ("dram1", "DRAM1"), ("local", "Local"),
                       ("accumulator", "Accumulator")):
        memory = memories[key]
        rows.append((f"{label} memory size (vectors/scalars/bits)",
                     f"{_count(memory['vectors'])} / {_count(memory['scalars'])} / {memory['address_bits']}"))
    rows += [
        ("Stride #0/#1 size (bits)", f"{layout['stride0_bits']} / {layout['stride1_bits']}"),
        ("Operand #0/#1/#2 size (bits)",
         f"{layout['operand0_bits']} / {layout['operand1_bits']} / {layout['operand2_bits']}"),
        ("Instruction size (bytes)", str(layout["instruction_bytes"])),
    ]
    for key, label in (("dram0_usage", "DRAM0 (Vars) usage"), ("dram1_usage", "DRAM1 (Consts) usage")):
        usage = stats[key]
        rows.append((f"{label} (vectors/scalars/%)",
                     f"{_count(usage['vectors'])} / {_count(usage['scalars'])} / {_percent(usage['utilization'])}"))
    for key, label in (("local_usage", "Local memory"), ("accumulator_usage", "Accumulator memory")):
        usage = stats[key]
        rows.append((f"{label} maximum usage (vectors/scalars/%)",
                     f"{_count(usage['vectors'])} / {_count(usage['scalars'])} / {_percent(usage['utilization'])}"))
        rows.append((f"{label} aggregate usage (vectors)", _count(usage["aggregate_vectors"])))
    rows += [
        ("Number of layers", str(stats["layers"])),
        ("Maximum number of stages", str(stats["max_stages"])),
        ("Maximum number of partitions", str(stats["max_partitions"])),
        ("Total number of instructions", _count(stats["instructions"])),
        ("Program size (bytes)", _count(stats["program_bytes"])),
        ("Estimated cycles (latency model)", _count(stats["cycles"])),
        ("True MACs", _count(stats["true_macs"])),
        ("MAC efficiency (%)", _percent(stats["mac_efficiency"])),
        ("True consts scalar size", _count(stats["true_consts_scalars"])),
        ("Consts utilization (%)", _percent(stats["consts_utilization"])),
        ("Consts pages loaded by the host (count/bytes)",
         f"{stats['consts_pages']} / {_count(stats['consts_page_bytes'])}"),
        ("DRAM0 traffic (bytes)", _count(stats["dram0_traffic_bytes"])),
        ("DRAM1 traffic (bytes)", _count(stats["dram1_traffic_bytes"])),
        ("Host segments' DRAM0 traffic (bytes)", _count(stats["host_dram0_bytes"])),
        ("Host transfers (cycles at 1 vector/cycle)", _count(stats["host_transfer_cycles"])),
        ("Estimated cycles with host transfers", _count(stats["cycles_with_host_transfers"])),
        ("MAC efficiency with host transfers (%)", _percent(stats["mac_efficiency_with_host_transfers"])),
        ("Compilation time (seconds)", f"{stats['compile_seconds']:.3f}"),
    ]
    return _aligned("COMPILER SUMMARY", rows)


def _aligned(title: str, rows: list[tuple[str, str]]) -> str:
    width = max(len(label) for label, _ in rows)
    return "\n".join([title, *(f"  {label:<{width}}  {value}" for label, value in rows)])


def _host_section(stats: dict) -> str:
    segments = stats["host_segments"]
    if not segments:
        return "HOST PARTITION\n  everything runs on the accelerator"
    lines = ["HOST PARTITION"]
    for segment in segments:
        ops = ", ".join(f"{name} x{count}" for name, count in segment["ops"].items())
        lines.append(f"  {segment['file_name']}: {ops}; reads {', '.join(segment['reads'])}; "
                     f"writes {', '.join(segment['writes'])}")
        lines.extend(f"    because {reason}" for reason in segment["reasons"])
    return "\n".join(lines)


LAYER_COLUMNS = (("layer", "index", str), ("name", "name", str), ("stages", "stages", str),
                 ("partitions", "partitions", str), ("instructions", "instructions", _count),
                 ("cycles", "cycles", _count), ("MACs", "macs", _count),
                 ("MAC eff %", "mac_efficiency", lambda v: f"{100 * v:.1f}"),
                 ("acc util %", "accumulator_utilization", lambda v: f"{100 * v:.1f}"),
                 ("local util %", "local_utilization", lambda v: f"{100 * v:.1f}"))


def _layers_section(stats: dict) -> str:
    if not stats["layer_table"]:
        return ""
    header = [title for title, _, _ in LAYER_COLUMNS]
    rows = [[show(layer[key]) for _, key, show in LAYER_COLUMNS] for layer in stats["layer_table"]]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        # The name column reads left-aligned, numbers right-aligned.
        return "  " + "  ".join(cell.ljust(w) if i == 1 else cell.rjust(w)
                                for i, (cell, w) in enumerate(zip(cells, widths)))

    return "\n".join(["LAYERS SUMMARY", line(header), *(line(row) for row in rows)])
