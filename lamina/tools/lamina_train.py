"""lamina-train: train an ONNX model's initializers with SGD on the CPU path.

    lamina-train MODEL.onnx --data TRAIN.npz --loss softmax-cross-entropy|mse --epochs N --batch B --lr LR
                 [--momentum M] [--l2 L] [--validation VALID.npz] [--freeze NAME,...] [--seed S] -o TRAINED.onnx

TRAIN.npz holds one array per model input (leading sample axis) and
`labels`: class indices for softmax-cross-entropy, targets shaped like the
output for mse. The model's output is the logits (or the prediction); the
tool adds the loss. Its batch dimension may be symbolic: the model is
compiled at batch B. Each epoch prints its mean loss and accuracy; the
trained initializers are written into a copy of the model.
"""

from __future__ import annotations

import argparse
import sys

import onnx

from lamina.dialects.diagnostics import LaminaError
from lamina.runtime.trainer import TrainOptions, Trainer, fit, sample_types
from lamina.runtime.training_data import load_dataset

from .cli import run_tool


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lamina-train", description="Train an ONNX model's weights on the CPU path.")
    parser.add_argument("model", help="the ONNX model (its output: logits, or the prediction for mse)")
    parser.add_argument("--data", required=True, metavar="NPZ", help="training inputs by name plus 'labels'")
    parser.add_argument("--loss", required=True, choices=("softmax-cross-entropy", "mse"))
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--lr", type=float, required=True, help="learning rate")
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--l2", type=float, default=0.0, help="L2 weight decay")
    parser.add_argument("--validation", metavar="NPZ", help="held-out inputs and labels scored after each epoch")
    parser.add_argument("--freeze", default="", metavar="NAME,...", help="initializers that keep their values")
    parser.add_argument("--seed", type=int, default=0, help="seed of the batch shuffling")
    parser.add_argument("-o", "--output", required=True, metavar="ONNX", help="where the trained model goes")
    return parser


def _options(args: argparse.Namespace) -> TrainOptions:
    for flag, value, low in (("--epochs", args.epochs, 1), ("--batch", args.batch, 1)):
        if value < low:
            raise LaminaError(f"{flag} must be at least {low}, got {value}")
    if not args.lr > 0:
        raise LaminaError(f"--lr must be positive, got {args.lr}")
    if not 0 <= args.momentum < 1:
        raise LaminaError(f"--momentum must be in [0, 1), got {args.momentum}")
    freeze = tuple(name for name in args.freeze.split(",") if name)
    return TrainOptions(loss=args.loss, epochs=args.epochs, batch=args.batch, learning_rate=args.lr,
                        momentum=args.momentum, l2_decay=args.l2, freeze=freeze, seed=args.seed)


def load_onnx(path: str) -> onnx.ModelProto:
    try:
        return onnx.load(path)
    except FileNotFoundError:
        raise LaminaError(f"{path}: no such file") from None
    except Exception as error:  # protobuf's DecodeError and friends: not an ONNX file
        raise LaminaError(f"{path}: not a readable ONNX model: {error}") from None


def train_file(args: argparse.Namespace) -> None:
    options = _options(args)
    proto = load_onnx(args.model)
    types = sample_types(proto)
    data = load_dataset(args.data, types)
    validation = load_dataset(args.validation, types) if args.validation else None
    shapes = {name: array.shape[1:] for name, array in data.inputs.items()}
    trainer = Trainer(proto, options, args.model, shapes)
    print(f"lamina-train: {len(data)} samples, {len(data) // options.batch} steps of {options.batch} per epoch, "
          f"{len([n for n in trainer.state if not n.endswith('.velocity')])} weight tensors", flush=True)
    fit(trainer, data, args.data, validation, args.validation or "", report=lambda r: print(r, flush=True))
    try:
        onnx.save(trainer.trained_model(), args.output)
    except OSError as error:
        raise LaminaError(f"{args.output}: cannot write: {error.strerror or error}") from None
    print(f"lamina-train: wrote {args.output}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return run_tool("lamina-train", lambda: train_file(args))


if __name__ == "__main__":
    sys.exit(main())
