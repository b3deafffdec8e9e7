"""The table of ONNX operators the importer converts.

Each entry says which graph ops the operator becomes, which inputs must be
compile-time constants, what else limits support (`check`, run on every node
before anything is emitted), and a note for `docs/onnx-op-coverage.md`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

import onnx.defs
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.op_registry import OpRegistry, RegistryError

if TYPE_CHECKING:
    from lamina.dialects.types import TensorSpec

    from .emitter import NodeEmitter
    from .node_view import NodeView

# A check yields one reason per unsupported aspect of a node; nothing if supported.
Check = Callable[["NodeView"], Iterable[str]]
# A converter returns the value of output 0, or one value (or None) per output.
Convert = Callable[["NodeEmitter"], "ir.Value | Sequence[ir.Value | None]"]
# The output types a converter derives where ONNX shape inference cannot (None where unknown).
OutputSpecs = Callable[["NodeView"], "list[TensorSpec | None]"]


@dataclass(frozen=True)
class Converter:
    op_type: str
    convert: Convert
    graph_ops: tuple[str, ...]
    static_inputs: dict[int, str] = field(default_factory=dict)  # input index -> role, for messages
    check: Check | None = None
    notes: str = ""
    # Inputs whose value, bound by a caller that has it, lets more of the node import (a Loop's trip count
    # and condition size its scan outputs); unlike static_inputs, they may stay data.
    bindable_inputs: tuple[int, ...] = ()
    # The output types ONNX shape inference cannot know and the converter derives (a Loop's scan outputs,
    # a Slice at a loop's iteration number), None where unknown; see subgraphs.refine_control_flow.
    output_specs: OutputSpecs | None = None


CONVERTERS: OpRegistry[Converter] = OpRegistry("ONNX converter", known=onnx.defs.has, space="ONNX's operator set")


def register(op_type: str, convert: Convert, *, graph_ops: Sequence[str], static_inputs: dict[int, str] | None = None,
             check: Check | None = None, notes: str = "", bindable_inputs: tuple[int, ...] = (),
             output_specs: OutputSpecs | None = None) -> None:
    unknown = [name for name in graph_ops if name not in GRAPH.ops]
    if unknown:
        raise RegistryError(f"ONNX converter for '{op_type}' emits {unknown}, which are not graph ops")
    CONVERTERS.add(op_type, Converter(op_type, convert, tuple(graph_ops), dict(static_inputs or {}), check, notes,
                                      tuple(bindable_inputs), output_specs))


def converter(*op_types: str, **options) -> Callable[[Convert], Convert]:
    """Decorator form of `register` for one function converting `op_types`."""

    def decorate(convert: Convert) -> Convert:
        for op_type in op_types:
            register(op_type, convert, **options)
        return convert

    return decorate
