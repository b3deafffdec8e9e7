"""The ONNX frontend: one ONNX node becomes one or more `graph` ops.

`onnx_importer` is the entry point; `converters/` holds one module per family
of ONNX operators, each registering its converters in `registry`.
"""
