"""MLIR's textual pass-pipeline syntax, parsed in Python.

    pipeline ::= op-name `(` element-list? `)`
    element  ::= op-name `(` element-list? `)`          a nested pipeline
               | pass-name (`{` options `}`)?         a pass or named pipeline
    options  ::= (key (`=` value)?)*                  values may be quoted or braced

Lamina parses pipelines itself because its Python passes are not in MLIR's
pipeline registry; elements that are not Lamina's keep their text (options
included) and are handed to MLIR as written. Every element remembers its
column so that errors can point at it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lamina.dialects.diagnostics import LaminaError

_NAME = re.compile(r"[A-Za-z_][\w.$-]*")
_CLOSER = {"{": "}", '"': '"', "'": "'"}


class PipelineError(LaminaError):
    """A pipeline that cannot be built; the message points at the column."""

    def __init__(self, message: str, text: str, column: int, source: str = "pass pipeline"):
        self.column = column
        pointer = " " * (column - 1) + "^"
        super().__init__(f"{source}, column {column}: {message}\n{text}\n{pointer}")


@dataclass(frozen=True)
class PassElement:
    """A pass or named pipeline, with its options' raw text."""

    name: str
    options: str | None  # the text between the braces; None without braces
    column: int  # 1-based, of the name
    options_column: int = 0  # 1-based, of the first character inside the braces

    def text(self) -> str:
        return self.name if self.options is None else f"{self.name}{{{self.options}}}"


@dataclass(frozen=True)
class NestedPipeline:
    """Elements that run on every `op_name` op directly inside the current op."""

    op_name: str
    elements: tuple["PassElement | NestedPipeline", ...]
    column: int


Element = PassElement | NestedPipeline


def parse_pipeline(text: str, source: str = "pass pipeline") -> NestedPipeline:
    """Parse an anchored pipeline, `builtin.module(...)`."""
    parser = _Parser(text, source)
    parser.skip_spaces()
    start = parser.pos
    name = parser.name("the op the pipeline runs on, as in 'builtin.module(...)'")
    parser.skip_spaces()
    if not parser.at("("):
        parser.fail("a pass pipeline names the op it runs on: write 'builtin.module(...)'", start)
    pipeline = NestedPipeline(name, parser.nested(), start + 1)
    parser.end()
    return pipeline


def parse_elements(text: str, source: str) -> tuple[Element, ...]:
    """Parse an unanchored element list, as a named pipeline expands to."""
    parser = _Parser(text, source)
    elements = parser.elements(closing="")
    parser.end()
    return elements


def split_options(element: PassElement, text: str, source: str = "pass pipeline") -> dict[str, str | None]:
    """The `key=value` pairs of an element's options (None for a bare key).

    `text` is the pipeline the element was parsed from, so that errors point
    into it. Values may be quoted ('a b' or "a b": quotes are removed) or
    braced (kept as written).
    """
    if element.options is None:
        return {}
    start = element.options_column - 1
    parser = _Parser(text, source, start, start + len(element.options))
    values: dict[str, str | None] = {}
    while True:
        parser.skip_spaces()
        if parser.pos == parser.limit:
            return values
        key_start = parser.pos
        key = parser.name("an option name")
        if key in values:
            parser.fail(f"option '{key}' is given twice", key_start)
        values[key] = None
        if parser.at("="):
            parser.pos += 1
            values[key] = parser.value()


class _Parser:
    """A cursor over pipeline text; `fail` raises PipelineError at a position."""

    def __init__(self, text: str, source: str, start: int = 0, limit: int | None = None):
        self.text = text
        self.source = source
        self.pos = start
        self.limit = len(text) if limit is None else limit

    def fail(self, message: str, pos: int | None = None):
        raise PipelineError(message, self.text, (self.pos if pos is None else pos) + 1, self.source)

    def at(self, char: str) -> bool:
        return self.text.startswith(char, self.pos, self.limit)

    def skip_spaces(self) -> None:
        while self.pos < self.limit and self.text[self.pos].isspace():
            self.pos += 1

    def end(self) -> None:
        self.skip_spaces()
        if self.pos != self.limit:
            self.fail(f"unexpected '{self.text[self.pos]}' after the pipeline")

    def name(self, what: str) -> str:
        match = _NAME.match(self.text, self.pos, self.limit)
        if match is None:
            found = f"'{self.text[self.pos]}'" if self.pos < self.limit else "the end"
            self.fail(f"expected {what}, found {found}")
        self.pos = match.end()
        return match.group()

    def nested(self) -> tuple[Element, ...]:
        """`(` element-list `)`, with the cursor on the `(`."""
        opening = self.pos
        self.pos += 1
        elements = self.elements(closing=")")
        if not self.at(")"):
            self.fail("unbalanced '(': expected ')'", opening if self.pos == self.limit else None)
        self.pos += 1
        return elements

    def elements(self, closing: str) -> tuple[Element, ...]:
        """Comma-separated elements, up to (not over) `closing` or the end."""
        self.skip_spaces()
        if self.pos == self.limit or (closing and self.at(closing)):
            return ()
        elements = [self.element()]
        while True:
            self.skip_spaces()
            if not self.at(","):
                if self.pos < self.limit and not (closing and self.at(closing)):
                    expected = f"',' or '{closing}'" if closing else "','"
                    self.fail(f"expected {expected} after '{self.text[elements[-1].column - 1:self.pos].strip()}'")
                return tuple(elements)
            self.pos += 1
            self.skip_spaces()
            elements.append(self.element())

    def element(self) -> Element:
        start = self.pos
        name = self.name("a pass name")
        if self.at("("):
            return NestedPipeline(name, self.nested(), start + 1)
        if not self.at("{"):
            return PassElement(name, None, start + 1)
        opening = self.pos
        end = self.balanced(opening)
        self.pos = end + 1
        return PassElement(name, self.text[opening + 1:end], start + 1, opening + 2)

    def value(self) -> str:
        """An option value: quoted, braced, or up to the next space."""
        if self.at('"') or self.at("'"):
            end = self.balanced(self.pos)
            value = self.text[self.pos + 1:end]
            self.pos = end + 1
            return value
        start = self.pos
        while self.pos < self.limit and not self.text[self.pos].isspace():
            self.pos = self.balanced(self.pos) + 1 if self.at("{") else self.pos + 1
        return self.text[start:self.pos]

    def balanced(self, opening: int) -> int:
        """The index of the bracket or quote closing the one at `opening`."""
        closing = _CLOSER[self.text[opening]]
        pos = opening + 1
        while pos < self.limit:
            char = self.text[pos]
            if char == closing:
                return pos
            if char in _CLOSER and closing == "}":
                pos = self.balanced(pos)
            pos += 1
        self.fail(f"unbalanced '{self.text[opening]}': expected '{closing}'", opening)
