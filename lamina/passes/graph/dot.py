"""The model's graph as Graphviz DOT, like Glow's `dumpDAG`: `to_dot` and the pass `graph-dump-dot`.

One record node per op (its name, the ONNX node it came from, its key
attributes, its result type), one edge per operand from producer to user,
labelled with the operand's name. Inputs, constants and outputs are
coloured apart so the data flow reads at a glance. Render with
`dot -Tsvg graph.dot -o graph.svg`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import TERMINATOR
from lamina.dialects.model import main_function
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

# Fill colours by graph op; other ops are white (the node default).
FILL_COLORS = {
    "placeholder": "#cfe2f3",  # inputs: blue
    "constant": "#e6e6e6",  # compile-time data: grey
    "splat": "#e6e6e6",
    "save": "#f9cb9c",  # outputs: orange
}

# Constants with at most this many elements show their values.
SHOWN_ELEMENTS = 8


def to_dot(module: ir.Operation) -> str:
    """The DOT text of the model function in `module` (a LaminaError if it holds none or several).

    Regions (If branches, Loop and Scan bodies) are clusters next to their op:
    their block arguments and ops inside, a `yield` node gathering what the
    region returns, and a dashed edge from it to the op.
    """
    function = main_function(module)
    block = function.regions[0].blocks[0]
    lines = [f"digraph {_quote(ir.StringAttr(function.attributes['sym_name']).value)} {{",
             '  node [shape=record, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
             '  edge [fontname="Helvetica", fontsize=10];']
    _Block(lines).emit(block, "", {})
    lines.append("}")
    return "\n".join(lines) + "\n"


class _Block:
    """Emits a block's nodes and edges; a nested block's node names start with its op's and region's."""

    def __init__(self, lines: list[str]):
        self.lines = lines

    def emit(self, block: ir.Block, prefix: str, names: dict[ir.Value, str]) -> str | None:
        """The block's nodes and edges; the name of its last node (the yield of a region)."""
        lines, indent, node = self.lines, "  " * (prefix.count("_") // 2), None
        for index, argument in enumerate(block.arguments):
            names[argument] = f"{prefix}arg{index}"
            lines.append(f"{indent}  {prefix}arg{index} [label={_record([f'argument {index}', str(argument.type)])}];")
        for index, op in enumerate(block.operations):
            op = op.operation
            if op.name == "func.return":
                continue
            node = f"{prefix}op{index}"
            attributes = f"[label={_record(['yield'])}]" if op.name == TERMINATOR else _node_attributes(op)
            lines.append(f"{indent}  {node} {attributes};")
            for label, operand in zip(_operand_labels(op), op.operands):
                lines.append(f"{indent}  {names[operand]} -> {node} [label={_quote(label)}];")
            self.regions(op, node, indent, names)
            names.update((result, node) for result in op.results)
        return node

    def regions(self, op: ir.Operation, node: str, indent: str, names: dict[ir.Value, str]) -> None:
        definition = GRAPH.lookup(op)
        for index, region in enumerate(op.regions):
            label = definition.regions[index] if definition is not None else f"region {index}"
            self.lines.append(f"{indent}  subgraph cluster_{node}_{index} {{")
            self.lines.append(f"{indent}    label={_quote(label)}; style=dashed;")
            last = [self.emit(block, f"{node}_{index}_", names) for block in region.blocks]
            self.lines.append(f"{indent}  }}")
            if last and last[-1] is not None:
                self.lines.append(f"{indent}  {last[-1]} -> {node} [style=dashed, label={_quote(label)}];")


def _location_names(loc: ir.Location) -> list[str]:
    """The ONNX node names a location carries (fused locations carry several)."""
    if loc.is_a_name():
        return [loc.name_str]
    if loc.is_a_fused():
        return [name for inner in loc.locations for name in _location_names(inner)]
    return []


def _node_attributes(op: ir.Operation) -> str:
    """`[label=..., fillcolor=...]` of an op: its name, origin, attributes and result types, one per row."""
    definition = GRAPH.lookup(op)
    attributes = GRAPH.view(op).attrs() if definition is not None else {}
    fields = [op.name, *_location_names(op.location),
              *(f"{name}: {_show(value)}" for name, value in attributes.items()),
              *(str(result.type) for result in op.results)]
    fill = FILL_COLORS.get(definition.name) if definition is not None else None
    return f"[label={_record(fields)}" + (f", fillcolor={_quote(fill)}]" if fill else "]")


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        if value.size > SHOWN_ELEMENTS:
            return f"{value.size} elements"
        return _show(tuple(value.reshape(-1).tolist()))
    if isinstance(value, tuple):
        return "[" + ", ".join(map(_show, value)) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _operand_labels(op: ir.Operation) -> list[str]:
    """Each operand's name (`filter`), numbered within a variadic group (`inputs 1`); `#i` for other dialects."""
    definition = GRAPH.lookup(op)
    if definition is None:
        return [f"#{i}" for i in range(len(op.operands))]
    if definition.variadic is not None:
        fixed = definition.operands.index(definition.variadic)
        return [*definition.operands[:fixed], *(f"{definition.variadic} {i}" for i in range(len(op.operands) - fixed))]
    return list(definition.operands)


def _record(fields: list[str]) -> str:
    """A record label with one row per field, special characters escaped."""
    escaped = ["".join("\\" + ch if ch in '{}|<>"\\' else ch for ch in field) for field in fields]
    return '"{' + "|".join(escaped) + '}"'


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@register_pass
@dataclass(frozen=True)
class GraphDumpDot(Pass):
    """Write the model's graph as Graphviz DOT (Glow's dumpDAG) to a file or stderr.

    For looking at a graph between passes: put it anywhere in a pipeline.
    It changes nothing, so it is always legal. With `output=-` the DOT goes
    to stderr, so the IR on stdout stays clean.
    """

    name = "graph-dump-dot"
    summary = "Write the model function as a Graphviz DOT graph (IR unchanged)"
    op_name = "builtin.module"

    output: str = option("-", "file to write the DOT graph to ('-': stderr)")

    def run(self, op: ir.Operation) -> None:
        text = to_dot(op)
        if self.output == "-":
            sys.stderr.write(text)
            sys.stderr.flush()
            return
        try:
            with open(self.output, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as error:
            raise LaminaError(f"{self.output}: cannot write: {error.strerror}") from None
