"""The light models on the CPU path against onnxruntime at the same thread count, and this machine's peak GEMM.

Usage: .venv/bin/python benchmarks/cpu.py [--models a,b] [--repeat N] [--rounds R]

For each light model (seeded random weights and inputs, seed 0): the CPU
path's compile time at 1 and 2 threads (`lamina/runtime/cpu_executor.compile_model`
with `cpu_pipeline(threads)`: graph-optimize, graph-to-cpu, JIT, first
call), then its latency at 1 and 2 threads and onnxruntime's with 1 and 2
intra-op threads (all graph optimizations on, sequential execution),
interleaved: `--rounds` rounds each time the four in turn (median of
`--repeat` calls after a warm-up), and the median over the rounds, so load
from other work on the machine hits all four alike. At one thread each round
also takes the least CPU time of the calling thread over `--repeat` calls
(`min_thread_seconds`): on a loaded machine the wall time counts the time a
call waits for a core, which hits the longer call harder. The ratios are Lamina /
onnxruntime at the same thread count. GFLOP counts the multiply-adds of
convolutions and matrix products (2 per MAC); the rest is ignored. The peak
is NumPy's (OpenBLAS) float32 2048^3 matmul on one thread
(`OPENBLAS_NUM_THREADS=1` in a child process), measured in the same run.
The output error is max |lamina - onnxruntime| / max |onnxruntime|. Writes
`benchmarks/results/cpu.md` (after every model, so a long run that is cut
short keeps its rows) and prints it.

Each model is measured in a child process of its own (`--child NAME`, which
prints its row as JSON): a model that crashes the process (a signal in the
JIT-compiled code) or exhausts memory (the kernel's OOM killer) is a
failure row naming the exit status and the child's last line of stderr,
and the run goes on with the next model; memory is returned between models.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnxruntime

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from harness import load_average, median_seconds, model_parser, rows_per_model, table_lines  # noqa: E402
from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model, random_inputs  # noqa: E402

from lamina.dialects import model  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.dialects.graph import GRAPH  # noqa: E402
from lamina.dialects.types import spec_of  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import randomize_weights  # noqa: E402
from lamina.runtime import cpu_executor, cpu_object_cache  # noqa: E402

os.environ[cpu_object_cache.CACHE_VARIABLE] = "off"  # compile times are of compiling, not of loading a cached model

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


def onnxruntime_session(onnx_model, threads: int) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(onnx_model.SerializeToString(), options, providers=["CPUExecutionProvider"])


THREADS = (1, 2)


def measure(name: str, repeat: int, rounds: int) -> dict[str, object]:
    onnx_model = randomize_weights(load_light_model(name), SEED)
    feeds = random_inputs(onnx_model, SEED)
    context = make_context()
    module = import_model(onnx_model, context)
    row: dict[str, object] = {"model": name, "gflop": contraction_flops(module) / 1e9}
    calls, errors = {}, []
    for threads in THREADS:
        start = time.perf_counter()
        compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(threads))
        outputs = compiled.run(feeds)
        row[f"compile{threads}"] = time.perf_counter() - start
        session = onnxruntime_session(onnx_model, threads)
        reference = dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds)))
        errors += [float(np.abs(outputs[k] - v).max() / max(np.abs(v).max(), 1e-30)) for k, v in reference.items()]
        calls[f"lamina{threads}"] = functools.partial(compiled.run, feeds)
        calls[f"ort{threads}"] = functools.partial(session.run, None, feeds)
    row["error"] = max(errors)
    times: dict[str, list[float]] = {key: [] for key in (*calls, "lamina1_cpu", "ort1_cpu")}
    for _ in range(rounds):
        for key, call in calls.items():
            times[key].append(median_seconds(call, repeat))
            if key.endswith("1"):  # one thread: also the calling thread's CPU time
                times[f"{key}_cpu"].append(min_thread_seconds(call, repeat))
    row.update({key: statistics.median(values) for key, values in times.items()})
    row["load"] = load_average()
    return row


def min_thread_seconds(call, repeat: int) -> float:
    """The least CPU time of the calling thread over `repeat` calls (after a warm-up).

    On one thread both Lamina and onnxruntime compute in the calling thread,
    so its CPU time is what the wall time would be on a quiet machine: a
    call preempted by other work on a loaded machine does not count the
    time it waited (the wall-clock median does).
    """
    call()
    times = []
    for _ in range(repeat):
        start = time.thread_time()
        call()
        times.append(time.thread_time() - start)
    return min(times)


def table(rows: list[dict[str, object]], peak: float, kernel: str, repeat: int, rounds: int,
          loads: tuple[float, float]) -> str:
    lines = [
        *report_header("The CPU path against onnxruntime", COMMAND),
        f"Load average (1 min) {loads[0]:.1f} at the start, {loads[1]:.1f} at the end (2 logical CPUs shared "
        "with other work: every column is slowed alike, the ratios less so).",
        f"Latencies: the median over {rounds} interleaved rounds of the median of {repeat} calls after a warm-up "
        "(Lamina at 1 thread, ORT at 1, Lamina at 2, ORT at 2, in turn). Ratios are Lamina / onnxruntime at the "
        "same thread count. CPU time (one thread): the least CPU time of the calling thread over the calls of a "
        "round, median over the rounds (not inflated by waiting for a core). Load: the 1-minute load average when "
        "the model's row was done. Compile: graph-optimize, graph-to-cpu, JIT and the first call (wall). GFLOP "
        "counts convolution and matmul multiply-adds (x2).",
        f"Peak: NumPy (OpenBLAS, `{kernel}` kernels) float32 {PEAK_SIZE}^3 matmul on one thread, measured in the "
        f"same run: **{peak:.1f} GFLOP/s**.",
        "",
        "| model | GFLOP | compile 1 / 2 threads (s) | Lamina 1 (ms) | ORT 1 (ms) | **1 thread** | Lamina 1 CPU (ms) "
        "| ORT 1 CPU (ms) | **1 thread, CPU time** | Lamina 2 (ms) | ORT 2 (ms) | **2 threads** | Lamina 1 GFLOP/s "
        "(CPU time) | % of peak | max rel. error | load |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]

    def line(r: dict) -> str:
        rate = r["gflop"] / r["lamina1_cpu"]
        return (f"| {r['model']} | {r['gflop']:.2f} | {r['compile1']:.1f} / {r['compile2']:.1f} | "
                f"{r['lamina1'] * 1e3:.1f} | {r['ort1'] * 1e3:.1f} | {r['lamina1'] / r['ort1']:.2f}x | "
                f"{r['lamina1_cpu'] * 1e3:.1f} | {r['ort1_cpu'] * 1e3:.1f} | {r['lamina1_cpu'] / r['ort1_cpu']:.2f}x | "
                f"{r['lamina2'] * 1e3:.1f} | {r['ort2'] * 1e3:.1f} | {r['lamina2'] / r['ort2']:.2f}x | {rate:.1f} | "
                f"{100 * rate / peak:.0f}% | {r['error']:.1e} | {r['load']:.1f} |")

    lines += table_lines(rows, 16, line)
    return "\n".join(lines) + "\n"


def exit_status(returncode: int) -> str:
    """A child's exit status in words: the signal that killed it (SIGKILL: most likely the OOM killer), or its code."""
    if returncode < 0:
        name = signal.Signals(-returncode).name
        return f"killed by {name}" + (" (out of memory?)" if name == "SIGKILL" else "")
    return f"exit status {returncode}"


