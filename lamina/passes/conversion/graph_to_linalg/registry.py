"""Which function converts which graph op to upstream tensor-level MLIR.

Converter modules register themselves with `@converts("relu", ...)`; the
`convert-graph-to-linalg` driver looks ops up here by their graph name
(without the dialect prefix). A converter is called with the insertion point
right before the graph op and the op's location current, and returns the
values (builtin tensor types, same as the op's results) that replace them.
"""

from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir

from lamina.dialects.irdl import OpView

Converter = Callable[[OpView, list[ir.Value]], Sequence[ir.Value]]
CONVERTERS: dict[str, Converter] = {}


def converts(*names: str) -> Callable[[Converter], Converter]:
    """Register the decorated function as the converter of each graph op in `names`."""

    def register(converter: Converter) -> Converter:
        for name in names:
            if name in CONVERTERS:
                raise ValueError(f"graph op '{name}' already has a converter ({CONVERTERS[name].__qualname__})")
            CONVERTERS[name] = converter
        return converter

    return register
