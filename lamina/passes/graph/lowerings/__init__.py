"""Lowerings of high-level graph ops into linear-algebra and element-wise graph ops.

One function per op kind, grouped by family (one module each), registered in
`LOWERINGS` by importing this package; `graph-lower` applies them where a
backend asks for it.
"""

from lamina.passes.registry import import_submodules

from .base import LOWERINGS, Emitter

import_submodules(__name__, __path__)

__all__ = ["LOWERINGS", "Emitter"]
