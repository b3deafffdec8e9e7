"""convert-graph-to-linalg: the graph function as upstream MLIR on tensors (the CPU path's entry)."""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass
from typing import MutableMapping

from mlir import ir
from mlir.dialects import arith, func

from lamina.dialects.context import InvalidIR, Problem
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import block_ops, yielded
from lamina.dialects.irdl import CONSTANT, INTERFACE, OpView
from lamina.dialects.model import main_function
from lamina.dialects.types import UnsupportedType
from lamina.passes.registry import Pass, PassError, register_pass

from .builders import dense_constant, splat_constant
from .control_flow import REGION_CONVERTERS
from .quantization import convert_quantized, is_quantized
from .registry import CONVERTERS
from .storage import storage_dtype, storage_type

# Ops the driver converts itself: they are the function's interface and its data.
_INTERFACE = GRAPH.with_trait(INTERFACE) | GRAPH.with_trait(CONSTANT)


@register_pass
@dataclass(frozen=True)
class ConvertGraphToLinalg(Pass):
    """Rewrite the model function into upstream `linalg`/`tensor`/`arith`/`math` on tensors.

    The model's function (same name) becomes `func.func @main(inputs...) ->
    (outputs...)`: each `graph.placeholder` becomes an argument (program
    order), each `graph.save` a result (program order), `graph.constant` and
    `graph.splat` become `arith.constant`s, and every other graph op is
    replaced by what its registered converter builds (`registry.py`), at the
    op's location. Every value has its CPU storage type (`storage.py`:
    booleans as i8, unsigned as signless), arguments and results included. The function
    gets `llvm.emit_c_interface` so the ExecutionEngine can call it with
    memref descriptors. No Lamina op is left: upstream `mlir-opt` reads the
    result without Lamina's dialects.

    Legal on a model whose function holds only graph ops. Graph ops without
    a converter are reported together, each at its location.
    """

    name = "convert-graph-to-linalg"
    summary = "graph ops to upstream linalg/tensor/arith/math on tensors (CPU path)"

    def run(self, op: ir.Operation) -> None:
        old = main_function(op)
        block = old.regions[0].blocks[0]
        graph_ops = [child.operation for child in block.operations if child.operation.name != "func.return"]
        _check_convertible(graph_ops)
        placeholders = [g for g in graph_ops if g.name == "graph.placeholder"]
        saves = [g for g in graph_ops if g.name == "graph.save"]
        name = ir.StringAttr(old.attributes["sym_name"]).value
        with ir.InsertionPoint(old), old.location:
            new = func.FuncOp(name, ir.FunctionType.get([storage_type(p.results[0].type) for p in placeholders],
                                                        [storage_type(s.operands[0].type) for s in saves]))
            new.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            entry = new.add_entry_block([p.location for p in placeholders])
        values: dict[ir.Value, ir.Value] = {p.results[0]: arg for p, arg in zip(placeholders, entry.arguments)}
        with ir.InsertionPoint(entry):
            for graph_op in graph_ops:
                if graph_op.name not in ("graph.placeholder", "graph.save"):
                    with graph_op.location:
                        _convert(graph_op, values)
            with new.location:
                func.ReturnOp([values[s.operands[0]] for s in saves])
        old.erase()


def _check_convertible(graph_ops: list[ir.Operation]) -> None:
    """Every op is a graph op with a converter; else one error with a diagnostic per op."""
    problems = []
    for graph_op in _with_nested(graph_ops):
        definition = GRAPH.lookup(graph_op)
        if definition is None:
            problems.append(Problem(graph_op.location, f"'{graph_op.name}' is not a graph op; only graph "
                                                       "functions convert to linalg"))
        elif definition.name not in _INTERFACE and definition.name not in CONVERTERS | REGION_CONVERTERS.keys():
            problems.append(Problem(graph_op.location, f"'graph.{definition.name}' has no CPU (linalg) lowering"))
    if problems:
        raise InvalidIR(problems)


def _with_nested(graph_ops: list[ir.Operation]) -> list[ir.Operation]:
    """`graph_ops` and every op inside their regions (region terminators aside)."""
    found = []
    for graph_op in graph_ops:
        found.append(graph_op)
        for region in graph_op.regions:
            for block in region.blocks:
                found.extend(_with_nested(block_ops(block)))
    return found


def _convert_block(values: MutableMapping[ir.Value, ir.Value]):
    """Converts a region's block, in the scope of `values`, at the current insertion point."""

    def convert_block(block: ir.Block, arguments: list[ir.Value]) -> list[ir.Value]:
        scope = ChainMap(dict(zip(block.arguments, arguments)), values)
        for graph_op in block_ops(block):
            with graph_op.location:
                _convert(graph_op, scope)
        return [scope[value] for value in yielded(block)]

    return convert_block


def _convert(graph_op: ir.Operation, values: MutableMapping[ir.Value, ir.Value]) -> None:
    view = GRAPH.view(graph_op)
    if view.definition.has(CONSTANT):
        results = [_constant(view)]
    elif view.name in REGION_CONVERTERS:
        operands = [values[operand] for operand in graph_op.operands]
        results = REGION_CONVERTERS[view.name](view, operands, _convert_block(values))
    else:
        try:
            operands = [values[operand] for operand in graph_op.operands]
            if view.definition.quantized != "carrier" and is_quantized(view):
                results = convert_quantized(view, operands)
            else:
                results = CONVERTERS[view.name](view, operands)
        except (UnsupportedType, NotImplementedError) as error:
            raise PassError(f"'graph.{view.name}': {error}", graph_op.location) from None
    for old, new in zip(graph_op.results, results, strict=True):
        expected = storage_type(old.type)
        if new.type != expected:
            raise PassError(f"'graph.{view.name}' converted to {new.type}, expected {expected} "
                            f"(the storage of {old.type})", graph_op.location)
        values[old] = new


def _constant(view: OpView) -> ir.Value:
    """`graph.splat` as a splat constant, `graph.constant` as a dense one, both in storage form.

    A constant stored as its own type keeps its attribute, so weights are not copied.
    """
    spec = view.result_specs()[0]
    if view.name == "splat":
        return splat_constant(spec, view.attr("value"))
    if storage_dtype(spec.dtype) != spec.dtype:
        return dense_constant(view.attr("value"))
    return arith.constant(storage_type(spec), view.op.attributes["value"])
