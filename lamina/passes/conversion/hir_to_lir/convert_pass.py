"""The `convert-hir-to-lir` pass and `schedule`, the API the compiler driver calls."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.context import parse_module
from lamina.dialects.lir_program import program_to_lir_text
from lamina.dialects.model import body_ops
from lamina.passes.registry import Pass, PassError, register_pass

from .hir_reader import read_program
from .errors import ScheduleError
from .scheduler import Schedule, schedule_program

HIR_PREFIX = "hir."  # the module attributes of a HIR model (architecture, inputs, outputs)


def schedule(hir_module: ir.Operation) -> Schedule:
    """Schedule a HIR module: the program, per-layer statistics, the plan and the DRAM1 image."""
    program, arch = read_program(hir_module)
    return schedule_program(program, arch)


@register_pass
@dataclass(frozen=True)
class ConvertHirToLir(Pass):
    """Replace a HIR module by the LIR module of its schedule (one op per instruction).

    The module keeps only the instructions: the consts image (HIR consts
    plus the scheduler's zero block and broadcast constants) and the plan
    (accelerator ranges between host segments) come from `schedule`, which
    `lamina-compile` calls to write the model files.
    """

    name = "convert-hir-to-lir"
    summary = "Scheduler: HIR layers to LIR instructions (stages fitting local memory and accumulators)"

    def run(self, op: ir.Operation) -> None:
        try:
            result = schedule(op)
        except ScheduleError as error:
            raise PassError(error.detail, error.location or _layer_location(op, error.layer_index)) from None
        lir = parse_module(program_to_lir_text(result.program, result.arch), op.context,
                          "the LIR text convert-hir-to-lir generated (a Lamina bug: please report it)")
        body = op.regions[0].blocks[0]
        for child in list(body.operations):
            child.operation.erase()
        for name in [name for name in op.attributes if name.startswith(HIR_PREFIX)]:
            del op.attributes[name]
        for name in lir.attributes:
            op.attributes[name] = lir.attributes[name]
        for child in lir.regions[0].blocks[0].operations:
            body.append(child.operation.clone())


def _layer_location(module: ir.Operation, index: int) -> ir.Location:
    """Where layer `index` starts: its first op's location."""
    for op in body_ops(module):
        if "layer" in op.attributes and op.name != "hir.temp" and ir.IntegerAttr(op.attributes["layer"]).value == index:
            return op.location
    return module.location
