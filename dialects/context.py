"""Contexts with Lamina's dialects loaded, and text in and out of them.

Parsing, printing and verification live here so that every tool and pass
agrees on them: parse errors and verification failures come back as
`(location, message)` problems, and `LaminaError` carries them to people.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from .diagnostics import LaminaError, format_location
from .graph import GRAPH
from .irdl import DialectDef

# Every Lamina dialect, in lowering order. Later levels append theirs.
DIALECTS: list[DialectDef] = [GRAPH]

# Elements beyond this many are elided when printing for people.
ELIDE_ELEMENTS_OVER = 16


def dialect_named(name: str) -> DialectDef:
    for dialect in DIALECTS:
        if dialect.name == name:
            return dialect
    raise LaminaError(f"unknown dialect '{name}'; known: {', '.join(d.name for d in DIALECTS)}")


def make_context() -> ir.Context:
    """A fresh context with upstream dialects registered and Lamina's loaded."""
    context = ir.Context()
    # Python passes and printing are not thread-safe in the 22.x bindings.
    context.enable_multithreading(False)
    for dialect in DIALECTS:
        dialect.load(context)
    return context


@dataclass(frozen=True)
class Problem:
    """A diagnostic produced by parsing or verifying, not yet shown."""

    location: ir.Location
    message: str

    def __str__(self) -> str:
        return f"{format_location(self.location)}: error: {self.message}"


class InvalidIR(LaminaError):
    """Parsing or verification failed; `problems` has every diagnostic."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def _problems_of(error: ir.MLIRError) -> list[Problem]:
    return [Problem(d.location, d.message) for d in error.error_diagnostics]


def parse_module(text: str, context: ir.Context, source_name: str = "-") -> ir.Operation:
    """Parse `.mlir` text into a `builtin.module` operation.

    Lamina passes modules around as their `builtin.module` operation (what
    `Operation.parse` yields and `PassManager.run` takes). Raises InvalidIR
    naming `source_name:line:col`.
    """
    try:
        with context:
            op = ir.Operation.parse(text, source_name=source_name)
    except ir.MLIRError as error:
        raise InvalidIR(_problems_of(error)) from None
    if op.name != "builtin.module":
        raise InvalidIR([Problem(op.location, f"expected a builtin.module at the top level, got {op.name}")])
    return op.operation


def print_module(module: ir.Operation, *, debug_info: bool = False, elide: bool = False) -> str:
    """Module text; `elide` shortens large constants for people (not parseable back)."""
    limit = ELIDE_ELEMENTS_OVER if elide else None
    return module.get_asm(
        enable_debug_info=debug_info,
        large_elements_limit=limit,
        large_resource_limit=limit,
    )


def verify_module(module: ir.Operation) -> list[Problem]:
    """Structural (IRDL) then semantic (shape functions) verification."""
    try:
        module.verify()
    except ir.MLIRError as error:
        return _problems_of(error)
    problems = []

    def visit(op: ir.Operation):
        for dialect in DIALECTS:
            if dialect.lookup(op) is not None:
                message = dialect.verify_op(op)
                if message:
                    problems.append(Problem(op.location, f"'{op.name}' op {message}"))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    return problems


def check_module(module: ir.Operation) -> None:
    """Raise InvalidIR unless the module verifies."""
    problems = verify_module(module)
    if problems:
        raise InvalidIR(problems)
