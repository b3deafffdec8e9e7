"""Contexts with Lamina's dialects loaded, and text in and out of them.

Parsing, printing and verification live here so that every tool and pass
agrees on them: parse errors and verification failures come back as
`(location, message)` problems, and `LaminaError` carries them to people.
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass

from mlir import ir

from .diagnostics import LaminaError, format_location
from .external_weights import attach_weights
from .buffer import BUFFER
from .graph import GRAPH
from .hir import HIR
from .irdl import DialectDef
from .lir import LIR
from .parser_hazards import parser_hazard

# Every Lamina dialect, in lowering order. Later levels append theirs.
DIALECTS: list[DialectDef] = [GRAPH, BUFFER, HIR, LIR]

# Elements beyond this many are elided when printing for people.
ELIDE_ELEMENTS_OVER = 16


def dialect_named(name: str) -> DialectDef:
    for dialect in DIALECTS:
        if dialect.name == name:
            return dialect
    raise LaminaError(f"unknown dialect '{name}'; known: {', '.join(d.name for d in DIALECTS)}")


def _stub_python_dialect_modules() -> None:
    """Give each Lamina dialect an (empty) `mlir.dialects.NAME` module.

    The bindings look for a dialect's Python module whenever they wrap an op
    (`value.owner`, walking a block) and do not remember a failed import, so
    without one every wrap of a Lamina op re-ran Python's import machinery:
    95% of `buffer-eliminate-copies`' time on a 64-input Concat. An empty
    module gives the generic OpView, as before.
    """
    for dialect in DIALECTS:
        name = f"mlir.dialects.{dialect.name}"
        if name not in sys.modules:
            sys.modules[name] = types.ModuleType(name, f"Lamina's {dialect.name} dialect: no Python op classes")


def make_context() -> ir.Context:
    """A fresh context with upstream dialects registered and Lamina's loaded."""
    _stub_python_dialect_modules()
    context = ir.Context()
    # Python passes and printing are not thread-safe in the 22.x bindings.
    context.enable_multithreading(False)
    for dialect in DIALECTS:
        dialect.load(context)
    return context


@dataclass(frozen=True)
class Problem:
    """A diagnostic produced by parsing or verifying, not yet shown.

    `notes` are MLIR's attached notes (e.g. "previously defined here").
    """

    location: ir.Location
    message: str
    notes: tuple["Problem", ...] = ()

    def __str__(self) -> str:
        return f"{format_location(self.location)}: error: {self.message}"


class InvalidIR(LaminaError):
    """Parsing or verification failed; `problems` has every diagnostic."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def problems_of(error: ir.MLIRError) -> list[Problem]:
    """The error diagnostics an MLIR call raised, with their notes."""

    def problem(diagnostic) -> Problem:
        return Problem(diagnostic.location, diagnostic.message, tuple(problem(n) for n in diagnostic.notes))

    return [problem(d) for d in error.error_diagnostics]


# MLIR's complaint when a source does not hold exactly one top-level op.
_NOT_ONE_TOP_LEVEL_OP = "source must contain a single top-level operation"


def _parse_operation(text: str, source_name: str) -> ir.Operation:
    try:
        return ir.Operation.parse(text, source_name=source_name).operation
    except ir.MLIRError as error:
        raise InvalidIR(problems_of(error) or [_unexplained_parse_failure(text, source_name)]) from None


def _location_at(text: str, offset: int, source_name: str) -> ir.Location:
    """The `file:line:col` location of a character offset into `text`, as MLIR counts them."""
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return ir.Location.file(source_name, line, column)


def _unexplained_parse_failure(text: str, source_name: str) -> Problem:
    """Why MLIR failed to parse when it said nothing.

    MLIR 22 (mlir-opt too) fails silently on an IRDL op written in custom
    syntax, which IRDL ops do not have: find such a use and point at it.
    """
    names = "|".join(re.escape(dialect.name) for dialect in DIALECTS)
    custom_form = re.compile(rf"^[ \t]*(?:%[^=\n]*=[ \t]*)?(?P<op>(?:{names})\.\w+)", re.MULTILINE)
    match = custom_form.search(text)
    if match is None:
        return Problem(ir.Location.file(source_name, 0, 0), "MLIR failed to parse this input without saying why")
    op = match.group("op")
    return Problem(_location_at(text, match.start("op"), source_name),
                   f"custom op '{op}' is unknown: Lamina's ops have only the generic form, \"{op}\"(...)")


# What MLIR prints in place of a large constant when asked to elide it.
_ELIDED_CONSTANT = "dense_resource<__elided__>"


def _reject_elided_constants(text: str, source_name: str) -> None:
    """Text printed for people (`--elide`) lost its weights: say so rather than
    let verification complain about a resource attribute."""
    start = text.find(_ELIDED_CONSTANT)
    while start >= 0 and "//" in text[text.rfind("\n", 0, start) + 1:start]:  # in a comment
        start = text.find(_ELIDED_CONSTANT, start + 1)
    if start < 0:
        return
    raise InvalidIR([Problem(_location_at(text, start, source_name),
                             "this constant was elided when printed (--elide); elided text is for reading only, "
                             "re-create the module without eliding to parse or run it")])


def _reject_parser_hazards(text: str, source_name: str) -> None:
    """Text that would abort MLIR's parser (an op named `"graph."`, `array<index: ...>`): refuse it first."""
    found = parser_hazard(text)
    if found is not None:
        offset, message = found
        raise InvalidIR([Problem(_location_at(text, offset, source_name), message)])


