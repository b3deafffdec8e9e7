"""Lamina: a neural-network compiler on MLIR, from ONNX to a Tensil-style accelerator and the CPU.

The root package owns the one thing every layer shares, the user-facing
exception type: every import of Lamina loads this package first, so no
layer pulls in another to raise it.
"""


class LaminaError(Exception):
    """A user-facing error; its message is complete and printable as is."""
