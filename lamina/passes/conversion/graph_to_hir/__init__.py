"""convert-graph-to-hir: a graph module to the accelerator's HIR (docs/accelerator.md).

The steps, one module each: `average_pools` (window sums kept in range),
`space_to_depth` (stride-2 convolutions on few channels packed into lanes), `split_weights` (layers whose weights exceed DRAM1 split by output channels),
`partition` (accelerator or host, per op),
`memory_manager` (concat placement, then DRAM0/DRAM1 bases), `layering`
(layers and host segments in program order), `weights` (filters as array
tiles), `emit` (the HIR program), and the accelerator rule of each op family in the
family's module (`convolution`, `linear`, `pooling`, `activations`, `elementwise`,
`shape_ops`). `convert_graph_to_hir` and `partition_report`
are the Python API the compile driver uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from mlir import ir

from lamina.target.tcu.architecture import Architecture, load_architecture
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import HIR, set_interface
from lamina.dialects.hir_architecture import set_architecture
from lamina.dialects.model import body_ops, main_function
from lamina.dialects.values import op_name
from lamina.passes.options import option
from lamina.passes.registry import Pass, PassError, register_pass

from .average_pools import rewrite_average_pools
from . import activations, convolution, elementwise, linear, pooling, shape_ops  # noqa: F401 (they register rules)
from .emit import HirEmitter
from .formats import Formats, calibrate
from .layering import plan_steps
from .memory_manager import allocate, plan_concats
from .partition import classify, partition_report
from .space_to_depth import rewrite_space_to_depth
from .split_weights import split_large_layers

# module -> (largest |x| per value, values of the first sample): what calibration measured
Measure = Callable[[ir.Operation], tuple[dict[ir.Value, float], dict[ir.Value, np.ndarray]]]

__all__ = ["ConvertGraphToHir", "convert_graph_to_hir", "partition_report"]


def convert_graph_to_hir(module: ir.Operation, architecture: Architecture | str,
                         measure: Measure | None = None, *,
                         calibrated: bool = True) -> dict[str, np.ndarray]:
    """Replace the model function's graph ops by its HIR program, in place.

    `architecture`: an Architecture, or a name / `.tarch` path for `load_architecture`.
    `measure`: runs the float graph on calibration samples (`lamina/runtime/calibration.value_ranges`: this
    package may not run the interpreter itself) and returns the largest magnitude of every value and the
    values of the first sample. With it and `calibrated`, every
    tensor gets its own binary point (`formats.py`); otherwise every tensor is in the data type's
    (Tensil's mode). Returns, with `measure`, the float value of every Vars on the first
    sample, by Vars name (what each layer should store, for the accuracy check).
    """
    if not isinstance(architecture, Architecture):
        architecture = load_architecture(architecture)
    with module.context:
        return _convert(module, architecture, measure, calibrated)


def _convert(module: ir.Operation, architecture: Architecture,
             measure: Measure | None, calibrated: bool) -> dict[str, np.ndarray]:
    block = main_function(module).regions[0].blocks[0]
    ops = body_ops(module)
    for op in ops:
        if GRAPH.lookup(op) is None:
            raise PassError(f"'{op.name}' is not a graph op; convert-graph-to-hir converts graph functions only",
                            op.location)
    if rewrite_average_pools(ops, architecture.data_type, calibrated=measure is not None and calibrated):
        ops = body_ops(module)
    if rewrite_space_to_depth(ops, architecture.array_size):
        ops = body_ops(module)
    if split_large_layers(ops, architecture):
        ops = body_ops(module)
    verdicts = classify(ops)
    formats = Formats(architecture.data_type)
    ranges, first_sample = measure(module) if measure is not None else ({}, {})
    if measure is not None and calibrated:
        formats = calibrate(ops, verdicts, ranges, architecture.data_type)
    concats = plan_concats(ops, verdicts, architecture.array_size)
    steps = plan_steps(ops, verdicts, concats)
    terminator = block.operations[len(block.operations) - 1]
    emitter = HirEmitter(ops, terminator.operation, architecture, verdicts, concats, formats)
    placeholders = [op for op in ops if op_name(op) == "placeholder"]
    emitter.declare_inputs(placeholders)
    emitter.emit(steps)
    emitter.emit_output_copies(module.context)
    layer_values = {HIR.view(vars_.owner).attr("name"): first_sample[value] for value, vars_ in emitter.vars.items()
                    if value in first_sample and vars_.owner.name == "hir.vars"}
    inputs = [emitter.names.of(op.result) for op in placeholders]
    outputs = [GRAPH.view(op).attr("name") for op in ops if op_name(op) == "save"]
    for op in reversed(ops):
        op.erase()
    set_architecture(module, architecture)
    set_interface(module, inputs, outputs)
    allocate(module, architecture, inputs, outputs)
    return layer_values


@register_pass
@dataclass(frozen=True)
class ConvertGraphToHir(Pass):
    """Turn a graph model into the accelerator's HIR: layers on the accelerator, the rest in host segments.

    Run after `graph-optimize{backend=accelerator}` (its support check may be
    left out: what the accelerator cannot run becomes host segments). Every
    op the accelerator supports with an HIR form and rank-2/4 tensors joins a
    layer; maximal runs of the others become `hir.host` segments holding
    graph modules. Vars get DRAM0 bases (inputs first, then reuse by
    lifetime), weights and constants become Consts in the data type. The
    module gets the attributes `hir.architecture` (the .tarch JSON),
    `hir.inputs` and `hir.outputs` (the model's input and output names).
    """

    name = "convert-graph-to-hir"
    summary = "Graph model to the accelerator's HIR: partition, layers, memory objects, weights"
    op_name = "builtin.module"

    arch: str = option("ultra96v2", "the architecture: a name under lamina/target/tcu/architectures or a .tarch file")

    def run(self, op: ir.Operation) -> None:
        convert_graph_to_hir(op, self.arch)
