"""Seeded random weights for models shipped without real ones (the light models), sized for fixed point.

The onnx wheel's light models compute every weight with a `ConstantOfShape`
of 0.02, so every channel computes the same thing. `randomize_weights`
replaces those nodes by seeded random initializers drawn so activations stay
in a sane range through deep nets, which a fixed-point accelerator needs as
much as a fair numeric comparison (FP16BP8 saturates at +-128):

- rank >= 2 (conv and fully-connected weights, [out, in, k...]): He-normal,
  N(0, sqrt(2 / fan_in)) with fan_in = prod(shape[1:]), which preserves the
  activations' second moment through conv + relu;
- rank <= 1 (biases, scales, batch-norm parameters): U(0.5, 1.5), so
  variances stay positive and scales near one;
- the rank-1 float initializers a light model ships (conv biases, batch-norm
  parameters, DenseNet's and Inception v2's Caffe `Scale` weights of about
  0.02) were fitted to weights the model no longer has, so they are drawn
  again the same way: a shipped 0.02 scale after a normalizing batch norm
  shrinks a channel to a few FP16BP8 steps, and the next batch norm blows
  that rounding up 40 to 300 times;
- in a model without batch norms, conv and fully-connected biases are 0
  (Caffe's default bias filler): U(0.5, 1.5) biases add up layer after
  layer until they swamp what the input contributes (Inception v1's 1000
  logits were 2.65 +- 0.01, its top three within 0.007, so a rounding of
  the accelerator's size picked another class); with batch norms a layer's
  bias is normalized away, and the classifier's keeps the logits apart;
- then every BatchNormalization's mean and variance become the per-channel
  mean and (biased) variance of its own input on `random_inputs(model,
  seed)`, as a trained net's running statistics match its data: each BN
  outputs about scale * N(0, 1) + bias, so residual sums grow linearly, not
  geometrically (ResNet-50's logits reach 1e5 without this). The statistics
  come from one onnxruntime run of a probe in which every BN normalizes with
  its input's own statistics (InstanceNormalization, equal to that for batch
  1): the model itself, changed in place and restored, with the drawn
  weights passed beside it rather than serialized with it.

On U[0, 1) inputs the largest |activation| of any node of the nine light
models is then at most 78 (`activation_peak`; docs/accelerator.md, Results):
inside FP16BP8's range with at least 1.6x headroom, with no further scaling.
`lamina-compile --random-weights` reports the peak of the model it compiles.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator

import numpy as np
import onnx
from onnx import helper, numpy_helper

Weights = dict[str, np.ndarray]  # initializer name -> data
# (model, inputs, the data of its initializers marked external) -> every output
RunModel = Callable[[onnx.ModelProto, dict[str, np.ndarray], Weights], dict[str, np.ndarray]]


def feed_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """Graph inputs the caller must feed: those that are not initializers."""
    initialized = {tensor.name for tensor in model.graph.initializer}
    return [value for value in model.graph.input if value.name not in initialized]


def static_shape(value: onnx.ValueInfoProto) -> tuple[int, ...]:
    """The input's shape, symbolic dimensions taken as 1 (as onnx's test runner does)."""
    return tuple(d.dim_value if d.HasField("dim_value") else 1 for d in value.type.tensor_type.shape.dim)


def random_inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    """Seeded U[0, 1) float32 inputs (onnx's test runner's `random=True` data)."""
    rng = np.random.default_rng(seed)
    return {value.name: rng.random(static_shape(value), np.float32) for value in feed_inputs(model)}


def onnx_runner(model: onnx.ModelProto, external: Weights | None = None
                ) -> Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """A function running the model on inputs: one onnxruntime session (fast) when onnxruntime is
    installed and accepts the model, else onnx's ReferenceEvaluator (always there, slower). Callers
    with many inputs keep it: a session costs more to build than small models take to run.
    `external`: the data of the model's initializers marked external (`_stub`), by name."""
    names = [output.name for output in model.graph.output]
    external = external or {}
    try:
        import onnxruntime
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.log_severity_level = 3  # no warnings about the initializers the probes leave unused
        # Idle workers sleep instead of spinning: on a loaded machine, or beside the compile's own threads,
        # spinning burns the cores the other work needs (ResNet-50, 8 runs at load 10: 1.6 s CPU, 1.0 s without)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if external:  # copied once into the session, never serialized with the model
            options.add_external_initializers(list(external), [onnxruntime.OrtValue.ortvalue_from_numpy(array)
                                                               for array in external.values()])
        session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                               providers=["CPUExecutionProvider"])
    except Exception:  # not installed, or too old for the model's IR version: the reference evaluator runs all
        from onnx.reference import ReferenceEvaluator
        if external:
            model = onnx.ModelProto.FromString(model.SerializeToString())
            _fill(model, external)
        evaluator = ReferenceEvaluator(model)
        return lambda inputs: dict(zip(names, evaluator.run(names, inputs)))
    return lambda inputs: dict(zip(names, session.run(names, inputs)))


