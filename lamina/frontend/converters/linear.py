"""Matrix products: Gemm (as Glow's fully-connected layer when it fits) and MatMul."""

from __future__ import annotations

from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..registry import converter


def _bias_vector(n: NodeEmitter, c, columns: int):
    """C as the [columns] bias of a fully-connected layer, or None when C varies along rows."""
    shape = n.spec(c).shape
    if any(d != 1 for d in shape[:-1]) or shape[-1:] not in ((), (1,), (columns,)):
        return None
    return n.broadcast(n.reshape(c, shape[-1:]), (columns,))


@converter("Gemm", graph_ops=("fully_connected", "matmul", "transpose", "mul", "add", "broadcast", "splat", "reshape"),
           notes="`transA`/`transB` become `graph.transpose`; with alpha = beta = 1 and a C that is one row (or "
                 "absent) Gemm is `graph.fully_connected` (Glow's rule), otherwise matmul, mul by alpha and add of "
                 "beta * C broadcast.")
def convert_gemm(n: NodeEmitter):
    a, b = n.input(0), n.input(1)
    if n.attr("transA", 0):
        a = n.transpose(a, (1, 0))
    if n.attr("transB", 0):
        b = n.transpose(b, (1, 0))
    alpha, beta = n.attr("alpha", 1.0), n.attr("beta", 1.0)
    rows, columns = n.spec(a).shape[0], n.spec(b).shape[1]
    dtype = n.spec(a).dtype
    c = n.input(2) if n.has_input(2) else None
    if alpha == 1.0 and (c is None or beta == 1.0):
        bias = n.splat(TensorSpec((columns,), dtype), 0) if c is None else _bias_vector(n, c, columns)
        if bias is not None:
            return n.emit("fully_connected", a, b, bias)
    result = n.emit("matmul", a, b)
    if alpha != 1.0:
        result = n.emit("mul", result, n.splat(n.spec(result), alpha))
    if c is None:
        return result
    if beta != 1.0:
        c = n.emit("mul", c, n.splat(n.spec(c), beta))
    return n.emit("add", result, n.broadcast(c, (rows, columns)))


@converter("MatMul", graph_ops=("matmul", "reshape"),
           notes="N-D with broadcast batch dimensions; 1-D operands are reshaped to matrices and the result back.")
def convert_matmul(n: NodeEmitter):
    lhs, rhs = n.input(0), n.input(1)
    lhs_vector, rhs_vector = n.spec(lhs).rank == 1, n.spec(rhs).rank == 1
    if lhs_vector:
        lhs = n.reshape(lhs, (1, *n.spec(lhs).shape))
    if rhs_vector:
        rhs = n.reshape(rhs, (*n.spec(rhs).shape, 1))
    result = n.emit("matmul", lhs, rhs)
    shape = n.spec(result).shape
    dropped = {len(shape) - 2} if lhs_vector else set()
    dropped |= {len(shape) - 1} if rhs_vector else set()
    return n.reshape(result, [d for i, d in enumerate(shape) if i not in dropped])