def measure_in_child(name: str, repeat: int, rounds: int) -> dict[str, object]:
    """`measure(name)` in a child process: its row, or a failure row saying how the child ended."""
    command = [sys.executable, __file__, "--child", name, "--repeat", str(repeat), "--rounds", str(rounds)]
    child = subprocess.run(command, capture_output=True, text=True)
    lines = child.stdout.strip().splitlines()
    if child.returncode == 0 and lines:
        return json.loads(lines[-1])
    errors = [line for line in child.stderr.strip().splitlines() if line.strip()]
    last = errors[-1].strip() if errors else "no error printed"
    raise RuntimeError(f"{exit_status(child.returncode)}: {last}")


def main() -> None:
    parser = model_parser(__doc__, LIGHT_MODELS, RESULTS, repeat=5)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per model (default: 3)")
    parser.add_argument("--child", metavar="NAME", help="measure one model and print its row as JSON (internal)")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.repeat, args.rounds)))
        return
    start_load = load_average()
    peak, kernel = peak_gflops()

    def write(rows: list[dict]) -> None:
        Path(args.output).write_text(table(rows, peak, kernel, args.repeat, args.rounds,
                                           (start_load, load_average())))

    rows = rows_per_model(args.models.split(","), lambda name: measure_in_child(name, args.repeat, args.rounds),
                          after=write)
    print(Path(args.output).read_text())


if __name__ == "__main__":
    main()
