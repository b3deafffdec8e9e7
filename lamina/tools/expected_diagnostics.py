"""`--verify-diagnostics`: MLIR's `expected-*` comments, checked in Python.

A comment `// expected-error {{text}}` says that an error whose message
contains `text` is reported on that line. `expected-warning`, `-note` and
`-remark` work alike; `@+N` / `@-N` move the line, `@above` / `@below` name
the nearest line above / below that holds no expectation, and `@unknown`
expects the diagnostic at an unknown location. In `expected-error-re`,
`{{...}}` parts of the text are regular expressions. Every reported
diagnostic must be expected and every expectation met; mismatches are
worded as `mlir-opt` words them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from mlir import ir

from lamina.dialects.context import Problem
from lamina.dialects.diagnostics import format_location

# MLIR attaches this note to verifier errors; mlir-opt turns it off for
# --verify-diagnostics, the 22.x bindings cannot, and the location already
# points at the op, so Lamina never shows it.
_CURRENT_OPERATION_NOTE = "see current operation:"

_DIRECTIVE = re.compile(
    r"expected-(?P<severity>error|note|remark|warning)(?P<regex>-re)? *"
    r"(?:@(?P<where>[+-][0-9]+|above|below|unknown))? *\{\{(?P<text>.*)\}\}$"
)


@dataclass(frozen=True)
class Reported:
    """A diagnostic as people see it."""

    location: ir.Location
    severity: str  # "error", "warning", "note" or "remark"
    message: str

    def __str__(self) -> str:
        return f"{format_location(self.location)}: {self.severity}: {self.message}"


def reported_problems(problems: Iterable[Problem]) -> list[Reported]:
    """Errors with their notes, in order."""
    reported = []
    for problem in problems:
        reported.append(Reported(problem.location, "error", problem.message))
        reported += [Reported(n.location, "note", n.message) for n in problem.notes if _shown(n.message)]
    return reported


def reported_diagnostics(diagnostics: Iterable[ir.DiagnosticInfo]) -> list[Reported]:
    """Captured MLIR diagnostics with their notes, in order."""
    reported = []
    for diagnostic in diagnostics:
        reported.append(Reported(diagnostic.location, _severity(diagnostic), diagnostic.message))
        reported += [Reported(n.location, "note", n.message) for n in diagnostic.notes if _shown(n.message)]
    return reported


def _shown(note: str) -> bool:
    return not note.startswith(_CURRENT_OPERATION_NOTE)


def _severity(diagnostic: ir.DiagnosticInfo) -> str:
    return str(diagnostic.severity).rsplit(".", 1)[-1].lower()


@dataclass
class _Expectation:
    severity: str
    where: tuple[str, int] | None  # (file, line), or None: at an unknown location
    pattern: re.Pattern
    text: str  # as written, for "was not produced"
    position: str  # "file:line:col" of the directive
    matched: bool = False


def verify(source: str, source_name: str, reported: Iterable[Reported]) -> list[str]:
    """What does not match between `source`'s expectations and `reported`.

    Each mismatch is one line, `mlir-opt`'s wording; an empty list means
    everything expected was reported and nothing else.
    """
    expectations, mismatches = _expectations(source, source_name)
    for diagnostic in reported:
        where = _position(diagnostic.location)
        expectation = next(
            (e for e in expectations
             if not e.matched and e.severity == diagnostic.severity and e.where == where
             and e.pattern.search(diagnostic.message)),
            None,
        )
        if expectation is None:
            mismatches.append(f"{format_location(diagnostic.location)}: error: unexpected {diagnostic.severity}: "
                              f"{diagnostic.message}")
        else:
            expectation.matched = True
    mismatches += [
        f'{e.position}: error: expected {e.severity} "{e.text}" was not produced'
        for e in expectations if not e.matched
    ]
    return mismatches


def _expectations(source: str, source_name: str) -> tuple[list[_Expectation], list[str]]:
    """The expectations `source` states, and an error line per malformed one."""
    lines = source.split("\n")
    found = {number: _DIRECTIVE.search(line) for number, line in enumerate(lines, start=1)}
    directive_lines = {number for number, match in found.items() if match}
    expectations, problems = [], []
    for number, match in found.items():
        if match is None:
            continue
        position = f"{source_name}:{number}:{match.start() + 1}"
        text = match.group("text")
        try:
            pattern = _regex(text) if match.group("regex") else re.compile(re.escape(text))
        except (re.error, ValueError) as error:
            problems.append(f"{position}: error: invalid expected-{match.group('severity')}-re: {error}")
            continue
        line = _target_line(number, match.group("where"), directive_lines)
        where = None if line is None else (source_name, line)
        expectations.append(_Expectation(match.group("severity"), where, pattern, text, position))
    return expectations, problems


def _target_line(line: int, placement: str | None, directive_lines: set[int]) -> int | None:
    """The line a directive on `line` with `@placement` is about; None for `@unknown`."""
    if placement is None:
        return line
    if placement == "unknown":
        return None
    if placement in ("above", "below"):
        step = -1 if placement == "above" else 1
        line += step
        while line in directive_lines:
            line += step
        return line
    return line + int(placement)


def _regex(text: str) -> re.Pattern:
    """Literal text with `{{regex}}` parts, as `expected-*-re` writes it."""
    parts, pos = [], 0
    while (start := text.find("{{", pos)) != -1:
        end = text.find("}}", start + 2)
        if end == -1:
            raise ValueError("'{{' without a closing '}}'")
        parts += [re.escape(text[pos:start]), f"(?:{text[start + 2:end]})"]
        pos = end + 2
    parts.append(re.escape(text[pos:]))
    return re.compile("".join(parts))


def _position(location: ir.Location) -> tuple[str, int] | None:
    """The (file, line) a location points at, looking inside names, call sites and fusions."""
    if location.is_a_file():
        return location.filename, location.start_line
    if location.is_a_name():
        return _position(location.child_loc)
    if location.is_a_callsite():
        return _position(location.callee)
    if location.is_a_fused():
        return next(filter(None, map(_position, location.locations)), None)
    return None
