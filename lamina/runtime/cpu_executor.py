"""Run a graph model on the CPU: compile it through upstream MLIR and call it in process.

`compile_model` optimizes the graph (`graph-optimize{backend=cpu}`),
lowers it with `graph-to-cpu` to the LLVM dialect and JIT-compiles it with
MLIR's ExecutionEngine. Compiled models are cached in process, keyed by a
hash of the graph module's bytecode, so running one model many times
compiles it once, and on disk (`cpu_object_cache`), so the next process
loads the compiled code instead of compiling it again. The compiled function takes the inputs (placeholder
order) then one out-parameter per output (save order), all as memref
descriptors of NumPy arrays the caller owns. Bool and unsigned tensors are
stored as signless integers on the CPU path (`graph_to_linalg/storage.py`), so those arrays
cross as signed views of the same bytes.
"""

from __future__ import annotations

import ctypes
import functools
import io
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import get_ranked_memref_descriptor

from lamina.dialects import model
from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.types import TensorSpec
from lamina.passes.conversion.graph_to_linalg.storage import storage_dtype, stored
from lamina.passes.pass_manager import run_pipeline

from . import cpu_codegen, cpu_object_cache, graph_interpreter
from .graph_interpreter import check_inputs

OPT_LEVEL = 3
THREADS_VARIABLE = "LAMINA_NUM_THREADS"


def default_threads() -> int:
    """Threads compiled models run on (and `opt | llc` pipelines the split code generator runs at once):
    `LAMINA_NUM_THREADS`, else every core this process may use."""
    text = os.environ.get(THREADS_VARIABLE)
    if text is None:
        return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if not text.strip().isdigit() or int(text) < 1:
        raise LaminaError(f"{THREADS_VARIABLE}={text!r}: expected a whole number of threads, at least 1")
    return int(text)


def cpu_pipeline(threads: int) -> str:
    """The CPU compile pipeline for `threads` threads.

    Graph optimization first: it folds batch norms into convolutions and
    matmul + add into fully_connected, which the CPU lowering relies on for speed.
    """
    return f"builtin.module(graph-optimize{{backend=cpu}},graph-to-cpu{{threads={threads}}})"


@dataclass
class CompiledModel:
    """A JIT-compiled model; `run` maps input names to arrays and returns the outputs by name."""

    engine: ExecutionEngine | cpu_object_cache.SharedObjectEngine
    function: str
    inputs: dict[str, TensorSpec]
    outputs: dict[str, TensorSpec]
    module: ir.Module | None  # keeps the ExecutionEngine's context alive (None: a shared library)

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        # Copies: compiled loops may carry their state in an argument's buffer, and the caller's arrays must
        # not change (the node suite reuses its inputs across backends).
        arguments = [np.array(stored(array), copy=True) for array in check_inputs(self.inputs, feeds).values()]
        results = {name: np.empty(spec.shape, storage_dtype(spec.dtype)) for name, spec in self.outputs.items()}
        descriptors = [ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))
                       for array in (*arguments, *results.values())]
        self.engine.invoke(self.function, *descriptors)
        return {name: array.view(self.outputs[name].dtype) for name, array in results.items()}


_CACHE: dict[str, CompiledModel] = {}

# Every ExecutionEngine built, kept for the life of the process: an engine's destructor calls
# `__mlir_execution_engine_destroy` of the libraries it loaded, and MLIR's async runtime then drops
# its one process-wide thread pool, so the next threaded model of any other engine would crash.
_ENGINES_KEPT_ALIVE: list[ExecutionEngine] = []

