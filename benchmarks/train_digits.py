"""Train an MLP and a small CNN on scikit-learn's digits with lamina-train; score with onnxruntime.

Usage: .venv/bin/python benchmarks/train_digits.py [--models mlp,cnn] [--workdir DIR] [--threads N] [--output FILE]

The digits (1,797 real 8x8 images, pixel values 0..16 scaled to [0, 1]) are
split 1,400 / 397 with a seeded shuffle (seed 0, stratified). Each model is
built with torch (seeded init), exported to ONNX with a symbolic batch
dimension, trained by the `lamina-train` command (CPU path) on the 1,400,
and the written ONNX model is scored by onnxruntime on the held-out 397.
The wall time is the whole `lamina-train` process (import, compilation,
training, writing). Then one training step of the same model and batch is
timed on the CPU path (`Trainer.step`, median of 200 after 20 warm-up
steps) and in torch (forward, cross-entropy, backward, SGD step), printed
side by side with their ratio. Both run on `--threads` threads
(`LAMINA_NUM_THREADS` for lamina-train and the CPU path,
`torch.set_num_threads` for torch; default: every core). Writes
`--output` (default `benchmarks/results/train_digits.md`) and prints it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnxruntime
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from harness import load_average, median_seconds  # noqa: E402
from import_and_interpret import report_header  # noqa: E402

from lamina.runtime.tensor_files import save_tensors  # noqa: E402
from lamina.runtime.trainer import TrainOptions, Trainer  # noqa: E402

TRAIN_SAMPLES = 1400
SETTINGS = {  # model -> lamina-train options
    "mlp": {"epochs": 30, "batch": 32, "lr": 0.1, "momentum": 0.9, "l2": 1e-4},
    "cnn": {"epochs": 15, "batch": 32, "lr": 0.05, "momentum": 0.9, "l2": 1e-4},
}


def digits_split(seed: int = 0):
    """(train images, train labels, test images, test labels): images [n, 1, 8, 8] float32 in [0, 1]."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None]
    return train_test_split(images, digits.target.astype(np.int64), train_size=TRAIN_SAMPLES,
                            random_state=seed, stratify=digits.target)


def build(name: str) -> torch.nn.Module:
    torch.manual_seed(0)
    if name == "mlp":
        return torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(64, 128), torch.nn.ReLU(),
                                   torch.nn.Linear(128, 10))
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(128, 10))


def export(model: torch.nn.Module, path: Path) -> None:
    torch.onnx.export(model, torch.zeros(2, 1, 8, 8), str(path), input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}}, dynamo=False)


def torch_step_seconds(model: torch.nn.Module, images: np.ndarray, labels: np.ndarray, batch: int, lr: float,
                       momentum: float) -> float:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    x, y = torch.from_numpy(images[:batch]), torch.from_numpy(labels[:batch])

    def step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()

    return median_seconds(step, repeat=200, warmup=20)


def lamina_step_seconds(onnx_path: Path, images: np.ndarray, labels: np.ndarray, settings: dict) -> float:
    options = TrainOptions(epochs=1, batch=settings["batch"], learning_rate=settings["lr"],
                           momentum=settings["momentum"], l2_decay=settings["l2"])
    import onnx

    trainer = Trainer(onnx.load(str(onnx_path)), options, str(onnx_path), {"image": (1, 8, 8)})
    batch = {"image": images[:settings["batch"]]}
    return median_seconds(lambda: trainer.step(batch, labels[:settings["batch"]]), repeat=200, warmup=20)


def run(name: str, workdir: Path, split) -> dict:
    train_x, test_x, train_y, test_y = split
    settings = SETTINGS[name]
    model_path, trained_path = workdir / f"{name}.onnx", workdir / f"{name}_trained.onnx"
    export(build(name), model_path)
    save_tensors(str(workdir / "train.npz"), {"image": train_x, "labels": train_y})
    save_tensors(str(workdir / "test.npz"), {"image": test_x, "labels": test_y})
    command = [str(ROOT / ".venv" / "bin" / "lamina-train"), str(model_path), "--data", str(workdir / "train.npz"),
               "--loss", "softmax-cross-entropy", "--epochs", str(settings["epochs"]), "--batch",
               str(settings["batch"]), "--lr", str(settings["lr"]), "--momentum", str(settings["momentum"]),
               "--l2", str(settings["l2"]), "--seed", "0",
               "-o", str(trained_path)]
    start = time.perf_counter()
    log = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - start
    session = onnxruntime.InferenceSession(str(trained_path), providers=["CPUExecutionProvider"])
    logits = session.run(None, {"image": test_x})[0]
    accuracy = float((logits.argmax(axis=1) == test_y).mean())
    lamina_step = lamina_step_seconds(model_path, train_x, train_y, settings)
    torch_step = torch_step_seconds(build(name), train_x, train_y, settings["batch"], settings["lr"],
                                    settings["momentum"])
    return {"name": name, "settings": settings, "accuracy": accuracy, "wall": wall, "log": log,
            "lamina_step": lamina_step, "torch_step": torch_step}


def report(results: list[dict], command: str) -> str:
    lines = [*report_header("Training on the digits with lamina-train", command), "",
             "Digits: 1,400 training / 397 held-out samples (seed 0, stratified); accuracy by onnxruntime on the "
             "held-out 397 with the ONNX model lamina-train wrote. Wall: the whole lamina-train process. Steps: "
             f"median of 200, batch as trained, {torch.get_num_threads()} thread(s) in both; ratio = CPU-path step / "
             f"torch step (the target: at most 2). Load average when the table was written: {load_average():.1f} "
             "(the machine is shared: torch's threaded kernels slow down most under load).", "",
             "| model | epochs | batch | lr | momentum | l2 | held-out accuracy | lamina-train wall (s) | "
             "CPU-path step (ms) | torch step (ms) | ratio |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        s = r["settings"]
        lines.append(f"| {r['name']} | {s['epochs']} | {s['batch']} | {s['lr']} | {s['momentum']} | {s['l2']} | "
                     f"{r['accuracy']:.2%} | {r['wall']:.1f} | {r['lamina_step'] * 1e3:.3f} | "
                     f"{r['torch_step'] * 1e3:.3f} | {r['lamina_step'] / r['torch_step']:.2f} |")
    for r in results:
        lines += ["", f"lamina-train's output for {r['name']}:", "", "```", r["log"].rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--workdir", help="keep the generated models and data here (default: a temporary directory)")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="threads of lamina-train, the CPU-path step and torch (default: every core)")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "train_digits.md")
    args = parser.parse_args()
    os.environ["LAMINA_NUM_THREADS"] = str(args.threads)  # read by the CPU path, inherited by lamina-train
    torch.set_num_threads(args.threads)
    split = digits_split()
    with tempfile.TemporaryDirectory() as temporary:
        workdir = Path(args.workdir or temporary)
        workdir.mkdir(parents=True, exist_ok=True)
        results = [run(name, workdir, split) for name in args.models.split(",")]
    text = report(results, "python benchmarks/train_digits.py " + " ".join(sys.argv[1:]))
    args.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
