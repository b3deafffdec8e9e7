"""Interpreter kernels of graph.rnn, graph.gru and graph.lstm (ONNX semantics, layout 0).

Written from the ONNX operator definitions: per direction, one step per
sequence position; the reverse direction walks the sequence backward and
writes each step's state at its own position of the output.
"""

from __future__ import annotations

import numpy as np

from lamina.dialects.graph_recurrent import CELLS, activation_list

from .graph_kernels import kernel


def _softplus(x, alpha, beta):
    return np.log1p(np.exp(x))


ACTIVATION_FUNCTIONS = {
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "Softplus": _softplus,
    "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: np.where(x >= 0, x, a * x),
    "ThresholdedRelu": lambda x, a, b: np.where(x > a, x, 0),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "Elu": lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)),
}


def direction_activations(attrs: dict, cell_name: str, direction: int):
    """The activation functions (each of one argument) of one direction."""
    count = CELLS[cell_name].activations
    names = activation_list(attrs)[direction * count:(direction + 1) * count]
    alphas = attrs["activation_alpha"][direction * count:(direction + 1) * count]
    betas = attrs["activation_beta"][direction * count:(direction + 1) * count]
    return [lambda x, f=ACTIVATION_FUNCTIONS[n], a=a, b=b: f(x, a, b).astype(x.dtype)
            for n, a, b in zip(names, alphas, betas)]


def _clipped(attrs):
    clip = attrs["clip"]
    return (lambda x: np.clip(x, -clip, clip)) if clip > 0 else (lambda x: x)


def _steps(length: int, attrs: dict, direction: int) -> range:
    backward = attrs["direction"] == "reverse" or direction == 1
    return range(length - 1, -1, -1) if backward else range(length)


def _run(node, cell_name, data, weights, recurrence, bias, lengths, states, step):
    """Shared driver: `step(d, x_t, states, W, R, Wb, Rb, acts, clip) -> states`, hidden first.

    A sequence shorter than the input (`lengths`) keeps its states past its
    end and has zero outputs there; backward, it starts at its own end."""
    attrs = node.attrs
    hidden = attrs["hidden_size"]
    gates = CELLS[cell_name].gates * hidden
    output = np.zeros(node.results[0].shape, data.dtype)
    finals = [s.copy() for s in states]
    clip = _clipped(attrs)
    for d in range(weights.shape[0]):
        acts = direction_activations(attrs, cell_name, d)
        current = [s[d] for s in states]
        w, r, wb, rb = weights[d], recurrence[d], bias[d, :gates], bias[d, gates:]
        for t in _steps(data.shape[0], attrs, d):
            active = (t < lengths)[:, None]
            stepped = step(d, data[t], current, w, r, wb, rb, acts, clip)
            current = [np.where(active, new, old) for new, old in zip(stepped, current)]
            output[t, d] = np.where(active, current[0], 0)
        for final, value in zip(finals, current):
            final[d] = value
    return [output, *finals]


@kernel("rnn")
def rnn(node, data, weights, recurrence, bias, lengths, initial_h):
    def step(d, x, states, w, r, wb, rb, acts, clip):
        (h,) = states
        return [acts[0](clip(x @ w.T + h @ r.T + wb + rb))]

    return _run(node, "rnn", data, weights, recurrence, bias, lengths, [initial_h], step)


@kernel("gru")
def gru(node, data, weights, recurrence, bias, lengths, initial_h):
    before_reset = node.attrs["linear_before_reset"]

    def step(d, x, states, w, r, wb, rb, acts, clip):
        (h,) = states
        f, g = acts
        wz, wr, wh = np.split(w, 3)
        rz, rr, rh = np.split(r, 3)
        wbz, wbr, wbh = np.split(wb, 3)
        rbz, rbr, rbh = np.split(rb, 3)
        z = f(clip(x @ wz.T + h @ rz.T + wbz + rbz))
        reset = f(clip(x @ wr.T + h @ rr.T + wbr + rbr))
        if before_reset:
            candidate = g(clip(x @ wh.T + reset * (h @ rh.T + rbh) + wbh))
        else:
            candidate = g(clip(x @ wh.T + (reset * h) @ rh.T + rbh + wbh))
        return [((1 - z) * candidate + z * h).astype(x.dtype)]

    return _run(node, "gru", data, weights, recurrence, bias, lengths, [initial_h], step)


@kernel("lstm")
def lstm(node, data, weights, recurrence, bias, lengths, initial_h, initial_c, peepholes):
    input_forget = node.attrs["input_forget"]

    def step(d, x, states, w, r, wb, rb, acts, clip):
        h, c = states
        f, g, act_h = acts
        pi, po, pf = np.split(peepholes[d], 3)
        gi, go, gf, gc = np.split(x @ w.T + h @ r.T + wb + rb, 4, axis=-1)
        i = f(clip(gi + pi * c))
        forget = 1 - i if input_forget else f(clip(gf + pf * c))
        cell = forget * c + i * g(clip(gc))
        o = f(clip(go + po * cell))
        return [(o * act_h(cell)).astype(x.dtype), cell.astype(x.dtype)]

    return _run(node, "lstm", data, weights, recurrence, bias, lengths, [initial_h, initial_c], step)
