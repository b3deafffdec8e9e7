"""Further element-wise math: trigonometric and rounding functions, Sign, Mod, BitShift, Bitwise*."""

from __future__ import annotations

from ..emitter import NodeEmitter
from ..registry import converter, register
from .elementwise import BROADCAST_NOTE

FLOAT_FUNCTIONS = {"Sin": "sin", "Cos": "cos", "Tan": "tan", "Asin": "asin", "Acos": "acos", "Atan": "atan",
                   "Sinh": "sinh", "Cosh": "cosh", "Asinh": "asinh", "Acosh": "acosh", "Atanh": "atanh",
                   "Ceil": "ceil", "Floor": "floor", "Round": "round"}
BITWISE = {"BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor"}

for _onnx_op, _graph_op in FLOAT_FUNCTIONS.items():
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, n.input(0)), graph_ops=(_graph_op,),
             notes="Floating-point element types." + (" Halves round to even." if _onnx_op == "Round" else ""))
register("Sign", lambda n: n.emit("sign", n.input(0)), graph_ops=("sign",), notes="All numeric element types.")
register("BitwiseNot", lambda n: n.emit("bitwise_not", n.input(0)), graph_ops=("bitwise_not",),
         notes="Integer element types.")
for _onnx_op, _graph_op in BITWISE.items():
    register(_onnx_op, lambda n, op=_graph_op: n.emit(op, *n.broadcast_together([n.input(0), n.input(1)])),
             graph_ops=(_graph_op, "broadcast"), notes=f"Integer element types. {BROADCAST_NOTE}")


@converter("Mod", graph_ops=("mod", "broadcast"),
           notes=f"`fmod` 1 (C's fmod) or 0 (the divisor's sign, `A - floor(A / B) * B`); integer x mod 0 is 0. "
                 f"{BROADCAST_NOTE}")
def convert_mod(n: NodeEmitter):
    return n.emit("mod", *n.broadcast_together([n.input(0), n.input(1)]), fmod=bool(n.attr("fmod", 0)))


@converter("BitShift", graph_ops=("bit_shift", "broadcast"),
           notes=f"`direction` LEFT or RIGHT (arithmetic on signed integers, as BitShift-28); a negative shift or "
                 f"one by the width or more gives the sign fill (-1 or 0). "
                 f"{BROADCAST_NOTE}")
def convert_bit_shift(n: NodeEmitter):
    return n.emit("bit_shift", *n.broadcast_together([n.input(0), n.input(1)]),
                  direction=n.attr("direction", "LEFT").lower())
