"""PyTorch models with recurrent layers and data-dependent loops, exported to ONNX here.

The legacy exporter (`dynamo=False`) turns nn.LSTM/GRU/RNN into ONNX
LSTM/GRU/RNN nodes and a `torch.jit.script`ed while loop into a Loop whose
condition depends on the input.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnx
import torch


class StackedBidirectional(torch.nn.Module):
    """Two bidirectional batch-first LSTM layers, then a batch-first GRU."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 8, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = torch.nn.GRU(16, 6, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        z, h = self.gru(y)
        return z, h


class SequenceFirst(torch.nn.Module):
    """A stacked LSTM with given initial states, a bidirectional GRU and a tanh RNN, sequence first."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(4, 6, num_layers=2)
        self.gru = torch.nn.GRU(6, 5, bidirectional=True)
        self.rnn = torch.nn.RNN(10, 4)

    def forward(self, x, h0, c0):
        y, (h, c) = self.lstm(x, (h0, c0))
        z, _ = self.gru(y)
        w, _ = self.rnn(z)
        return w, h, c


class HalvingLoop(torch.nn.Module):
    """A while loop running `n.sum()` times: the trip count is data, known only at run time."""

    def forward(self, x, n):
        i = 0
        while i < int(n.sum()):
            x = torch.tanh(x * 0.5 + 1.0)
            i += 1
        return x


def export(module: torch.nn.Module, args: tuple) -> onnx.ModelProto:
    stream = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, stream, dynamo=False, opset_version=17)
    return onnx.load_from_string(stream.getvalue())


def torch_models() -> dict[str, tuple[onnx.ModelProto, dict[str, np.ndarray]]]:
    """name -> (exported model, inputs for it); random weights from a fixed seed."""
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    stacked_input = rng.standard_normal((2, 7, 5)).astype(np.float32)
    sequence = [rng.standard_normal(s).astype(np.float32) for s in ((6, 3, 4), (2, 3, 6), (2, 3, 6))]
    loop_input = rng.standard_normal(3).astype(np.float32)
    counts = np.array([2, 1], np.int64)
    models = {
        "stacked bidirectional batch-first": (StackedBidirectional().eval(), (stacked_input,)),
        "sequence-first with states": (SequenceFirst().eval(), tuple(sequence)),
        "scripted data-dependent loop": (torch.jit.script(HalvingLoop()), (loop_input, counts)),
    }
    result = {}
    for name, (module, arrays) in models.items():
        model = export(module, tuple(torch.from_numpy(a) for a in arrays))
        names = [value.name for value in model.graph.input]
        result[name] = (model, dict(zip(names, arrays)))
    return result


class RecurrentClassifier(torch.nn.Module):
    """An RNN, GRU or LSTM over a [seq, features] input, then a linear classifier of its last state.

    The input is 2-D so that the accelerator (which stores rank-2 and rank-4
    tensors) reads it directly; the cell sees it as [seq, batch 1, features].
    """

    def __init__(self, cell: str = "RNN"):
        super().__init__()
        self.rnn = getattr(torch.nn, cell)(8, 16)
        self.classifier = torch.nn.Linear(16, 4)

    def forward(self, x):
        _, h = self.rnn(x.unsqueeze(1))
        if isinstance(h, tuple):  # an LSTM's (h, c)
            h = h[0]
        return self.classifier(h[-1])


def accelerator_model(cell: str = "RNN") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The exported RecurrentClassifier with `cell` (RNN, GRU, LSTM) and an input for it."""
    torch.manual_seed(0)
    data = np.random.default_rng(1).standard_normal((5, 8)).astype(np.float32)
    model = export(RecurrentClassifier(cell).eval(), (torch.from_numpy(data),))
    return model, {model.graph.input[0].name: data}


class LoopClassifier(torch.nn.Module):
    """Linear, a while loop running `n.sum()` times over the features, linear: the accelerator runs the
    linear layers, the host the loop (its trip count is data)."""

    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(8, 16)
        self.classifier = torch.nn.Linear(16, 4)

    def forward(self, x, n):
        h = self.encoder(x)
        i = 0
        while i < int(n.sum()):
            h = torch.tanh(h * 0.5 + 1.0)
            i += 1
        return self.classifier(h)


def loop_accelerator_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The exported, scripted LoopClassifier and inputs for it (a [1, 8] feature row, counts [2, 1]).

    The features are U[0, 1), the range lamina-compile calibrates with: whether the loop runs or not
    changes the range of its output, and calibration sees one trip count (zeros for integer inputs)."""
    torch.manual_seed(0)
    data = np.random.default_rng(2).random((1, 8), np.float32)
    counts = np.array([2, 1], np.int64)
    model = export(torch.jit.script(LoopClassifier().eval()), (torch.from_numpy(data), torch.from_numpy(counts)))
    return model, dict(zip([value.name for value in model.graph.input], (data, counts)))
