"""What every lowering shares: the table of lowerings and the emitter they build with.

A lowering gets the op to lower and an `Emitter` positioned right before it,
and returns the value that replaces the op's result. It builds ops only
(the `graph-lower` pass replaces and erases), from primitives that have no
lowering themselves, so one walk over a graph lowers it completely.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import OpView
from lamina.dialects.op_registry import OpRegistry
from lamina.dialects.types import TensorSpec, spec_of
from lamina.passes.graph.rewriting import create_folded, create_splat

Lowering = Callable[[OpView, "Emitter"], ir.Value]

# Op name (`"softmax"`) -> its lowering into simpler graph ops.
LOWERINGS: OpRegistry[Lowering] = OpRegistry("graph lowering", GRAPH)
lowering = LOWERINGS.register  # @lowering("softmax"): the decorated function lowers graph.softmax


class Emitter:
    """Builds graph ops at the current insertion point, all at one location.

    Every op a lowering creates takes the location of the op it replaces, so
    diagnostics and dumps of the lowered graph still name the original node.
    """

    def __init__(self, loc: ir.Location):
        self.loc = loc

    def op(self, name: str, *operands: ir.Value, result_type: TensorSpec | None = None, **attrs) -> ir.Value:
        """`graph.<name>` of `operands`; the result type is inferred unless the op needs it given."""
        result_types = None if result_type is None else [result_type]
        return GRAPH.create(name, *operands, result_types=result_types, loc=self.loc, **attrs).result

    def splat(self, scalar, spec: TensorSpec) -> ir.Value:
        return create_splat(scalar, spec, self.loc)

    def constant(self, array: np.ndarray) -> ir.Value:
        """`array` as a `graph.constant` (a `graph.splat` when every element is equal)."""
        return create_folded(array, self.loc)

    def broadcast(self, value: ir.Value, spec: TensorSpec) -> ir.Value:
        """`value` broadcast to `spec` (itself when it already has that type)."""
        return value if spec_of(value.type) == spec else self.op("broadcast", value, result_type=spec)
