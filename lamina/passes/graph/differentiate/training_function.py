"""Build a training function next to a model function (Glow's `differentiate` and
`prepareFunctionForTraining`).

The model's float initializers become placeholders named after them, read by
both functions (Glow's module-owned placeholders; their values are kept on
the module as `lamina.weights`, a dictionary of dense elements, until a
runtime binds them). The training function `<name>_grad` is a copy of the
model function with batch normalization in training mode, the loss, the
backward pass and, per trained weight, an SGD step saved back under the
weight's own name: a save named like a placeholder writes it (Glow's
Save(SGD, W)), which makes the weight mutable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import FLOAT_DTYPES, GRAPH
from lamina.dialects.graph_training import LOSS_DTYPE
from lamina.dialects.irdl import ELEMENTS
from lamina.dialects.model import function_name, functions, main_function
from lamina.dialects.types import TensorSpec, spec_of
from lamina.passes.graph.lower import lower_op
from lamina.passes.graph.lowerings import LOWERINGS, Emitter
from lamina.passes.graph.rewriting import graph_ops, op_name, replace_op

from .backward import backward
from .rules import GRADIENTS
from .training_mode import batch_norm_for_training

WEIGHTS_ATTRIBUTE = "lamina.weights"
LOSSES = ("softmax-cross-entropy", "mse")
LOSS_OPS = {"softmax-cross-entropy": "softmax_cross_entropy", "mse": "mean_squared_error"}


@dataclass(frozen=True)
class TrainingConfig:
    """What to train and how (Glow's TrainingConfig plus the loss)."""

    loss: str = "softmax-cross-entropy"
    output: str = ""  # the model output the loss reads; "" when the model has one
    labels: str = "labels"
    learning_rate: float = 0.01
    momentum: float = 0.0
    l1_decay: float = 0.0
    l2_decay: float = 0.0
    batch_size: int = 1  # the SGD step divides gradients by it (the loss is already a batch mean)
    freeze: tuple[str, ...] = ()
    weights: tuple[str, ...] = ()  # the constants that may be trained (ONNX initializers); (): every named one
    batch_norm_momentum: float = 0.1
    update: str = "sgd"  # "sgd", or "gradients": save each gradient as `<weight>.grad` instead
    input_gradients: bool = False  # also save `<input>.grad` for every float model input
    function: str = ""  # the model function; "" when the module holds one


def differentiate(module: ir.Operation, config: TrainingConfig) -> str:
    """Add the training function of `config.function` to `module`; returns its name."""
    if config.loss not in LOSSES:
        raise LaminaError(f"unknown loss '{config.loss}'; known losses: {', '.join(LOSSES)}")
    model = main_function(module, config.function or None)
    name = f"{function_name(model)}_grad"
    if any(function_name(f) == name for f in functions(module)):
        raise LaminaError(f"the module already has a function '{name}'")
    trained = _weights_to_placeholders(module, model, set(config.freeze), set(config.weights))
    with module.context, module.location:
        training = model.clone(ip=ir.InsertionPoint(module.regions[0].blocks[0]))
        training.attributes["sym_name"] = ir.StringAttr.get(name)
        _build(module, training.regions[0].blocks[0], trained, config)
    return name


def initial_values(module: ir.Operation) -> dict[str, np.ndarray]:
    """The values of the module's weight placeholders (`lamina.weights`), by name."""
    if WEIGHTS_ATTRIBUTE not in module.attributes:
        return {}
    table = ir.DictAttr(module.attributes[WEIGHTS_ATTRIBUTE])
    return {table[i].name: ELEMENTS.decode(table[i].attr) for i in range(len(table))}


def _initializers(block: ir.Block) -> dict[str, ir.Operation]:
    """Constants the importer made from named initializers (their location is the name), by name."""
    found = {}
    for op in block.operations:
        if op.operation.name == "graph.constant" and op.location.is_a_name():
            found[op.location.name_str] = op.operation
    return found


def _statistics(block: ir.Block) -> set[ir.Value]:
    """The running mean and variance of every batch_norm: state the training function updates, not weights."""
    return {op.operands[i] for op in block.operations if op.operation.name == "graph.batch_norm" for i in (3, 4)}


def _weights_to_placeholders(module: ir.Operation, model: ir.Operation, frozen: set[str],
                             allowed: set[str]) -> set[str]:
    """Turn the model's float initializers (except `frozen`) into placeholders; returns the trained names."""
    block = model.regions[0].blocks[0]
    initializers = {name: op for name, op in _initializers(block).items() if not allowed or name in allowed}
    unknown = sorted(frozen - set(initializers))
    if unknown:
        known = ", ".join(sorted(initializers)) or "none"
        raise LaminaError(f"--freeze: '{unknown[0]}' is not a weight of the model; its weights are {known}")
    statistics = _statistics(block)
    table = dict(_existing_table(module))
    trained = set()
    with module.context, module.location:
        for name, constant in initializers.items():
            spec = spec_of(constant.results[0].type)
            if name in frozen or spec.dtype not in FLOAT_DTYPES:
                continue
            if constant.results[0] not in statistics:
                trained.add(name)
            table[name] = constant.attributes["value"]
            with ir.InsertionPoint(constant):
                placeholder = GRAPH.create("placeholder", result_types=[spec], name=name, loc=constant.location)
            replace_op(constant, [placeholder.result])
        module.attributes[WEIGHTS_ATTRIBUTE] = ir.DictAttr.get(table)
    return trained


def _existing_table(module: ir.Operation):
    if WEIGHTS_ATTRIBUTE not in module.attributes:
        return []
    table = ir.DictAttr(module.attributes[WEIGHTS_ATTRIBUTE])
    return [(table[i].name, table[i].attr) for i in range(len(table))]


def _build(module: ir.Operation, block: ir.Block, trained: set[str], config: TrainingConfig) -> None:
    output = _checked_output(block, config)
    for op in graph_ops(_function_of(block)):
        if op_name(op) == "batch_norm":
            batch_norm_for_training(GRAPH.view(op), config.batch_norm_momentum)
    _expand_ops_without_rules(block)
    placeholders = {GRAPH.view(op).attr("name"): op.operation for op in block.operations
                    if op.operation.name == "graph.placeholder"}
    for reserved in (config.labels, "loss"):
        if reserved in placeholders or reserved in _saves(block):
            raise LaminaError(f"the model already has a value named '{reserved}', which training needs for itself")
    sources = {name: placeholders[name].results[0] for name in sorted(trained) if name in placeholders}
    if config.input_gradients:
        sources.update({name: op.results[0] for name, op in placeholders.items()
                        if name not in _existing_names(module) and spec_of(op.results[0].type).dtype in FLOAT_DTYPES})
    prediction = _saves(block)[output].operands[0]  # after the rewrites above
    with ir.InsertionPoint.at_block_terminator(block):
        seed = _loss(prediction, config)
        grads = backward(block, sources, prediction, seed)
        _updates(module, sources, grads, trained, config)


def _function_of(block: ir.Block) -> ir.Operation:
    return block.owner.operation


def _existing_names(module: ir.Operation) -> set[str]:
    return {name for name, _ in _existing_table(module)}


def _saves(block: ir.Block) -> dict[str, ir.Operation]:
    return {GRAPH.view(op).attr("name"): op.operation for op in block.operations if op.operation.name == "graph.save"}


def _checked_output(block: ir.Block, config: TrainingConfig) -> str:
    """The name of the output the loss reads, checked against the loss."""
    saves = _saves(block)
    if config.output:
        if config.output not in saves:
            raise LaminaError(f"the model has no output '{config.output}'; its outputs are {', '.join(saves)}")
        name = config.output
    elif len(saves) == 1:
        (name,) = saves
    else:
        raise LaminaError(f"the model has outputs {', '.join(saves)}; name the one the loss reads")
    value = saves[name].operands[0]
    spec = spec_of(value.type)
    if spec.dtype != LOSS_DTYPE:
        raise LaminaError(f"the {config.loss} loss needs an f32 output, output '{name}' is {spec}")
    if config.loss == "softmax-cross-entropy" and spec.rank != 2:
        raise LaminaError(f"the softmax-cross-entropy loss needs [batch, classes] logits, output '{name}' is "
                          f"{spec}; use --loss mse or reshape the output")
    return name


def _expand_ops_without_rules(block: ir.Block) -> None:
    """Ops with a lowering but no gradient rule (gelu, swish, layer_norm, lrn, global pools) are
    differentiated through their lowering, which computes the same value from ruled ops."""
    for op in graph_ops(_function_of(block)):
        name = op_name(op)
        if name not in GRADIENTS and name in LOWERINGS and not GRAPH.ops[name].training:
            lower_op(GRAPH.view(op))


def _loss(prediction: ir.Value, config: TrainingConfig) -> ir.Value:
    """Add the labels placeholder, the loss and its save; returns the loss gradient at the prediction."""
    spec = spec_of(prediction.type)
    label_spec = TensorSpec(spec.shape[:1], np.int64) if config.loss == "softmax-cross-entropy" else spec
    loc = ir.Location.name(config.labels)
    labels = GRAPH.create("placeholder", result_types=[label_spec], name=config.labels, loc=loc).result
    loss_op = LOSS_OPS[config.loss]
    loss = GRAPH.create(loss_op, prediction, labels, loc=ir.Location.name("loss")).result
    GRAPH.create("save", loss, name="loss", loc=ir.Location.name("loss"))
    return GRAPH.create(f"{loss_op}_grad", prediction, labels, loc=ir.Location.name("loss")).result


def _updates(module: ir.Operation, sources: dict[str, ir.Value], grads: dict, trained: set[str],
             config: TrainingConfig) -> None:
    """Per trained weight an SGD step saved back under its name (and its velocity), or its raw gradient."""
    velocities = {}
    for name, value in sources.items():
        spec = spec_of(value.type)
        emit = Emitter(ir.Location.name(name))
        grad = grads.get(value) or emit.splat(0.0, spec)
        if config.update == "gradients" or name not in trained:
            GRAPH.create("save", grad, name=f"{name}.grad", loc=emit.loc)
            continue
        velocity_name = f"{name}.velocity"
        velocity = (GRAPH.create("placeholder", result_types=[spec], name=velocity_name, loc=emit.loc).result
                    if config.momentum else emit.splat(0.0, spec))
        step = GRAPH.create("sgd", grad, value, velocity, loc=emit.loc, learning_rate=config.learning_rate,
                            momentum=config.momentum, l1_decay=config.l1_decay, l2_decay=config.l2_decay,
                            batch_size=config.batch_size)
        GRAPH.create("save", step.results[0], name=name, loc=emit.loc)
        if config.momentum:
            GRAPH.create("save", step.results[1], name=velocity_name, loc=emit.loc)
            velocities[velocity_name] = ir.DenseElementsAttr.get_splat(
                ir.RankedTensorType(value.type), ir.FloatAttr.get(ir.RankedTensorType(value.type).element_type, 0.0))
    if velocities:
        module.attributes[WEIGHTS_ATTRIBUTE] = ir.DictAttr.get({**dict(_existing_table(module)), **velocities})
