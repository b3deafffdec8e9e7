"""The accelerator compile flow, one file per level: `compile_model`.

    source (.onnx, light:NAME, or graph .mlir)
      -> graph.mlir             imported (frontend)
      -> graph-optimized.mlir   graph-optimize{backend=accelerator} without its support check:
                                what the array cannot run goes to the host instead of failing
      -> buffers.mlir           graph-to-buffers, the buffer level (reference and study level:
                                built only when asked, HIR is converted from the optimized graph)
      -> hir.mlir               convert-graph-to-hir{arch}: partition, layers, memory map
      -> lir.mlir               the scheduler's program, one op per instruction
      -> weights.npz            the large constants of the levels written, each stored once
      -> model.tprog / model.tdata / model.pageK.tdata / model.tmodel / host-K.mlir
      -> summary.txt / summary.json

Every `.mlir` parses back (Lamina's textual IR is the interface between
levels); constants of more than `INLINE_ELEMENTS` elements are stored once,
in binary, in `weights.npz`, which the `.mlir` files name
(`lamina/dialects/external_weights.py`). `emit` names the levels whose
`.mlir` is written (`DEFAULT_EMIT` unless given; `buffers` is also only
built when named). Each stage is timed and `progress` hears each
one start.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import io
import os
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Collection, Iterator

import numpy as np
from mlir import ir

from lamina.dialects import model
from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.external_weights import WeightsFile, external_text
from lamina.dialects.hir import HIR, interface_of
from lamina.dialects.lir_program import program_to_lir_text, verify_program
from lamina.dialects.model import body_ops
from lamina.dialects.types import TensorSpec, spec_of
from lamina.frontend.loading import LIGHT_PREFIX, load_onnx
from lamina.frontend.onnx_importer import import_model
from lamina.frontend.random_weights import randomize_weights_in_place
from lamina.passes.conversion.graph_to_hir import convert_graph_to_hir
from lamina.passes.conversion.graph_to_hir.partition import classify, module_interface
from lamina.passes.conversion.hir_to_lir import schedule
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_optimize import GraphOptimize
from lamina.pipelines.graph_to_buffers import GraphToBuffers
from lamina.runtime import graph_interpreter
from lamina.runtime.calibration import value_ranges
from lamina.target.tcu.architecture import Architecture, load_architecture
from lamina.target.tcu.data_layout import vector_count
from lamina.target.tcu.encoding import encode
from lamina.target.tcu.model_files import AcceleratorStep, ConstsStep, HostStep, PlanStep, TensorEntry, write_model_files

from .accuracy import DEFAULT_SAMPLES, calibration_samples, check_accuracy
from .onnx_reference import OnnxReference
from .summary import CompileSummary, HostSegment, LayerSummary, host_dram0_vectors, summary_json, summary_text

ACCELERATOR_BACKEND = "accelerator"
MODEL_FILES_NAME = "model"  # model.tprog, model.tdata, model.tmodel
WEIGHTS_FILE_NAME = "weights.npz"  # the large constants of every emitted level, each stored once
FORMATS = ("calibrated", "tensil")  # a binary point per tensor, or the data type's everywhere (Tensil)


Progress = Callable[[str], None]  # hears the name of each stage as it starts


@dataclass(frozen=True)
class CompileResult:
    outdir: Path
    files: dict[str, Path]  # file name -> path, in the order written
    summary: CompileSummary
    activation_peak: float | None  # max |activation| on random inputs, when weights were randomized

    def file_sizes(self) -> dict[str, int]:
        return {name: path.stat().st_size for name, path in self.files.items()}


def optimize_pipeline() -> str:
    """`graph-optimize{backend=accelerator}` without its final support check: unsupported ops go to the host.
    One named pipeline, so it is verified once, at its end."""
    return f"builtin.module({GraphOptimize.name}{{backend={ACCELERATOR_BACKEND} check-support=false}})"


# The levels lamina-compile can write as `<level>.mlir`, and those it writes unless told otherwise: only the
# HIR is cheap (its weights are the 16-bit data, once more than model.tdata); the graph levels hold the float
# weights (ResNet-50: 100 MB each in weights.npz) and the LIR one op per instruction (1 M ops, 160 MB of text).
LEVELS = ("graph", "graph-optimized", "buffers", "hir", "lir")
DEFAULT_EMIT = ("hir",)


class _Stages:
    """Times each stage, tells `progress`, and writes the files the stages produce."""

    def __init__(self, outdir: Path, progress: Progress | None, emit: Collection[str], keep_weights: bool):
        self.outdir = outdir
        self.emit = frozenset(emit)
        self.progress = progress or (lambda stage: None)
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self.files: dict[str, Path] = {}
        self.weights = WeightsFile(outdir / WEIGHTS_FILE_NAME, keep=keep_weights)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        _return_free_memory()
        self.progress(name)
        start, cpu_start = time.perf_counter(), time.process_time()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
        self.cpu_seconds[name] = self.cpu_seconds.get(name, 0.0) + time.process_time() - cpu_start

    def write(self, file_name: str, content: str | bytes) -> Path:
        path = self.outdir / file_name
        try:
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        except OSError as error:
            raise LaminaError(f"{path}: cannot write: {error.strerror}") from None
        self.files[file_name] = path
        return path

    def write_module(self, level: str, module: ir.Operation) -> None:
        """`<level>.mlir`, if that level is emitted; its large constants go to the shared `weights.npz`."""
        if level in self.emit:
            self.write(f"{level}.mlir", external_text(module, self.weights))
            if self.weights.path.exists():
                self.files.setdefault(self.weights.path.name, self.weights.path)


def _return_free_memory() -> None:
    """Give the memory the last stage freed back to the system (glibc keeps it otherwise, and the next
    stage's large arrays come from fresh pages): the peak RSS is the largest stage, not their sum."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _load_libc():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:  # not glibc: nothing to give back this way
        return None


_LIBC = _load_libc()


def compile_model(source: str | Path, arch: str | Path | Architecture, outdir: str | Path, *,
                  input_shapes: dict[str, tuple[int, ...]] | None = None, random_weights: int | None = None,
                  progress: Progress | None = None, emit: Collection[str] = DEFAULT_EMIT,
                  formats: str = "calibrated", calibration_inputs: str | None = None,
                  samples: int = DEFAULT_SAMPLES, check: bool = True) -> CompileResult:
    """Compile `source` for `arch` into `outdir`; see the module docstring for the files.

    `random_weights` (a seed) replaces an ONNX model's `ConstantOfShape`
    weights by seeded random ones (`lamina/frontend/random_weights.py`). A model that
    does not fit the architecture fails with the memory manager's (DRAM) or
    the scheduler's (local memory, accumulators) LaminaError.
    `formats`: "calibrated" (a binary point per tensor, from the samples) or
    "tensil" (every tensor in the data type, as Tensil). The samples are
    `calibration_inputs` (an npz with a leading sample axis per input) or
    `samples` seeded random inputs; with `check`, the written model is
    simulated on them and compared with the float model (`accuracy.py`).
    """
    unknown = sorted(set(emit) - set(LEVELS))
    if unknown:
        raise LaminaError(f"unknown level(s) to emit: {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    if formats not in FORMATS:
        raise LaminaError(f"formats must be one of {', '.join(FORMATS)}, got '{formats}'")
    architecture = arch if isinstance(arch, Architecture) else load_architecture(arch)
    outdir = Path(outdir)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LaminaError(f"{outdir}: cannot create the output directory: {error.strerror}") from None
    # a graph module compiled into its own directory may name weights.npz there: add to it, do not replace it
    source_dir = Path(source).resolve().parent if str(source).endswith(".mlir") else None
    stages = _Stages(outdir, progress, emit, keep_weights=source_dir == outdir.resolve())
    context = make_context()

    with stages.stage("import"):
        graph, model_name, peak, proto = _load(str(source), context, input_shapes, random_weights)
        # a graph module is its own float model: a copy (constants are shared, not copied) before the rewrites
        given_graph = graph.clone() if check and proto is None else None
        stages.write_module("graph", graph)
        calibration, sample_source = calibration_samples(model.inputs(graph), calibration_inputs, samples,
                                                         random_weights or 0)
        # the check's float outputs: onnxruntime runs beside the compile, then the ONNX model is dropped
        reference = OnnxReference(proto, calibration) if check and proto is not None else None
        del proto
    with stages.stage("graph-optimize"):
        run_pipeline(graph, optimize_pipeline())
        stages.write_module("graph-optimized", graph)
    if "buffers" in stages.emit:
        with stages.stage("graph-to-buffers"):
            buffers = graph.clone()  # graph-to-buffers works in place; HIR is converted from `graph`
            run_pipeline(buffers, f"builtin.module({GraphToBuffers.name})")
            stages.write_module("buffers", buffers)
            del buffers  # only printed: free it before the large HIR stages
    with stages.stage("graph-to-hir"):
        host_reasons = _host_reasons(graph)
        accelerator_constants = _constant_scalars(graph)
        input_specs, output_specs = model.inputs(graph), model.outputs(graph)

        def measure(module: ir.Operation):
            ranges, first_sample = value_ranges(module, calibration, threads=os.cpu_count() or 1)
            return ranges, first_sample if check else {}  # the first sample's values serve the check only

        # in place: `graph` is now the HIR module
        float_layers = convert_graph_to_hir(graph, architecture, measure, calibrated=formats == "calibrated")
        stages.write_module("hir", graph)
        if given_graph is None:  # nothing else of the graph levels is needed: drop their constants
            graph, context = in_fresh_context(graph), None
            gc.collect()  # the old context's ops and values hold it in reference cycles
    with stages.stage("schedule"):
        scheduled = schedule(graph)
    with stages.stage("lir"):
        problems = verify_program(scheduled.program, architecture, "the scheduled program")
        if problems:
            raise LaminaError("the scheduler produced an invalid program (a Lamina bug):\n" + "\n".join(problems[:10]))
        if "lir" in stages.emit:
            stages.write("lir.mlir", program_to_lir_text(scheduled.program, architecture))
    with stages.stage("encode"):
        program_bytes = encode(scheduled.program, architecture)
    with stages.stage("write model files"):
        plan, host_modules, host_parsed, host_segments = _plan(scheduled.plan, graph.context, host_reasons)
        inputs, outputs, variables = memory_map(graph, architecture, input_specs, output_specs)
        paths = write_model_files(
            outdir, MODEL_FILES_NAME, arch=architecture, inputs=inputs, outputs=outputs, vars=variables,
            plan=plan, program_bytes=program_bytes, instructions=len(scheduled.program),
            consts_image=scheduled.consts[0].image, consts_base=scheduled.consts[0].base,
            pages=tuple(page.image for page in scheduled.consts[1:]), host_modules=host_modules)
        for path in (paths.tprog, paths.tdata, *paths.pages, paths.tmodel, *paths.host_modules):
            stages.files[path.name] = path
        # the DRAM1 images are in the files now: keep their sizes, not them, through the check (VGG-19: 287 MB)
        consts_file_vectors = sum(len(consts.image) for consts in scheduled.consts)
        page_vectors = sum(len(page.image) for page in scheduled.consts[1:])
        consts_pages, dram1_vectors = len(scheduled.consts) - 1, scheduled.dram1_vectors
        scheduled = replace(scheduled, consts=[])
        del program_bytes
    accuracy = None
    if check:
        with stages.stage("check (simulate the samples)"):
            float_model, reference_name = ((reference.float_model(), "onnxruntime") if reference is not None
                                           else _graph_float_model(given_graph))
            accuracy = check_accuracy(paths.tmodel, graph, calibration, sample_source, float_model, reference_name,
                                      float_layers, formats, scheduled.program)
    host_constants = sum(_constant_scalars(module) for module in host_parsed)
    summary = CompileSummary(
        model=model_name, arch=architecture, program=scheduled.program,
        cycles=scheduled.cycles,
        layers=tuple(LayerSummary(layer.index, layer.location, layer.stages, layer.partitions, layer.instructions,
                                  layer.cycles, layer.true_macs, layer.local_vectors, layer.accumulator_vectors)
                     for layer in scheduled.layers),
        host_segments=host_segments,
        vars_vectors=max((e.base + e.size for e in (*inputs, *outputs, *variables) if e.base is not None), default=0),
        consts_vectors=dram1_vectors, consts_file_vectors=consts_file_vectors, consts_pages=consts_pages,
        page_vectors=page_vectors,
        true_consts_scalars=accelerator_constants - host_constants,
        host_dram0_vectors=host_dram0_vectors(
            host_segments, [entry.name for entry in inputs],
            {e.name: e.size for e in (*inputs, *outputs, *variables) if e.base is not None}),
        stage_seconds=dict(stages.seconds), accuracy=accuracy, stage_cpu_seconds=dict(stages.cpu_seconds))
    stages.write("summary.txt", summary_text(summary))
    stages.write("summary.json", summary_json(summary))
    return CompileResult(outdir, stages.files, summary, peak)


def in_fresh_context(module: ir.Operation) -> ir.Operation:
    """`module` moved to a new context, through bytecode (binary, not text: 0.1 s for ResNet-50's HIR).

    MLIR keeps every attribute a context ever made until the context dies, so the graph levels' float
    weights (the imported and the folded ones: ResNet-50 200 MB, VGG-19 1.1 GB) outlive the module that
    used them; once `module` and every other op of the old context are dropped, the old context and its
    constants are freed."""
    buffer = io.BytesIO()
    module.write_bytecode(buffer)
    return ir.Module.parse(buffer.getvalue(), make_context()).operation


def memory_map(hir: ir.Operation, arch: Architecture, input_specs: dict[str, TensorSpec],
               output_specs: dict[str, TensorSpec]) -> tuple[list[TensorEntry], list[TensorEntry], list[TensorEntry]]:
    """The manifest's inputs, outputs and Vars (every `hir.vars` object but the inputs).

    An input or output no Vars object holds lives on the host only (base
    null): an input only host steps read, an output a host step computes.
    """
    input_names, output_names = interface_of(hir)
    placed = {}
    for op in body_ops(hir):
        if op.name == "hir.vars":
            view = HIR.view(op)
            shape = spec_of(op.results[0].type).shape
            placed[view.attr("name")] = TensorEntry(view.attr("name"), view.attr("base"),
                                                    vector_count(shape, arch.array_size), shape,
                                                    view.attr("binary_point"))
    inputs = [placed.get(name) or TensorEntry(name, None, 0, input_specs[name].shape) for name in input_names]
    outputs = [placed.get(name) or TensorEntry(name, None, 0, output_specs[name].shape) for name in output_names]
    # Outputs the accelerator computes are Vars too: a host segment may read them.
    return inputs, outputs, [entry for name, entry in placed.items() if name not in input_names]


def _graph_float_model(graph: ir.Operation) -> tuple[Callable, str]:
    """What the accuracy check compares a graph module with: the graph interpreter on the module as given."""
    return (lambda feeds: graph_interpreter.run(graph, feeds)), "the graph interpreter"


def _load(source: str, context: ir.Context, input_shapes: dict[str, tuple[int, ...]] | None,
          random_weights: int | None) -> tuple[ir.Operation, str, float | None, object]:
    """The graph module, the model's name, the activation peak when weights were randomized (measured
    before the import, so that its onnxruntime session and the graph's constants are not held together), and
    the (randomized) ONNX model, None for a graph module."""
    if source.endswith(".mlir"):
        if random_weights is not None or input_shapes:
            raise LaminaError(f"{source}: --random-weights and --input-shape apply to ONNX models, "
                              "not to graph modules")
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as error:
            raise LaminaError(f"{source}: cannot read: {error.strerror}") from None
        module = parse_module(text, context, source)
        _require_graph_module(module, source)
        return module, Path(source).stem, None, None
    name = source[len(LIGHT_PREFIX):] if source.startswith(LIGHT_PREFIX) else Path(source).stem
    proto = load_onnx(source)
    peak = None
    if random_weights is not None:
        peak = randomize_weights_in_place(proto, random_weights)
        _return_free_memory()  # the probe's session and every node's values
    return import_model(proto, context, input_shapes=input_shapes, source_name=source), name, peak, proto


def _require_graph_module(module: ir.Operation, source: str) -> None:
    others = sorted({op.name for op in body_ops(module) if not op.name.startswith("graph.")})
    if others:
        raise LaminaError(f"{source}: lamina-compile takes a graph-dialect model; this one has {', '.join(others)}")


def _plan(steps: list[dict], context: ir.Context, reasons: dict[str, tuple[str, ...]]
          ) -> tuple[list[PlanStep], dict[str, str], list[ir.Operation], tuple[HostSegment, ...]]:
    """The scheduler's plan as manifest steps, each host step's module text by file name, the modules
    parsed (once each), and the summary's host segments."""
    plan: list[PlanStep] = []
    host_modules: dict[str, str] = {}
    parsed: list[ir.Operation] = []
    segments: list[HostSegment] = []
    for step in steps:
        if step["kind"] == "accelerator":
            plan.append(AcceleratorStep(step["first"], step["count"]))
            continue
        if step["kind"] == "consts":
            plan.append(ConstsStep(step["page"]))
            continue
        file_name = f"host-{step['segment']}.mlir"
        parsed.append(parse_module(step["module"], context, file_name))
        reads, writes, counts = module_interface(parsed[-1])
        plan.append(HostStep(file_name, tuple(reads), tuple(writes)))
        host_modules[file_name] = step["module"]
        segments.append(_host_segment(plan[-1], counts, reasons))
    return plan, host_modules, parsed, tuple(segments)


def _host_reasons(graph: ir.Operation) -> dict[str, tuple[str, ...]]:
    """Graph op name -> why such ops run on the host (as the partition decides)."""
    reasons: dict[str, dict[str, None]] = {}
    for op, verdict in classify(body_ops(graph)).items():
        if verdict is not None:
            reasons.setdefault(op.name, {})[verdict] = None
    return {name: tuple(found) for name, found in reasons.items()}


def _host_segment(step: HostStep, counts: Counter, reasons: dict[str, tuple[str, ...]]) -> HostSegment:
    ops = {f"graph.{name}": counts[name] for name in sorted(counts)}
    why = {reason: None for name in ops for reason in reasons.get(name, ())}
    return HostSegment(step.file_name, ops, step.reads, step.writes, tuple(why))


def _constant_scalars(module: ir.Operation) -> int:
    """Scalars of the module's constant data (graph.constant and graph.splat results)."""
    return sum(int(np.prod(spec_of(op.results[0].type).shape)) for op in body_ops(module)
               if op.name in ("graph.constant", "graph.splat"))
