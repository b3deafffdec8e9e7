"""Typed options of passes and pipelines: dataclass fields set from pipeline text.

A pipeline spells options as in MLIR, `name{max-iterations=3 backend=cpu}`.
Each field of a pass's frozen dataclass is one option, spelled with dashes
(`max_iterations` is `max-iterations`), with a default and a help line. Only
types whose text form is unambiguous are allowed: bool, int, float, str, a
`Literal` of strings (a choice) and `tuple[T, ...]` of those (a comma list).
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass
from typing import Any, Callable, Mapping


class OptionError(ValueError):
    """Option text that does not fit the pass: unknown name, bad value."""


def option(default: Any, help: str) -> Any:
    """A dataclass field declaring one option, with the help line `--list-passes` shows."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class OptionSpec:
    """One option as pipelines spell it."""

    flag: str  # the pipeline spelling, e.g. "max-iterations"
    field: str  # the dataclass field, e.g. "max_iterations"
    type_name: str  # what `--list-passes` shows, e.g. "int" or "cpu|accelerator"
    default: Any
    help: str
    parse: Callable[[str], Any]

    def describe(self) -> str:
        return f"{self.flag}=<{self.type_name}>  {self.help} (default: {_show(self.default)})"


def option_specs(cls: type) -> list[OptionSpec]:
    """The options of a pass or pipeline class, in field order.

    Raises TypeError for a field Lamina cannot parse from text or one without a
    default: both are mistakes in the pass definition, found at registration.
    """
    hints = typing.get_type_hints(cls)
    specs = []
    for field in dataclasses.fields(cls):
        if field.default is dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{field.name}: every option needs a default")
        type_name, parse = _parser_for(hints[field.name], f"{cls.__name__}.{field.name}")
        specs.append(OptionSpec(field.name.replace("_", "-"), field.name, type_name, field.default,
                                field.metadata.get("help", ""), parse))
    return specs


def instantiate(cls: type, values: Mapping[str, str | None]) -> Any:
    """An instance of `cls` with the given option texts (None: a flag without `=value`)."""
    specs = {spec.flag: spec for spec in option_specs(cls)}
    arguments = {}
    for flag, text in values.items():
        spec = specs.get(flag)
        if spec is None:
            known = f"options are {', '.join(specs)}" if specs else "it takes no options"
            raise OptionError(f"unknown option '{flag}' ({known})")
        if text is None:
            if spec.type_name != "bool":
                raise OptionError(f"option '{flag}' needs a value")
            text = "true"
        try:
            arguments[spec.field] = spec.parse(text)
        except OptionError as error:
            raise OptionError(f"option '{flag}': {error}") from None
    return cls(**arguments)


# ---------------------------------------------------------------------------
# Text to values, per field type.
# ---------------------------------------------------------------------------


def _parse_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise OptionError(f"expected true or false, got '{text}'")


def _parse_number(kind: type) -> Callable[[str], Any]:
    def parse(text: str):
        try:
            return kind(text)
        except ValueError:
            raise OptionError(f"expected {kind.__name__}, got '{text}'") from None

    return parse


def _parse_choice(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise OptionError(f"expected one of {', '.join(choices)}, got '{text}'")
        return text

    return parse


_SCALARS: dict[type, tuple[str, Callable[[str], Any]]] = {
    bool: ("bool", _parse_bool),
    int: ("int", _parse_number(int)),
    float: ("float", _parse_number(float)),
    str: ("string", str),
}


def _parser_for(hint: Any, where: str) -> tuple[str, Callable[[str], Any]]:
    if hint in _SCALARS:
        return _SCALARS[hint]
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal and all(isinstance(a, str) for a in arguments):
        return "|".join(arguments), _parse_choice(arguments)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        item_name, parse_item = _parser_for(arguments[0], where)

        def parse_list(text: str) -> tuple:
            return tuple(parse_item(item.strip()) for item in text.split(",")) if text.strip() else ()

        return f"{item_name},...", parse_list
    raise TypeError(f"{where}: option type {hint} is not supported (bool, int, float, str, Literal, tuple[T, ...])")


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        return ",".join(_show(v) for v in value)
    return str(value)
