"""Calling a compiled training function step after step with its arguments bound once.

`CompiledModel.run` builds a memref descriptor per array per call; ctypes
makes a new descriptor class each time, which costs ~0.1 ms per argument
and would dominate a small model's step. Here every argument array is
allocated once with its descriptor: the batch is copied into fixed input
arrays, and the weights live in two sets of arrays that swap roles each
step (read from one, the updated values written to the other), as a
training loop on an accelerator ping-pongs between weight buffers.
"""

from __future__ import annotations

import ctypes
from typing import Mapping

import numpy as np
from mlir.runtime import get_ranked_memref_descriptor

from lamina.dialects.diagnostics import LaminaError
from lamina.passes.conversion.graph_to_linalg.storage import storage_dtype

from .cpu_executor import CompiledModel


def _descriptor(array: np.ndarray):
    return ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(array)))


class BoundSteps:
    """A compiled function whose inputs named like its outputs (the weights) are carried from
    each call to the next; the other inputs are given per call."""

    def __init__(self, compiled: CompiledModel, state: Mapping[str, np.ndarray]):
        self.compiled = compiled
        carried = [name for name in compiled.inputs if name in compiled.outputs and name in state]
        self.carried = carried
        self.fed = {name: np.empty(spec.shape, storage_dtype(spec.dtype))
                    for name, spec in compiled.inputs.items() if name not in carried}
        self.produced = {name: np.empty(spec.shape, storage_dtype(spec.dtype))
                         for name, spec in compiled.outputs.items() if name not in carried}
        sets = [{name: np.array(state[name], dtype=compiled.inputs[name].dtype) for name in carried},
                {name: np.empty_like(state[name], dtype=compiled.inputs[name].dtype) for name in carried}]
        self.sets = sets
        self.arguments = [self._arguments(sets[0], sets[1]), self._arguments(sets[1], sets[0])]
        self.parity = 0

    def _arguments(self, reads: dict, writes: dict) -> list:
        inputs = [reads[name] if name in reads else self.fed[name] for name in self.compiled.inputs]
        outputs = [writes[name] if name in writes else self.produced[name] for name in self.compiled.outputs]
        return [_descriptor(array) for array in (*inputs, *outputs)]

    def step(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Run once on `feeds` (every input that is not carried); returns the non-carried outputs
        (arrays reused by the next call) and the carried ones' new values."""
        for name, target in self.fed.items():
            if name not in feeds:
                raise LaminaError(f"missing input '{name}' of the training step")
            np.copyto(target, feeds[name], casting="same_kind")
        self.compiled.engine.invoke(self.compiled.function, *self.arguments[self.parity])
        self.parity ^= 1
        return {**{name: array.view(self.compiled.outputs[name].dtype) for name, array in self.produced.items()},
                **self.state()}

    def state(self) -> dict[str, np.ndarray]:
        """The carried values as of the last step (live arrays: the step after next overwrites them)."""
        return dict(self.sets[self.parity])
