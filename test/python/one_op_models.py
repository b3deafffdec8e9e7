"""A model of one graph op fed by placeholders `x0, x1, ...` and saved as `y`: how the
interpreter and CPU-path tests exercise a single op."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.context import make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import create_model
from lamina.dialects.types import TensorSpec


def one_op_model(op_name: str, operands: list[np.ndarray], result: TensorSpec | None = None,
                 **attrs) -> tuple[ir.Operation, ir.Context]:
    """The module and its context (keep the context alive while the module is used); `result` None: inferred."""
    context = make_context()
    module, block = create_model(context)
    with context, ir.Location.unknown(), ir.InsertionPoint.at_block_terminator(block):
        values = [GRAPH.create("placeholder", result_types=[TensorSpec(a.shape, a.dtype)], name=f"x{i}").result
                  for i, a in enumerate(operands)]
        op = GRAPH.create(op_name, *values, result_types=None if result is None else [result], **attrs)
        GRAPH.create("save", op.result, name="y")
    return module, context
