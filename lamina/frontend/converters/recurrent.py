"""Recurrent layers: RNN, GRU and LSTM as graph.rnn, graph.gru and graph.lstm.

The graph ops have layout 0 and every operand present: `layout = 1` becomes
transposes around the op, absent biases, initial states and peepholes
become zero splats, and activations get ONNX's defaults and one alpha and
beta each.
"""

from __future__ import annotations

import numpy as np

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_recurrent import ACTIVATIONS, CELLS, DIRECTIONS
from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter

CELL_OF = {"RNN": "rnn", "GRU": "gru", "LSTM": "lstm"}


def _activations(view: NodeView) -> tuple[list[str], list[float], list[float]]:
    """Activation names in the table's spelling, with each one's alpha and beta."""
    cell = CELLS[CELL_OF[view.op_type]]
    directions = DIRECTIONS.get(view.attr("direction", "forward"), 1)
    given = view.attr("activations") or list(cell.default_activations) * directions
    by_lower = {name.lower(): name for name in ACTIVATIONS}
    given = [name.decode("utf-8") if isinstance(name, bytes) else str(name) for name in given]
    names = [by_lower.get(name.lower(), name) for name in given]
    alphas, betas = list(view.attr("activation_alpha") or []), list(view.attr("activation_beta") or [])
    alpha_out, beta_out = [], []
    for name in names:
        default_alpha, default_beta = ACTIVATIONS.get(name, (None, None))
        alpha_out.append(alphas.pop(0) if default_alpha is not None and alphas else (default_alpha or 0.0))
        beta_out.append(betas.pop(0) if default_beta is not None and betas else (default_beta or 0.0))
    return names, alpha_out, beta_out


def _check(view: NodeView):
    direction = view.attr("direction", "forward")
    if direction not in DIRECTIONS:
        yield f"direction '{direction}' is not forward, reverse or bidirectional"
        return
    unknown = [name for name in _activations(view)[0] if name not in ACTIVATIONS]
    if unknown:
        yield f"activation '{unknown[0]}' is not supported; supported: {', '.join(ACTIVATIONS)}"
    expected = len(CELLS[CELL_OF[view.op_type]].default_activations) * DIRECTIONS[direction]
    if len(_activations(view)[0]) != expected:
        yield f"needs {expected} activations for direction '{direction}'"


def _zeros(n: NodeEmitter, spec: TensorSpec):
    return n.splat(spec, 0.0)


@converter("RNN", "GRU", "LSTM", graph_ops=("rnn", "gru", "lstm", "transpose", "splat"), check=_check,
           notes="Layout 1 becomes transposes; absent inputs become zeros (full lengths for `sequence_lens`). "
                               "Lowered to matmuls and element-wise ops unrolled over the sequence where a backend "
                               "asks (`should_lower`).")
def convert_recurrent(n: NodeEmitter):
    cell_name = CELL_OF[n.op_type]
    cell = CELLS[cell_name]
    batch_first = bool(n.attr("layout", 0))
    data = n.input(0)
    if batch_first:
        data = n.transpose(data, (1, 0, 2))
    steps, batch, _ = n.spec(data).shape
    weights, recurrence = n.input(1), n.input(2)
    directions, gates, _ = n.spec(weights).shape
    hidden = n.attr("hidden_size") or n.spec(recurrence).shape[-1]
    dtype = n.spec(data).dtype
    state = TensorSpec((directions, batch, hidden), dtype)

    def optional(index: int, spec: TensorSpec, is_state: bool):
        if not n.has_input(index):
            return _zeros(n, spec)
        value = n.input(index)
        return n.transpose(value, (1, 0, 2)) if is_state and batch_first else value

    lengths = n.convert(n.input(4), np.int32) if n.has_input(4) else n.splat(TensorSpec((batch,), np.int32), steps)
    operands = [data, weights, recurrence, optional(3, TensorSpec((directions, 2 * gates), dtype), False), lengths,
                optional(5, state, True)]
    if cell.states == 2:
        operands += [optional(6, state, True), optional(7, TensorSpec((directions, 3 * hidden), dtype), False)]
    names, alphas, betas = _activations(n)
    extra = {"linear_before_reset": bool(n.attr("linear_before_reset", 0))} if cell_name == "gru" else {}
    if cell_name == "lstm":
        extra = {"input_forget": bool(n.attr("input_forget", 0))}
    op = GRAPH.create(cell_name, *operands, direction=n.attr("direction", "forward"), hidden_size=hidden,
                   activations=",".join(names), activation_alpha=alphas, activation_beta=betas,
                   clip=float(n.attr("clip", 0.0)), **extra)
    output, *states = op.results
    if batch_first:
        output = n.transpose(output, (2, 0, 1, 3))
        states = [n.transpose(s, (1, 0, 2)) for s in states]
    return [output, *states]