# glibc returns every freed block above 128 KiB (the default mmap threshold, which
# adapts only up to a point) to the kernel, so each call of a compiled model
# page-faulted all its intermediate buffers and results in again: a 1x1 64->256
# convolution on 56x56 took 2.9 ms instead of 0.6 ms. Large blocks stay in the heap
# instead (glibc caps the threshold at 32 MiB; larger ones are still mapped per call).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@functools.cache
def _keep_freed_memory() -> None:
    """Tell glibc malloc (if it is the allocator) to reuse freed large blocks instead of unmapping them.

    Process-wide and once: the first compiled model sets it for every later one.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):  # not glibc: leave the allocator alone
        pass


def compile_model(module: ir.Operation, pipeline: str | None = None, opt_level: int = OPT_LEVEL) -> CompiledModel:
    """The compiled form of a graph model (from the cache when the same model was compiled before).

    `pipeline` defaults to `cpu_pipeline(default_threads())`; `opt_level` is
    LLVM's (0-3; `benchmarks/cpu_jit.py` compares them). The caller's
    module is left untouched: compilation works on a copy in a fresh context.
    Raises LaminaError (e.g. naming ops without a CPU lowering) when the
    model cannot be compiled.
    """
    pipeline = pipeline or cpu_pipeline(default_threads())
    bytecode = io.BytesIO()
    module.write_bytecode(bytecode)
    key = cpu_object_cache.key(bytecode.getvalue(), pipeline, opt_level)
    _keep_freed_memory()
    if key not in _CACHE:
        inputs, outputs, function = model.inputs(module), model.outputs(module), _function_name(module)
        loaded = cpu_object_cache.load(key, function)
        _CACHE[key] = CompiledModel(loaded, function, inputs, outputs, None) if loaded is not None else \
            _compile(bytecode.getvalue(), pipeline, opt_level, inputs, outputs, function, key)
    return _CACHE[key]


def forget_compiled_models() -> None:
    """Empty the in-process cache (a benchmark compiling many large models frees each one's IR when done;
    the engines themselves stay, see `_ENGINES_KEPT_ALIVE`)."""
    _CACHE.clear()


def _function_name(module: ir.Operation) -> str:
    return ir.StringAttr(model.main_function(module).attributes["sym_name"]).value


def compile_seconds() -> float:
    """CPU seconds of this process and of its finished children (the code generator's tools)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def _compile(bytecode: bytes, pipeline: str, opt_level: int, inputs: dict[str, TensorSpec],
             outputs: dict[str, TensorSpec], function: str, key: str) -> CompiledModel:
    """Lower and compile the model, and store the compiled code in the disk cache (`key`).

    A large model is compiled to a shared library by LLVM's tools in parallel
    parts (`cpu_codegen`); a small one (a tool start costs more than its JIT)
    by the ExecutionEngine.
    """
    start = compile_seconds()
    context = make_context()
    with context:
        copy = ir.Module.parse(bytecode)
    run_pipeline(copy.operation, pipeline)
    if cpu_codegen.worth_splitting(copy):
        engine = _compile_shared_object(copy, opt_level, function, key, start)
        return CompiledModel(engine, function, inputs, outputs, None)
    try:
        # Position-independent when cached: the object is linked into a shared library.
        engine = ExecutionEngine(copy, opt_level=opt_level, shared_libs=cpu_object_cache.RUNTIME_LIBRARIES,
                                 enable_pic=cpu_object_cache.directory() is not None)
        engine.lookup(function)  # the JIT compiles on first lookup: do it now, not in the first run
        _ENGINES_KEPT_ALIVE.append(engine)
    except RuntimeError as error:
        raise LaminaError(f"the CPU JIT could not compile the lowered model: {error}") from None
    cpu_object_cache.store(key, engine, compile_seconds() - start)
    return CompiledModel(engine, function, inputs, outputs, copy)


def _compile_shared_object(lowered: ir.Module, opt_level: int, function: str, key: str,
                           start: float) -> cpu_object_cache.SharedObjectEngine:
    """Build the lowered model's shared library (in the cache directory when there is one), load it, and keep it
    in the cache."""
    workdir = cpu_codegen.scratch(cpu_object_cache.directory())
    try:
        library = cpu_codegen.build_library(lowered, workdir, opt_level, default_threads())
        engine = cpu_object_cache.SharedObjectEngine(ctypes.CDLL(str(library)), function)
        cpu_object_cache.keep(key, library, compile_seconds() - start)
    finally:
        cpu_codegen.remove(workdir)
    return engine


def run(module: ir.Operation, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Compile (or reuse) the model and run it once: `lamina-run --target cpu`."""
    return compile_model(module).run(feeds)


def run_or_interpret(module: ir.Operation, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`run`, or the reference interpreter when the model does not compile (`--fallback=interpreter`).

    The fallback is explicit and says why on stderr; input errors are not
    compilation errors and still fail.
    """
    try:
        compiled = compile_model(module)
    except LaminaError as error:
        print(f"lamina-run: the CPU path cannot compile this model, running the graph interpreter:\n{error}",
              file=sys.stderr)
        return graph_interpreter.run(module, feeds)
    return compiled.run(feeds)
