"""Training an ONNX model on the CPU path: `lamina-train`'s engine, also the Python API.

The model is imported at the training batch size, `graph-differentiate` adds
its training function, and both functions are compiled once by the CPU path
(`cpu_executor.compile_model`); every step then calls the compiled training
function with the batch and the current weights, and takes the updated
weights (and momenta, and batch-norm statistics) from its outputs, as Glow
binds placeholders to tensors between runs. The trained initializers are
written back into the ONNX model, so any ONNX runtime runs the result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import onnx
from onnx import numpy_helper

from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.model import extract_function, function_name, inputs, main_function, outputs
from lamina.frontend.onnx_importer import import_model
from lamina.passes.graph.differentiate import TrainingConfig, differentiate, initial_values

from . import cpu_executor
from .bound_steps import BoundSteps
from .training_data import LABELS, Dataset, class_labels, regression_targets


@dataclass(frozen=True)
class TrainOptions:
    """`lamina-train`'s options."""

    loss: str = "softmax-cross-entropy"
    epochs: int = 1
    batch: int = 32
    learning_rate: float = 0.01
    momentum: float = 0.0
    l2_decay: float = 0.0
    freeze: tuple[str, ...] = ()
    seed: int = 0


@dataclass
class EpochReport:
    epoch: int
    loss: float
    train_accuracy: float | None
    validation_accuracy: float | None
    validation_loss: float | None
    seconds: float

    def __str__(self) -> str:
        parts = [f"epoch {self.epoch}: loss {self.loss:.4f}"]
        if self.train_accuracy is not None:
            parts.append(f"train accuracy {self.train_accuracy:.2%}")
        if self.validation_accuracy is not None:
            parts.append(f"validation accuracy {self.validation_accuracy:.2%}")
        if self.validation_loss is not None:
            parts.append(f"validation mse {self.validation_loss:.4f}")
        return "  ".join(parts) + f"  ({self.seconds:.1f} s)"


def sample_types(proto: onnx.ModelProto) -> dict[str, tuple[tuple, np.dtype]]:
    """Each graph input's per-sample shape (-1 where symbolic) and dtype; initializers are not inputs."""
    initializers = {init.name for init in proto.graph.initializer}
    types = {}
    for value in proto.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        types[value.name] = (tuple(dims[1:]), np.dtype(onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)))
    return types


@dataclass
class Trainer:
    """A model prepared for training at one batch size; `state` holds its weights by name
    (live arrays of the compiled step: copy them to keep a snapshot).

    The training and inference functions are compiled for the CPU path once,
    when first used, then every step reuses the compiled code.
    """

    proto: onnx.ModelProto
    options: TrainOptions
    source: str
    shapes: dict[str, tuple]  # per-sample shape of each model input
    state: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self):
        context = make_context()
        batch = self.options.batch
        module = import_model(self.proto, context, {n: (batch, *s) for n, s in self.shapes.items()}, self.source)
        inference = function_name(main_function(module))
        names = list(outputs(module))
        if len(names) != 1:
            raise LaminaError(f"{self.source}: the model has outputs {', '.join(names)}; lamina-train trains "
                              "a model with one output")
        self.output = names[0]
        config = TrainingConfig(loss=self.options.loss, learning_rate=self.options.learning_rate,
                                momentum=self.options.momentum, l2_decay=self.options.l2_decay,
                                freeze=self.options.freeze, weights=tuple(i.name for i in self.proto.graph.initializer))
        training = differentiate(module, config)
        self.output_spec = outputs(module, inference)[self.output]
        values = initial_values(module)
        self.state = {name: values[name] for name in inputs(module, training) if name in values}
        self._training = extract_function(module, training)
        self._steps = None
        self._inference = extract_function(module, inference)
        self._predict_model = None

    def labels_for(self, path: str, labels: np.ndarray) -> np.ndarray:
        """The labels checked against the model's output (classes or target shape)."""
        if self.options.loss == "softmax-cross-entropy":
            return class_labels(path, labels, self.output_spec.shape[1])
        return regression_targets(path, labels, self.output_spec.shape[1:])

    def step(self, batch_inputs: dict[str, np.ndarray], labels: np.ndarray) -> tuple[float, np.ndarray]:
        """One SGD step; returns the batch's loss and the model's output for it."""
        if self._steps is None:  # compiled at the first step, after the data passed its checks
            self._steps = BoundSteps(cpu_executor.compile_model(self._training), self.state)
        results = self._steps.step({**batch_inputs, LABELS: labels})
        self.state.update(self._steps.state())
        return float(results["loss"]), results[self.output]

    def predict(self, data: dict[str, np.ndarray]) -> np.ndarray:
        """The model's output for every sample, in batches (the last one padded and trimmed)."""
        count = len(next(iter(data.values())))
        if self._predict_model is None:  # compiled when first needed: plain training never predicts
            self._predict_model = cpu_executor.compile_model(self._inference)
        weights = {name: value for name, value in self.state.items() if name in self._predict_model.inputs}
        pieces = []
        for start in range(0, count, self.options.batch):
            chunk = {name: _padded(array[start:start + self.options.batch], self.options.batch)
                     for name, array in data.items()}
            output = self._predict_model.run({**chunk, **weights})[self.output]
            pieces.append(output[:min(self.options.batch, count - start)])
        return np.concatenate(pieces)

    def trained_model(self) -> onnx.ModelProto:
        """The ONNX model with its initializers replaced by the trained values."""
        trained = onnx.ModelProto()
        trained.CopyFrom(self.proto)
        for index, init in enumerate(trained.graph.initializer):
            if init.name in self.state:
                dtype = onnx.helper.tensor_dtype_to_np_dtype(init.data_type)
                array = self.state[init.name].astype(dtype).reshape(tuple(init.dims))
                trained.graph.initializer[index].CopyFrom(numpy_helper.from_array(array, init.name))
        return trained


