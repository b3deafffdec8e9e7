"""Einsum as the linear family's graph ops: transposes, reshapes, batched matmuls and sums.

Each operand first loses its repeated labels (a diagonal: multiplied by an
identity mask, then summed) and the labels no one else needs (summed). Two
operands then contract as one batched matmul: shared labels still needed are
the batch, shared labels no longer needed the contraction, the rest rows and
columns. More operands contract left to right; a transpose gives the output
order. Ellipsis dimensions become labels of their own and must have equal
sizes in every operand (no broadcasting of size-1 dimensions).
"""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
from mlir import ir

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter

ELLIPSIS_LABELS = "0123456789"  # not letters: no clash with the equation's own labels


def _terms(equation: str, ranks: list[int]) -> tuple[list[str], str]:
    """Each operand's labels and the output's, ellipses expanded (implicit output: the labels used once)."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(ranks):
        raise ValueError(f"equation has {len(terms)} operand terms for {len(ranks)} inputs")
    ellipsis_rank = max((rank - len(term) + 3 for term, rank in zip(terms, ranks) if "..." in term), default=0)
    expanded = []
    for term, rank in zip(terms, ranks):
        if "..." in term:
            count = rank - len(term) + 3
            term = term.replace("...", ELLIPSIS_LABELS[ellipsis_rank - count:ellipsis_rank])
        if len(term) != rank:
            raise ValueError(f"term '{term}' does not match an operand of rank {rank}")
        expanded.append(term)
    if arrow:
        output = output.replace("...", ELLIPSIS_LABELS[:ellipsis_rank])
    else:
        counts = {label: "".join(expanded).count(label) for label in "".join(expanded)}
        output = ELLIPSIS_LABELS[:ellipsis_rank] + "".join(
            sorted(label for label, count in counts.items() if count == 1 and label not in ELLIPSIS_LABELS))
    return expanded, output


def _check_einsum(n: NodeView) -> Iterable[str]:
    specs = [n.input_spec(index) for index in range(len(n.node.input))]
    if any(spec is None for spec in specs):
        return
    try:
        terms, _ = _terms(n.attr("equation", ""), [spec.rank for spec in specs])
    except ValueError as error:
        yield str(error)
        return
    sizes: dict[str, int] = {}
    for term, spec in zip(terms, specs):
        for label, size in zip(term, spec.shape):
            if sizes.setdefault(label, size) != size:
                yield f"label '{label}' has sizes {sizes[label]} and {size} (broadcasting is not supported)"
                return


class _Operand:
    """A value with one label per dimension."""

    def __init__(self, n: NodeEmitter, value: ir.Value, labels: str):
        self.n, self.value, self.labels = n, value, labels

    @property
    def sizes(self) -> dict[str, int]:
        return dict(zip(self.labels, self.n.spec(self.value).shape))

    def sum_over(self, labels: Iterable[str]) -> "_Operand":
        axes = sorted(self.labels.index(label) for label in set(labels))
        if not axes:
            return self
        value = self.n.emit("reduce_sum", self.value, axes=axes, keepdims=False)
        return _Operand(self.n, value, "".join(label for label in self.labels if label not in set(labels)))

    def ordered(self, labels: str) -> ir.Value:
        """The value with its dimensions in `labels` order."""
        perm = [self.labels.index(label) for label in labels]
        return self.value if perm == sorted(perm) else self.n.transpose(self.value, perm)

    def without_diagonals(self) -> "_Operand":
        """A repeated label kept once: the value times an identity mask, summed over the repeat."""
        operand = self
        for label in dict.fromkeys(self.labels):
            while operand.labels.count(label) > 1:
                first = operand.labels.index(label)
                second = operand.labels.index(label, first + 1)
                spec = self.n.spec(operand.value)
                size = spec.shape[first]
                mask_shape = [size if d in (first, second) else 1 for d in range(spec.rank)]
                mask = self.n.broadcast(self.n.constant(np.eye(size, dtype=spec.dtype).reshape(mask_shape)),
                                        spec.shape)
                product = self.n.emit("mul", operand.value, mask)
                labels = operand.labels[:second] + "_" + operand.labels[second + 1:]
                operand = _Operand(self.n, product, labels).sum_over("_")
        return operand


def _contract(lhs: _Operand, rhs: _Operand, needed: set[str]) -> _Operand:
    n, sizes = lhs.n, {**lhs.sizes, **rhs.sizes}
    shared = [label for label in lhs.labels if label in rhs.labels]
    batch = "".join(label for label in shared if label in needed)
    inner = "".join(label for label in shared if label not in needed)
    rows = "".join(label for label in lhs.labels if label not in shared)
    columns = "".join(label for label in rhs.labels if label not in shared)

    def size(labels: str) -> int:
        return math.prod(sizes[label] for label in labels)

    left = n.reshape(lhs.ordered(batch + rows + inner), [size(batch), size(rows), size(inner)])
    right = n.reshape(rhs.ordered(batch + inner + columns), [size(batch), size(inner), size(columns)])
    product = n.emit("matmul", left, right)
    labels = batch + rows + columns
    return _Operand(n, n.reshape(product, [sizes[label] for label in labels]), labels)


@converter("Einsum", graph_ops=("transpose", "reshape", "matmul", "reduce_sum", "mul", "constant", "broadcast",
                                "identity"), check=_check_einsum,
           notes="Any equation, ellipses and diagonals included: batched matmuls, sums and transposes. "
                 "Ellipsis or label dimensions of different sizes (broadcasting) are unsupported.")
def convert_einsum(n: NodeEmitter):
    values = n.inputs()
    terms, output = _terms(n.attr("equation"), [n.spec(value).rank for value in values])
    operands = [_Operand(n, value, term).without_diagonals() for value, term in zip(values, terms)]

    def needed_after(position: int) -> set[str]:
        return set(output).union(*(operand.labels for operand in operands[position + 1:]))

    result = operands[0].sum_over(set(operands[0].labels) - needed_after(0) - set().union(
        *(operand.labels for operand in operands[1:])))
    for position, operand in enumerate(operands[1:], start=1):
        needed = needed_after(position)
        result = _contract(result, operand.sum_over(set(operand.labels) - needed - set(result.labels)), needed)
    result = result.sum_over(set(result.labels) - set(output))
    ordered = result.ordered(output)
    return ordered if ordered is not values[0] else n.emit("identity", ordered)
