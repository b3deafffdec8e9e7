"""The one user-facing exception type, at the bottom of the layers so every package can raise it."""

from __future__ import annotations


class LaminaError(Exception):
    """A user-facing error; its message is complete and printable as is."""
