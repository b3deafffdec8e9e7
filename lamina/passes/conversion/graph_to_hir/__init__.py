"""convert-graph-to-hir: a graph module to the accelerator's HIR (docs/accelerator.md).

The steps, one module each: `average_pools` (window sums kept in range),
`split_weights` (layers whose weights exceed DRAM1 split by output channels),
`partition` (accelerator or host, per op),
`memory_manager` (concat placement, then DRAM0/DRAM1 bases), `layering`
(layers and host segments in program order), `weights` (filters as array
tiles), `emit` (the HIR ops). `convert_graph_to_hir` and `partition_report`
are the Python API the compile driver uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.target.tcu.architecture import Architecture, load_architecture
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import set_architecture, set_interface
from lamina.dialects.model import body_ops, main_function
from lamina.dialects.values import op_name
from lamina.passes.options import option
from lamina.passes.registry import Pass, PassError, register_pass

from .average_pools import rewrite_average_pools
from .emit import HirEmitter
from .layering import plan_steps
from .memory_manager import allocate, plan_concats
from .partition import classify, partition_report
from .split_weights import split_large_layers

__all__ = ["ConvertGraphToHir", "convert_graph_to_hir", "partition_report"]


def convert_graph_to_hir(module: ir.Operation, architecture: Architecture | str) -> None:
    """Replace the model function's graph ops by its HIR program, in place.

    `architecture`: an Architecture, or a name / `.tarch` path for `load_architecture`.
    """
    if not isinstance(architecture, Architecture):
        architecture = load_architecture(architecture)
    with module.context:
        _convert(module, architecture)


def _convert(module: ir.Operation, architecture: Architecture) -> None:
    block = main_function(module).regions[0].blocks[0]
    ops = body_ops(module)
    for op in ops:
        if GRAPH.lookup(op) is None:
            raise PassError(f"'{op.name}' is not a graph op; convert-graph-to-hir converts graph functions only",
                            op.location)
    if rewrite_average_pools(ops, architecture.data_type):
        ops = body_ops(module)
    if split_large_layers(ops, architecture):
        ops = body_ops(module)
    verdicts = classify(ops)
    concats = plan_concats(ops, verdicts, architecture.array_size)
    steps = plan_steps(ops, verdicts, concats)
    terminator = block.operations[len(block.operations) - 1]
    emitter = HirEmitter(ops, terminator.operation, architecture, verdicts, concats)
    placeholders = [op for op in ops if op_name(op) == "placeholder"]
    emitter.declare_inputs(placeholders)
    emitter.emit(steps)
    emitter.emit_output_copies(module.context)
    inputs = [emitter.names.of(op.result) for op in placeholders]
    outputs = [GRAPH.view(op).attr("name") for op in ops if op_name(op) == "save"]
    for op in reversed(ops):
        op.erase()
    set_architecture(module, architecture)
    set_interface(module, inputs, outputs)
    allocate(module, architecture, inputs, outputs)


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
