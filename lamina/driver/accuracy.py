"""Compile checks itself: the simulated binary against the float model, on the calibration samples.

`lamina-compile` calibrates formats on samples (an npz with a leading sample
axis per input, or seeded U[0, 1) inputs) and then runs the binary it wrote
on the same samples in the simulator. Per output it reports cosine
similarity, SQNR (pooled over the samples) and, for class scores (N x C,
C > 1, any trailing axes of 1), how often the top-1 class equals the float
model's: onnxruntime for an ONNX model, the graph interpreter for a graph
module. Per layer (every Vars a layer saves), the HIR executor on the first
sample against the float graph's value of the same node gives the worst
layer by SQNR; the HIR executor's outputs must equal the simulator's bit for
bit there too (`bit_exact`).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.types import TensorSpec
from lamina.passes.conversion.graph_to_hir.formats import seeded_samples
from lamina.runtime.compare import cosine_similarity, sqnr_db
from lamina.runtime.hir_interpreter import inputs as hir_inputs, run_hir
from lamina.runtime.tcu_simulator import simulate_samples
from lamina.runtime.tensor_files import load_tensors
from lamina.target.tcu.program import ConfigRegister, Opcode

DEFAULT_SAMPLES = 8
Feeds = dict[str, np.ndarray]


@dataclass(frozen=True)
class OutputAccuracy:
    name: str
    cosine_min: float  # over the samples
    cosine_mean: float
    sqnr_db: float  # pooled over the samples
    top1_agreement: float | None  # share of rows whose top-1 class agrees (class scores only)


@dataclass(frozen=True)
class LayerAccuracy:
    name: str
    sqnr_db: float
    cosine: float


@dataclass(frozen=True)
class AccuracyReport:
    formats: str  # calibrated | tensil
    reference: str  # what the float outputs came from
    samples: int
    sample_source: str
    outputs: tuple[OutputAccuracy, ...]
    worst_layer: LayerAccuracy | None
    layers_compared: int
    bit_exact: bool  # HIR executor == simulator on the first sample
    configure_instructions: int  # the rescaling Lamina adds (Configure of the rounding positions)

    def to_json(self) -> dict:
        return _finite(asdict(self))


def _finite(value):
    """JSON has no inf: an exact match's SQNR is written as the string "inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def calibration_samples(specs: Mapping[str, TensorSpec], path: str | None, count: int, seed: int
                        ) -> tuple[list[Feeds], str]:
    """The samples and where they came from: `path` (an npz, one array per input with a leading sample
    axis) or `count` seeded U[0, 1) draws (sample k from seed + k)."""
    if path is None:
        if count < 1:
            raise LaminaError(f"--samples must be at least 1, got {count}")
        return seeded_samples(specs, count, seed), f"{count} seeded U[0, 1) samples (seed {seed})"
    arrays = load_tensors(path)
    missing = [name for name in specs if name not in arrays]
    unknown = [name for name in arrays if name not in specs]
    if missing or unknown:
        raise LaminaError(f"{path}: calibration inputs must be exactly the model's inputs "
                          f"({', '.join(specs)}); missing {missing or 'none'}, unknown {unknown or 'none'}")
    counts = set()
    for name, spec in specs.items():
        array = arrays[name]
        if array.ndim != len(spec.shape) + 1 or tuple(array.shape[1:]) != tuple(spec.shape):
            raise LaminaError(f"{path}: '{name}' must be [samples, {', '.join(map(str, spec.shape))}] "
                              f"(a leading sample axis), got {list(array.shape)}")
        if not np.issubdtype(array.dtype, np.number) or not np.isfinite(array).all():
            raise LaminaError(f"{path}: '{name}' must hold finite numbers")
        counts.add(array.shape[0])
    if len(counts) != 1 or 0 in counts:
        raise LaminaError(f"{path}: every input needs the same, non-zero number of samples, got {sorted(counts)}")
    (total,) = counts
    samples = [{name: np.asarray(arrays[name][k], spec.dtype) for name, spec in specs.items()} for k in range(total)]
    return samples, f"{total} samples from {path}"


def _top1(actual: np.ndarray, reference: np.ndarray) -> tuple[int, int] | None:
    """(agreeing rows, rows) for class scores: (N, C, 1, ...) with C > 1."""
    if reference.ndim < 2 or reference.shape[1] < 2 or any(d != 1 for d in reference.shape[2:]):
        return None
    rows = reference.shape[0]
    agree = actual.reshape(rows, -1).argmax(axis=1) == reference.reshape(rows, -1).argmax(axis=1)
    return int(agree.sum()), rows


