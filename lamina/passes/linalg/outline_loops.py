"""cpu-outline-loops: every top-level loop nest of a function into a function of its own, kept out of line.

The CPU path compiles a whole model as one function, and LLVM's loop passes
are superlinear in the size of the function they run on: on SqueezeNet's
single function `IndVarSimplifyPass` took 60 % of `opt -O3` (1.7 of 2.9 s
user, `opt -time-passes`), and more again with threads, where the main
function also drives the parallel loops. One function per loop nest keeps
each of LLVM's function passes on one layer's worth of code. The outlined
functions are private and `noinline`: LLVM would otherwise inline each
single-call function straight back. So is every other private function with
a body, such as the block functions of `async-parallel-for`, which LLVM
inlined into each of their two or three callers (SqueezeNet with 2 threads:
2.5x the code, 7.9 s of `llc` instead of 2.8).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import func

from lamina.dialects.values import remap_operands
from lamina.passes.registry import Pass, register_pass

# Ops with regions worth a function: loop nests (after convert-linalg-to-loops, linalg ops are loops too).
LOOPS = ("scf.for", "scf.forall", "scf.parallel")
# Ops whose value an outlined function recreates instead of taking as an argument.
CLONED = ("arith.constant", "memref.get_global")


def _outlinable(op: ir.Operation) -> bool:
    return op.name in LOOPS and len(op.results) == 0


def _defined_inside(op: ir.Operation) -> set[ir.Value]:
    """Every value `op`'s regions define: nested ops' results and nested blocks' arguments."""
    inside: set[ir.Value] = set()

    def collect(child: ir.Operation) -> ir.WalkResult:
        inside.update(child.results)
        for region in child.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        return ir.WalkResult.ADVANCE

    op.walk(collect)
    return inside


def _free_values(op: ir.Operation) -> list[ir.Value]:
    """Values `op` uses but does not define, in first-use order."""
    inside = _defined_inside(op)
    free: dict[ir.Value, None] = {}

    def collect(child: ir.Operation) -> ir.WalkResult:
        for operand in child.operands:
            if operand not in inside:
                free[operand] = None
        return ir.WalkResult.ADVANCE

    op.walk(collect)
    return list(free)


def _cloned(value: ir.Value) -> bool:
    owner = value.owner
    return isinstance(owner, ir.OpView) and owner.operation.name in CLONED


NOINLINE = "noinline"


def _keep_out_of_line(function: ir.Operation) -> None:
    function.attributes["passthrough"] = ir.ArrayAttr.get([ir.StringAttr.get(NOINLINE)])


def _outline(op: ir.Operation, name: str, anchor: ir.Operation) -> None:
    """Move `op` into a new private noinline function `name` placed before `anchor`, and call it."""
    free = _free_values(op)
    arguments = [value for value in free if not _cloned(value)]
    with ir.InsertionPoint(anchor), op.location:
        function = func.FuncOp(name, ir.FunctionType.get([v.type for v in arguments], []), visibility="private")
        _keep_out_of_line(function.operation)
        entry = function.add_entry_block()
    with ir.InsertionPoint(op), op.location:
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), arguments)
    replacements = dict(zip(arguments, entry.arguments))
    with ir.InsertionPoint(entry), op.location:
        for value in free:
            if value not in replacements:
                replacements[value] = value.owner.operation.clone().results[0]
        terminator = func.ReturnOp([])
    op.move_before(terminator.operation)
    remap_operands(op, replacements)


@register_pass
@dataclass(frozen=True)
class OutlineLoops(Pass):
    """Move every result-less top-level loop nest (scf.for, scf.forall, scf.parallel) of each function
    into a private `noinline` function of its own, called in its place, and mark every private
    function `noinline`.

    Constants and memref globals the nest uses are recreated in the new
    function; every other value it uses from outside becomes an argument.
    Legal on memrefs after bufferization (a loop nest on tensors has results
    and is left alone), e.g. after `convert-linalg-to-loops` in `graph-to-cpu`.
    """

    name = "cpu-outline-loops"
    summary = "each top-level loop nest of a function as a noinline function of its own (smaller LLVM functions)"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        module_body = op.regions[0].blocks[0]
        functions = [child.operation for child in module_body.operations
                     if child.operation.name == "func.func" and len(child.operation.regions[0].blocks)]
        for function in functions:
            if "sym_visibility" in function.attributes and \
                    ir.StringAttr(function.attributes["sym_visibility"]).value == "private":
                _keep_out_of_line(function)
            base = ir.StringAttr(function.attributes["sym_name"]).value
            nests = [child.operation for block in function.regions[0].blocks for child in block.operations
                     if _outlinable(child.operation)]
            for index, nest in enumerate(nests):
                _outline(nest, f"{base}_loop{index}", function)
