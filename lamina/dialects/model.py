"""The shape of a Lamina model module: one `func.func` reading placeholders and
writing saves. Helpers to create one and to find its parts again."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from .diagnostics import LaminaError
from .graph import GRAPH
from .types import TensorSpec, spec_of


def create_model(context: ir.Context, name: str = "main", source: str | None = None) -> tuple[ir.Operation, ir.Block]:
    """An empty model: a module holding `func.func @name()`.

    `source` (the model file) becomes the module's and the function's location,
    so diagnostics about the whole model name it. Returns the module operation
    and the function's entry block, whose `func.return` terminator is already
    in place (insert before it).
    """
    with context, ir.Location.file(source, 0, 0) if source else ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            function = func.FuncOp(name, ir.FunctionType.get([], []))
        block = function.add_entry_block()
        with ir.InsertionPoint(block):
            func.ReturnOp([])
    return module.operation, block


def main_function(module: ir.Operation) -> ir.Operation:
    """The model's function: the only `func.func` in the module."""
    functions = [op for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]
    if len(functions) != 1:
        raise LaminaError(f"a model module holds exactly one func.func, found {len(functions)}")
    return functions[0].operation


def body_ops(module: ir.Operation) -> list[ir.Operation]:
    """The ops of the model's function in program order (terminator excluded)."""
    block = main_function(module).regions[0].blocks[0]
    return [op.operation for op in block.operations if op.operation.name != "func.return"]


def inputs(module: ir.Operation) -> dict[str, TensorSpec]:
    """Placeholder name -> type, in program order."""
    return {
        GRAPH.view(op).attr("name"): spec_of(op.results[0].type)
        for op in body_ops(module)
        if op.name == "graph.placeholder"
    }


def outputs(module: ir.Operation) -> dict[str, TensorSpec]:
    """Save name -> type of the saved value, in program order."""
    return {
        GRAPH.view(op).attr("name"): spec_of(op.operands[0].type)
        for op in body_ops(module)
        if op.name == "graph.save"
    }
