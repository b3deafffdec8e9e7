"""Converters, one module per family of ONNX operators; importing registers them."""

from . import (activations, constants, convolution, elementwise, linear, logical, normalization, pooling, reductions,
               resize, shape_ops)

__all__ = ["activations", "constants", "convolution", "elementwise", "linear", "logical", "normalization", "pooling",
           "reductions", "resize", "shape_ops"]
