"""Training data: one array per model input with a leading sample axis, plus `labels`.

Checked once, before training, so a bad file is a one-line error naming
the file and the field rather than a failure in step 300.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from lamina.dialects.diagnostics import LaminaError

from .tensor_files import load_tensors

LABELS = "labels"


@dataclass(frozen=True)
class Dataset:
    """Model inputs by name and the labels, all with the same number of samples."""

    inputs: dict[str, np.ndarray]
    labels: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def take(self, indices: np.ndarray) -> tuple[dict[str, np.ndarray], np.ndarray]:
        return {name: array[indices] for name, array in self.inputs.items()}, self.labels[indices]


def load_dataset(path: str, sample_types: Mapping[str, tuple[tuple, np.dtype]]) -> Dataset:
    """The dataset in `path`; `sample_types` gives each model input's per-sample shape and dtype."""
    arrays = load_tensors(path)
    return check_dataset(path, arrays, sample_types)


def check_dataset(path: str, arrays: Mapping[str, np.ndarray],
                  sample_types: Mapping[str, tuple[tuple, np.dtype]]) -> Dataset:
    expected = [*sample_types, LABELS]
    missing = [name for name in expected if name not in arrays]
    if missing:
        raise LaminaError(f"{path}: missing array '{missing[0]}'; a training file holds {', '.join(expected)}")
    unknown = [name for name in arrays if name not in expected]
    if unknown:
        raise LaminaError(f"{path}: unknown array '{unknown[0]}'; the model's inputs are {', '.join(sample_types)} "
                          f"(plus '{LABELS}')")
    count = len(arrays[LABELS]) if np.ndim(arrays[LABELS]) else 0
    if count == 0:
        raise LaminaError(f"{path}: '{LABELS}' holds no samples")
    inputs = {}
    for name, (shape, dtype) in sample_types.items():
        array = arrays[name]
        if array.ndim != len(shape) + 1 or len(array) != count or not _fits(array.shape[1:], shape):
            raise LaminaError(f"{path}: '{name}' has shape {list(array.shape)}; expected [{count}, "
                              f"{', '.join(str(d) for d in shape)}] ({count} samples, as in '{LABELS}')")
        if not np.issubdtype(array.dtype, np.number) and array.dtype != np.bool_:
            raise LaminaError(f"{path}: '{name}' holds {array.dtype}, not numbers")
        inputs[name] = np.ascontiguousarray(array, dtype=dtype)
    return Dataset(inputs, np.asarray(arrays[LABELS]))


def _fits(actual: tuple, expected: tuple) -> bool:
    """Per-sample dimensions agree (a symbolic model dimension, given as -1, takes any size)."""
    return all(e < 0 or a == e for a, e in zip(actual, expected))


def class_labels(path: str, labels: np.ndarray, classes: int) -> np.ndarray:
    """Labels for softmax cross-entropy: integers in [0, classes), as int64."""
    if labels.ndim != 1:
        raise LaminaError(f"{path}: '{LABELS}' must be one class index per sample, got shape {list(labels.shape)}")
    if not np.issubdtype(labels.dtype, np.integer):
        if not np.issubdtype(labels.dtype, np.floating) or not np.all(np.mod(labels, 1) == 0):
            raise LaminaError(f"{path}: '{LABELS}' must hold integer class indices, got {labels.dtype}")
    bad = np.flatnonzero((labels < 0) | (labels >= classes))
    if bad.size:
        raise LaminaError(f"{path}: '{LABELS}' value {labels[bad[0]]:g} at sample {bad[0]} is out of range "
                          f"[0, {classes}) for the model's {classes} classes")
    return labels.astype(np.int64)


def regression_targets(path: str, labels: np.ndarray, sample_shape: tuple) -> np.ndarray:
    """Targets for mean squared error: one float array per sample, shaped like the model output."""
    if tuple(labels.shape[1:]) != tuple(sample_shape):
        raise LaminaError(f"{path}: '{LABELS}' has shape {list(labels.shape)}; the mse loss needs targets shaped "
                          f"like the output, [{len(labels)}, {', '.join(map(str, sample_shape))}]")
    return labels.astype(np.float32)
