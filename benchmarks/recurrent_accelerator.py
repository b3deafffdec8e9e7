"""PyTorch RNN, GRU and LSTM classifiers on the accelerator: simulated outputs against onnxruntime.

Usage: .venv/bin/python benchmarks/recurrent_accelerator.py [--cells RNN,GRU,LSTM] [--inputs 20] [--arch pynq-z1]

Each model (`test/python/torch_recurrent_models.py`: the cell over a 5-step,
8-feature sequence, then a 4-class linear layer) is compiled with
`compile_model`, and `--inputs` standard-normal sequences run through the
simulator (`tcu_simulator.simulate`, reading the written model files) and
onnxruntime. Prints, per cell: estimated cycles, layers, layers with MACs
on the array, and cosine, SQNR, max abs error and top-1 agreement over all
inputs' outputs together.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from torch_recurrent_models import accelerator_model  # noqa: E402

from lamina.driver.compiler import compile_model  # noqa: E402
from lamina.runtime.compare import cosine_similarity, sqnr_db  # noqa: E402
from lamina.runtime.tcu_simulator import simulate  # noqa: E402


def measure(cell: str, arch: str, count: int, workdir: Path) -> str:
    model, _ = accelerator_model(cell)
    source = workdir / f"{cell}.onnx"
    source.write_bytes(model.SerializeToString())
    summary = compile_model(source, arch, workdir / cell).summary
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    name = model.graph.input[0].name
    rng = np.random.default_rng(7)
    simulated, expected = [], []
    for _ in range(count):
        feeds = {name: rng.standard_normal((5, 8)).astype(np.float32)}
        simulated.append(next(iter(simulate(workdir / cell / "model.tmodel", feeds).outputs.values())))
        expected.append(session.run(None, feeds)[0])
    a, b = np.concatenate(simulated), np.concatenate(expected)
    array_layers = sum(1 for layer in summary.layers if layer.macs > 0)
    return (f"| {cell} | {summary.cycles} | {len(summary.layers)} | {array_layers} | {cosine_similarity(a, b):.6f} | "
            f"{sqnr_db(a, b):.1f} | {float(np.abs(a - b).max()):.4f} | {float((a.argmax(1) == b.argmax(1)).mean()):.0%} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default="RNN,GRU,LSTM")
    parser.add_argument("--inputs", type=int, default=20)
    parser.add_argument("--arch", default="pynq-z1")
    args = parser.parse_args()
    print(f"| cell | estimated cycles | layers | layers with MACs | cosine | SQNR (dB) | max abs error | "
          f"top-1 agreement ({args.inputs} inputs, {args.arch}) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as temporary:
        for cell in args.cells.split(","):
            print(measure(cell, args.arch, args.inputs, Path(temporary)), flush=True)


if __name__ == "__main__":
    main()