def _padded(array: np.ndarray, rows: int) -> np.ndarray:
    if len(array) == rows:
        return array
    padding = np.zeros((rows - len(array), *array.shape[1:]), dtype=array.dtype)
    return np.concatenate([array, padding])


def fit(trainer: Trainer, train: Dataset, train_path: str, validation: Dataset | None = None,
        validation_path: str = "", report: Callable[[EpochReport], None] = print) -> list[EpochReport]:
    """Train for `trainer.options.epochs` epochs of shuffled full batches (a last partial batch is
    left out of that epoch); stops with the epoch and step when the loss is not finite."""
    options = trainer.options
    labels = trainer.labels_for(train_path, train.labels)
    valid_labels = trainer.labels_for(validation_path, validation.labels) if validation is not None else None
    if len(train) < options.batch:
        raise LaminaError(f"{train_path}: {len(train)} samples, fewer than one batch of {options.batch}")
    rng = np.random.default_rng(options.seed)
    steps = len(train) // options.batch
    history = []
    for epoch in range(1, options.epochs + 1):
        started = time.perf_counter()
        order = rng.permutation(len(train))
        losses, correct = [], 0
        for step in range(steps):
            indices = order[step * options.batch:(step + 1) * options.batch]
            batch_inputs, _ = train.take(indices)
            loss, prediction = trainer.step(batch_inputs, labels[indices])
            if not np.isfinite(loss):
                raise LaminaError(f"the loss became {loss} at epoch {epoch}, step {step + 1}; training stopped "
                                  "(a smaller --lr may help)")
            losses.append(loss)
            if options.loss == "softmax-cross-entropy":
                correct += int((prediction.argmax(axis=1) == labels[indices]).sum())
        history.append(_report(trainer, epoch, losses, correct, steps, validation, valid_labels, started))
        report(history[-1])
    return history


def _report(trainer: Trainer, epoch: int, losses: list[float], correct: int, steps: int,
            validation: Dataset | None, valid_labels, started: float) -> EpochReport:
    classify = trainer.options.loss == "softmax-cross-entropy"
    valid_accuracy = valid_loss = None
    if validation is not None:
        prediction = trainer.predict(validation.inputs)
        if classify:
            valid_accuracy = float((prediction.argmax(axis=1) == valid_labels).mean())
        else:
            valid_loss = float(np.mean((prediction - valid_labels) ** 2))
    train_accuracy = correct / (steps * trainer.options.batch) if classify else None
    return EpochReport(epoch, float(np.mean(losses)), train_accuracy, valid_accuracy, valid_loss,
                       time.perf_counter() - started)
