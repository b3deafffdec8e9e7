"""Lowering of fully-connected layers into a matmul and a bias add."""

from __future__ import annotations

from mlir import ir

from lamina.dialects.irdl import OpView
from lamina.dialects.types import spec_of

from .base import Emitter, lowering


@lowering("fully_connected")
def fully_connected(op: OpView, emit: Emitter) -> ir.Value:
    """input x weights + bias: a matmul, then the [M] bias broadcast over the rows and added.

    The same float operations in the same order as the op itself: exact.
    """
    product = emit.op("matmul", op.operand("input"), op.operand("weights"))
    return emit.op("add", product, emit.broadcast(op.operand("bias"), spec_of(product.type)))
