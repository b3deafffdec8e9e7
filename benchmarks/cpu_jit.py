"""The CPU path's compile time split into lowering and code generation, by code generator and LLVM opt level.

Usage: .venv/bin/python benchmarks/cpu_jit.py [--models resnet50] [--levels 3,2] [--generators split,engine]
       [--repeat N]

For each light model (seeded random weights and inputs, seed 0), code
generator and opt level: the lowering (`graph-optimize`, `graph-to-cpu` to
the LLVM dialect, on a copy of the imported module, as `cpu_executor` runs
it), then the whole `cpu_executor.compile_model` (lowering, code generation,
loading) from an empty cache; the JIT is their difference. The generators:
`split`, LLVM's tools in parallel parts (`cpu_codegen`, the default for
large models), and `engine`, MLIR's ExecutionEngine in process (what every
model used before; small models still do). Times are wall seconds and CPU
seconds of this process and its children (the tools): on a loaded machine
the CPU seconds stand for what the work costs, the wall time for nothing
much. Then the latency at 1 thread beside onnxruntime's at 1 thread
(interleaved `--rounds` rounds; per round the least CPU time of the calling
thread over `--repeat` calls, both compute in it; the least over the
rounds), and the output's max |lamina - onnxruntime| / max |onnxruntime|:
a faster compile must not cost kernel speed. Writes
`benchmarks/results/cpu_jit.md`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cpu import min_thread_seconds, onnxruntime_session  # noqa: E402
from harness import load_average  # noqa: E402
from import_and_interpret import report_header  # noqa: E402
from light_models import load_light_model, random_inputs  # noqa: E402

from lamina.dialects.context import make_context, parse_module, print_module  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import randomize_weights  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402
from lamina.runtime import cpu_codegen, cpu_executor, cpu_object_cache  # noqa: E402

os.environ[cpu_object_cache.CACHE_VARIABLE] = "off"  # compile times are of compiling, not of loading a cached model

RESULTS = ROOT / "benchmarks" / "results" / "cpu_jit.md"
SEED = 0


GENERATORS = {"split": cpu_codegen.MIN_FUNCTIONS, "engine": 1 << 62}  # cpu_codegen.MIN_FUNCTIONS for each


def measure(name: str, threads: int, generator: str, level: int, repeat: int, rounds: int) -> dict[str, object]:
    onnx_model = randomize_weights(load_light_model(name), SEED)
    feeds = random_inputs(onnx_model, SEED)
    context = make_context()
    module = import_model(onnx_model, context)
    pipeline = cpu_executor.cpu_pipeline(threads)
    copy = parse_module(print_module(module), context, name)
    start, cpu_start = time.perf_counter(), cpu_executor.compile_seconds()
    run_pipeline(copy, pipeline)
    lowering, lowering_cpu = time.perf_counter() - start, cpu_executor.compile_seconds() - cpu_start
    del copy
    cpu_executor.forget_compiled_models()
    cpu_codegen.MIN_FUNCTIONS = GENERATORS[generator]
    start, cpu_start = time.perf_counter(), cpu_executor.compile_seconds()
    compiled = cpu_executor.compile_model(module, pipeline, opt_level=level)
    total, total_cpu = time.perf_counter() - start, cpu_executor.compile_seconds() - cpu_start
    outputs = compiled.run(feeds)
    session = onnxruntime_session(onnx_model, 1)
    reference = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    error = max(float(np.abs(outputs[k] - v).max() / max(np.abs(v).max(), 1e-30)) for k, v in reference.items())
    lamina, ort = [], []
    for _ in range(rounds if threads == 1 else 0):  # the calling thread's CPU time says nothing with threads
        lamina.append(min_thread_seconds(lambda: compiled.run(feeds), repeat))
        ort.append(min_thread_seconds(lambda: session.run(None, feeds), repeat))
    cpu_executor.forget_compiled_models()
    return {"model": name, "threads": threads, "generator": generator, "level": level, "lowering": lowering, "jit": total - lowering,
            "lowering_cpu": lowering_cpu, "jit_cpu": total_cpu - lowering_cpu, "total": total,
            "lamina": min(lamina, default=float("nan")), "ort": min(ort, default=float("nan")), "error": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--levels", default="3,2")
    parser.add_argument("--generators", default="split,engine")
    parser.add_argument("--threads", default="1,2", help="graph-to-cpu threads (latency is measured at 1 only)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    start_load = load_average()
    rows = []
    for name in args.models.split(","):
        for threads in (int(text) for text in args.threads.split(",")):
            for generator in args.generators.split(","):
                for level in (int(text) for text in args.levels.split(",")):
                    rows.append(measure(name, threads, generator, level, args.repeat, args.rounds))
                    print(rows[-1], file=sys.stderr, flush=True)
    command = "python benchmarks/cpu_jit.py " + " ".join(sys.argv[1:])
    lines = [*report_header("The CPU path's code generation by generator and LLVM opt level", command.strip()),
             f"Load average (1 min) {start_load:.1f} at the start, {load_average():.1f} at the end (2 logical "
             "CPUs shared with other work).",
             "Lowering: graph-optimize and graph-to-cpu. JIT: compile_model's time minus the lowering; CPU seconds "
             "count this process and the tools it ran. Latency at 1 thread: the least CPU time of the calling thread "
             f"over {args.repeat} calls, least of {args.rounds} interleaved rounds.", "",
             "| model | threads | generator | LLVM opt level | lowering (s) | JIT (s) | lowering (CPU s) | JIT (CPU s) "
             "| compile total (s) | Lamina 1 thread (ms) | ORT 1 thread (ms) | Lamina / ORT | max rel. error |",
             "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['model']} | {r['threads']} | {r['generator']} | O{r['level']} | {r['lowering']:.1f} | {r['jit']:.1f} | "
              f"{r['lowering_cpu']:.1f} | "
              f"{r['jit_cpu']:.2f} | {r['total']:.1f} | "
              f"{r['lamina'] * 1e3:.1f} | {r['ort'] * 1e3:.1f} | {r['lamina'] / r['ort']:.2f}x | {r['error']:.1e} |"
              for r in rows]
    text = "\n".join(lines) + "\n"
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
