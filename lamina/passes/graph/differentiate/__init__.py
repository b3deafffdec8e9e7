"""graph-differentiate: automatic differentiation and SGD, as Glow builds a gradient function.

`training_function.differentiate` is the API; the gradient rules live in
`*_rules.py` (registered in `rules.GRADIENTS` by importing this package).
"""

from lamina.passes.registry import import_submodules

import_submodules(__name__, __path__)

from .training_function import TrainingConfig, differentiate, initial_values  # noqa: E402

__all__ = ["TrainingConfig", "differentiate", "initial_values"]
