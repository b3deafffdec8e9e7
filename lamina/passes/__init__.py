"""Lamina's passes, grouped by the level they work on, and the machinery that
names them in pipelines: `registry.py` (passes and named pipelines),
`options.py` (typed options), `pipeline_syntax.py` (MLIR's pipeline text) and
`pass_manager.py` (one MLIR PassManager for a whole pipeline)."""
