"""Passes over the `buffer` level, one module each; importing this package registers them."""

from lamina.passes.registry import import_submodules

import_submodules(__name__, __path__)
