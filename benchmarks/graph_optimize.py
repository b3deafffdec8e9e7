"""How long `graph-optimize` takes: on the nine light models, and on synthetic models of growing size.

Usage: .venv/bin/python benchmarks/graph_optimize.py [--repeat 3] [--models a,b] [--sizes 1000,2000,4000,8000]

Every figure is the median of `--repeat` runs of `graph-optimize{backend=B}`
on a fresh copy of the imported or built module (copying is not timed), for
every backend B, as `lamina-opt` runs it: MLIR's verifier and Lamina's
semantic verifier after each Lamina pass. Times are the process's CPU time
(the passes run in this one thread), which other work on the machine
disturbs far less than wall time; the wall time of each whole run is shown
too.

The synthetic models (`synthetic_graphs.py`: residual conv / batch-norm /
relu blocks with reshape and transpose chains and constants to fold) show
how the time grows: each doubling of the op count should double it. The
pipeline is also run pass by pass without verification, to see which pass
grows faster than the model (a pass whose time more than
`SUPER_LINEAR_RATIO` times over a doubling is flagged). The optimized
smallest model is checked to compute what it computed before. Writes
`benchmarks/results/graph_optimize.md` and prints it.
"""

from __future__ import annotations

import argparse
import collections
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model, randomize_weights  # noqa: E402
from synthetic_graphs import synthetic_recipe  # noqa: E402
from test_graph_optimize_sweep import SUPPORT_CHECK, assert_same_outputs, leaf_elements, unsupported_ops  # noqa: E402

from lamina.backends import BACKENDS  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.dialects.model import body_ops  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.passes.pass_manager import PipelineFailed, run_pipeline  # noqa: E402
from lamina.runtime.graph_interpreter import run as interpret  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "graph_optimize.md"
COMMAND = ".venv/bin/python benchmarks/graph_optimize.py"
SIZES = (1000, 2000, 4000, 8000)
REFERENCE = "reference"  # the backend whose passes are timed one by one on the light models
SUPER_LINEAR_RATIO = 2.5  # per doubling: 2 is linear, 2.2 n log n, 4 quadratic
QUICK_PASS = 0.05  # seconds at the largest size: passes this quick are not judged (timer noise)


def pipeline(backend: str) -> str:
    return f"builtin.module(graph-optimize{{backend={backend}}})"


