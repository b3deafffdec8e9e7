"""graph-check-support: stop compilation, naming every op the backend cannot run."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from mlir import ir

from lamina.backends import Backend, BackendName, backend_named
from lamina.dialects.context import InvalidIR, Problem
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import TERMINATOR
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

# Ops that structure a model rather than compute in it.
STRUCTURAL_OPS = frozenset({"builtin.module", "func.func", "func.return", TERMINATOR})


@register_pass
@dataclass(frozen=True)
class GraphCheckSupport(Pass):
    """Fail unless the backend supports every op left, reporting each one that it does not.

    Glow's last graph stage (`checkAllNodesSupported`): each unsupported op
    gets an error at its own location saying why (the backend's
    `why_unsupported`), then each function with any gets one summary error,
    all in one run, so people see everything that blocks a model at once.
    Ops of other dialects are unsupported by every backend: the graph level
    ends here. Changes nothing; legal anywhere, meant as the last step of
    `graph-optimize`.
    """

    name = "graph-check-support"
    summary = "Report every op the backend cannot run (at its location) and fail if there is any"

    backend: BackendName = option("reference", "the backend whose is_op_supported decides")

    def run(self, op: ir.Operation) -> None:
        backend = backend_named(self.backend)
        problems = []
        for function in _nested_ops(op, lambda inner: inner.name == "func.func"):
            problems += _problems(backend, function)
        if problems:
            raise InvalidIR(problems)


def _problems(backend: Backend, function: ir.Operation) -> list[Problem]:
    """One error per op of `function` the backend cannot run, then a summary; none if it runs them all."""
    unsupported = [(op, reason) for op in _nested_ops(function, _computes)
                   if (reason := _why_unsupported(backend, op)) is not None]
    if not unsupported:
        return []
    problems = [Problem(op.location, f"'{op.name}' is not supported by backend '{backend.name}': {reason}")
                for op, reason in unsupported]
    return problems + [Problem(function.location, _summary(backend, function, [op for op, _ in unsupported]))]


def _computes(op: ir.Operation) -> bool:
    return op.name not in STRUCTURAL_OPS


def _why_unsupported(backend: Backend, op: ir.Operation) -> str | None:
    if GRAPH.lookup(op) is None:
        return "not a graph op; backends run graph ops only"
    return backend.why_unsupported(GRAPH.view(op))


def _summary(backend: Backend, function: ir.Operation, ops: list[ir.Operation]) -> str:
    counts = Counter(op.name for op in ops)
    listed = ", ".join(f"{name} x{count}" if count > 1 else name for name, count in sorted(counts.items()))
    symbol = ir.StringAttr(function.attributes["sym_name"]).value
    return f"backend '{backend.name}' cannot run {len(ops)} op{'s' if len(ops) > 1 else ''} of @{symbol}: {listed}"


def _nested_ops(root: ir.Operation, keep: Callable[[ir.Operation], bool]) -> list[ir.Operation]:
    """The ops under `root` (itself included) that `keep` accepts, in program order."""
    found = []

    def collect(op: ir.Operation) -> ir.WalkResult:
        if keep(op):
            found.append(op)
        return ir.WalkResult.ADVANCE

    root.walk(collect, ir.WalkOrder.PRE_ORDER)
    return found
