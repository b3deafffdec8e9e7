"""The light models compiled for every named accelerator architecture: time, program and estimated speed.

Usage: .venv/bin/python benchmarks/accelerator.py [--models a,b] [--archs x,y]

For each model (seeded random weights, `lamina/frontend/random_weights.py`, seed 0)
and architecture: `compile_model`'s wall time (every stage, writing every
file) and the size of what it wrote, then from the compile summary the
instruction count, the latency model's cycles, the true MACs, MAC efficiency
= MACs / (cycles x N^2), the DRAM traffic and the consts pages the host
loads per run (weights larger than DRAM1). A model that does not compile
gets its error instead of numbers. Writes `benchmarks/results/accelerator.md`
and prints it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model  # noqa: E402

from lamina.target.tcu.architecture import architecture_names  # noqa: E402
from lamina.driver.compiler import compile_model  # noqa: E402
from lamina.dialects.diagnostics import LaminaError  # noqa: E402
from lamina.frontend.random_weights import randomize_weights  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "accelerator.md"
COMMAND = ".venv/bin/python benchmarks/accelerator.py"
SEED = 0


def measure(source: Path, arch: str, outdir: Path) -> dict:
    start = time.perf_counter()
    try:
        result = compile_model(source, arch, outdir)
    except LaminaError as error:
        return {"error": str(error).splitlines()[0]}
    seconds = time.perf_counter() - start
    stats = result.summary.to_json()
    return {"seconds": seconds, "megabytes": sum(result.file_sizes().values()) / 1e6, **{key: stats[key] for key in (
                "instructions", "cycles", "true_macs", "mac_efficiency", "dram0_traffic_bytes",
                "dram1_traffic_bytes", "layers", "consts_pages", "consts_page_bytes")},
            "host_ops": sum(sum(segment["ops"].values()) for segment in stats["host_segments"])}


def row(name: str, arch: str, numbers: dict) -> str:
    if "error" in numbers:
        return f"| {name} | {arch} | {numbers['error']} |" + " |" * 11
    return (f"| {name} | {arch} | {numbers['seconds']:.1f} | {numbers['megabytes']:.0f} | {numbers['layers']} | "
            f"{numbers['host_ops']} | {numbers['instructions']:,} | {numbers['cycles']:,} | "
            f"{numbers['true_macs'] / 1e6:,.1f} | {100 * numbers['mac_efficiency']:.1f} | "
            f"{numbers['dram0_traffic_bytes'] / 1e6:,.1f} | {numbers['dram1_traffic_bytes'] / 1e6:,.1f} | "
            f"{numbers['consts_pages']} | {numbers['consts_page_bytes'] / 1e6:,.1f} |")


def report(rows: list[str], loads: tuple[float, float], command: str) -> str:
    return "\n".join([
        *report_header("The light models on the accelerator", command),
        f"Load average (1 min) {loads[0]:.1f} at the start, {loads[1]:.1f} at the end.",
        "",
        f"Random weights (seed {SEED}). Compile: `compile_model` wall time, ONNX to every file "
        "(graph, optimized graph, buffers, HIR, LIR, `.tprog`/`.tdata`/`.tmodel`, summary); MB: what it wrote. "
        "Cycles: the latency model (docs/accelerator.md); MAC efficiency = true MACs / (cycles x N^2); "
        "DRAM traffic: bytes moved by DataMoves between DRAM0 (Vars) / DRAM1 (Consts) and local memory. "
        "Pages: pages of weights the host loads into DRAM1 during a run (0: the weights fit DRAM1), and their MB.",
        "",
        "| model | arch | compile s | MB | layers | host ops | instructions | cycles | true MMACs | MAC eff % "
        "| DRAM0 MB | DRAM1 MB | pages | page MB |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(LIGHT_MODELS))
    parser.add_argument("--archs", default=",".join(architecture_names()))
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.models.split(","):
            source = Path(scratch) / f"{name}.onnx"
            source.write_bytes(randomize_weights(load_light_model(name), SEED).SerializeToString())
            for arch in args.archs.split(","):
                outdir = Path(scratch) / f"{name}-{arch}"
                rows.append(row(name, arch, measure(source, arch, outdir)))
                shutil.rmtree(outdir, ignore_errors=True)  # VGG-19's files take gigabytes
                print(rows[-1], flush=True)
            source.unlink()
    loads.append(os.getloadavg()[0])
    text = report(rows, tuple(loads), " ".join([COMMAND, *sys.argv[1:]]))
    RESULTS.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
