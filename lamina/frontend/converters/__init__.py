"""Converters, one module per family of ONNX operators; importing registers them."""

from . import (activations, constants, control_flow, convolution, elementwise, linear, logical, normalization,
               pooling, quantization, recurrent, reductions, resize, shape_ops)
from . import einsum, indexing, math_ops

__all__ = ["activations", "constants", "control_flow", "convolution", "elementwise", "linear", "logical",
           "normalization", "pooling", "quantization", "recurrent", "reductions", "resize", "shape_ops",
           "einsum", "indexing", "math_ops"]
