"""Compile time on the two shapes that were super-linear: an N-input Concat and a chain of N Relu.

    python benchmarks/buffer_scaling.py [--concat 128,256,512] [--relu 1250,2500,5000] [--out benchmarks/results/buffer_scaling.md]

Each model is imported, then `graph-to-buffers` runs as `lamina-compile`
runs it (one pipeline); the table gives its seconds and those of the two
passes that were quadratic or worse, `buffer-inplace` and
`buffer-eliminate-copies` (each run alone on the IR the pipeline hands
it). Then the whole `lamina-compile` flow for ultra96v2 (import,
graph-optimize, HIR, schedule, model files, and the default accuracy
check: the written model simulated on 8 samples against onnxruntime, whose
worst SQNR the table gives), and its growth when the model doubles (issue
18's target: at most 2.2x), in wall seconds and in the process's CPU
seconds (which a loaded machine inflates less). Figures measured before the fixes (issue 17)
stand beside them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as lamina-compile sets it, before NumPy loads

import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from lamina.dialects.context import make_context  # noqa: E402
from lamina.driver.compiler import compile_model  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402
from lamina.pipelines.graph_to_buffers import GraphToBuffers  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_and_interpret import report_header  # noqa: E402

# Before the fixes (commit 91b4f7b), seconds: graph-to-buffers as benchmarks/results/buffer_scaling.md
# recorded it then, lamina-compile as measured on that commit (issue 17 reported 46 s and > 600 s for
# graph-to-buffers on concat x 128 and x 512 before the pass fixes that preceded it).
BEFORE = {("concat", 128): 2.7, ("concat", 512): 8.9, ("relu", 1000): 13.2, ("relu", 5000): 56.8}
BEFORE_COMPILE = {("concat", 512): 124.0, ("relu", 1000): 5.6, ("relu", 5000): 27.0}
TIMED_PASSES = ("buffer-inplace", "buffer-eliminate-copies")


def concat_model(count: int) -> onnx.ModelProto:
    """A Concat of `count` copies of one input (the campaign's shape)."""
    graph = helper.make_graph([helper.make_node("Concat", ["x"] * count, ["y"], axis=1)], "concat",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def relu_model(count: int) -> onnx.ModelProto:
    names = ["x", *(f"r{i}" for i in range(count - 1)), "y"]
    graph = helper.make_graph([helper.make_node("Relu", [names[i]], [names[i + 1]]) for i in range(count)], "relu",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def measure(model: onnx.ModelProto) -> dict[str, float]:
    """Seconds of the whole pipeline, and of each timed pass on the IR it meets in the pipeline."""
    context = make_context()
    module = import_model(model, context)
    start = time.perf_counter()
    run_pipeline(module, f"builtin.module({GraphToBuffers.name})")
    seconds = {"graph-to-buffers": time.perf_counter() - start}
    module = import_model(model, context)
    for stage in GraphToBuffers().stages():
        start = time.perf_counter()
        run_pipeline(module, f"builtin.module({stage})")
        if stage in TIMED_PASSES and stage not in seconds:
            seconds[stage] = time.perf_counter() - start
    return seconds


def compile_seconds(model: onnx.ModelProto, workdir: Path) -> tuple[float, float, float]:
    """lamina-compile's wall and CPU seconds (every thread, and the simulator's worker processes) for ultra96v2, and
    the accuracy check's worst SQNR (dB) against onnxruntime. On a loaded machine the CPU seconds show the work
    better."""
    path = workdir / "model.onnx"
    onnx.save(model, path)
    start, cpu_start = time.perf_counter(), _cpu_seconds()
    result = compile_model(path, "ultra96v2", workdir / "out")
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu_start
    return seconds, cpu, min(output.sqnr_db for output in result.summary.accuracy.outputs)


def _cpu_seconds() -> float:
    """User and system seconds of this process and of its children that have ended."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concat", default="128,256,512")
    parser.add_argument("--relu", default="1250,2500,5000")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    start_load = os.getloadavg()[0]
    rows = ["| model | graph-to-buffers (s) | before (s) | buffer-inplace (s) | buffer-eliminate-copies (s) "
            "| lamina-compile (s) | before (s) | growth per doubling | lamina-compile CPU (s) | CPU growth "
            "| SQNR vs onnxruntime (dB) |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    compiled_at: dict[tuple[str, int], tuple[float, float]] = {}
    for kind, sizes, build in (("concat", args.concat, concat_model), ("relu", args.relu, relu_model)):
        for size in (int(s) for s in sizes.split(",") if s):
            seconds = measure(build(size))
            with tempfile.TemporaryDirectory() as workdir:
                compiled, cpu, sqnr = compile_seconds(build(size), Path(workdir))
            compiled_at[kind, size] = compiled, cpu
            half = compiled_at.get((kind, size // 2)) if size % 2 == 0 else None
            growth, cpu_growth = (f"{compiled / half[0]:.2f}x", f"{cpu / half[1]:.2f}x") if half else ("", "")
            rows.append(f"| {kind} x {size} | {seconds['graph-to-buffers']:.1f} | {_before(BEFORE, kind, size)} | "
                        f"{seconds['buffer-inplace']:.2f} | {seconds['buffer-eliminate-copies']:.2f} | "
                        f"{compiled:.1f} | {_before(BEFORE_COMPILE, kind, size)} | {growth} | {cpu:.1f} | {cpu_growth} "
                        f"| {sqnr:.1f} |")
            print(rows[-1], flush=True)
    command = "python benchmarks/buffer_scaling.py " + " ".join(sys.argv[1:])
    header = report_header("Compile time on wide and deep graphs", command.strip())
    text = "\n".join([*header, f"Load average (1 min) {start_load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end.",
                      "", *rows]) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


def _before(table: dict, kind: str, size: int) -> str:
    if (kind, size) not in table:
        return "not measured"
    return "> 600" if table[kind, size] is None else f"{table[kind, size]:.1f}"


if __name__ == "__main__":
    main()
