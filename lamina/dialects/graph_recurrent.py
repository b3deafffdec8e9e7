"""The graph dialect's recurrent layers: `graph.rnn`, `graph.gru`, `graph.lstm`
(ONNX RNN, GRU and LSTM with layout 0; docs/control-flow.md).

Every operand is present (the importer fills ONNX's defaults: zero bias,
full sequence lengths, zero initial states, zero peepholes) and every activation carries its own
alpha and beta, so kernels and lowerings never guess. The facts both need
live here: gates per cell, activations per direction, the activation names
and which of them read alpha and beta.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import FLOAT_DTYPES, GRAPH, _require
from .irdl import BOOL, F32, F32S, I64, STR

DIRECTIONS = {"forward": 1, "reverse": 1, "bidirectional": 2}


@dataclass(frozen=True)
class Cell:
    """What distinguishes the three cells: gates in W and R, activations per direction, states."""

    gates: int
    activations: int
    default_activations: tuple[str, ...]
    states: int  # 1 (hidden) or 2 (hidden and cell)


CELLS = {
    "rnn": Cell(1, 1, ("Tanh",), 1),
    "gru": Cell(3, 2, ("Sigmoid", "Tanh"), 1),
    "lstm": Cell(4, 3, ("Sigmoid", "Tanh", "Tanh"), 2),
}

# Activation name -> (default alpha, default beta); None: it does not read that value.
ACTIVATIONS: dict[str, tuple[float | None, float | None]] = {
    "Relu": (None, None), "Tanh": (None, None), "Sigmoid": (None, None), "Softsign": (None, None),
    "Softplus": (None, None), "Affine": (1.0, 0.0), "LeakyRelu": (0.01, None), "ThresholdedRelu": (1.0, None),
    "ScaledTanh": (1.0, 1.0), "HardSigmoid": (0.2, 0.5), "Elu": (1.0, None),
}


def activation_list(attrs: dict) -> list[str]:
    """The op's activations, in ONNX order (per direction, per cell function)."""
    return attrs["activations"].split(",")


def _recurrent_shape(cell_name: str):
    cell = CELLS[cell_name]

    def shape(ins, attrs, declared):
        data, weights, recurrence, bias, lengths, initial_h, *rest = ins
        directions = DIRECTIONS.get(attrs["direction"])
        _require(directions is not None, f"direction must be forward, reverse or bidirectional, got {attrs['direction']!r}")
        hidden = attrs["hidden_size"]
        _require(data.rank == 3 and data.dtype in FLOAT_DTYPES, f"input must be a float [seq, batch, input], got {data}")
        steps, batch, features = data.shape
        gates = cell.gates * hidden
        expected = {
            "weights": (weights, (directions, gates, features)),
            "recurrence": (recurrence, (directions, gates, hidden)),
            "bias": (bias, (directions, 2 * gates)),
            "initial_h": (initial_h, (directions, batch, hidden)),
        }
        if cell.states == 2:
            expected["initial_c"] = (rest[0], (directions, batch, hidden))
            expected["peepholes"] = (rest[1], (directions, 3 * hidden))
        _require(lengths.shape == (batch,) and lengths.dtype == np.int32, f"sequence_lens must be [{batch}] i32, got {lengths}")
        for name, (spec, want) in expected.items():
            _require(spec.shape == want and spec.dtype == data.dtype, f"{name} must be {list(want)} {data.dtype}, got {spec}")
        names = activation_list(attrs)
        _require(len(names) == cell.activations * directions and all(n in ACTIVATIONS for n in names),
                 f"needs {cell.activations * directions} activations of {sorted(ACTIVATIONS)}, got {names}")
        _require(len(attrs["activation_alpha"]) == len(attrs["activation_beta"]) == len(names),
                 "needs one activation_alpha and activation_beta per activation")
        _require(attrs["clip"] >= 0, "clip must be >= 0 (0: no clip)")
        state = data.with_shape((directions, batch, hidden))
        return [data.with_shape((steps, directions, batch, hidden)), *([state] * cell.states)]

    return shape


def _define(name: str, operands: tuple[str, ...], results: tuple[str, ...], extra: dict, summary: str) -> None:
    attrs = {"direction": STR, "hidden_size": I64, "activations": STR, "activation_alpha": F32S,
             "activation_beta": F32S, "clip": F32, **extra}
    GRAPH.op(name, summary, operands=operands, results=results, attrs=attrs, shape_fn=_recurrent_shape(name))


_COMMON = ("input", "weights", "recurrence", "bias", "sequence_lens", "initial_h")
_define("rnn", _COMMON, ("output", "last_h"), {},
        "ONNX RNN, layout 0: H = f(x W^T + H R^T + Wb + Rb) over [seq, batch, input]; output [seq, dirs, batch, hidden].")
_define("gru", _COMMON, ("output", "last_h"), {"linear_before_reset": BOOL},
        "ONNX GRU, layout 0, gates z, r, h; output [seq, dirs, batch, hidden].")
_define("lstm", (*_COMMON, "initial_c", "peepholes"), ("output", "last_h", "last_c"), {"input_forget": BOOL},
        "ONNX LSTM, layout 0, gates i, o, f, c, peepholes i, o, f; output [seq, dirs, batch, hidden].")

