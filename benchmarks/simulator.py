"""The simulator's speed: seconds per input on compiled light models, beside onnxruntime on the same model.

Usage: .venv/bin/python benchmarks/simulator.py [--models resnet50,...] [--archs ultra96v2,...] [--together N]

For each model (seeded random weights, seed 0, as `lamina-compile --random-weights 0`) and architecture:
`compile_model` without its check, then, timed in one process: the simulator on one U[0, 1) input, the
simulator on `--together` inputs run as one batched machine (the compile's accuracy check runs its 8
samples so), and onnxruntime (CPU provider, one thread, session built and warmed up untimed) on the same
randomized ONNX model and inputs. The first input's outputs must be identical alone and together. Rows go
to `benchmarks/results/simulator.md`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from import_and_interpret import report_header  # noqa: E402
from light_models import load_light_model  # noqa: E402

from lamina.driver.compiler import compile_model  # noqa: E402
from lamina.frontend.random_weights import random_inputs, randomize_weights  # noqa: E402
from lamina.runtime.tcu_simulator import simulate_samples  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "simulator.md"
COMMAND = ".venv/bin/python benchmarks/simulator.py"
SEED = 0


def _onnxruntime_seconds(model, inputs: list[dict[str, np.ndarray]]) -> float:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    session.run(None, inputs[0])
    start = time.perf_counter()
    for feeds in inputs:
        session.run(None, feeds)
    return (time.perf_counter() - start) / len(inputs)


def measure(name: str, arch: str, together: int, workdir: Path) -> dict[str, object]:
    model = randomize_weights(load_light_model(name), SEED)
    source = workdir / f"{name}.onnx"
    source.write_bytes(model.SerializeToString())
    outdir = workdir / f"{name}-{arch}"
    start = time.perf_counter()
    compile_model(source, arch, outdir, emit=(), check=False)
    compile_seconds = time.perf_counter() - start
    tmodel = outdir / "model.tmodel"
    inputs = [random_inputs(model, 1000 + k) for k in range(together)]
    start, cpu = time.perf_counter(), time.process_time()
    (alone,) = simulate_samples(tmodel, inputs[:1])
    alone_seconds, alone_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    batched = list(simulate_samples(tmodel, inputs, together=together))
    together_seconds, together_cpu = (time.perf_counter() - start) / together, (time.process_time() - cpu) / together
    identical = all(np.array_equal(alone.outputs[key], batched[0].outputs[key]) for key in alone.outputs)
    return {"model": name, "arch": arch, "instructions": alone.instructions, "compile": compile_seconds,
            "alone": alone_seconds, "alone cpu": alone_cpu, "together": together_seconds,
            "together cpu": together_cpu, "onnxruntime": _onnxruntime_seconds(model, inputs), "identical": identical}


def report(rows: list[dict[str, object]], together: int, loads: tuple[float, float]) -> str:
    lines = [*report_header("Simulator speed", COMMAND), f"Load average (1 min) {loads[0]:.1f} at the start, "
             f"{loads[1]:.1f} at the end: other work on the machine slows every column.", "",
             f"Random weights (seed {SEED}); U[0, 1) inputs (seeds 1000, ...). Seconds per input, wall clock and "
             f"the process's CPU time: the simulator on one input alone (reading and decoding the model files "
             f"included), on {together} inputs run together (per input), and onnxruntime on one thread, wall "
             f"clock. Identical: the first input's outputs alone and together.", "",
             "| model | arch | instructions | compile s | simulator alone, s (CPU) | simulator together, s (CPU) "
             "| onnxruntime s | alone / onnxruntime | together / onnxruntime | identical |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        lines.append(f"| {row['model']} | {row['arch']} | {row['instructions']:,} | {row['compile']:.1f} "
                     f"| {row['alone']:.2f} ({row['alone cpu']:.2f}) | {row['together']:.2f} ({row['together cpu']:.2f}) "
                     f"| {row['onnxruntime']:.3f} | {row['alone'] / row['onnxruntime']:.0f}x "
                     f"| {row['together'] / row['onnxruntime']:.0f}x | {'yes' if row['identical'] else 'NO'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50")
    parser.add_argument("--archs", default="ultra96v2")
    parser.add_argument("--together", type=int, default=8)
    args = parser.parse_args()
    first_load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models.split(","):
            for arch in args.archs.split(","):
                rows.append(measure(name, arch, args.together, Path(workdir)))
                print(rows[-1], flush=True)
    RESULTS.write_text(report(rows, args.together, (first_load, os.getloadavg()[0])))
    print(RESULTS.read_text())


if __name__ == "__main__":
    main()
