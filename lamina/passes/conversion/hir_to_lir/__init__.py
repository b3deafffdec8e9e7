"""convert-hir-to-lir: the scheduler, from HIR layers to one instruction stream (docs/accelerator.md, Scheduler)."""

from .convert_pass import ConvertHirToLir, schedule
from .layers import Elementwise, HostSegment, Layer, Load, MatMul, Pool, Program, Save, Vars
from .scheduler import LayerStats, Schedule, schedule_program

__all__ = ["ConvertHirToLir", "Elementwise", "HostSegment", "Layer", "LayerStats", "Load", "MatMul", "Pool",
           "Program", "Save", "Schedule", "Vars", "schedule", "schedule_program"]
