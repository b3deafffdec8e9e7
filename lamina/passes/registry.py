"""The pass registry: Lamina's passes and named pipelines, by pipeline name.

MLIR 22's Python bindings cannot register a Python pass under a name that
textual pipelines understand, so Lamina keeps its own registry and its own
pipeline parser (`pipeline_syntax.py`, `pass_manager.py`). Following MLIR's
`PassRegistryEntry`, a registered entry is a pass or a named pipeline; both are
frozen dataclasses whose fields are their options (`options.py`).

Passes live next to the level they work on (`lamina/passes/graph/dce.py`) and named
pipelines in `lamina/pipelines/`; they register themselves with `@register_pass` /
`@register_pipeline` when their module is imported. The default registry
imports those modules the first time it is asked for a name.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import pkgutil
from abc import ABC, abstractmethod
from typing import ClassVar, Iterable, TypeVar

from mlir import ir

from lamina.dialects.diagnostics import LaminaError

from lamina.dialects.op_registry import OpRegistry

from .options import option_specs


class RegistryEntry(ABC):
    """What passes and pipelines share: a pipeline name, a summary and a docstring.

    Every concrete entry documents what it does and when it is legal in its
    class docstring; a class that sets `name` without one is rejected when it
    is defined. Its dataclass fields are its options, so `name`, `summary`,
    `op_name`, `run` and `expand` are not option names.
    """

    name: ClassVar[str]  # how pipelines spell it, e.g. "graph-dce"
    summary: ClassVar[str]  # one line for `--list-passes`

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" in vars(cls) and not (cls.__doc__ or "").strip():
            raise TypeError(f"{cls.__name__} ('{cls.name}') needs a docstring: what it does and when it is legal")


class Pass(RegistryEntry):
    """A transformation or check over IR, usable in pipelines by its `name`.

    A pass is a frozen dataclass registered with `@register_pass`. `run` gets
    each op the pipeline schedules it on, with that op's context active, and
    fails by raising `LaminaError` (`PassError` to point at an op).
    """

    # The kind of op the pass runs on, as MLIR pass anchors; None: any op.
    op_name: ClassVar[str | None] = None

    @abstractmethod
    def run(self, op: ir.Operation) -> None:
        """Transform or check `op` in place; raise `LaminaError` to fail."""


class Pipeline(RegistryEntry):
    """A named composition of passes and pipelines, with options of its own.

    A pipeline is a frozen dataclass registered with `@register_pipeline`;
    it stands for the elements `expand` returns, which may use its options.
    """

    @abstractmethod
    def expand(self) -> str:
        """The elements this pipeline stands for, in pipeline syntax (e.g. `graph-dce,cse`)."""


class PassError(LaminaError):
    """A pass cannot do its job; `location` is where in the IR the reason is."""

    def __init__(self, message: str, location: ir.Location):
        super().__init__(message)
        self.location = location


Entry = TypeVar("Entry", bound=type[RegistryEntry])


class Registry:
    """Passes and pipelines by name.

    `providers` are modules that register into this registry when imported;
    they are imported on first use, so importing the registry stays cheap and
    free of import cycles.
    """

    def __init__(self, providers: Iterable[str] = ()):
        self._providers = tuple(providers)
        self._loaded = not self._providers
        self._entries: OpRegistry[type[RegistryEntry]] = OpRegistry("registration", space="pass and pipeline names")

    def register_pass(self, cls: Entry) -> Entry:
        """Class decorator registering a `Pass`."""
        return self._register(cls, Pass)

    def register_pipeline(self, cls: Entry) -> Entry:
        """Class decorator registering a named `Pipeline`."""
        return self._register(cls, Pipeline)

    def lookup(self, name: str) -> type[RegistryEntry] | None:
        return self._all().get(name)

    def passes(self) -> list[type[Pass]]:
        return sorted((e for e in self._all().values() if issubclass(e, Pass)), key=lambda e: e.name)

    def pipelines(self) -> list[type[Pipeline]]:
        return sorted((e for e in self._all().values() if issubclass(e, Pipeline)), key=lambda e: e.name)

    def close_matches(self, name: str) -> list[str]:
        return difflib.get_close_matches(name, self._all(), n=3, cutoff=0.75)

    def _all(self) -> OpRegistry[type[RegistryEntry]]:
        if not self._loaded:
            self._loaded = True
            for module in self._providers:
                importlib.import_module(module)
        return self._entries

    def _register(self, cls: Entry, kind: type[RegistryEntry]) -> Entry:
        if not (isinstance(cls, type) and issubclass(cls, kind)):
            raise TypeError(f"{cls!r} is not a {kind.__name__} subclass")
        if not isinstance(vars(cls).get("name"), str) or not isinstance(getattr(cls, "summary", None), str):
            raise TypeError(f"{cls.__name__} needs class attributes `name` and `summary`")
        if not (dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen):
            raise TypeError(f"{cls.__name__} must be a frozen dataclass (its fields are its options)")
        option_specs(cls)  # rejects options that cannot be set from text
        return self._entries.add(cls.name, cls)


def import_submodules(package: str, path: Iterable[str]) -> None:
    """Import every module of a pass or pipeline package, which registers what it defines.

    A new pass is one new module: no list of imports to keep in step.
    """
    for module in pkgutil.iter_modules(path):
        importlib.import_module(f"{package}.{module.name}")


# The registry `lamina-opt` and the pipelines use: every Lamina pass and pipeline.
REGISTRY = Registry(providers=("lamina.passes.graph", "lamina.passes.conversion", "lamina.passes.buffer",
                               "lamina.passes.linalg",
                               "lamina.pipelines"))
register_pass = REGISTRY.register_pass
register_pipeline = REGISTRY.register_pipeline
