"""graph-raise-fully-connected: matmul by constant weights plus a row bias -> fully_connected."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.types import spec_of
from lamina.dialects.values import has_one_use, is_constant, producer
from lamina.passes.registry import Pass, register_pass

from .rewriting import create_before, fused_location, replace_each


@register_pass
@dataclass(frozen=True)
class GraphRaiseFullyConnected(Pass):
    """Replace `add(matmul(x, w), bias)` by `fully_connected(x, w, bias)`.

    Exporters write a linear layer as MatMul + Add when it is not a Gemm; the
    importer turns the Add's bias into a broadcast of a [M] (or [1, M])
    value to the matmul's [N, M]. Raising the pair gives backends the layer
    Glow's FoldMatMulAddIntoFullyConnected gives them. Legal when x and w are
    2-D, w is a constant (a layer's weights: a product of two activations
    stays a matmul), the matmul's result has no other user, and the other
    addend is the same row for every row: a broadcast of a value whose
    dimensions are all 1 but the last, which is M or 1 (it is reshaped, and
    broadcast, to the [M] bias). Either operand order of the add. Results are
    bit-identical (fully_connected computes x @ w + bias); the new op takes
    the fused location of the matmul and the add.
    """

    name = "graph-raise-fully-connected"
    summary = "Raise matmul by constant 2-D weights plus a broadcast row bias into fully_connected"

    def run(self, op: ir.Operation) -> None:
        replace_each(op, {"add"}, _raised_fully_connected)


def _raised_fully_connected(add: ir.Operation) -> ir.Value | None:
    lhs, rhs = add.operands
    for product, addend in ((lhs, rhs), (rhs, lhs)):
        matmul = producer(product, "matmul")
        if matmul is None or not has_one_use(product):
            continue
        data, weights = matmul.operands
        if spec_of(data.type).rank != 2 or spec_of(weights.type).rank != 2 or not is_constant(weights):
            continue
        row = _row(addend)
        if row is not None:
            bias = _as_bias(row, spec_of(weights.type).shape[1], add)
            return create_before(add, "fully_connected", data, weights, bias, loc=fused_location([matmul, add]))
    return None


def _row(addend: ir.Value) -> ir.Value | None:
    """The value `addend` repeats in every row: a broadcast's source, or `addend` itself, if it is one row."""
    broadcast = producer(addend, "broadcast")
    row = broadcast.operands[0] if broadcast is not None else addend
    return row if all(d == 1 for d in spec_of(row.type).shape[:-1]) else None


def _as_bias(row: ir.Value, columns: int, add: ir.Operation) -> ir.Value:
    """`row` reshaped to 1-D and, when it has one element, broadcast to the [columns] bias, before `add`."""
    spec = spec_of(row.type)
    vector = spec.with_shape((spec.num_elements,))
    if spec != vector:
        row = create_before(add, "reshape", row, result_types=[vector], loc=add.location)
    if vector.num_elements != columns:
        row = create_before(add, "broadcast", row, result_types=[vector.with_shape((columns,))], loc=add.location)
    return row
