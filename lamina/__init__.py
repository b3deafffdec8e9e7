"""Lamina: a neural-network compiler on MLIR, from ONNX to a Tensil-style accelerator and the CPU."""