def embedded_source(op: ir.Operation, attribute: str) -> str:
    """How errors name text kept in an op's attribute: the op's location, so people can find it."""
    return f"{op.name} at {format_location(op.location)}, attribute '{attribute}'"


def parse_module(text: str, context: ir.Context, source_name: str = "-") -> ir.Operation:
    """Parse `.mlir` text into a `builtin.module` operation.

    Lamina passes modules around as their `builtin.module` operation (what
    `Operation.parse` yields and `PassManager.run` takes). As in `mlir-opt`, a
    source holding one `builtin.module` is that module, and any other top-level
    ops are wrapped in an implicit one. Large constants written to a weights
    file (`external_weights.py`) are loaded from it. Raises InvalidIR naming
    `source_name:line:col`.
    """
    with context:
        _reject_elided_constants(text, source_name)
        _reject_parser_hazards(text, source_name)
        try:
            top = _parse_operation(text, source_name)
        except InvalidIR as error:
            if not any(p.message.startswith(_NOT_ONE_TOP_LEVEL_OP) for p in error.problems):
                raise
            # None or several top-level ops: let the parser see them inside a
            # module. The wrapper shares line 1, so only columns there shift.
            top = _parse_operation(f"module {{{text}\n}}", source_name)
        if top.name != "builtin.module":
            module = ir.Module.create(ir.Location.unknown())
            module.body.append(top)
            top = module.operation
        attach_weights(top, text, source_name)
        return top


def print_module(module: ir.Operation, *, debug_info: bool = False, elide: bool = False) -> str:
    """Module text; `elide` shortens large constants for people (not parseable back)."""
    limit = ELIDE_ELEMENTS_OVER if elide else None
    return module.get_asm(
        enable_debug_info=debug_info,
        large_elements_limit=limit,
        large_resource_limit=limit,
    )


def verify_module(module: ir.Operation) -> list[Problem]:
    """Structural (IRDL), then per-op semantic (shape functions), then
    whole-module (dialect module verifiers) verification."""
    try:
        module.verify()
    except ir.MLIRError as error:
        return problems_of(error)
    problems = []

    by_prefix = {dialect.name: dialect for dialect in DIALECTS}

    def visit(op: ir.Operation):
        dialect = by_prefix.get(op.name.partition(".")[0])  # op.name crosses into C++: ask once per op
        if dialect is not None and dialect.lookup(op) is not None:
            message = dialect.verify_op(op)
            if message:
                problems.append(Problem(op.location, f"'{op.name}' op {message}"))
        return ir.WalkResult.ADVANCE

    module.walk(visit)
    if problems:
        return problems
    for dialect in DIALECTS:
        if dialect.module_verifier is not None:
            problems.extend(Problem(loc, message) for loc, message in dialect.module_verifier(module))
    return problems


def check_module(module: ir.Operation) -> None:
    """Raise InvalidIR unless the module verifies."""
    problems = verify_module(module)
    if problems:
        raise InvalidIR(problems)
