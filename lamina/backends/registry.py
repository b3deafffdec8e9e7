"""Backends by name, as pipelines spell them (`graph-lower{backend=accelerator}`)."""

from __future__ import annotations

from typing import Literal

from lamina.dialects.diagnostics import LaminaError

from .accelerator import AcceleratorBackend
from .backend import Backend
from .cpu import CpuBackend
from .reference import ReferenceBackend, ReferenceLoweredBackend

BACKENDS: dict[str, Backend] = {
    backend.name: backend for backend in (ReferenceBackend(), ReferenceLoweredBackend(), AcceleratorBackend(), CpuBackend())
}

# The type of a pass option naming a backend: the option parser then rejects
# unknown names with the list of known ones, and `--list-passes` shows them.
BackendName = Literal[tuple(BACKENDS)]


def backend_named(name: str) -> Backend:
    """The backend called `name`; a LaminaError listing the known names otherwise."""
    try:
        return BACKENDS[name]
    except KeyError:
        raise LaminaError(f"unknown backend '{name}'; known backends: {', '.join(BACKENDS)}") from None
