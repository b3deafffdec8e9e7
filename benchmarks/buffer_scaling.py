"""graph-to-buffers on the two shapes that were super-linear: an N-input Concat and a chain of N Relu.

    python benchmarks/buffer_scaling.py [--concat 128,512] [--relu 1000,5000] [--out benchmarks/results/buffer_scaling.md]

Each model is imported, then `graph-to-buffers` runs as `lamina-compile`
runs it (one pipeline); the table gives its seconds and those of the two
passes that were quadratic or worse, `buffer-inplace` and
`buffer-eliminate-copies` (each run alone on the IR the pipeline hands
it), beside the figures measured before the fix (issue 17).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_to_buffers import GraphToBuffers

# Before the fix (issue 17's campaign, graph-to-buffers): seconds, or None for "did not finish in 600 s".
BEFORE = {("concat", 128): 46.0, ("concat", 512): None, ("relu", 1000): 18.7}
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concat", default="128,512")
    parser.add_argument("--relu", default="1000,5000")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = ["| model | graph-to-buffers (s) | before (s) | buffer-inplace (s) | buffer-eliminate-copies (s) |",
            "|---|---|---|---|---|"]
    for kind, sizes, build in (("concat", args.concat, concat_model), ("relu", args.relu, relu_model)):
        for size in (int(s) for s in sizes.split(",") if s):
            seconds = measure(build(size))
            before = BEFORE.get((kind, size), "")
            before = "> 600" if before is None else (f"{before:.1f}" if before else "not measured")
            rows.append(f"| {kind} x {size} | {seconds['graph-to-buffers']:.1f} | {before} | "
                        f"{seconds['buffer-inplace']:.2f} | {seconds['buffer-eliminate-copies']:.2f} |")
            print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n"
    print(text)
    if args.out:
        args.out.write_text(f"Command: `python benchmarks/buffer_scaling.py`\n\n{text}")


if __name__ == "__main__":
    main()
