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


def functions(module: ir.Operation) -> list[ir.Operation]:
    """The module's `func.func`s in order: one model function, or an inference function
    followed by the training functions `graph-differentiate` added (Glow's module of functions)."""
    return [op.operation for op in module.regions[0].blocks[0].operations if op.operation.name == "func.func"]


def function_name(function: ir.Operation) -> str:
    return ir.StringAttr(function.attributes["sym_name"]).value


def main_function(module: ir.Operation, name: str | None = None) -> ir.Operation:
    """The model's function: the one named `name`, or else the only `func.func` in the module."""
    found = functions(module)
    if name is not None:
        named = [op for op in found if function_name(op) == name]
        if not named:
            raise LaminaError(f"the module has no function '{name}'; it holds "
                              + ", ".join(f"'{function_name(op)}'" for op in found))
        return named[0]
    if len(found) != 1:
        listed = ", ".join(f"'{function_name(op)}'" for op in found)
        raise LaminaError(f"a model module holds exactly one func.func, found {len(found)}"
                          + (f" ({listed}); extract one first (lamina.dialects.model.extract_function)"
                             if found else ""))
    return found[0]


def extract_function(module: ir.Operation, name: str) -> ir.Operation:
    """A new module (same context) holding a copy of function `name` alone, so that the
    single-function levels (buffers, CPU, accelerator) can compile it."""
    function = main_function(module, name)
    with module.context, module.location:
        extracted = ir.Module.create()
        function.clone(ip=ir.InsertionPoint(extracted.body))
    return extracted.operation


def body_ops(module: ir.Operation, function: str | None = None) -> list[ir.Operation]:
    """The ops of the model's function (or of `function`) in program order (terminator excluded)."""
    block = main_function(module, function).regions[0].blocks[0]
    return [op.operation for op in block.operations if op.operation.name != "func.return"]


def inputs(module: ir.Operation, function: str | None = None) -> dict[str, TensorSpec]:
    """Placeholder name -> type, in program order."""
    return {
        GRAPH.view(op).attr("name"): spec_of(op.results[0].type)
        for op in body_ops(module, function)
        if op.name == "graph.placeholder"
    }


def outputs(module: ir.Operation, function: str | None = None) -> dict[str, TensorSpec]:
    """Save name -> type of the saved value, in program order."""
    return {
        GRAPH.view(op).attr("name"): spec_of(op.operands[0].type)
        for op in body_ops(module, function)
        if op.name == "graph.save"
    }
