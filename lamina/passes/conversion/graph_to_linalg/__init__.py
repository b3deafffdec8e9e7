"""convert-graph-to-linalg: graph ops to upstream linalg/tensor/arith/math on tensors (the CPU path).

Importing the package imports every converter module (each registers its
ops in `registry.CONVERTERS`) and the driver pass in `convert.py`.
"""

from lamina.passes.registry import import_submodules

import_submodules(__name__, __path__)
