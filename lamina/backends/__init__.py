"""Compilation targets as data: what each supports, what it wants lowered, how it rewrites the graph.

`backend_named("accelerator")` gives a `Backend`; the graph passes take one
by name (`graph-optimize{backend=accelerator}`).
"""

from .backend import Backend
from .registry import BACKENDS, BackendName, backend_named

__all__ = ["BACKENDS", "Backend", "BackendName", "backend_named"]
