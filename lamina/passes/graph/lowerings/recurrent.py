"""Lowerings of graph.rnn, graph.gru and graph.lstm: matmuls and element-wise ops
unrolled over the (static) sequence, as Glow lowers its LSTM node.

Per direction, the input projection of the whole sequence is one matmul
([seq*batch, input] x [input, gates*hidden]); each step adds the recurrent
matmul of the previous hidden state ([batch, hidden] x [hidden, gates*hidden])
and applies the cell's gates. A backend that runs matmuls and element-wise
ops thus runs recurrent layers without knowing them. Sequences shorter than
the input (`sequence_lens` not all full) are masked with `graph.where`.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.graph_recurrent import CELLS, activation_list
from lamina.dialects.irdl import OpView
from lamina.dialects.types import TensorSpec, spec_of
from lamina.passes.graph.rewriting import constant_view

from .base import Emitter, lowering


def _rows(emit: Emitter, value: ir.Value, start: int, stop: int, axis: int = 0) -> ir.Value:
    """value[start:stop] along `axis`."""
    spec = spec_of(value.type)
    starts = [start if a == axis else 0 for a in range(spec.rank)]
    ends = [stop if a == axis else d for a, d in enumerate(spec.shape)]
    return emit.op("slice", value, starts=starts, ends=ends, steps=[1] * spec.rank)


def _reshape(emit: Emitter, value: ir.Value, shape) -> ir.Value:
    spec = spec_of(value.type)
    return value if spec.shape == tuple(shape) else emit.op("reshape", value, result_type=spec.with_shape(tuple(shape)))


def _concat(emit: Emitter, values: list[ir.Value], axis: int) -> ir.Value:
    result = values[0]
    for value in values[1:]:
        result = emit.op("concat", result, value, axis=axis)
    return result


class _Activation:
    """One activation function of the op, emitted as graph ops."""

    def __init__(self, emit: Emitter, name: str, alpha: float, beta: float):
        self.emit, self.name, self.alpha, self.beta = emit, name, alpha, beta

    def __call__(self, x: ir.Value) -> ir.Value:
        emit, spec = self.emit, spec_of(x.type)
        a, b = self.alpha, self.beta
        simple = {"Relu": "relu", "Tanh": "tanh", "Sigmoid": "sigmoid"}
        if self.name in simple:
            return emit.op(simple[self.name], x)
        if self.name == "LeakyRelu":
            return emit.op("leaky_relu", x, alpha=a)
        if self.name == "Softsign":
            return emit.op("div", x, emit.op("add", emit.splat(1.0, spec), emit.op("abs", x)))
        if self.name == "Softplus":
            return emit.op("log", emit.op("add", emit.splat(1.0, spec), emit.op("exp", x)))
        if self.name == "ThresholdedRelu":
            return emit.op("where", emit.op("greater", x, emit.splat(a, spec)), x, emit.splat(0.0, spec))
        if self.name == "Elu":
            negative = emit.op("mul", emit.splat(a, spec), emit.op("sub", emit.op("exp", x), emit.splat(1.0, spec)))
            return emit.op("where", emit.op("less", x, emit.splat(0.0, spec)), negative, x)
        if self.name == "ScaledTanh":
            return emit.op("mul", emit.splat(a, spec), emit.op("tanh", emit.op("mul", emit.splat(b, spec), x)))
        affine = emit.op("add", emit.op("mul", emit.splat(a, spec), x), emit.splat(b, spec))
        return affine if self.name == "Affine" else emit.op("clip", affine, min=0.0, max=1.0)  # HardSigmoid


class _Cell:
    """The shared unrolling; `step` is the cell's arithmetic for one position."""

    def __init__(self, op: OpView, emit: Emitter):
        self.op, self.emit = op, emit
        self.name = op.name
        self.hidden = op.attr("hidden_size")
        self.gates = CELLS[self.name].gates * self.hidden
        data = op.operand("input")
        self.steps, self.batch, self.features = spec_of(data.type).shape
        self.dtype = spec_of(data.type).dtype
        clip = op.attr("clip")
        self.clip = (lambda x: emit.op("clip", x, min=-clip, max=clip)) if clip > 0 else (lambda x: x)
        lengths = constant_view(op.operand("sequence_lens"))
        self.full_length = lengths is not None and bool(np.all(lengths == self.steps))

    def spec(self, *shape) -> TensorSpec:
        return TensorSpec(tuple(shape), self.dtype)

    def activations(self, direction: int) -> list[_Activation]:
        count = CELLS[self.name].activations
        part = slice(direction * count, (direction + 1) * count)
        return [_Activation(self.emit, n, a, b) for n, a, b in zip(activation_list(self.op.attrs())[part],
                                                                      self.op.attr("activation_alpha")[part],
                                                                      self.op.attr("activation_beta")[part])]

    def direction_operand(self, name: str, direction: int, shape) -> ir.Value:
        value = self.op.operand(name)
        return _reshape(self.emit, _rows(self.emit, value, direction, direction + 1), shape)

    def transposed(self, name: str, direction: int, columns: int) -> ir.Value:
        """weights or recurrence of one direction as [columns, gates * hidden]."""
        matrix = self.direction_operand(name, direction, (self.gates, columns))
        return self.emit.op("transpose", matrix, perm=[1, 0])

    def bias(self, direction: int, part: int) -> ir.Value:
        """The input (part 0) or recurrent (part 1) bias of one direction, [gates * hidden]."""
        row = self.direction_operand("bias", direction, (2 * self.gates,))
        return _rows(self.emit, row, part * self.gates, (part + 1) * self.gates)

    def gate(self, value: ir.Value, index: int) -> ir.Value:
        return _rows(self.emit, value, index * self.hidden, (index + 1) * self.hidden, axis=1)

    def mask(self, position: int) -> ir.Value | None:
        """[batch, hidden] booleans: which sequences are still running at `position`; None when all always are."""
        if self.full_length:
            return None
        emit = self.emit
        lengths = self.op.operand("sequence_lens")
        here = emit.splat(position, spec_of(lengths.type))
        active = _reshape(emit, emit.op("greater", lengths, here), (self.batch, 1))
        return emit.op("broadcast", active, result_type=TensorSpec((self.batch, self.hidden), np.bool_))

    def lower(self, step) -> list[ir.Value]:
        emit = self.emit
        directions = spec_of(self.op.operand("weights").type).shape[0]
        sequence = _reshape(emit, self.op.operand("input"), (self.steps * self.batch, self.features))
        outputs, finals = [], []
        for d in range(directions):
            projected = emit.op("matmul", sequence, self.transposed("weights", d, self.features))
            recurrent = self.transposed("recurrence", d, self.hidden)
            input_bias = emit.broadcast(self.bias(d, 0), self.spec(self.steps * self.batch, self.gates))
            projected = emit.op("add", projected, input_bias)
            states = [self.direction_operand(name, d, (self.batch, self.hidden))
                      for name in ("initial_h", "initial_c")[:CELLS[self.name].states]]
            acts = self.activations(d)
            backward = self.op.attr("direction") == "reverse" or d == 1
            order = range(self.steps - 1, -1, -1) if backward else range(self.steps)
            per_position = {}
            for t in order:
                x_part = _rows(emit, projected, t * self.batch, (t + 1) * self.batch)
                h_part = emit.op("matmul", states[0], recurrent)
                new_states = step(self, d, x_part, h_part, states, acts)
                active = self.mask(t)
                if active is None:
                    states, visible = new_states, new_states[0]
                else:
                    states = [emit.op("where", active, new, old) for new, old in zip(new_states, states)]
                    visible = emit.op("where", active, new_states[0], emit.splat(0.0, self.spec(self.batch, self.hidden)))
                per_position[t] = _reshape(emit, visible, (1, 1, self.batch, self.hidden))
            outputs.append(_concat(emit, [per_position[t] for t in range(self.steps)], 0))
            finals.append([_reshape(emit, s, (1, self.batch, self.hidden)) for s in states])
        output = _concat(emit, outputs, 1)
        return [output, *[_concat(emit, list(parts), 0) for parts in zip(*finals)]]


