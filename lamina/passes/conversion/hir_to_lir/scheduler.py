"""The scheduler: a HIR program to one instruction stream, with per-layer statistics and the run plan.

Per layer: pick the producer (MatMul, Load, Load + Pool), plan the largest
band (stage) whose local memory and accumulator needs fit the architecture,
then emit stage by stage, each output channel tile running the layer's
accumulator ops and saves. Before emitting, `residency.py` decides which
values stay in local memory between layers (from every layer's natural
plan); a layer reading one is re-planned without input planes. Host
segments and consts pages (the host loading the next page of weights into
DRAM1 before the first layer that reads it) cut the stream into accelerator
steps of the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.latency import instruction_cycles, mac_efficiency, vectors_moved
from lamina.target.tcu.program import ConfigRegister, DataMoveKind, Opcode
from lamina.dialects.diagnostics import LaminaError

from .accumulator_ops import AccumulatorOps, allocate_regions, temp_inputs
from .emitter import ConstPool, Emitter
from .errors import ScheduleError
from .layers import ConstsImage, Elementwise, HostSegment, Layer, Load, MatMul, Pool, Program, Save
from .matmul import MatMulProducer
from .pooling import LoadProducer, PoolProducer
from .residency import plan_residency
from .units import Layout


@dataclass(frozen=True)
class LayerStats:
    index: int
    location: str
    stages: int            # bands: each loads its input once
    partitions: int        # (band, output channel tile) units: each fills the accumulators once
    instructions: int
    cycles: int            # latency model (lamina/target/tcu/latency.py)
    true_macs: int
    local_vectors: int     # most local memory the layer uses
    accumulator_vectors: int
    dram0_vectors: int     # DRAM0 traffic, both directions
    dram1_vectors: int
    mac_efficiency: float  # true MACs / (cycles x N^2)


@dataclass(frozen=True)
class Schedule:
    program: np.ndarray     # INSTRUCTION records
    layers: list[LayerStats]
    plan: list[dict]        # accelerator instruction ranges, host segments and consts pages, in HIR order
    consts: list[ConstsImage]  # index = page; page 0 ends with the scheduler's zero block and constants
    arch: Architecture

    @property
    def dram1_vectors(self) -> int:
        """The highest DRAM1 vector any page uses."""
        return max(image.end for image in self.consts)

    @property
    def cycles(self) -> int:
        return sum(layer.cycles for layer in self.layers)

    @property
    def true_macs(self) -> int:
        return sum(layer.true_macs for layer in self.layers)

    @property
    def mac_efficiency(self) -> float:
        return mac_efficiency(self.true_macs, self.cycles, self.arch)


def _producer(layer: Layer, arch: Architecture, consts: ConstsImage):
    """The layer's producer and the accumulator ops and saves after it (a LaminaError for other shapes)."""
    first, *rest = layer.ops
    if isinstance(first, MatMul):
        producer = MatMulProducer(first, arch.array_size, consts)
    elif isinstance(first, Load) and rest and isinstance(rest[0], Pool):
        pool, *rest = rest
        if pool.input != first.output or any(first.output in temp_inputs(op) for op in rest):
            raise ScheduleError(layer.location, f"layer {layer.index}: a pool layer is load -> pool -> ...; the "
                                "pool must read the loaded temp and nothing else may", layer_index=layer.index)
        producer = PoolProducer(first, pool, arch.array_size, arch.data_type)
    elif isinstance(first, Load):
        producer = LoadProducer(first, arch.array_size)
    else:
        raise ScheduleError(layer.location, f"layer {layer.index} starts with {type(first).__name__}; "
                            "a layer starts with a matmul or a load", layer_index=layer.index)
    for op in rest:
        if not isinstance(op, (Elementwise, Save)):
            raise ScheduleError(layer.location, f"layer {layer.index} has a {type(op).__name__} after its start; "
                                "only accumulator ops and saves may follow a matmul, load or pool",
                                layer_index=layer.index)
    return producer, rest


def _plan(layer: Layer, producer, regions: int, arch: Architecture, local_budget: int) -> tuple[int, Layout]:
    """The most output rows per stage that fit (local memory up to `local_budget`), and the layout; a
    LaminaError if one row does not fit the architecture."""
    rows = _rows_within(producer, regions, arch, local_budget)
    if rows is None:
        smallest = _layout(producer, 1, regions)
        for memory, needed, depth in (("local memory", smallest.local_vectors, arch.local_depth),
                                      ("accumulators", smallest.acc_vectors, arch.accumulator_depth)):
            if needed > depth:
                raise ScheduleError(
                    layer.location, f"layer {layer.index} does not fit the {arch.name} {memory}: its smallest stage "
                           f"({producer.smallest_stage}) needs {needed} vectors, {depth} are available "
                           f"({needed - depth} too many)", layer_index=layer.index)
    return rows, _layout(producer, rows, regions)


def _layout(producer, rows: int, regions: int) -> Layout:
    local, acc, region = producer.sizes(rows)
    return Layout(local, acc, region, regions)


