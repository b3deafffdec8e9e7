"""Names a conversion gives what it creates (buffers, Vars): the ONNX node's name, made unique."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir


def location_name(loc: ir.Location) -> str | None:
    """The (first) node name a location carries, e.g. an ONNX node's name."""
    if loc.is_a_name():
        return loc.name_str
    if loc.is_a_fused():
        return next(filter(None, map(location_name, loc.locations)), None)
    return None


@dataclass
class UniqueNames:
    """Hands out names nothing else has: `base`, else `base.1`, `base.2`, ..."""

    taken: set[str] = field(default_factory=set)

    def fresh(self, base: str) -> str:
        name, suffix = base, 0
        while name in self.taken:
            suffix += 1
            name = f"{base}.{suffix}"
        self.taken.add(name)
        return name
