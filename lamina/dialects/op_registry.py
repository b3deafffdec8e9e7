"""One registry pattern for every table keyed by op: kernels, lowerings, converters, accelerator rules.

An `OpRegistry` belongs to one dialect, or to another name space given by a
`known` test (ONNX operator types) or none (pass names). Registering a name
that is not an op of the dialect, or a name twice, fails when the module
defining the entry is imported, naming the registry and the op. `missing()`
lists the dialect's ops without an entry; `python -m lamina.tools.op_coverage`
turns that into `docs/op-coverage.md`.
"""

from __future__ import annotations

from typing import Callable, Generic, Iterator, MutableMapping, TypeVar

from .irdl import DialectDef

Entry = TypeVar("Entry")


class RegistryError(ValueError):
    """A registration names an unknown op or one that already has an entry."""


class OpRegistry(MutableMapping[str, Entry], Generic[Entry]):
    """Name -> entry, used like a dict; `what` says what an entry is ("kernel", "CPU lowering").

    Assignment registers (with the same checks as `add`); deletion exists so that
    tests can take an entry away and watch a level report it missing.
    """

    def __init__(self, what: str, dialect: DialectDef | None = None, *,
                 known: Callable[[str], bool] | None = None, space: str = ""):
        self.what = what
        self.dialect = dialect
        self._known = known
        self._space = space or (f"the {dialect.name} dialect" if dialect else "")
        self._entries: dict[str, Entry] = {}

    def add(self, name: str, entry: Entry) -> Entry:
        """Register `entry` under `name`; a `RegistryError` if the name is unknown or taken."""
        if self.dialect is not None and name not in self.dialect.ops:
            raise RegistryError(f"{self.what} for '{name}', which is not an op of {self._space}")
        if self._known is not None and not self._known(name):
            raise RegistryError(f"{self.what} for '{name}', which is not a name of {self._space}")
        if name in self._entries:
            raise RegistryError(f"two {self.what}s for '{name}': {_describe(self._entries[name])} and "
                                f"{_describe(entry)}")
        self._entries[name] = entry
        return entry

    def register(self, *names: str) -> Callable[[Entry], Entry]:
        """Decorator: the decorated object is the entry of every name in `names`."""

        def decorate(entry: Entry) -> Entry:
            for name in names:
                self.add(name, entry)
            return entry

        return decorate

    def missing(self) -> list[str]:
        """The dialect's ops without an entry, in table order."""
        assert self.dialect is not None, f"the {self.what} registry has no dialect"
        return [name for name in self.dialect.ops if name not in self._entries]

    def __getitem__(self, name: str) -> Entry:
        return self._entries[name]

    def __setitem__(self, name: str, entry: Entry) -> None:
        self.add(name, entry)

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


def _describe(entry: object) -> str:
    """A function's name, or the name of the first function a record entry holds."""
    if hasattr(entry, "__qualname__"):
        return entry.__qualname__
    functions = [value for value in getattr(entry, "__dict__", {}).values() if hasattr(value, "__qualname__")]
    return functions[0].__qualname__ if functions else type(entry).__name__