def _rows_within(producer, regions: int, arch: Architecture, local_budget: int, planes_free: bool = False
                 ) -> int | None:
    """The most output rows per stage whose layout fits `local_budget` and the accumulators, spread evenly
    over as many bands (the same stages and cycles in the least memory); None if one row does not fit.
    `planes_free`: a matmul's input planes do not count (its input will be resident)."""

    def fits(rows: int) -> bool:
        candidate = _layout(producer, rows, regions)
        local = candidate.local_vectors - (_input_planes(producer, rows) if planes_free else 0)
        return local <= local_budget and candidate.acc_vectors <= arch.accumulator_depth

    if not fits(1):
        return None
    low, high = 1, producer.max_rows
    while low < high:  # largest fitting row count (needs grow with rows)
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return -(-producer.max_rows // -(-producer.max_rows // low))


def _layer_stats(layer: Layer, producer, rows: int, layout: Layout, program: np.ndarray,
                 cycles: np.ndarray, arch: Architecture) -> LayerStats:
    moves = program["opcode"] == Opcode.DATA_MOVE
    vectors = vectors_moved(program)
    kind = program["flags"]
    dram0 = moves & ((kind == DataMoveKind.DRAM0_TO_LOCAL) | (kind == DataMoveKind.LOCAL_TO_DRAM0))
    dram1 = moves & ((kind == DataMoveKind.DRAM1_TO_LOCAL) | (kind == DataMoveKind.LOCAL_TO_DRAM1))
    total, macs = int(cycles.sum()), producer.true_macs()
    return LayerStats(layer.index, layer.location, producer.stages(rows), producer.partitions(rows), len(program),
                      total, macs, layout.local_vectors, layout.acc_vectors, int(vectors[dram0].sum()),
                      int(vectors[dram1].sum()), mac_efficiency(macs, total, arch))


def schedule_program(hir: Program, arch: Architecture) -> Schedule:
    """Schedule every layer in order; host segments split the instruction stream (the plan)."""
    if arch.simd_registers_depth < 1:
        raise LaminaError(f"architecture {arch.name} has no SIMD register; the scheduler needs one")
    resident = hir.consts[0]
    consts = ConstPool(resident.end, arch.array_size)
    emitter = Emitter(arch, consts)
    spans: list[tuple[Layer, object, int, Layout, int, int]] = []
    plan: list[dict] = []
    step_start, loaded_page = 0, 0

    def close_range() -> None:
        """End the current accelerator range (if it has instructions) in the plan."""
        nonlocal step_start
        if len(emitter) > step_start:
            plan.append({"kind": "accelerator", "first": step_start, "count": len(emitter) - step_start})
        step_start = len(emitter)

    def cut(step: dict) -> None:
        """End the current accelerator range with a host or consts step."""
        close_range()
        plan.append(step)

    # every layer's producer and natural plan first: residency needs each layer's working area
    prepared: dict[int, tuple] = {}
    for position, step in enumerate(hir.steps):
        if isinstance(step, Layer):
            producer, ops = _producer(step, arch, hir.consts[step.page])
            regions, count = allocate_regions(producer_output(step), ops)
            prepared[position] = (producer, ops, regions, count, *_plan(step, producer, count, arch, arch.local_depth))
    needs = {position: (layout.local_vectors, layout.local_vectors - _input_planes(producer, rows))
             for position, (producer, _, _, _, rows, layout) in prepared.items()}

    def shrink(position: int, input_resident: bool, budget: int) -> int | None:
        """Cycles layer `position` adds in the bands that fit `budget` (an estimate: per added stage)."""
        producer, _, _, count, rows, _ = prepared[position]
        thinner = _rows_within(producer, count, arch, budget, input_resident)
        if thinner is None:
            return None
        return max(0, producer.stages(thinner) - producer.stages(rows)) * producer.stage_cycles(input_resident)

    residency = plan_residency(hir.steps, needs,
                               lambda matmul: MatMulProducer(matmul, arch.array_size, hir.consts[0]).planes(),
                               arch.local_depth, arch.array_size, hir.outputs, shrink)
    for position, step in enumerate(hir.steps):
        if isinstance(step, HostSegment):
            cut({"kind": "host", "segment": step.segment, "module": step.module})
            continue
        if step.page and step.page != loaded_page:
            cut({"kind": "consts", "page": step.page})
            loaded_page = step.page
        producer, ops, regions, count, rows, layout = prepared[position]
        producer.resident = residency.of(step.ops[0].input)
        if producer.resident is not None or layout.local_vectors > residency.budgets[position]:
            # no input planes to load, or thinner bands below resident Vars: re-plan within the budget
            rows, layout = _plan(step, producer, count, arch, residency.budgets[position])
        first = len(emitter)
        accumulator_ops = AccumulatorOps(emitter, layout, regions, residency)
        if isinstance(step.ops[0], MatMul):
            emitter.round_at(ConfigRegister.ARRAY_SHIFT, step.ops[0].shift)
        for name in residency.starts.get(position, []):
            emitter.zero_fill(residency.planes[name].padding())
        for unit in producer.emit(emitter, layout, rows, regions[producer_output(step)]):
            accumulator_ops.run(ops, unit)
        emitter.flush()
        spans.append((step, producer, rows, layout, first, len(emitter)))
    close_range()
    program = emitter.build()
    cycles = instruction_cycles(program, arch)
    stats = [_layer_stats(layer, producer, rows, layout, program[a:b], cycles[a:b], arch)
             for layer, producer, rows, layout, a, b in spans]
    pool = consts.image()
    if resident.end + len(pool) > arch.dram1_depth:
        raise LaminaError(f"the model does not fit: DRAM1 (Consts) needs {resident.end + len(pool)} vectors with "
                          f"the scheduler's {len(pool)} constant vectors, architecture '{arch.name}' has "
                          f"{arch.dram1_depth}")
    image = resident.extended(pool)
    return Schedule(program, stats, plan, [image, *hir.consts[1:]], arch)


def _input_planes(producer, rows: int) -> int:
    """Local vectors a producer's input takes that a resident input saves (a matmul's band planes)."""
    return producer.input_vectors(rows) if isinstance(producer, MatMulProducer) else 0


def producer_output(layer: Layer) -> str:
    """The temp the layer's producer fills (a pool's output when the layer pools)."""
    first = layer.ops[0]
    if isinstance(first, Load) and len(layer.ops) > 1 and isinstance(layer.ops[1], Pool):
        return layer.ops[1].output
    return first.output
