"""Lamina's MLIR dialects, each defined once as data (see `irdl.py`)."""
