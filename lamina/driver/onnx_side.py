"""The compile's onnxruntime work, done in a thread while the compile goes on.

Two things need the ONNX model after import: the random weights' activation
peak (printed by lamina-compile) and the float outputs the accuracy check
compares the simulated binary with. Both are onnxruntime sessions, which
release the GIL while they build and run, and the compile stages are Python:
on two cores the work overlaps. The ONNX model (ResNet-50: 100 MB) is dropped
as soon as the thread is done with it, not kept to the end of the compile.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Sequence

import numpy as np
import onnx

from lamina.frontend.random_weights import activation_peak, onnx_runner, random_inputs

Feeds = dict[str, np.ndarray]


class OnnxSide:
    """Started with the model; `activation_peak()` and `float_model()` wait for what they need."""

    def __init__(self, proto: onnx.ModelProto, peak_seed: int | None, samples: Sequence[Feeds] | None):
        self._samples = list(samples) if samples is not None else None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lamina-onnx")
        self._peak: Future = self._executor.submit(_peak, proto, peak_seed)
        self._outputs: Future = self._executor.submit(_outputs, proto, self._samples)
        self._executor.shutdown(wait=False)  # the thread ends after the two tasks, which hold the last proto

    def activation_peak(self) -> float | None:
        """Max |activation| of any node on the seeded random inputs, when weights were randomized."""
        return self._peak.result()

    def float_model(self) -> Callable[[Feeds], Feeds]:
        """onnxruntime's outputs for each of the samples given at start (by identity: the check passes them back)."""
        outputs = self._outputs.result()
        by_identity = {id(sample): output for sample, output in zip(self._samples or (), outputs or ())}
        return lambda sample: by_identity[id(sample)]

    def wait(self) -> None:
        """Let the thread finish (and raise what it raised) before the compile returns."""
        self._peak.result()
        self._outputs.result()


def _peak(proto: onnx.ModelProto, seed: int | None) -> float | None:
    return None if seed is None else activation_peak(proto, random_inputs(proto, seed))


def _outputs(proto: onnx.ModelProto, samples: list[Feeds] | None) -> list[Feeds] | None:
    if samples is None:
        return None
    run = onnx_runner(proto)
    return [run(sample) for sample in samples]
