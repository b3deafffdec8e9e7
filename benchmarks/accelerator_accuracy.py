"""The accelerator's numbers against onnxruntime: calibrated formats on the light models and a PyTorch export.

Usage: .venv/bin/python benchmarks/accelerator_accuracy.py [--models a,b] [--archs x,y] [--inputs N] [--first K]
                                                           [--together N] [--budget SECONDS] [--tensil]
                                                           [--tensil-inputs N] [--output FILE]

For each model (seeded random weights, seed 0, as `lamina-compile
--random-weights 0`) and architecture: `compile_model` with calibrated
formats (8 seeded calibration samples, its own check off), then the
simulator on N fresh U[0, 1) inputs (seeds 1000, 1001, ..., from 1000 + `--first`; the decoded
program is read once, and `--together` inputs run as one batched machine) against onnxruntime on the same
randomized ONNX model, whose logits are a second output (a softmax hides
errors): cosine per input and output (minimum; mean of the lower output),
SQNR pooled over the inputs (the lower output), top-1 agreement, and cycles beside FP16BP8's. Simulation
stops after the first group past `--budget` seconds per pair (the row
says how many inputs ran).
With `--tensil`, the same pair is compiled in Tensil's FP16BP8 mode too and
its accuracy measured on the first `--tensil-inputs` inputs (default 10; 0: its cycles only). `torch:mobilenet` is a small
MobileNetV2-like net (ReLU6, depthwise, inverted residuals, healthy init)
exported from PyTorch here. Rows are written to
`benchmarks/results/accelerator_accuracy.md` as they finish.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from import_and_interpret import report_header  # noqa: E402
from light_models import LIGHT_MODELS, load_light_model, with_logits_output  # noqa: E402

from lamina.driver.compiler import compile_model  # noqa: E402
from lamina.target.tcu.program import Opcode  # noqa: E402
from lamina.frontend.random_weights import onnx_runner, random_inputs, randomize_weights  # noqa: E402
from lamina.runtime.compare import cosine_similarity, sqnr_db  # noqa: E402
from lamina.runtime.tcu_simulator import simulate_samples  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "accelerator_accuracy.md"
COMMAND = ".venv/bin/python benchmarks/accelerator_accuracy.py"
SEED = 0
TORCH_MODEL = "torch:mobilenet"


def mobilenet_onnx(path: Path) -> None:
    """A small MobileNetV2-like net exported from PyTorch: stem, three inverted residual blocks, classifier."""
    import torch
    from torch import nn

    def block(cin: int, cout: int, stride: int, expand: int = 4) -> nn.Module:
        hidden = cin * expand
        return nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    class Residual(nn.Module):
        def __init__(self, body: nn.Module):
            super().__init__()
            self.body = body

        def forward(self, x):
            return x + self.body(x)

    torch.manual_seed(SEED)
    net = nn.Sequential(
        nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6(),
        block(16, 24, 2), Residual(block(24, 24, 1)), block(24, 32, 2),
        nn.Conv2d(32, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU6(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 100))
    for module in net.modules():  # healthy: He init, batch norms fitted on random inputs below
        if isinstance(module, nn.Conv2d):
            nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
        elif isinstance(module, nn.BatchNorm2d):
            nn.init.uniform_(module.weight, 0.5, 1.5)
            nn.init.uniform_(module.bias, -0.2, 0.2)
    net.train()
    with torch.no_grad():
        for _ in range(4):
            net(torch.rand(16, 3, 64, 64))
    net.eval()
    torch.onnx.export(net, torch.rand(1, 3, 64, 64), str(path), input_names=["image"], output_names=["logits"],
                      opset_version=13, dynamo=False)


def source_model(name: str, scratch: Path):
    """(ONNX path to compile, the ONNX model onnxruntime runs)."""
    import onnx

    path = scratch / f"{name.replace(':', '-')}.onnx"
    if name == TORCH_MODEL:
        mobilenet_onnx(path)
        return path, onnx.load(str(path))
    model = with_logits_output(randomize_weights(load_light_model(name), SEED))
    path.write_bytes(model.SerializeToString())
    return path, model


def accuracy(outdir: Path, model, count: int, budget: float, together: int, first: int = 0) -> dict:
    """Simulate up to `count` inputs (`together` at a time, seeds from 1000 + `first`) within `budget` seconds;
    compare with onnxruntime."""
    samples = [random_inputs(model, 1000 + first + k) for k in range(count)]
    run_onnx = onnx_runner(model)  # one session for all inputs
    start = time.perf_counter()
    per_output: dict[str, dict[str, list]] = {}
    tops, inputs, simulated_cpu = [], 0, 0.0
    results = simulate_samples(outdir / "model.tmodel", samples, together=together)
    for sample in samples:
        cpu = time.process_time()
        result = next(results)
        simulated_cpu += time.process_time() - cpu
        reference = run_onnx(sample)
        for name, value in reference.items():
            got = result.outputs[name]
            seen = per_output.setdefault(name, {"cosine": [], "actual": [], "expected": []})
            seen["cosine"].append(cosine_similarity(got, value))
            seen["actual"].append(got.ravel())
            seen["expected"].append(value.ravel())
        value = next(iter(reference.values()))
        if value.ndim >= 2 and value.shape[1] > 1 and all(d == 1 for d in value.shape[2:]):
            got = result.outputs[next(iter(reference))]
            tops.append(int(got.reshape(-1).argmax() == value.reshape(-1).argmax()))
        inputs += 1
        if inputs % together == 0 and time.perf_counter() - start > budget:
            break  # a whole group has run: stop past the budget
    results.close()
    sqnr = {name: sqnr_db(np.concatenate(seen["actual"]), np.concatenate(seen["expected"]))
            for name, seen in per_output.items()}
    return {"inputs": inputs, "cosine_min": min(min(seen["cosine"]) for seen in per_output.values()),
            "cosine_mean": min(float(np.mean(seen["cosine"])) for seen in per_output.values()),
            "sqnr": min(sqnr.values()), "top1": float(np.mean(tops)) if tops else None,
            "seconds": time.perf_counter() - start, "simulated_cpu": simulated_cpu}


def measure(name: str, source: Path, model, arch: str, scratch: Path, args) -> dict:
    outdir = scratch / f"{name.replace(':', '-')}-{arch}"
    start = time.perf_counter()
    result = compile_model(source, arch, outdir, check=False)
    numbers = {"compile": time.perf_counter() - start, "cycles": result.summary.cycles,
               "configures": int((result.summary.program["opcode"] == Opcode.CONFIGURE).sum()),
               **accuracy(outdir, model, args.inputs, args.budget, args.together, args.first)}
    shutil.rmtree(outdir, ignore_errors=True)
    if args.tensil:
        tensil = compile_model(source, arch, outdir, check=False, formats="tensil")
        numbers["tensil_cycles"] = tensil.summary.cycles
        if args.tensil_inputs:
            numbers["tensil"] = accuracy(outdir, model, args.tensil_inputs, args.budget, args.together)
        shutil.rmtree(outdir, ignore_errors=True)
    return numbers


def row(name: str, arch: str, n: dict) -> str:
    top1 = "-" if n["top1"] is None else f"{100 * n['top1']:.0f}%"
    tensil = n.get("tensil")
    side = (f"{tensil['cosine_min']:.4f} / {100 * tensil['top1']:.0f}% ({tensil['inputs']})"
            if tensil and tensil["top1"] is not None else "-")
    cycles = f"{n['cycles']:,}"
    ratio = f"{100 * (n['cycles'] / n['tensil_cycles'] - 1):+.3f}%" if "tensil_cycles" in n else "-"
    return (f"| {name} | {arch} | {n['inputs']} | {n['cosine_min']:.6f} | {n['cosine_mean']:.6f} | "
            f"{n['sqnr']:.1f} | {top1} | {cycles} | {n['configures']} | {ratio} | {side} | {n['compile']:.0f} | "
            f"{n['seconds']:.0f} | {n['simulated_cpu']:.0f} | {n['load']:.1f} |")


def report(rows: list[str], loads: list[float], command: str, first: int) -> str:
    return "\n".join([
        *report_header("Accelerator accuracy against onnxruntime (calibrated formats)", command),
        f"Load average (1 min) {loads[0]:.1f} at the start, {loads[-1]:.1f} at the end.",
        "",
        f"Random weights (seed {SEED}); calibration on 8 seeded U[0, 1) samples; measured on fresh U[0, 1) inputs "
        f"(seeds {1000 + first}, ...), simulator from the files vs onnxruntime on the same randomized model. Cosine per "
        "input and output (min over both; mean: the lower output's); outputs are the model's and, for classifiers "
        "ending in a softmax, its logits too; SQNR pooled over inputs (the lower output); top-1: share of inputs whose arg-max class "
        "equals onnxruntime's. Configure: the rescaling instructions the calibrated program adds (1 cycle "
        "each); vs FP16BP8: cycles against the same model compiled with `--formats tensil`; FP16BP8 accuracy: "
        f"that compile's minimum cosine / top-1 agreement (inputs). Seconds: compile, then simulation (wall "
        "clock, and the simulator's CPU seconds); load: the 1-minute load average when the row finished. Peak "
        f"resident memory of the run: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB.",
        "",
        "| model | arch | inputs | cosine min | cosine mean | SQNR dB | top-1 | cycles | Configure "
        "| vs FP16BP8 | FP16BP8 cosine min / top-1 | compile s | simulate s | simulate CPU s | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|",
        *rows,
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join([TORCH_MODEL, *LIGHT_MODELS]))
    parser.add_argument("--archs", default="ultra96v2,zcu104")
    parser.add_argument("--inputs", type=int, default=100)
    parser.add_argument("--first", type=int, default=0,
                        help="start at input seed 1000 + FIRST (to extend an earlier run of FIRST inputs)")
    parser.add_argument("--budget", type=float, default=600.0, help="simulation seconds per model and arch")
    parser.add_argument("--together", type=int, default=25, help="inputs the simulator runs at once")
    parser.add_argument("--tensil", action="store_true", help="also compile in FP16BP8 mode, set side by side")
    parser.add_argument("--tensil-inputs", type=int, default=10,
                        help="inputs to simulate in FP16BP8 mode (0: compare its cycles only)")
    parser.add_argument("--output", default=str(RESULTS), help=f"the report (default {RESULTS.relative_to(ROOT)})")
    args = parser.parse_args()
    loads, rows = [os.getloadavg()[0]], []
    command = " ".join([COMMAND, *sys.argv[1:]])
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.models.split(","):
            source, model = source_model(name, Path(scratch))
            for arch in args.archs.split(","):
                numbers = measure(name, source, model, arch, Path(scratch), args)
                loads.append(os.getloadavg()[0])
                rows.append(row(name, arch, {**numbers, "load": loads[-1]}))
                print(rows[-1], flush=True)
                Path(args.output).write_text(report(rows, loads, command, args.first))
            source.unlink()
    print(Path(args.output).read_text())


if __name__ == "__main__":
    main()
