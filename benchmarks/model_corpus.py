"""The real-model corpus through every level of Lamina, each against onnxruntime.

Usage: .venv/bin/python benchmarks/model_corpus.py [--models a,b] [--sections exported,pytorch,light]
       [--arch pynq-z1] [--levels graph,cpu,accelerator] [--output NAME]

Each model of `test/python/corpus_models.py` is exported with torch.onnx into a
temporary directory (no weights are written into the repository), run by
onnxruntime (the oracle), imported by Lamina with its dynamic dimensions fixed
by `input_shapes`, then run by the graph interpreter, the CPU path (linalg,
LLVM JIT) and the accelerator (`lamina-compile`'s pipeline, host parts where
needed, then the simulator). The onnx wheel's light models (seeded random
weights) and its pytorch-converted and pytorch-operator models (their stored
inputs; those of opset 6, older than Lamina reads, upgraded by
onnx.version_converter as Lamina's error says) run the same way. For each level:
rel = max |lamina - onnxruntime| / max |onnxruntime| over the output, and the
cosine similarity; "std" is the oracle output's standard deviation (healthy
activations, not 1e-23). The first LaminaError of a model is its "first
error". Writes `benchmarks/results/model-corpus.md` and `docs/model-corpus.md` (or `--output`'s name),
after each finished section.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
import onnxruntime
from onnx import version_converter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

import corpus_models  # noqa: E402
from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model  # noqa: E402

from lamina.driver.compiler import MODEL_FILES_NAME, compile_model  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.dialects.diagnostics import LaminaError  # noqa: E402
from lamina.frontend.analysis import MIN_OPSET  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import random_inputs, randomize_weights  # noqa: E402
from lamina.runtime import cpu_executor, tcu_simulator  # noqa: E402
from lamina.runtime.graph_interpreter import run as interpret  # noqa: E402

COMMAND = ".venv/bin/python benchmarks/model_corpus.py"
WHEEL_DATA = Path(onnx.__file__).parent / "backend" / "test" / "data"
PYTORCH_FOLDERS = ("pytorch-converted", "pytorch-operator")
UPGRADE_OPSET = 13  # what the wheel's opset-6 models are upgraded to (Lamina reads opsets from MIN_OPSET)
UPGRADE_IR = 7  # and the IR version of opset 13
LEVELS = ("graph", "cpu", "accelerator")
TOLERANCE = 1e-4
# The light models from the least compute to the most: a run cut short has the most rows.
LIGHT_BY_COMPUTE = ("squeezenet", "shufflenet", "bvlc_alexnet", "inception_v1", "zfnet512", "resnet50", "inception_v2",
                    "densenet121", "vgg19")


@dataclass
class Outcome:
    """One model through every level: per level (rel, cosine) or the error that stopped it."""

    name: str
    source: str
    std: float | None = None
    imported: bool = False
    levels: dict[str, tuple[float, float] | str] = field(default_factory=dict)
    first_error: str = ""

    def fail(self, level: str, error: Exception) -> None:
        lines = str(error).splitlines() or [type(error).__name__]
        message = " ".join(line.strip() for line in lines[:2])  # a problem list: its count and first problem
        self.levels[level] = "error"
        self.first_error = self.first_error or f"{level}: {message}"


def accuracy(actual: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(max |a - r| / max |r|, cosine similarity) of two outputs, over the elements the oracle does not make NaN
    (sqrt of a negative); a NaN anywhere else, or a NaN missing, is an infinite error."""
    a, r = np.asarray(actual, np.float64).ravel(), np.asarray(reference, np.float64).ravel()
    if not np.array_equal(np.isnan(a), np.isnan(r)):
        return math.inf, math.nan
    a, r = a[~np.isnan(r)], r[~np.isnan(r)]
    if not r.size:
        return 0.0, 1.0
    scale = np.abs(r).max() or 1.0
    norms = np.linalg.norm(a) * np.linalg.norm(r)
    return float(np.abs(a - r).max() / scale), float(a @ r / norms) if norms else 1.0


