"""int8 and fp16 on the CPU path against float, and int8 speed against float and onnxruntime's QDQ model.

Usage: .venv/bin/python benchmarks/precision.py [--models a,b] [--samples N] [--calibration N] [--repeat N]

For each light model (seeded random weights, seed 0, with the final softmax's input as an extra output,
the logits): the graph is optimized up to the precision stage, profiled by the reference interpreter on
`--calibration` seeded U[0, 1) samples (`lamina/runtime/profiler.py`), then
- int8 (the default recipe): `graph-quantize{per-channel=true keep-nodes=...}` (asymmetric activations,
  symmetric per-channel weights, min/max calibration), run on the CPU path (i8 x i8 -> i32 linalg
  contractions), with the layers `lamina/runtime/sensitivity.py` finds most sensitive kept float, as few as
  give cosine >= SEARCH_TARGET on the calibration samples (none when every layer int8 does);
- all int8: the same without keep-nodes;
- fp16: `graph-convert-to-fp16`, run on the CPU path;
- float: the same graph in f32 on the CPU path.
Accuracy is over `--samples` other seeded inputs, per output: cosine similarity and SQNR (dB) of the
int8/fp16 outputs against float, and top-1 agreement. Speed: median of `--repeat` calls after a warm-up;
onnxruntime (1 thread) runs the float model and the QDQ model `quantize_static` makes from the same
calibration samples (per-channel int8 weights, int8 activations). Writes `benchmarks/results/precision.md`.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from cpu import onnxruntime_session  # noqa: E402
from harness import median_seconds, model_parser, rows_per_model, table_lines  # noqa: E402
from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model, with_logits_output  # noqa: E402
from qdq_models import quantize_model  # noqa: E402

from lamina.dialects.context import make_context  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.frontend.random_weights import random_inputs, randomize_weights  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402
from lamina.pipelines.graph_optimize import GraphOptimize  # noqa: E402
from lamina.quantization.profile import write_profile  # noqa: E402
from lamina.runtime.profiler import profile_graph  # noqa: E402
from lamina.runtime import cpu_executor  # noqa: E402
from lamina.runtime.sensitivity import search_keep_nodes  # noqa: E402
from lamina.passes.graph.convert_to_fp16 import GraphConvertToFP16  # noqa: E402
from lamina.passes.graph.quantize import GraphQuantize  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "precision.md"
COMMAND = ".venv/bin/python benchmarks/precision.py"
SEED = 0
TEST_SEEDS = 1000
# The sensitive-layer search's cosine on the calibration samples: above the 0.99, for unseen inputs.
SEARCH_TARGET = 0.998
# The light models by CPU time, so that an interrupted run has the most rows.
SMALLEST_FIRST = ("squeezenet", "shufflenet", "inception_v1", "resnet50", "inception_v2", "densenet121",
                  "bvlc_alexnet", "zfnet512", "vgg19")
assert sorted(SMALLEST_FIRST) == sorted(LIGHT_MODELS)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / max(np.linalg.norm(a) * np.linalg.norm(b), 1e-300))


def sqnr_db(actual: np.ndarray, reference: np.ndarray) -> float:
    noise = np.sum((actual.astype(np.float64) - reference.astype(np.float64)) ** 2)
    return float(10 * np.log10(np.sum(reference.astype(np.float64) ** 2) / max(noise, 1e-300)))


def agreement(runs: list[dict], references: list[dict]) -> dict[str, dict[str, float]]:
    """Per output: cosine and SQNR over all samples stacked, and the fraction of equal argmax."""
    figures = {}
    for name in references[0]:
        ours = np.stack([r[name] for r in runs])
        theirs = np.stack([r[name] for r in references])
        top1 = np.mean([np.argmax(a) == np.argmax(b) for a, b in zip(ours, theirs)])
        figures[name] = {"cosine": cosine(ours, theirs), "sqnr": sqnr_db(ours, theirs), "top1": float(top1)}
    return figures


def measure(name: str, samples: int, calibration: int, repeat: int) -> dict[str, object]:
    proto = with_logits_output(randomize_weights(load_light_model(name), SEED))
    context = make_context()
    module = import_model(proto, context)
    run_pipeline(module, f"builtin.module({','.join(GraphOptimize().before_precision())})")
    pristine = module.clone()  # profiling instruments `module` in place (not a text round trip: VGG-19's is GBs)
    calibration_feeds = [random_inputs(proto, SEED + i) for i in range(calibration)]
    tests = [random_inputs(proto, TEST_SEEDS + i) for i in range(samples)]
    row: dict[str, object] = {"model": name}
    with tempfile.TemporaryDirectory() as scratch:
        start = time.perf_counter()
        profile_path = str(Path(scratch) / "profile.yaml")
        write_profile(profile_graph(module, calibration_feeds), profile_path)
        row["profile"] = time.perf_counter() - start
        start = time.process_time()
        search = search_keep_nodes(pristine, profile_path, calibration_feeds, SEARCH_TARGET)
        row["search"] = time.process_time() - start
        row["kept"], row["layers"], row["search_cosine"] = len(search.keep_nodes), search.layers, search.cosine
        row["kept_layers"] = sum(1 for name, _ in search.errors if name in search.keep_nodes)
        variants = {"float": None, "int8": GraphQuantize(profile=profile_path, per_channel=True),
                    "mixed": GraphQuantize(profile=profile_path, per_channel=True, keep_nodes=search.keep_nodes),
                    "fp16": GraphConvertToFP16()}
        if not search.keep_nodes:
            del variants["mixed"]  # the default is every layer int8: the same graph
        outputs = {}
        for variant, quantize in variants.items():
            graph = pristine.clone()
            if quantize is not None:
                quantize.run(graph)
            start = time.perf_counter()
            compiled = cpu_executor.compile_model(graph)
            compiled.run(tests[0])
            row[f"compile_{variant}"] = time.perf_counter() - start
            outputs[variant] = [compiled.run(feeds) for feeds in tests]
            row[f"time_{variant}"] = median_seconds(lambda: compiled.run(tests[0]), repeat)
        if "mixed" not in variants:
            outputs["mixed"], row["time_mixed"] = outputs["int8"], row["time_int8"]
        for variant in ("int8", "mixed", "fp16"):
            row[variant] = agreement(outputs[variant], outputs["float"])
        qdq_path = quantize_model(proto, Path(scratch), True, calibration_feeds)
        qdq = onnxruntime_session(onnx.load(qdq_path), 1)
        row["time_ort_qdq"] = median_seconds(lambda: qdq.run(None, tests[0]), repeat)
        plain = onnxruntime_session(proto, 1)
        row["time_ort_float"] = median_seconds(lambda: plain.run(None, tests[0]), repeat)
        qdq_outputs = [dict(zip([o.name for o in qdq.get_outputs()], qdq.run(None, feeds))) for feeds in tests]
        row["ort_qdq"] = agreement(qdq_outputs, outputs["float"])
    return row


def _figures(figures: dict[str, dict[str, float]]) -> str:
    return "<br>".join(f"`{name}`: {f['cosine']:.5f}, {f['sqnr']:.1f} dB, {100 * f['top1']:.0f}%"
                       for name, f in figures.items())


def _line(r: dict) -> str:
    return (f"| {r['model']} | {_figures(r['mixed'])} | {r['kept_layers']} of {r['layers']} "
            f"({r['search_cosine']:.4f}, {r['search']:.0f} s) | {_figures(r['int8'])} | {_figures(r['fp16'])} | "
            f"{_figures(r['ort_qdq'])} | {r['time_float'] * 1e3:.1f} | {r['time_mixed'] * 1e3:.1f} | "
            f"{r['time_int8'] * 1e3:.1f} | {r['time_fp16'] * 1e3:.1f} | {r['time_ort_float'] * 1e3:.1f} | "
            f"{r['time_ort_qdq'] * 1e3:.1f} | {r['time_mixed'] / r['time_float']:.2f}x | "
            f"{r['time_mixed'] / r['time_ort_qdq']:.2f}x |")


def table(rows: list[dict[str, object]], samples: int, calibration: int, repeat: int) -> str:
    lines = [
        *report_header("int8 and fp16 on the CPU path against float", COMMAND),
        f"Random weights (seed {SEED}); {calibration} calibration samples, {samples} test samples (U[0, 1)).",
        "Each cell: per output, cosine similarity, SQNR and top-1 agreement against the float CPU path;",
        "the logits are the final softmax's input. ORT QDQ: onnxruntime running `quantize_static`'s model",
        f"(same calibration samples), against Lamina's float. Latencies: median of {repeat} calls, one thread.",
        "",
        f"int8 (default): every layer int8 except the sensitive ones the search keeps float, chosen on the",
        f"calibration samples for cosine >= {SEARCH_TARGET} (kept: layers, with the search's cosine and CPU seconds);",
        "all int8: no layer kept.",
        "",
        "| model | int8 (default) vs float | kept float | all int8 vs float | fp16 vs float | ORT QDQ vs float "
        "| float (ms) | int8 (ms) | all int8 (ms) | fp16 (ms) | ORT float (ms) | ORT QDQ (ms) | int8 / float "
        "| int8 / ORT QDQ |",
        "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += table_lines(rows, 14, _line)
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = model_parser(__doc__, SMALLEST_FIRST, RESULTS, repeat=3)
    parser.add_argument("--samples", type=int, default=10, help="test inputs per model (default: 10)")
    parser.add_argument("--calibration", type=int, default=16, help="calibration inputs (default: 16)")
    args = parser.parse_args()
    rows_per_model(args.models.split(","), lambda name: measure(name, args.samples, args.calibration, args.repeat),
                   after=lambda rows: Path(args.output).write_text(table(rows, args.samples, args.calibration,
                                                                         args.repeat)))  # partial runs count
    print(Path(args.output).read_text())


if __name__ == "__main__":
    main()
