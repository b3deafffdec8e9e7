"""Finding text that would abort the MLIR parser instead of failing it.

MLIR 22's parser (mlir-opt's too) aborts the whole process on two inputs:
- a generic op whose name is a loaded dialect's namespace with no op after
  it: `"graph."()`, `"hir"()`, `"func."()` ("LLVM ERROR: ... created with
  unregistered dialect"). No valid op has such a name (every op is `dialect.op`).
- a dense array of `index` elements, `array<index: 1>` (an assertion in
  `getIntOrFloatBitWidth`). Dense arrays hold integers or floats only.
`parser_hazard` finds either before the parser sees the text.
"""

from __future__ import annotations

import re

# String literals and comments, in the order MLIR's lexer meets them.
_TOKENS = re.compile(r'"(?P<string>(?:[^"\\\n]|\\.)*)"|//[^\n]*')
_ESCAPE = re.compile(r'\\(?:([0-9a-fA-F]{2})|(.))', re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"'}
# A string followed by "(" after one of these is a location name (loc("name"(...))), not an op.
_LOCATION_CONTEXT = "([,"


def _decoded(literal: str) -> str:
    """The value of an MLIR string literal's body (`\\61` is 'a')."""
    def replace(match: re.Match) -> str:
        if match.group(1):
            return chr(int(match.group(1), 16))
        return _SIMPLE_ESCAPES.get(match.group(2), match.group(2))
    return _ESCAPE.sub(replace, literal)


def _is_op_name(name: str) -> bool:
    dialect, dot, op = name.partition(".")
    return bool(dialect and dot and op)


_INDEX_ARRAY = re.compile(r"(?<![\w.!])array\s*<\s*index\b")


def parser_hazard(text: str) -> tuple[int, str] | None:
    """(offset, message) of the first text that would abort the parser, or None."""
    skipped = [match.span() for match in _TOKENS.finditer(text)]
    for match in _INDEX_ARRAY.finditer(text):
        if not any(start <= match.start() < end for start, end in skipped):
            return match.start(), "a dense array holds integers or floats, not index ('array<index: ...>')"
    found = _malformed_op_name(text)
    if found is not None:
        offset, name = found
        return offset, f"'{name}' is not an operation name: generic op names are \"dialect.op\", with both parts non-empty"
    return None


def _malformed_op_name(text: str) -> tuple[int, str] | None:
    """(offset, name) of the first generic op name that is not `dialect.op`, or None."""
    for match in _TOKENS.finditer(text):
        literal = match.group("string")
        if literal is None:
            continue
        after = text[match.end():match.end() + 64].lstrip()
        if not after.startswith("("):
            continue
        before = text[max(0, match.start() - 64):match.start()].rstrip()
        if before and before[-1] in _LOCATION_CONTEXT:
            continue
        name = _decoded(literal)
        if not _is_op_name(name):
            return match.start(), name
    return None