def run_model(name: str, source: str, path: Path, inputs: dict[str, np.ndarray], arch: str | None,
              workdir: Path, levels: tuple[str, ...] = LEVELS,
              calibration: dict[str, np.ndarray] | None = None) -> Outcome:
    """Everything about one ONNX file: oracle, import, and each level against the oracle.

    `calibration` (per input, a leading sample axis) is what the accelerator's formats are calibrated on, as
    a user passes `--calibration-inputs`; without it, `lamina-compile`'s seeded U[0, 1) samples."""
    outcome = Outcome(name, source)
    try:
        session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        output = session.get_outputs()[0].name
        reference = session.run([output], inputs)[0]
    except Exception as error:  # noqa: BLE001 - the oracle cannot run it (e.g. an opset-1 op): nothing to compare
        outcome.fail("onnxruntime", error)
        return outcome
    outcome.std = float(np.nanstd(reference))
    shapes = {key: value.shape for key, value in inputs.items()}
    context = make_context()
    try:
        module = import_model(str(path), context, input_shapes=shapes)
    except LaminaError as error:
        outcome.fail("import", error)
        return outcome
    outcome.imported = True
    runners = {"graph": lambda: interpret(module, inputs),
               "cpu": lambda: cpu_executor.compile_model(module).run(inputs),
               "accelerator": lambda: _accelerate(path, arch, workdir / name, shapes, inputs, calibration)}
    for level, run in runners.items():
        if level not in levels or (level == "accelerator" and not arch):
            continue
        try:
            outcome.levels[level] = accuracy(run()[output], reference)
        except LaminaError as error:
            outcome.fail(level, error)
        except Exception as error:  # noqa: BLE001 - a crash is a Lamina bug: recorded as one, the run goes on
            outcome.fail(level, RuntimeError(f"crash, {type(error).__name__}: {error}"))
    return outcome


def _accelerate(path: Path, arch: str, outdir: Path, shapes, inputs,
                calibration: dict[str, np.ndarray] | None) -> dict[str, np.ndarray]:
    samples = None
    if calibration is not None:
        outdir.mkdir(parents=True, exist_ok=True)
        samples = str(outdir / "calibration.npz")
        np.savez(samples, **calibration)
    compile_model(path, arch, outdir, input_shapes=shapes, calibration_inputs=samples, check=False)  # measured next
    return tcu_simulator.simulate(str(outdir / f"{MODEL_FILES_NAME}.tmodel"), inputs).outputs


def corpus_outcomes(names: list[str], arch: str | None, workdir: Path, levels: tuple[str, ...],
                    outcomes: list[Outcome], written: Callable[[], object]) -> list[Outcome]:
    """Each corpus model's outcome appended to `outcomes`, calling `written` after each."""
    for spec in corpus_models.CORPUS:
        if names and spec.name not in names:
            continue
        exporter = "dynamo" if spec.dynamo else "legacy"
        source = f"{spec.family}; torch.onnx {exporter}, opset {spec.opset}" + (", dynamic axes" if spec.dynamic else "")
        path = corpus_models.export(spec, workdir)
        inputs = spec.inputs(np.random.default_rng(corpus_models.SEED))
        outcomes.append(_timed(run_model, spec.name, source, path, inputs, arch, workdir, levels,
                               _calibration_samples(spec)))
        written()
    return outcomes


def _calibration_samples(spec, count: int = 8) -> dict[str, np.ndarray]:
    """`count` inputs drawn like the measured one (the model's own input distribution) from other seeds."""
    draws = [spec.inputs(np.random.default_rng(corpus_models.SEED + 100 + k)) for k in range(count)]
    return {name: np.stack([draw[name] for draw in draws]) for name in draws[0]}


def _plausible(value: np.ndarray) -> bool:
    """Whether a stored input holds data: some of the wheel's pytorch-operator inputs are uninitialized memory
    (1e+223 next to 1e-316), from which no output says anything."""
    if not np.issubdtype(value.dtype, np.floating) or not value.size:
        return True
    if not np.all(np.isfinite(value)):
        return False
    magnitude = np.abs(value[value != 0])
    return bool(not magnitude.size or (magnitude.max() < 1e6 and magnitude.min() > 1e-30))


