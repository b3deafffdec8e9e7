"""Element-wise arithmetic and comparisons, with NumPy broadcasting made explicit."""

from __future__ import annotations

from ..emitter import NodeEmitter
from ..registry import converter, register

BROADCAST_NOTE = "NumPy broadcasting becomes explicit `graph.broadcast` ops."

BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Equal": "equal", "Less": "less",
          "Greater": "greater"}


def _binary(graph_op: str):
    def convert(n: NodeEmitter):
        return n.emit(graph_op, *n.broadcast_together([n.input(0), n.input(1)]))

    return convert


for _onnx_op, _graph_op in BINARY.items():
    register(_onnx_op, _binary(_graph_op), graph_ops=(_graph_op, "broadcast"), notes=BROADCAST_NOTE)


@converter("Pow", graph_ops=("pow", "convert", "broadcast"),
           notes=f"An exponent of another element type is converted to the base's. {BROADCAST_NOTE}")
def convert_pow(n: NodeEmitter):
    base = n.input(0)
    exponent = n.convert(n.input(1), n.spec(base).dtype)
    return n.emit("pow", *n.broadcast_together([base, exponent]))


@converter("Where", graph_ops=("where", "broadcast"), notes=BROADCAST_NOTE)
def convert_where(n: NodeEmitter):
    return n.emit("where", *n.broadcast_together(n.inputs()))


@converter("Sum", graph_ops=("sum", "broadcast"), notes=f"Variadic. {BROADCAST_NOTE}")
def convert_sum(n: NodeEmitter):
    return n.emit("sum", *n.broadcast_together(n.inputs()))


for _onnx_op, _graph_op in (("Max", "max"), ("Min", "min")):
    register(_onnx_op, lambda n, op=_graph_op: n.chain(op, n.broadcast_together(n.inputs())),
             graph_ops=(_graph_op, "identity", "broadcast"),
             notes=f"Variadic: a chain of binary `graph.{_graph_op}`. {BROADCAST_NOTE}")


@converter("Mean", graph_ops=("sum", "div", "splat", "broadcast"),
           notes=f"Variadic: `graph.sum` divided by the input count. {BROADCAST_NOTE}")
def convert_mean(n: NodeEmitter):
    values = n.broadcast_together(n.inputs())
    total = n.emit("sum", *values)
    return n.emit("div", total, n.splat(n.spec(total), len(values)))
