"""How long Lamina takes to import and to interpret the nine light models,
next to onnx's ReferenceEvaluator and onnxruntime, measured in one run.

Usage: .venv/bin/python benchmarks/import_and_interpret.py [--repeat 5] [--reference-timeout 600] [--models a,b]

Each model gets seeded random weights (`randomize_weights`, seed 0) and the
backend runner's dummy input. Every figure is the median of `--repeat` runs,
except that a measurement whose first run exceeds `SINGLE_RUN_OVER` seconds
is run once. onnxruntime's session creation is not timed and it gets one
untimed warm-up run; Lamina's import time includes creating its context. The
ReferenceEvaluator runs in a child process so that a model it cannot finish
within `--reference-timeout` seconds is reported as "> N s". Writes
`benchmarks/results/import_and_interpret.md` and prints it.
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
import onnxruntime
from onnx.reference import ReferenceEvaluator

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from light_models import LIGHT_MODELS, dummy_inputs, load_light_model, randomize_weights  # noqa: E402

from lamina.dialects.context import make_context  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.runtime.graph_interpreter import run as interpret  # noqa: E402

onnxruntime.set_default_logger_severity(3)  # errors only: not one warning per unused initializer

SEED = 0
SINGLE_RUN_OVER = 30.0
RESULTS = ROOT / "benchmarks" / "results" / "import_and_interpret.md"
COMMAND = ".venv/bin/python benchmarks/import_and_interpret.py"


def benchmark_model(name: str) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    model = randomize_weights(load_light_model(name), SEED)
    return model, dummy_inputs(model)


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time of `repeat` calls; one call when the first is already long."""
    times = [timed(fn)]
    if times[0] <= SINGLE_RUN_OVER:
        times += [timed(fn) for _ in range(repeat - 1)]
    return statistics.median(times)


def onnxruntime_session(model: onnx.ModelProto, threads: int | None) -> onnxruntime.InferenceSession:
    """A CPU session; `threads` None keeps onnxruntime's default thread pools."""
    options = onnxruntime.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    return onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def _reference_child(name: str, repeat: int, connection) -> None:
    """In a child process: say when the evaluator is built, then send its median time on `name`."""
    model, feeds = benchmark_model(name)
    evaluator = ReferenceEvaluator(model)
    connection.send("ready")
    connection.send(median_seconds(lambda: evaluator.run(None, feeds), repeat))


def reference_seconds(name: str, repeat: int, timeout: float) -> float | None:
    """The ReferenceEvaluator's median time, or None if it does not finish within `timeout` seconds.

    Runs are repeated only when the first takes at most SINGLE_RUN_OVER seconds, so with
    `timeout` >= `repeat` * SINGLE_RUN_OVER, None means one run took over `timeout` seconds.
    """
    receiver, sender = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("spawn").Process(target=_reference_child, args=(name, repeat, sender))
    child.start()
    sender.close()
    receiver.recv()  # building the model and the evaluator is not timed
    seconds = receiver.recv() if receiver.poll(timeout) else None
    child.kill()
    child.join()
    return seconds


def measure(name: str, repeat: int, reference_timeout: float) -> dict[str, object]:
    model, feeds = benchmark_model(name)
    row: dict[str, object] = {"model": name, "nodes": len(model.graph.node),
                              "parameters": sum(int(np.prod(t.dims)) for t in model.graph.initializer)}
    row["import"] = median_seconds(lambda: import_model(model, make_context()), repeat)
    context = make_context()
    module = import_model(model, context)
    row["interpret"] = median_seconds(lambda: interpret(module, feeds), repeat)
    lamina_outputs = interpret(module, feeds)
    for label, threads in (("ort_1", 1), ("ort_default", None)):
        session = onnxruntime_session(model, threads)
        session.run(None, feeds)
        row[label] = median_seconds(lambda: session.run(None, feeds), repeat)
    names = [output.name for output in session.get_outputs()]
    expected = dict(zip(names, session.run(None, feeds)))
    row["max_error"] = max(float(np.max(np.abs(lamina_outputs[n] - expected[n]))) for n in names)
    row["reference"] = reference_seconds(name, repeat, reference_timeout)
    return row


def seconds_text(seconds: float | None, timeout: float) -> str:
    if seconds is None:
        return f"> {timeout:g} s"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    return f"{seconds:.2f} s"


def machine() -> str:
    """CPU, logical CPUs and library versions."""
    cpu = platform.processor() or platform.machine()
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (f"{cpu}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, numpy {np.__version__}, "
            f"onnx {onnx.__version__}, onnxruntime {onnxruntime.__version__}")


def report_header(title: str, command: str) -> list[str]:
    """A benchmark report's first lines: its title, the command that produced it, the date and machine."""
    return [f"# {title}", "", "Measured by:", "", "```sh", command, "```", "",
            f"Date: {datetime.date.today().isoformat()}. Machine: {machine()}."]


def table(rows: list[dict[str, object]], loads: tuple[float, float], repeat: int, reference_timeout: float) -> str:
    lines = [
        *report_header("Import and interpretation time of the light models", COMMAND),
        f"Load average (1 min) {loads[0]:.1f} at the start, {loads[1]:.1f} at the end: other work on the",
        "machine slows every column.",
        "",
        f"Random weights (`randomize_weights`, seed {SEED}), the runner's dummy input (batch 1, 3x224x224).",
        f"Median of {repeat} runs (1 run when the first takes over {SINGLE_RUN_OVER:g} s). Lamina import",
        "is ONNX to a verified graph-dialect module in a new context; interpret is Lamina's NumPy",
        "reference interpreter (`graph_interpreter.run`, which verifies the module first);",
        "ReferenceEvaluator is `onnx.reference.ReferenceEvaluator.run`; onnxruntime is the CPU",
        "provider with default graph optimizations, session creation and one warm-up run not timed.",
        "Max error is Lamina's largest absolute difference from onnxruntime.",
        "",
        "| model | nodes | parameters | Lamina import | Lamina interpret | ReferenceEvaluator "
        "| onnxruntime, 1 thread | onnxruntime, default threads | max error |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = [row["model"], str(row["nodes"]), f"{row['parameters'] / 1e6:.1f} M"]
        cells += [seconds_text(row[key], reference_timeout)
                  for key in ("import", "interpret", "reference", "ort_1", "ort_default")]
        cells.append(f"{row['max_error']:.1e}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference-timeout", type=float, default=600.0,
                        help="seconds the ReferenceEvaluator gets per model (default 600)")
    parser.add_argument("--models", default=",".join(LIGHT_MODELS), help="comma-separated light model names")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.reference_timeout < args.repeat * SINGLE_RUN_OVER:
        parser.error(f"--reference-timeout must be at least {args.repeat * SINGLE_RUN_OVER:g} s for {args.repeat} runs")
    load_start = os.getloadavg()[0]
    rows = []
    for name in args.models.split(","):
        rows.append(measure(name, args.repeat, args.reference_timeout))
        print(f"measured {name}", file=sys.stderr, flush=True)
    text = table(rows, (load_start, os.getloadavg()[0]), args.repeat, args.reference_timeout)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
