"""Glow's GradCheckTest for Lamina: analytic gradients against central differences of the loss.

A test graph is built directly in the graph dialect: placeholders for its
inputs, constants named like initializers for its weights, one output.
`graph-differentiate` (loss mse, raw gradients, input gradients too) adds the
training function; its `loss` output is differenced numerically (delta 1e-3)
and compared with its `<name>.grad` outputs by Glow's error measure
min(|a - n|, |a - n| / |a + n + 1|). The same function runs on the graph
interpreter (after graph-lower) or the CPU path (compiled once).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir

from lamina.dialects.context import make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.model import create_model, extract_function, outputs
from lamina.dialects.types import TensorSpec
from lamina.passes.graph.differentiate import TrainingConfig, differentiate
from lamina.passes.pass_manager import run_pipeline
from lamina.runtime import cpu_executor, graph_interpreter

DELTA = 1e-3
SAMPLES_PER_TENSOR = 6


def build_module(inputs: dict[str, np.ndarray], weights: dict[str, np.ndarray],
                 body: Callable[[Callable, dict[str, ir.Value]], ir.Value]) -> ir.Operation:
    """A model computing `body(op, values)`; `op(name, *operands, result_type=None, **attrs)` builds graph ops."""
    context = make_context()
    module, block = create_model(context)
    with context, ir.Location.unknown(), ir.InsertionPoint(block.operations[0]):
        values = {name: GRAPH.create("placeholder", result_types=[TensorSpec(a.shape, a.dtype)], name=name).result
                  for name, a in inputs.items()}
        values.update({name: GRAPH.create("constant", value=a, loc=ir.Location.name(name)).result
                       for name, a in weights.items()})

        def op(name, *operands, result_type=None, **attrs):
            types = None if result_type is None else [result_type]
            return GRAPH.create(name, *operands, result_types=types, **attrs).results[0]

        GRAPH.create("save", body(op, values), name="y")
    return module


def training_runner(module: ir.Operation, target: str, config: TrainingConfig):
    """(feeds -> outputs) of the training function on `target` ("interpreter" or "cpu")."""
    name = differentiate(module, config)
    training = extract_function(module, name)
    if target == "cpu":
        return cpu_executor.compile_model(training).run
    run_pipeline(training, "builtin.module(graph-lower{backend=reference},graph-dce)")
    return lambda feeds: graph_interpreter.run(training, feeds)


def glow_error(analytic: float, numeric: float) -> float:
    difference = abs(analytic - numeric)
    return min(difference, difference / abs(analytic + numeric + 1))


def check_gradients(inputs: dict[str, np.ndarray], weights: dict[str, np.ndarray], body, target: str = "interpreter",
                    allowed: float = 0.01, seed: int = 0, output_shape: tuple | None = None) -> float:
    """Build, differentiate and compare; returns the worst error (asserting it is within `allowed`)."""
    module = build_module(inputs, weights, body)
    run = training_runner(module, target, TrainingConfig(loss="mse", update="gradients", input_gradients=True))
    rng = np.random.default_rng(seed)
    target_shape = outputs(module, "main")["y"].shape if output_shape is None else output_shape
    feeds = {**inputs, **weights, "labels": rng.standard_normal(target_shape).astype(np.float32)}
    analytic = run(feeds)
    worst = 0.0
    for name in [*inputs, *weights]:
        if f"{name}.grad" not in analytic:  # indices; batch-norm statistics (updated, not trained)
            continue
        gradient = analytic[f"{name}.grad"]
        for flat in rng.choice(feeds[name].size, size=min(SAMPLES_PER_TENSOR, feeds[name].size), replace=False):
            index = np.unravel_index(flat, feeds[name].shape)
            losses = []
            for sign in (1, -1):
                moved = feeds[name].copy()
                moved[index] += sign * DELTA
                losses.append(float(run({**feeds, name: moved})["loss"]))
            numeric = (losses[0] - losses[1]) / (2 * DELTA)
            error = glow_error(float(gradient[index]), numeric)
            assert error <= allowed, f"{name}{list(index)}: analytic {gradient[index]:.6g}, numeric {numeric:.6g}"
            worst = max(worst, error)
    return worst
