"""Small ONNX models with one RNN, GRU or LSTM node, over the attributes the node tests use.

Shared by the recurrent tests (interpreter, lowering, CPU path), which compare
with onnxruntime.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
SEQ, BATCH, FEATURES, HIDDEN = 4, 3, 5, 6


@dataclass(frozen=True)
class RecurrentCase:
    op_type: str
    id: str
    attrs: dict = field(default_factory=dict)
    optional: tuple[str, ...] = ()  # of "B", "sequence_lens", "initial_h", "initial_c", "P"
    short_sequences: bool = False

    @property
    def directions(self) -> int:
        return 2 if self.attrs.get("direction") == "bidirectional" else 1

    def model(self, seed: int = 0) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
        """The model (weights as initializers) and inputs for it."""
        rng = np.random.default_rng(seed)
        d, g = self.directions, GATES[self.op_type] * HIDDEN
        batch_first = self.attrs.get("layout", 0) == 1
        data_shape = (BATCH, SEQ, FEATURES) if batch_first else (SEQ, BATCH, FEATURES)
        state_shape = (BATCH, d, HIDDEN) if batch_first else (d, BATCH, HIDDEN)
        weights = {"W": rng.uniform(-0.5, 0.5, (d, g, FEATURES)), "R": rng.uniform(-0.5, 0.5, (d, g, HIDDEN))}
        optional = {"B": rng.uniform(-0.5, 0.5, (d, 2 * g)), "initial_h": rng.uniform(-1, 1, state_shape),
                    "initial_c": rng.uniform(-1, 1, state_shape), "P": rng.uniform(-0.5, 0.5, (d, 3 * HIDDEN))}
        inits = [numpy_helper.from_array(v.astype(np.float32), k) for k, v in weights.items()]
        inits += [numpy_helper.from_array(optional[k].astype(np.float32), k) for k in self.optional if k in optional]
        order = ["X", "W", "R", "B", "sequence_lens", "initial_h"] + (["initial_c", "P"] if self.op_type == "LSTM" else [])
        given = {"X", "W", "R", *self.optional}
        names = [n if n in given else "" for n in order]
        while names[-1] == "":
            names.pop()
        outputs = ["Y", "Y_h"] + (["Y_c"] if self.op_type == "LSTM" else [])
        node = helper.make_node(self.op_type, names, outputs, hidden_size=HIDDEN, **self.attrs)
        graph_inputs = [helper.make_tensor_value_info("X", TensorProto.FLOAT, data_shape)]
        feeds = {"X": rng.standard_normal(data_shape).astype(np.float32)}
        if "sequence_lens" in self.optional:
            graph_inputs.append(helper.make_tensor_value_info("sequence_lens", TensorProto.INT32, (BATCH,)))
            lengths = [SEQ, 2, 1] if self.short_sequences else [SEQ] * BATCH
            feeds["sequence_lens"] = np.array(lengths, np.int32)
        graph = helper.make_graph([node], self.id, graph_inputs,
                                  [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
        model.ir_version = 8  # what onnxruntime reads
        return model, feeds


ALL_OPTIONAL = ("B", "sequence_lens", "initial_h")
RECURRENT_CASES = [
    RecurrentCase("RNN", "defaults"),
    RecurrentCase("RNN", "bidirectional relu", {"direction": "bidirectional", "activations": ["Relu", "Tanh"]},
                  ALL_OPTIONAL),
    RecurrentCase("RNN", "reverse batch-first", {"direction": "reverse", "layout": 1}, ALL_OPTIONAL),
    RecurrentCase("GRU", "defaults"),
    RecurrentCase("GRU", "linear before reset, clip", {"linear_before_reset": 1, "clip": 0.5}, ALL_OPTIONAL),
    RecurrentCase("GRU", "bidirectional batch-first", {"direction": "bidirectional", "layout": 1}, ALL_OPTIONAL),
    RecurrentCase("GRU", "short sequences", {"direction": "bidirectional"}, ALL_OPTIONAL, short_sequences=True),
    RecurrentCase("LSTM", "defaults"),
    RecurrentCase("LSTM", "peepholes, states", {}, (*ALL_OPTIONAL, "initial_c", "P")),
    RecurrentCase("LSTM", "bidirectional batch-first", {"direction": "bidirectional", "layout": 1},
                  (*ALL_OPTIONAL, "initial_c", "P")),
    RecurrentCase("LSTM", "reverse, short sequences", {"direction": "reverse"}, (*ALL_OPTIONAL, "initial_c"),
                  short_sequences=True),
    RecurrentCase("LSTM", "activations with alpha and beta",
                  {"activations": ["HardSigmoid", "LeakyRelu", "ScaledTanh"], "activation_alpha": [0.3, 0.1, 0.9],
                   "activation_beta": [0.4, 1.1]}, ALL_OPTIONAL),
    RecurrentCase("LSTM", "input forget, clip", {"input_forget": 1, "clip": 0.7}, ALL_OPTIONAL),
]
