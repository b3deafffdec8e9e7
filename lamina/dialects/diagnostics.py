"""Errors for people: one exception type the tools turn into a one-line message.

Every user-facing failure (bad model file, unsupported op, malformed IR, wrong
input shape) is raised as a `LaminaError` whose text already names the file,
ONNX node or MLIR location. Tools print it and exit non-zero; anything else
escaping is a bug in Lamina and keeps its traceback.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from mlir import ir

from lamina import LaminaError

__all__ = ["LaminaError", "collect_diagnostics", "format_location"]


def format_location(loc: ir.Location) -> str:
    """Render a location the way MLIR tools prefix diagnostics.

    File locations print as `file:line:col`, ONNX node names as `node 'name'`,
    so both kinds read naturally in front of a message.
    """
    if loc.is_a_file():
        return f"{loc.filename}:{loc.start_line}:{loc.start_col}"
    if loc.is_a_name():
        return f"node '{loc.name_str}'"
    if loc.is_a_fused():
        parts = [format_location(inner) for inner in loc.locations]
        return ", ".join(p for p in parts if p) or "unknown location"
    if loc.is_a_callsite():
        return format_location(loc.callee)
    return "unknown location"


@contextmanager
def collect_diagnostics(context: ir.Context) -> Iterator[list[ir.DiagnosticInfo]]:
    """Capture diagnostics emitted in `context` instead of printing them.

    Yields the list the captured diagnostics are appended to, as detached
    `DiagnosticInfo` records (safe to keep after the handler is gone).
    """
    captured: list = []

    def handler(diagnostic: ir.Diagnostic) -> bool:
        captured.append(ir.DiagnosticInfo(diagnostic))
        return True

    handle = context.attach_diagnostic_handler(handler)
    try:
        yield captured
    finally:
        handle.detach()