def _outputs(simulated: list[Feeds], references: list[Feeds]) -> tuple[OutputAccuracy, ...]:
    report = []
    for name in references[0]:
        pairs = [(np.asarray(s[name], np.float64), np.asarray(r[name], np.float64))
                 for s, r in zip(simulated, references)]
        cosines = [cosine_similarity(a, r) for a, r in pairs]
        pooled = sqnr_db(np.concatenate([a.ravel() for a, _ in pairs]), np.concatenate([r.ravel() for _, r in pairs]))
        votes = [_top1(a, r) for a, r in pairs]
        top1 = None if votes[0] is None else sum(v[0] for v in votes) / sum(v[1] for v in votes)
        report.append(OutputAccuracy(name, min(cosines), float(np.mean(cosines)), pooled, top1))
    return tuple(report)


def _layers(hir: ir.Operation, sample: Feeds, float_layers: Mapping[str, np.ndarray]
            ) -> tuple[Feeds, LayerAccuracy | None, int]:
    """The HIR executor's outputs on `sample`, the layer with the lowest SQNR and how many were compared."""
    layers: list[LayerAccuracy] = []

    def observe(name: str, value: np.ndarray) -> None:
        expected = float_layers.get(name)
        if expected is not None and expected.size == value.size:
            expected = expected.reshape(value.shape)
            layers.append(LayerAccuracy(name, sqnr_db(value, expected), cosine_similarity(value, expected)))

    # The simulator takes any float input as float32, as the array does; so does the HIR executor here
    # (a float64 model's samples are float64).
    specs = hir_inputs(hir)
    sample = {name: value.astype(specs[name].dtype) if name in specs and np.issubdtype(value.dtype, np.floating)
              else value for name, value in sample.items()}
    outputs = run_hir(hir, sample, observe)
    return outputs, min(layers, key=lambda layer: layer.sqnr_db, default=None), len(layers)


def check_accuracy(model_path, hir: ir.Operation, samples: Sequence[Feeds], sample_source: str,
                   float_model: Callable[[Feeds], Feeds], reference: str, float_layers: Mapping[str, np.ndarray],
                   formats: str, program: np.ndarray) -> AccuracyReport:
    """Simulate the written model on every sample and compare (module docstring).

    The samples are split into one group per core, each simulated together in its own thread while this
    thread runs the float model and the HIR executor (NumPy releases the GIL in its long operations)."""
    threads = max(1, min(len(samples), os.cpu_count() or 1))
    bounds = np.linspace(0, len(samples), threads + 1).astype(int)
    groups = [list(samples[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(lambda k: list(simulate_samples(model_path, groups[k], together=len(groups[k]),
                                                                progress=k == 0)), k) for k in range(threads)]
        references = [float_model(sample) for sample in samples]
        hir_outputs, worst, compared = _layers(hir, samples[0], float_layers)
        simulated = [result.outputs for future in futures for result in future.result()]
    bit_exact = all(np.array_equal(hir_outputs[name], simulated[0][name]) for name in simulated[0])
    configures = int(np.count_nonzero(program["opcode"] == Opcode.CONFIGURE))
    return AccuracyReport(formats, reference, len(samples), sample_source,
                          _outputs(simulated, references), worst, compared, bit_exact, configures)


def accuracy_text(report: AccuracyReport) -> str:
    """The summary's ACCURACY section."""
    lines = [f"ACCURACY ({report.formats} formats; simulated binary vs {report.reference}, {report.sample_source})"]
    width = max((len(output.name) for output in report.outputs), default=0)
    for output in report.outputs:
        top1 = "" if output.top1_agreement is None else f"  top-1 agreement {100 * output.top1_agreement:.1f}%"
        lines.append(f"  {output.name:<{width}}  cosine min {output.cosine_min:.6f} mean {output.cosine_mean:.6f}"
                     f"  SQNR {output.sqnr_db:.1f} dB{top1}")
    if report.worst_layer is not None:
        worst = report.worst_layer
        lines.append(f"  worst layer by SQNR (first sample, {report.layers_compared} layers): {worst.name}  "
                     f"SQNR {worst.sqnr_db:.1f} dB  cosine {worst.cosine:.6f}")
    lines.append(f"  HIR executor equals the simulator bit for bit on the first sample: "
                 f"{'yes' if report.bit_exact else 'NO'}")
    lines.append(f"  rescaling instructions (Configure of {', '.join(r.name for r in ConfigRegister)}): "
                 f"{report.configure_instructions:,} (1 cycle each)")
    return "\n".join(lines)