def _samples_like(inputs: dict[str, np.ndarray], count: int = 8) -> dict[str, np.ndarray]:
    """`count` calibration inputs drawn like the stored ones: Gaussian with each float input's mean and standard
    deviation (the stored input itself is not among them); other inputs (indices) as stored."""
    rng = np.random.default_rng(corpus_models.SEED + 100)

    def draw(value: np.ndarray) -> np.ndarray:
        if not np.issubdtype(value.dtype, np.floating):
            return np.stack([value] * count)
        return rng.normal(value.mean(), value.std() or 1.0, (count, *value.shape)).astype(value.dtype)

    return {name: draw(value) for name, value in inputs.items()}


def light_outcomes(arch: str | None, workdir: Path, levels: tuple[str, ...], outcomes: list[Outcome],
                   written: Callable[[], object]) -> list[Outcome]:
    """Each light model's outcome appended to `outcomes`, calling `written` after each (the large ones take long
    on the accelerator's simulator)."""
    for name in sorted(LIGHT_MODELS, key=LIGHT_BY_COMPUTE.index):
        model = randomize_weights(load_light_model(name), seed=0)
        path = workdir / f"light_{name}.onnx"
        onnx.save(model, str(path))
        outcomes.append(_timed(run_model, f"light_{name}", "onnx wheel light model, random weights (seed 0)", path,
                               random_inputs(model, seed=1), arch, workdir, levels))
        written()
    return outcomes