def run_onnx(model: onnx.ModelProto, inputs: dict[str, np.ndarray],
             external: Weights | None = None) -> dict[str, np.ndarray]:
    """The model's outputs on `inputs` (`onnx_runner`'s session, built for this one run)."""
    return onnx_runner(model, external)(inputs)


def randomize_weights(model: onnx.ModelProto, seed: int, run: RunModel = run_onnx) -> onnx.ModelProto:
    """A copy whose constant-shape `ConstantOfShape` nodes are seeded random initializers (module docstring).

    Weights are drawn in node order from one `default_rng(seed)`. The shape
    initializers that fed the replaced nodes are dropped; new initializers are
    also listed as graph inputs when the model's IR version (< 4) requires it.
    `run` executes the batch-norm calibration probe (model, inputs, the drawn weights the model holds as
    external stubs).
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    drawn = _draw_weights(model, seed)
    _probe_statistics(model, drawn, random_inputs(model, seed), run, peak=False)
    _fill(model, drawn)
    return model


def randomize_weights_in_place(model: onnx.ModelProto, seed: int, run: RunModel = run_onnx) -> float:
    """`randomize_weights` on `model` itself, returning `activation_peak` of the result on
    `random_inputs(model, seed)`: what `lamina-compile --random-weights` needs, without copying the model.

    One probe run gives both the batch norms' statistics and the peak: in the probe every batch norm
    normalizes with its input's own statistics, which is what the calibrated batch norm computes (to
    float rounding, 1e-6 relative; the peak is reported to 3 digits), so the probe's values are the
    randomized model's.
    """
    drawn = _draw_weights(model, seed)
    peak = _probe_statistics(model, drawn, random_inputs(model, seed), run, peak=True)
    _fill(model, drawn)
    return peak


def activation_peak(model: onnx.ModelProto, inputs: dict[str, np.ndarray], run: RunModel = run_onnx) -> float:
    """The largest |value| any node computes on `inputs` (floating-point values only)."""
    with _probe(model, _node_outputs(model.graph), instance_norms=False):
        return _peak(run(model, inputs, {}).values())


def _draw_weights(model: onnx.ModelProto, seed: int) -> Weights:
    """`randomize_weights` without the batch-norm statistics, in place; the drawn weights of rank >= 2 are
    left as external stubs (`_stub`) and returned by name, for the probe to pass beside the model."""
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
        new_weights.append((node.output[0], _random_weight(rng, shape).astype(_constant_of_shape_dtype(node),
                                                                          copy=False)))
    del graph.node[:]
    graph.node.extend(kept_nodes)
    _drop_unused_initializers(graph, shape_names)
    _redraw_channel_parameters(graph, rng)
    for name, weight in new_weights:  # written into the model's own message: from_array + extend copy it twice
        tensor = graph.initializer.add()
        tensor.name, tensor.data_type = name, helper.np_dtype_to_tensor_dtype(weight.dtype)
        tensor.dims.extend(weight.shape)
        if weight.ndim >= 2:
            _stub(tensor)
        else:
            tensor.raw_data = weight.tobytes()
    drawn = {name: weight for name, weight in new_weights if weight.ndim >= 2}
    if not any(node.op_type == "BatchNormalization" for node in graph.node):
        _zero_layer_biases(graph, drawn)
    if model.ir_version < 4:
        graph.input.extend(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(weight.dtype),
                                                         weight.shape) for name, weight in new_weights)
    return drawn


def _stub(tensor: onnx.TensorProto) -> None:
    """Mark the tensor's data as external: onnxruntime takes it beside the model (`onnx_runner`), so the
    probe's serialization and session do not copy ResNet-50's 100 MB of weights (VGG-19: 574 MB)."""
    tensor.data_location = onnx.TensorProto.EXTERNAL
    entry = tensor.external_data.add()
    entry.key, entry.value = "location", "lamina-drawn-weights"


def _fill(model: onnx.ModelProto, drawn: Weights) -> None:
    """Write the drawn weights into their stubs: each tensor is then what `numpy_helper.from_array` makes."""
    for tensor in model.graph.initializer:
        if tensor.name in drawn:
            tensor.ClearField("external_data")
            tensor.ClearField("data_location")
            tensor.raw_data = drawn[tensor.name].tobytes()


def _node_outputs(graph: onnx.GraphProto) -> list[str]:
    return [name for node in graph.node for name in node.output if name]


def _peak(values) -> float:
    return max((float(np.abs(v).max()) for v in values if np.issubdtype(v.dtype, np.floating) and v.size),
               default=0.0)


@contextmanager
def _probe(model: onnx.ModelProto, outputs: list[str], instance_norms: bool) -> Iterator[None]:
    """`model` as a probe while the block runs: `outputs` as its outputs and, with `instance_norms`, each
    BatchNormalization an InstanceNormalization (batch 1: it normalizes with its input's own statistics).
    Changed in place and restored after, instead of copied: a copy of ResNet-50 costs a serialization
    of its 100 MB of weights and a parse (VGG-19: 574 MB)."""
    graph = model.graph
    saved_outputs = [_copied(value) for value in graph.output]
    saved_nodes = {index: _copied(node) for index, node in enumerate(graph.node)
                   if instance_norms and node.op_type == "BatchNormalization"}
    try:
        for index, node in saved_nodes.items():
            epsilon = [a for a in node.attribute if a.name == "epsilon"]
            graph.node[index].CopyFrom(helper.make_node(
                "InstanceNormalization", list(node.input[:3]), list(node.output[:1]), name=node.name,
                epsilon=epsilon[0].f if epsilon else 1e-5))
        del graph.output[:]
        graph.output.extend(helper.make_empty_tensor_value_info(name) for name in outputs)
        yield
    finally:
        for index, node in saved_nodes.items():
            graph.node[index].CopyFrom(node)
        del graph.output[:]
        graph.output.extend(saved_outputs)


def _copied(message):
    copy = type(message)()
    copy.CopyFrom(message)
    return copy


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


def _redraw_channel_parameters(graph: onnx.GraphProto, rng: np.random.Generator) -> None:
    """Replace every shipped rank-1 float initializer by a U(0.5, 1.5) draw (module docstring)."""
    for tensor in graph.initializer:
        value = numpy_helper.to_array(tensor)
        if value.ndim == 1 and value.dtype.kind == "f":
            tensor.CopyFrom(numpy_helper.from_array(_random_weight(rng, value.shape).astype(value.dtype), tensor.name))


def _zero_layer_biases(graph: onnx.GraphProto, drawn: Weights) -> None:
    """Set the bias initializer of every Conv and Gemm to 0 (module docstring); a drawn one still a stub
    (a Gemm's may be a matrix) is zeroed where it is drawn."""
    tensors = {tensor.name: tensor for tensor in graph.initializer}
    for node in graph.node:
        if node.op_type in ("Conv", "Gemm") and len(node.input) > 2 and node.input[2] in drawn:
            drawn[node.input[2]][...] = 0
        elif node.op_type in ("Conv", "Gemm") and len(node.input) > 2 and node.input[2] in tensors:
            bias = numpy_helper.to_array(tensors[node.input[2]])
            tensors[node.input[2]].CopyFrom(numpy_helper.from_array(np.zeros_like(bias), node.input[2]))


def _probe_statistics(model: onnx.ModelProto, drawn: Weights, inputs: dict[str, np.ndarray], run: RunModel,
                      peak: bool) -> float | None:
    """Set each BatchNormalization's mean and variance to its input's statistics on `inputs` (batch 1).
    With `peak`, the probe also returns every node's value and this returns their largest |value|
    (`randomize_weights_in_place`); a model without batch norms is then run as it is. Without `peak` and
    batch norms, nothing runs."""
    batch_norms = [node for node in model.graph.node if node.op_type == "BatchNormalization"]
    if not batch_norms and not peak:
        return None
    wanted = list(dict.fromkeys([node.input[0] for node in batch_norms]
                                + (_node_outputs(model.graph) if peak else [])))
    with _probe(model, wanted, instance_norms=True):
        values = run(model, inputs, drawn)
        computed = set(_node_outputs(model.graph))  # the probe's nodes: a batch norm's input may be a model input
    tensors = {tensor.name: tensor for tensor in model.graph.initializer}
    for node in batch_norms:
        activation = values[node.input[0]].astype(np.float64)
        axes = (0, *range(2, activation.ndim))
        for name, value in ((node.input[3], activation.mean(axis=axes)), (node.input[4], activation.var(axis=axes))):
            dtype = numpy_helper.to_array(tensors[name]).dtype
            tensors[name].CopyFrom(numpy_helper.from_array(value.astype(dtype), name))
    return _peak(value for name, value in values.items() if name in computed) if peak else None


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