def _broadcast_row(cell: _Cell, row: ir.Value) -> ir.Value:
    return cell.emit.broadcast(row, cell.spec(cell.batch, spec_of(row.type).shape[0]))


def _rnn_step(cell: _Cell, d, x_part, h_part, states, acts):
    emit = cell.emit
    total = emit.op("add", emit.op("add", x_part, h_part), _broadcast_row(cell, cell.bias(d, 1)))
    return [acts[0](cell.clip(total))]


def _gru_step(cell: _Cell, d, x_part, h_part, states, acts):
    emit = cell.emit
    (h,) = states
    f, g = acts
    recurrent_bias = _broadcast_row(cell, cell.bias(d, 1))
    z = f(cell.clip(emit.op("add", emit.op("add", cell.gate(x_part, 0), cell.gate(h_part, 0)),
                            cell.gate(recurrent_bias, 0))))
    reset = f(cell.clip(emit.op("add", emit.op("add", cell.gate(x_part, 1), cell.gate(h_part, 1)),
                                cell.gate(recurrent_bias, 1))))
    if cell.op.attr("linear_before_reset"):
        hidden_part = emit.op("mul", reset, emit.op("add", cell.gate(h_part, 2), cell.gate(recurrent_bias, 2)))
    else:
        r_h = cell.gate(cell.transposed("recurrence", d, cell.hidden), 2)
        hidden_part = emit.op("add", emit.op("matmul", emit.op("mul", reset, h), r_h), cell.gate(recurrent_bias, 2))
    candidate = g(cell.clip(emit.op("add", cell.gate(x_part, 2), hidden_part)))
    one = emit.splat(1.0, cell.spec(cell.batch, cell.hidden))
    return [emit.op("add", emit.op("mul", emit.op("sub", one, z), candidate), emit.op("mul", z, h))]