def pytorch_outcomes(arch: str | None, workdir: Path, levels: tuple[str, ...]) -> list[Outcome]:
    """The onnx wheel's pytorch-converted (torch.nn modules) and pytorch-operator (torch functions) models with
    their stored inputs."""
    outcomes = []
    for folder in PYTORCH_FOLDERS:
        for directory in sorted((WHEEL_DATA / folder).iterdir()):
            model = onnx.load(str(directory / "model.onnx"))
            initialized = {tensor.name for tensor in model.graph.initializer}
            names = [value.name for value in model.graph.input if value.name not in initialized]
            stored = sorted((directory / "test_data_set_0").glob("input_*.pb"))
            inputs = {name: onnx.numpy_helper.to_array(onnx.load_tensor(str(file)))
                      for name, file in zip(names, stored)}
            path, source = directory / "model.onnx", f"onnx wheel {folder}"
            if not all(_plausible(value) for value in inputs.values()):
                rng = np.random.default_rng(corpus_models.SEED)
                inputs = {key: rng.standard_normal(value.shape).astype(value.dtype) for key, value in inputs.items()}
                source += ", stored inputs are uninitialized memory: N(0, 1) inputs instead"
            opset = next(entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx"))
            if opset < MIN_OPSET:  # as Lamina's error says to (onnxruntime cannot run most opset-6 models either)
                path = workdir / f"{directory.name}.onnx"
                upgraded = version_converter.convert_version(model, UPGRADE_OPSET)
                upgraded.ir_version = max(upgraded.ir_version, UPGRADE_IR)  # IR 3 wants new initializers as inputs
                onnx.save(upgraded, str(path))
                source += f", opset {opset} upgraded to {UPGRADE_OPSET} by onnx.version_converter"
            outcomes.append(_timed(run_model, directory.name, source, path, inputs, arch, workdir, levels,
                                   _samples_like(inputs)))
    return outcomes


def _timed(function, *args) -> Outcome:
    start = time.perf_counter()
    outcome = function(*args)
    print(f"{outcome.name}: {'imported' if outcome.imported else 'not imported'} "
          f"{outcome.levels} {outcome.first_error[:120]} ({time.perf_counter() - start:.1f} s)", flush=True)
    return outcome


def cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    rel, cosine = value
    return f"{rel:.1e} / {cosine:.6f}"


def table(outcomes: list[Outcome], levels=LEVELS) -> list[str]:
    head = " | ".join(f"{level} rel / cos" for level in levels)
    lines = [f"| model | source | std | import | {head} | first error |",
             "|---|---|---:|---|" + "---|" * len(levels) + "---|"]
    for o in outcomes:
        error = o.first_error.replace("|", "\\|")[:200]
        values = " | ".join(cell(o.levels.get(level)) for level in levels)
        std = f"{o.std:.2g}" if o.std is not None else "-"
        lines.append(f"| {o.name} | {o.source} | {std} | {'yes' if o.imported else 'no'} | {values} | {error} |")
    return lines


def summary(outcomes: list[Outcome], levels=LEVELS) -> str:
    ran = [level for level in levels if any(level in o.levels for o in outcomes)]
    within = {level: sum(1 for o in outcomes if isinstance(o.levels.get(level), tuple)
                         and o.levels[level][0] <= TOLERANCE) for level in ran}
    counts = ", ".join(f"{level} within {TOLERANCE:g}: {count}" for level, count in within.items())
    return f"{len(outcomes)} models; imported: {sum(o.imported for o in outcomes)}; {counts}."


def report(sections: list[tuple[str, list[Outcome], tuple[str, ...]]], arch: str | None, seconds: float) -> str:
    lines = [*report_header("The real-model corpus against onnxruntime", " ".join([COMMAND, *sys.argv[1:]])),
             f"Accelerator architecture: {arch or 'not run'}. Total {seconds:.0f} s.", "",
             "rel = max |Lamina - onnxruntime| / max |onnxruntime| over the first output; cos = cosine "
             "similarity; std = the oracle output's standard deviation. `error` cells: the first error says "
             "why. Models are built by `test/python/corpus_models.py` (tiny configs, random init, CNNs "
             "He-initialized with batch-norm statistics measured on a random batch).", ""]
    for title, outcomes, levels in sections:
        lines += [f"## {title}", "", summary(outcomes, levels), "", *table(outcomes, levels), ""]
    return "\n".join(lines)


SECTIONS = ("exported", "pytorch", "light")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="", help="comma-separated corpus model names (default: all)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help="which sections to run: exported (the corpus), pytorch, light (the wheel's models)")
    parser.add_argument("--arch", default="pynq-z1")
    parser.add_argument("--levels", default=",".join(LEVELS), help="levels to run (the rest are '-')")
    parser.add_argument("--output", default="model-corpus", help="report name under benchmarks/results/ and docs/")
    args = parser.parse_args()
    levels = tuple(level for level in args.levels.split(",") if level)
    chosen = [section for section in args.sections.split(",") if section]
    unknown = sorted(set(chosen) - set(SECTIONS))
    if unknown:
        parser.error(f"unknown sections {unknown} (known: {', '.join(SECTIONS)})")
    arch = args.arch if "accelerator" in levels else None
    names = [name for name in args.models.split(",") if name]
    outputs = (ROOT / "benchmarks" / "results" / f"{args.output}.md", ROOT / "docs" / f"{args.output}.md")
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    sections = []
    with tempfile.TemporaryDirectory(prefix="lamina-corpus-") as scratch:
        workdir = Path(scratch)
        if "exported" in chosen:
            sections.append(("Exported models", [], LEVELS))
            corpus_outcomes(names, arch, workdir, levels, sections[0][1], lambda: write(sections, arch, start, outputs))
        if "pytorch" in chosen and not names:
            sections.append(("The onnx wheel's pytorch-converted and pytorch-operator models",
                             pytorch_outcomes(arch, workdir, levels), LEVELS))
            write(sections, arch, start, outputs)
        if "light" in chosen and not names:
            sections.append(("The onnx wheel's light models", [], LEVELS))
            light_outcomes(arch, workdir, levels, sections[-1][1], lambda: write(sections, arch, start, outputs))
    print(write(sections, arch, start, outputs))


def write(sections, arch: str | None, start: float, outputs: tuple[Path, ...]) -> str:
    """The report so far, into each output (a long run records each finished section)."""
    text = report(sections, arch, time.perf_counter() - start)
    for path in outputs:
        path.write_text(text + "\n")
    return text


if __name__ == "__main__":
    main()
