"""The nine light CNNs shipped in the onnx wheel, and what to feed and expect.

`onnx/backend/test/data/light/` holds each model with every weight produced
by a `ConstantOfShape` of 0.02, plus `light_NAME_output_0.pb`: its output on
the dummy input onnx's backend test runner generates. Constant weights are a
weak test (every channel computes the same thing), so `randomize_weights`
gives each model real, seeded weights to compare against onnxruntime with.

Any level of Lamina can use these helpers: import a model, run it, compare.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime
from onnx import helper, numpy_helper

LIGHT_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

LIGHT_MODELS = ("bvlc_alexnet", "densenet121", "inception_v1", "inception_v2", "resnet50",
                "shufflenet", "squeezenet", "vgg19", "zfnet512")


def load_light_model(name: str) -> onnx.ModelProto:
    return onnx.load(str(LIGHT_DIR / f"light_{name}.onnx"))


def _feed_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """Graph inputs the caller must feed: those that are not initializers."""
    initialized = {tensor.name for tensor in model.graph.initializer}
    return [value for value in model.graph.input if value.name not in initialized]


def _static_shape(value: onnx.ValueInfoProto) -> tuple[int, ...]:
    """The input's shape, symbolic dimensions taken as 1 (as onnx's test runner does)."""
    return tuple(d.dim_value if d.HasField("dim_value") else 1 for d in value.type.tensor_type.shape.dim)


def dummy_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """What onnx's backend runner feeds light models: arange(n).reshape(shape) / n in float32.

    (`Runner.generate_dummy_data(..., random=False)` in `onnx/backend/test/runner`.)
    """
    feeds = {}
    for value in _feed_inputs(model):
        shape = _static_shape(value)
        n = np.prod(shape)
        feeds[value.name] = (np.arange(n).reshape(shape) / n).astype(np.float32)
    return feeds


def random_inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    """Seeded U[0, 1) float32 inputs (the runner's `random=True` data)."""
    rng = np.random.default_rng(seed)
    return {value.name: rng.random(_static_shape(value), np.float32) for value in _feed_inputs(model)}


def expected_outputs(name: str) -> dict[str, np.ndarray]:
    """The shipped outputs on `dummy_inputs`, keyed by the model's output names."""
    model = load_light_model(name)
    return {
        output.name: numpy_helper.to_array(onnx.load_tensor(str(LIGHT_DIR / f"light_{name}_output_{i}.pb")))
        for i, output in enumerate(model.graph.output)
    }


def randomize_weights(model: onnx.ModelProto, seed: int) -> onnx.ModelProto:
    """A copy whose constant-shape `ConstantOfShape` nodes are seeded random initializers.

    The scheme keeps activations in a sane range through deep nets (what a
    fixed-point accelerator needs as much as a fair numeric comparison):
    - rank >= 2 (conv and fully-connected weights, [out, in, k...]): He-normal,
      N(0, sqrt(2 / fan_in)) with fan_in = prod(shape[1:]), which preserves the
      activations' second moment through conv + relu;
    - rank <= 1 (biases, scales, batch-norm parameters): U(0.5, 1.5), so
      variances stay positive and scales near one;
    - then every BatchNormalization's mean and variance become the per-channel
      mean and (biased) variance of its own input on `random_inputs(model,
      seed)`, as a trained net's running statistics match its data: each BN
      outputs about scale * N(0, 1) + bias, so residual sums grow linearly, not
      geometrically (ResNet-50's logits reach 1e5 without this, saturating its
      softmax). The statistics come from one onnxruntime run of a copy in which
      every BN normalizes with its input's own statistics (InstanceNormalization,
      which equals that for batch 1, the light models' batch).
    Weights are drawn in node order from one `default_rng(seed)`. The shape
    initializers that fed the replaced nodes are dropped; new initializers are
    also listed as graph inputs when the model's IR version (< 4) requires it.
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    rng = np.random.default_rng(seed)
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    kept_nodes, new_weights, shape_names = [], [], set()
    for node in graph.node:
        if node.op_type != "ConstantOfShape" or node.input[0] not in initializers:
            kept_nodes.append(node)
            continue
        shape_names.add(node.input[0])
        shape = tuple(int(d) for d in numpy_helper.to_array(initializers[node.input[0]]))
        weight = _random_weight(rng, shape).astype(_constant_of_shape_dtype(node), copy=False)
        new_weights.append(numpy_helper.from_array(weight, node.output[0]))
    del graph.node[:]
    graph.node.extend(kept_nodes)
    _drop_unused_initializers(graph, shape_names)
    graph.initializer.extend(new_weights)
    if model.ir_version < 4:
        graph.input.extend(helper.make_tensor_value_info(w.name, w.data_type, w.dims) for w in new_weights)
    _calibrate_batch_norms(model, random_inputs(model, seed))
    return model


def _constant_of_shape_dtype(node: onnx.NodeProto) -> np.dtype:
    for attribute in node.attribute:
        if attribute.name == "value":
            return numpy_helper.to_array(attribute.t).dtype
    return np.dtype(np.float32)  # the operator's default value is float32 0


def _random_weight(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Drawn in float32 directly: VGG-19's 143M weights in float64 would double the time and memory."""
    if len(shape) >= 2:
        fan_in = int(np.prod(shape[1:]))
        weight = rng.standard_normal(shape, dtype=np.float32)
        weight *= np.float32(np.sqrt(2.0 / fan_in))
        return weight
    return rng.uniform(0.5, 1.5, shape).astype(np.float32)


def _calibrate_batch_norms(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> None:
    """Set each BatchNormalization's mean and variance to its input's statistics on `inputs` (batch 1)."""
    batch_norms = [node for node in model.graph.node if node.op_type == "BatchNormalization"]
    if not batch_norms:
        return
    probe = onnx.ModelProto.FromString(model.SerializeToString())
    for node in probe.graph.node:
        if node.op_type == "BatchNormalization":
            epsilon = [a for a in node.attribute if a.name == "epsilon"]
            node.CopyFrom(helper.make_node("InstanceNormalization", list(node.input[:3]), list(node.output[:1]),
                                           name=node.name, epsilon=epsilon[0].f if epsilon else 1e-5))
    del probe.graph.output[:]
    probe.graph.output.extend(helper.make_empty_tensor_value_info(node.input[0]) for node in batch_norms)
    statistics = onnxruntime_outputs(probe, inputs)
    tensors = {tensor.name: tensor for tensor in model.graph.initializer}
    for node in batch_norms:
        activation = statistics[node.input[0]].astype(np.float64)
        axes = (0, *range(2, activation.ndim))
        for name, value in ((node.input[3], activation.mean(axis=axes)), (node.input[4], activation.var(axis=axes))):
            dtype = numpy_helper.to_array(tensors[name]).dtype
            tensors[name].CopyFrom(numpy_helper.from_array(value.astype(dtype), name))


def _drop_unused_initializers(graph: onnx.GraphProto, candidates: set[str]) -> None:
    """Remove the `candidates` no node or output reads any more, as initializers and as inputs."""
    used = {name for node in graph.node for name in node.input} | {output.name for output in graph.output}
    unused = candidates - used
    kept_tensors = [tensor for tensor in graph.initializer if tensor.name not in unused]
    kept_inputs = [value for value in graph.input if value.name not in unused]
    del graph.initializer[:]
    graph.initializer.extend(kept_tensors)
    del graph.input[:]
    graph.input.extend(kept_inputs)


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
