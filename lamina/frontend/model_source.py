"""A tool's MODEL argument as a graph module: an .onnx file, `light:NAME`, or a graph .mlir file."""

from __future__ import annotations

from pathlib import Path

from mlir import ir

from lamina.dialects.context import parse_module
from lamina.dialects.diagnostics import LaminaError

from .loading import load_onnx
from .onnx_importer import import_model
from .random_weights import randomize_weights


def load_graph(source: str, context: ir.Context, input_shapes: dict[str, tuple[int, ...]] | None = None,
               random_weights: int | None = None) -> ir.Operation:
    """The graph module `source` names; `random_weights` (a seed) redraws an ONNX model's weights."""
    if source.endswith(".mlir"):
        if random_weights is not None or input_shapes:
            raise LaminaError(f"{source}: --random-weights and --input-shape apply to ONNX models, not graph modules")
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise LaminaError(f"{source}: cannot read: {getattr(error, 'strerror', None) or error}") from None
        return parse_module(text, context, source)
    return load_onnx_graph(source, context, input_shapes, random_weights)


def load_onnx_graph(source: str, context: ir.Context, input_shapes: dict[str, tuple[int, ...]] | None = None,
                    random_weights: int | None = None) -> ir.Operation:
    """The ONNX model `source` (a file or light:NAME) imported; `random_weights` (a seed) redraws its weights."""
    proto = load_onnx(source)
    if random_weights is not None:
        proto = randomize_weights(proto, random_weights)
    return import_model(proto, context, input_shapes=input_shapes, source_name=source)