def timed(fn: Callable[[], object]) -> tuple[object, float, float]:
    """fn's result, and the CPU and wall seconds the call took."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.process_time() - cpu, time.perf_counter() - wall


def optimize(module, backend: str) -> str:
    """Run the pipeline on `module`; how it ended: "ok", or how many ops check-support stopped at."""
    try:
        run_pipeline(module, pipeline(backend))
    except PipelineFailed as failure:
        return f"stops at check-support ({len(failure.problems) - 1} ops)"  # one error per op, and a summary
    return "ok"


def median_times(module, backend: str, repeat: int) -> dict:
    """Median CPU and wall time of the pipeline on fresh clones of `module`, and how it ended."""
    cpu, wall = [], []
    for _ in range(repeat):
        clone = module.clone().operation
        outcome, cpu_seconds, wall_seconds = timed(lambda: optimize(clone, backend))
        cpu.append(cpu_seconds)
        wall.append(wall_seconds)
    return {"cpu": statistics.median(cpu), "wall": statistics.median(wall), "outcome": outcome}


def per_pass_seconds(module, backend: str) -> collections.Counter:
    """CPU seconds of each pass of the pipeline, run one by one without verification, summed by name."""
    clone = module.clone().operation
    seconds = collections.Counter()
    for leaf in leaf_elements(f"graph-optimize{{backend={backend}}}"):
        _, cpu, _ = timed(lambda: run_leaf(clone, leaf))
        seconds[leaf.split("{")[0]] += cpu
    return seconds


def run_leaf(module, leaf: str) -> None:
    """Run one pass; the support check may fail (that ends the pipeline anyway), no other pass may."""
    try:
        run_pipeline(module, f"builtin.module({leaf})", verify_each=False)
    except PipelineFailed:
        if not leaf.startswith(SUPPORT_CHECK):
            raise


def measure_light(name: str, repeat: int) -> dict:
    model = randomize_weights(load_light_model(name), seed=0)
    context = make_context()
    module = import_model(model, context)
    row = {"ops": len(body_ops(module))}
    for backend in BACKENDS:
        row[backend] = median_times(module, backend, repeat)
    row["passes"] = per_pass_seconds(module, REFERENCE)
    return row


def measure_synthetic(size: int, repeat: int, check_numbers: bool) -> dict:
    recipe = synthetic_recipe(size)
    context = make_context()
    module = recipe.build(context)
    row = {"ops": len(body_ops(module))}
    for backend in BACKENDS:
        row[backend] = median_times(module, backend, repeat)
        row[backend]["passes"] = per_pass_seconds(module, backend)
        if check_numbers:
            optimized = module.clone().operation
            run_pipeline(optimized, pipeline(backend))
            assert not unsupported_ops(optimized, backend)
            feeds = recipe.inputs(seed=0)
            assert_same_outputs(interpret(optimized, feeds), interpret(module, feeds), f"synthetic {size}")
    return row


def seconds(value: float) -> str:
    return f"{value * 1e3:.0f} ms" if value < 1 else f"{value:.2f} s"


def ratio(new: float, old: float) -> str:
    return f"{new / old:.2f}" if old > 0 else "-"


def light_section(rows: dict[str, dict]) -> list[str]:
    lines = ["## Light models", "",
             "Random weights (`randomize_weights`, seed 0). CPU time, median; wall time in parentheses.",
             f"*Slowest pass* is the pass taking most of the {REFERENCE} pipeline's passes, run one by one",
             "without verification (its runs summed), with its share of their time.", "",
             "| model | ops | " + " | ".join(BACKENDS) + " | slowest pass | how it ends |",
             "|---|---:|" + "---:|" * len(BACKENDS) + "---|---|"]
    for name, row in rows.items():
        cells = [f"{seconds(row[b]['cpu'])} ({seconds(row[b]['wall'])})" for b in BACKENDS]
        (slowest, time_taken), = row["passes"].most_common(1)
        cells.append(f"{slowest} {seconds(time_taken)} ({time_taken / sum(row['passes'].values()):.0%})")
        endings = "; ".join(f"{b}: {row[b]['outcome']}" for b in BACKENDS if row[b]["outcome"] != "ok") or "ok"
        lines.append(f"| {name} | {row['ops']} | " + " | ".join(cells) + f" | {endings} |")
    return lines


def synthetic_section(rows: dict[int, dict]) -> list[str]:
    sizes = list(rows)
    largest = rows[sizes[-1]]
    verification = statistics.mean(1 - sum(largest[b]["passes"].values()) / largest[b]["cpu"] for b in BACKENDS)
    lines = ["## Synthetic models: growth", "",
             "CPU time of the whole pipeline with verification after each pass (as `lamina-opt` runs it),",
             "median; in parentheses, the ratio to the previous size (2.00 is linear). *Passes* is the sum",
             "of the passes run one by one without verification; the difference is the verification",
             f"({verification:.0%} of the time at {largest['ops']} ops, averaged over the backends).", "",
             "| ops | " + " | ".join(f"{b} | {b}: passes" for b in BACKENDS) + " |",
             "|---:|" + "---:|---:|" * len(BACKENDS)]
    for index, size in enumerate(sizes):
        row, previous = rows[size], rows[sizes[index - 1]] if index else None
        cells = []
        for backend in BACKENDS:
            total, passes = row[backend]["cpu"], sum(row[backend]["passes"].values())
            if previous is None:
                cells += [seconds(total), seconds(passes)]
            else:
                cells += [f"{seconds(total)} ({ratio(total, previous[backend]['cpu'])})",
                          f"{seconds(passes)} ({ratio(passes, sum(previous[backend]['passes'].values()))})"]
        lines.append(f"| {row['ops']} | " + " | ".join(cells) + " |")
    return lines


def passes_section(rows: dict[int, dict]) -> tuple[list[str], list[str]]:
    """Per-pass CPU time at each size (each pass's runs summed), and the passes that grow super-linearly."""
    sizes = list(rows)
    flagged = []
    lines = []
    for backend in BACKENDS:
        names = sorted(rows[sizes[-1]][backend]["passes"], key=lambda n: -rows[sizes[-1]][backend]["passes"][n])
        lines += ["", f"### {backend}", "",
                  "| pass | " + " | ".join(f"{rows[s]['ops']} ops" for s in sizes) + " | ratio per doubling |",
                  "|---|" + "---:|" * len(sizes) + "---|"]
        for name in names:
            times = [rows[s][backend]["passes"][name] for s in sizes]
            ratios = [times[i] / times[i - 1] for i in range(1, len(times)) if times[i - 1] > 0]
            lines.append(f"| {name} | " + " | ".join(seconds(t) for t in times) + " | "
                         + ", ".join(f"{r:.2f}" for r in ratios) + " |")
            if times[-1] >= QUICK_PASS and ratios and statistics.median(ratios) > SUPER_LINEAR_RATIO:
                flagged.append(f"{name} ({backend}): ratios {', '.join(f'{r:.2f}' for r in ratios)}")
    return lines, flagged


def report(light: dict[str, dict], synthetic: dict[int, dict], loads: tuple[float, float], repeat: int) -> str:
    lines = [*report_header("Compile time of graph-optimize", COMMAND),
             f"Load average (1 min) {loads[0]:.1f} at the start, {loads[1]:.1f} at the end.", "",
             f"Median of {repeat} runs of `graph-optimize{{backend=B}}` on a fresh copy of the module, verification",
             "after each pass included (the default of `lamina-opt`). CPU time is this process's (the passes run",
             "in one thread); wall time also counts waiting for a core on a busy machine.", ""]
    if light:
        lines += light_section(light) + [""]
    if synthetic:
        per_pass, flagged = passes_section(synthetic)
        lines += synthetic_section(synthetic)
        lines += ["", "## Synthetic models: time per pass", "",
                  "CPU time of each pass (its runs in the pipeline summed), run one by one without verification.",
                  f"A pass taking at least {seconds(QUICK_PASS)} at the largest size whose median ratio per",
                  f"doubling exceeds {SUPER_LINEAR_RATIO} is flagged as super-linear."]
        lines += per_pass
        lines += ["", "Super-linear passes: " + ("; ".join(flagged) if flagged else "none.")]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models", default=",".join(LIGHT_MODELS), help="comma-separated light models ('' for none)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="synthetic model sizes ('' for none)")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()
    load_at_start = os.getloadavg()[0]
    light = {}
    for name in filter(None, args.models.split(",")):
        light[name] = measure_light(name, args.repeat)
        print(f"measured {name}", file=sys.stderr, flush=True)
    synthetic = {}
    for index, size in enumerate(int(s) for s in filter(None, args.sizes.split(","))):
        synthetic[size] = measure_synthetic(size, args.repeat, check_numbers=index == 0)
        print(f"measured {size} ops", file=sys.stderr, flush=True)
    text = report(light, synthetic, (load_at_start, os.getloadavg()[0]), args.repeat)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
