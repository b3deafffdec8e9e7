"""The CPU path's compile time split into lowering and LLVM's JIT, at LLVM opt levels 3, 2 and 0.

Usage: .venv/bin/python benchmarks/cpu_jit.py [--models resnet50] [--levels 3,2,0] [--repeat N]

For each light model (seeded random weights and inputs, seed 0) and opt
level: the lowering (`graph-optimize`, `graph-to-cpu` to the LLVM dialect, on
a copy of the imported module, as `cpu_executor` runs it), then the whole
`cpu_executor.compile_model` (lowering, JIT, first lookup) from an empty
cache; the JIT is their difference. Both are also timed in CPU seconds of
this process (`time.process_time`: lowering and JIT are single-threaded, so
on a loaded machine they stand for what the wall time would be on a quiet
one). Then the latency at 1 thread (median of
`--repeat` calls after a warm-up) beside onnxruntime's at 1 thread, and
the output's max |lamina - onnxruntime| / max |onnxruntime|. Issue 18 asks
whether O2 buys what O3 costs. Writes `benchmarks/results/cpu_jit.md`.
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

from cpu import onnxruntime_session  # noqa: E402
from harness import load_average, median_seconds  # noqa: E402
from import_and_interpret import report_header  # noqa: E402
from light_models import load_light_model, random_inputs  # noqa: E402

from lamina.dialects.context import make_context, parse_module, print_module  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import randomize_weights  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402
from lamina.runtime import cpu_executor, cpu_object_cache  # noqa: E402

os.environ[cpu_object_cache.CACHE_VARIABLE] = "off"  # compile times are of compiling, not of loading a cached model

RESULTS = ROOT / "benchmarks" / "results" / "cpu_jit.md"
SEED = 0


def measure(name: str, level: int, repeat: int) -> dict[str, object]:
    onnx_model = randomize_weights(load_light_model(name), SEED)
    feeds = random_inputs(onnx_model, SEED)
    context = make_context()
    module = import_model(onnx_model, context)
    pipeline = cpu_executor.cpu_pipeline(1)
    copy = parse_module(print_module(module), context, name)
    start, cpu_start = time.perf_counter(), time.process_time()
    run_pipeline(copy, pipeline)
    lowering, lowering_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    del copy
    cpu_executor.forget_compiled_models()
    start, cpu_start = time.perf_counter(), time.process_time()
    compiled = cpu_executor.compile_model(module, pipeline, opt_level=level)
    total, total_cpu = time.perf_counter() - start, time.process_time() - cpu_start
    outputs = compiled.run(feeds)
    session = onnxruntime_session(onnx_model, 1)
    reference = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    error = max(float(np.abs(outputs[k] - v).max() / max(np.abs(v).max(), 1e-30)) for k, v in reference.items())
    lamina = median_seconds(lambda: compiled.run(feeds), repeat)
    ort = median_seconds(lambda: session.run(None, feeds), repeat)
    cpu_executor.forget_compiled_models()
    return {"model": name, "level": level, "lowering": lowering, "jit": total - lowering, "total": total,
            "lowering_cpu": lowering_cpu, "jit_cpu": total_cpu - lowering_cpu, "lamina": lamina, "ort": ort,
            "error": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--levels", default="3,2,0")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--output", default=str(RESULTS))
    args = parser.parse_args()
    start_load = load_average()
    rows = []
    for name in args.models.split(","):
        for level in (int(text) for text in args.levels.split(",")):
            rows.append(measure(name, level, args.repeat))
            print(rows[-1], file=sys.stderr, flush=True)
    command = "python benchmarks/cpu_jit.py " + " ".join(sys.argv[1:])
    lines = [*report_header("The CPU path's JIT at LLVM opt levels 3, 2 and 0", command.strip()),
             f"Load average (1 min) {start_load:.1f} at the start, {load_average():.1f} at the end (2 logical "
             "CPUs shared with other work).",
             "Lowering: graph-optimize and graph-to-cpu. JIT: compile_model's time minus the lowering. Latency at "
             f"1 thread, median of {args.repeat} calls after a warm-up.", "",
             "| model | LLVM opt level | lowering (s) | JIT (s) | lowering (CPU s) | JIT (CPU s) "
             "| compile total (s) | Lamina 1 thread (ms) | ORT 1 thread (ms) | Lamina / ORT | max rel. error |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines += [f"| {r['model']} | O{r['level']} | {r['lowering']:.1f} | {r['jit']:.1f} | {r['lowering_cpu']:.1f} | "
              f"{r['jit_cpu']:.1f} | {r['total']:.1f} | "
              f"{r['lamina'] * 1e3:.1f} | {r['ort'] * 1e3:.1f} | {r['lamina'] / r['ort']:.2f}x | {r['error']:.1e} |"
              for r in rows]
    text = "\n".join(lines) + "\n"
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