def _lstm_step(cell: _Cell, d, x_part, h_part, states, acts):
    emit = cell.emit
    h, c = states
    f, g, act_h = acts
    gates = emit.op("add", emit.op("add", x_part, h_part), _broadcast_row(cell, cell.bias(d, 1)))
    peepholes = cell.direction_operand("peepholes", d, (3 * cell.hidden,))

    def peephole(index: int, state: ir.Value) -> ir.Value:
        row = _rows(emit, peepholes, index * cell.hidden, (index + 1) * cell.hidden)
        return emit.op("mul", _broadcast_row(cell, row), state)

    i = f(cell.clip(emit.op("add", cell.gate(gates, 0), peephole(0, c))))
    if cell.op.attr("input_forget"):
        forget = emit.op("sub", emit.splat(1.0, cell.spec(cell.batch, cell.hidden)), i)
    else:
        forget = f(cell.clip(emit.op("add", cell.gate(gates, 2), peephole(2, c))))
    new_c = emit.op("add", emit.op("mul", forget, c), emit.op("mul", i, g(cell.clip(cell.gate(gates, 3)))))
    o = f(cell.clip(emit.op("add", cell.gate(gates, 1), peephole(1, new_c))))
    return [emit.op("mul", o, act_h(new_c)), new_c]


STEPS = {"rnn": _rnn_step, "gru": _gru_step, "lstm": _lstm_step}


def _lower(op: OpView, emit: Emitter) -> list[ir.Value]:
    """The op as matmuls and element-wise ops, one step per sequence position."""
    return _Cell(op, emit).lower(STEPS[op.name])


for _name in STEPS:
    lowering(_name)(_lower)
