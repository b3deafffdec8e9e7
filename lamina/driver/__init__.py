"""The compile driver: ONNX file to the accelerator's model files, above every pass, pipeline and executor."""
