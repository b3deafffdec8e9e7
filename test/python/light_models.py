"""The nine light CNNs shipped in the onnx wheel, and what to feed and expect.

`onnx/backend/test/data/light/` holds each model with every weight produced
by a `ConstantOfShape` of 0.02, plus `light_NAME_output_0.pb`: its output on
the dummy input onnx's backend test runner generates. Constant weights are a
weak test (every channel computes the same thing), so `randomize_weights`
(`lamina/frontend/random_weights.py`) gives each model real, seeded weights to
compare against onnxruntime with.

Any level of Lamina can use these helpers: import a model, run it, compare.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper

# One randomization for every test and tool: the frontend's (its docstring says why it is drawn so).
from lamina.frontend.random_weights import feed_inputs, random_inputs, randomize_weights, static_shape  # noqa: F401

LIGHT_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

LIGHT_MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
                "shufflenet", "squeezenet", "vgg19", "zfnet512")


def load_light_model(name: str) -> onnx.ModelProto:
    return onnx.load(str(LIGHT_DIR / f"light_{name}.onnx"))


def dummy_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """What onnx's backend runner feeds light models: arange(n).reshape(shape) / n in float32.

    (`Runner.generate_dummy_data(..., random=False)` in `onnx/backend/test/runner`.)
    """
    feeds = {}
    for value in feed_inputs(model):
        shape = static_shape(value)
        n = np.prod(shape)
        feeds[value.name] = (np.arange(n).reshape(shape) / n).astype(np.float32)
    return feeds


def expected_outputs(name: str) -> dict[str, np.ndarray]:
    """The shipped outputs on `dummy_inputs`, keyed by the model's output names."""
    model = load_light_model(name)
    return {
        output.name: numpy_helper.to_array(onnx.load_tensor(str(LIGHT_DIR / f"light_{name}_output_{i}.pb")))
        for i, output in enumerate(model.graph.output)
    }


def with_logits_output(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy that also outputs the input of the model's final Softmax (the logits), if it has one.

    A softmax squashes differences (a saturated one hides almost any error),
    so comparisons are sharper on the logits as well.
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    softmaxes = [node for node in model.graph.node if node.op_type == "Softmax"]
    if softmaxes:
        model.graph.output.append(helper.make_empty_tensor_value_info(softmaxes[-1].input[0]))
    return model


def onnxruntime_outputs(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The model's outputs from onnxruntime's CPU provider, graph optimizations off (node-by-node semantics)."""
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    return dict(zip(names, session.run(names, inputs)))
