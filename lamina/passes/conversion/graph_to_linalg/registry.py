"""Which function converts which graph op to upstream tensor-level MLIR.

Converter modules register themselves with `@converts("relu", ...)`; the
`convert-graph-to-linalg` driver looks ops up here by their graph name
(without the dialect prefix). A converter is called with the insertion point
right before the graph op and the op's location current, and returns the
values (builtin tensor types, same as the op's results) that replace them.
"""

from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.dialects.op_registry import OpRegistry

Converter = Callable[[OpView, list[ir.Value]], Sequence[ir.Value]]
CONVERTERS: OpRegistry[Converter] = OpRegistry("CPU lowering", GRAPH)
converts = CONVERTERS.register  # @converts("relu", ...): the decorated function converts those graph ops
