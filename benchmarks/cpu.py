"""The light models on the CPU path against onnxruntime and this machine's peak GEMM.

Usage: .venv/bin/python benchmarks/cpu.py [--models a,b] [--repeat N]

For each light model (seeded random weights and inputs, seed 0): the CPU
path's compile time (`lamina/runtime/cpu_executor.compile_model`: graph-optimize,
graph-to-cpu, JIT, first call), its latency (median of `--repeat` calls
after the first) and onnxruntime's with 1 and 2 intra-op threads (all graph
optimizations on, sequential execution). GFLOP counts the multiply-adds of
convolutions and matrix products (2 per MAC); the rest is ignored. The peak
is NumPy's (OpenBLAS) float32 2048^3 matmul on one thread
(`OPENBLAS_NUM_THREADS=1` in a child process), measured in the same run.
The output error is max |lamina - onnxruntime| / max |onnxruntime|. Writes
`benchmarks/results/cpu.md` and prints it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model, random_inputs  # noqa: E402

from lamina.dialects import model  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.dialects.graph import GRAPH  # noqa: E402
from lamina.dialects.types import spec_of  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import randomize_weights  # noqa: E402
from lamina.runtime import cpu_executor  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "cpu.md"
COMMAND = ".venv/bin/python benchmarks/cpu.py"
SEED = 0
PEAK_SIZE = 2048

PEAK_GEMM = f"""
import ctypes, time, numpy as np
a = np.random.default_rng(0).random(({PEAK_SIZE}, {PEAK_SIZE}), np.float32)
a @ a
best = min((lambda t: (a @ a, time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(5))
print(2 * {PEAK_SIZE} ** 3 / best / 1e9)
libraries = {{line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line}}
for library in libraries:
    for symbol in ("scipy_openblas_get_corename64_", "openblas_get_corename64_", "openblas_get_corename"):
        corename = getattr(ctypes.CDLL(library), symbol, None)
        if corename is not None:
            corename.restype = ctypes.c_char_p
            print(corename().decode())
"""


def peak_gflops() -> tuple[float, str]:
    """NumPy float32 GEMM GFLOP/s on one OpenBLAS thread and the kernel set OpenBLAS picked for this CPU.

    Runs in a child process because OPENBLAS_NUM_THREADS acts at import. The
    kernel name says whether the "peak" uses the CPU's widest vectors.
    """
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    output = subprocess.run([sys.executable, "-c", PEAK_GEMM], env=environment, check=True, capture_output=True,
                            text=True).stdout.split()
    return float(output[0]), (output[1] if len(output) > 1 else "unknown")


def contraction_flops(module) -> int:
    """2 x the multiply-adds of the model's convolutions and matrix products."""
    macs = 0
    for op in model.body_ops(module):
        view = GRAPH.lookup(op) and GRAPH.view(op)
        if view is None or view.name not in ("convolution", "fully_connected", "matmul"):
            continue
        result = spec_of(op.results[0].type)
        if view.name == "convolution":
            filter_ = spec_of(op.operands[1].type)
            macs += result.num_elements * int(np.prod(filter_.shape[1:]))
        else:
            macs += result.num_elements * spec_of(op.operands[0].type).shape[-1]
    return 2 * macs


def median_seconds(call, repeat: int) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def onnxruntime_session(onnx_model, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(onnx_model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def measure(name: str, repeat: int) -> dict[str, object]:
    onnx_model = randomize_weights(load_light_model(name), SEED)
    feeds = random_inputs(onnx_model, SEED)
    context = make_context()
    module = import_model(onnx_model, context)
    row: dict[str, object] = {"model": name, "gflop": contraction_flops(module) / 1e9}
    start = time.perf_counter()
    compiled = cpu_executor.compile_model(module)
    outputs = compiled.run(feeds)
    row["compile"] = time.perf_counter() - start
    row["lamina"] = median_seconds(lambda: compiled.run(feeds), repeat)
    for threads in (1, 2):
        session = onnxruntime_session(onnx_model, threads)
        row[f"ort{threads}"] = median_seconds(lambda: session.run(None, feeds), repeat)
    reference = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
    row["error"] = max(float(np.abs(outputs[k] - v).max() / max(np.abs(v).max(), 1e-30)) for k, v in reference.items())
    return row


def table(rows: list[dict[str, object]], peak: float, kernel: str, repeat: int) -> str:
    lines = [
        *report_header("The CPU path against onnxruntime", COMMAND),
        f"Latencies are medians of {repeat} calls after a warm-up; Lamina's code is single-threaded. GFLOP",
        "counts convolution and matmul multiply-adds (x2).",
        f"Peak: NumPy (OpenBLAS, `{kernel}` kernels) float32 {PEAK_SIZE}^3 matmul on one thread, measured in the "
        f"same run: **{peak:.1f} GFLOP/s**.",
        "",
        "| model | GFLOP | compile (s) | Lamina (ms) | ORT 1 thread (ms) | ORT 2 threads (ms) | Lamina / ORT 1 "
        "| Lamina GFLOP/s | % of peak | ORT 1 GFLOP/s | max rel. error |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if "failure" in r:
            lines.append(f"| {r['model']} | {r['failure']} |" + " |" * 9)
            continue
        rate = r["gflop"] / r["lamina"]
        lines.append(
            f"| {r['model']} | {r['gflop']:.2f} | {r['compile']:.1f} | {r['lamina'] * 1e3:.1f} | "
            f"{r['ort1'] * 1e3:.1f} | {r['ort2'] * 1e3:.1f} | {r['lamina'] / r['ort1']:.2f}x | {rate:.1f} | "
            f"{100 * rate / peak:.0f}% | {r['gflop'] / r['ort1']:.1f} | {r['error']:.1e} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(LIGHT_MODELS), help="comma-separated light model names")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per measurement (default: 5)")
    parser.add_argument("--output", default=str(RESULTS), help="where to write the markdown table")
    args = parser.parse_args()
    peak, kernel = peak_gflops()
    rows = []
    for name in args.models.split(","):
        try:
            rows.append(measure(name, args.repeat))
        except Exception as error:  # a model that fails is a row saying why, not a lost run
            rows.append({"model": name, "failure": f"{type(error).__name__}: {str(error).splitlines()[0]}"})
        print(rows[-1], file=sys.stderr, flush=True)
    text = table(rows, peak, kernel, args.repeat)
    Path(args.output).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
