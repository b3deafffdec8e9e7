"""The `graph-differentiate` pass: `training_function.differentiate` as a pipeline step."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mlir import ir

from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass

from .training_function import TrainingConfig, differentiate


@register_pass
@dataclass(frozen=True)
class GraphDifferentiate(Pass):
    """Add `@<f>_grad`, the training function of model function `f`, to the module (Glow's
    `differentiate`): forward (batch normalization in training mode, updating its running
    mean and variance), the loss (`labels` placeholder, `loss` save), the backward pass, and
    per trained weight an `sgd` step saved back under the weight's name.

    The model's float initializers become placeholders named after them in both
    functions, their values kept in the module's `lamina.weights`; `freeze`
    keeps the named ones constant. Run it on a freshly imported graph (before
    `graph-optimize`, which folds weights away); gradient, loss and SGD ops are
    then lowered by every backend's `graph-lower`. An op between the weights and
    the loss without a gradient is an error naming it.
    """

    name = "graph-differentiate"
    summary = "Add the training function (forward, loss, backward, SGD) of the model function"
    op_name = "builtin.module"

    loss: Literal["softmax-cross-entropy", "mse"] = option("softmax-cross-entropy", "the loss added to the output")
    output: str = option("", "the output the loss reads ('' when the model has one)")
    learning_rate: float = option(0.01, "SGD learning rate")
    momentum: float = option(0.0, "SGD momentum")
    l1_decay: float = option(0.0, "L1 weight decay")
    l2_decay: float = option(0.0, "L2 weight decay")
    batch_size: int = option(1, "SGD divides gradients by this (the loss is already a batch mean)")
    freeze: tuple[str, ...] = option((), "weights that stay constant")
    update: Literal["sgd", "gradients"] = option("sgd", "save SGD-updated weights, or the raw gradients")

    def run(self, op: ir.Operation) -> None:
        differentiate(op, TrainingConfig(loss=self.loss, output=self.output, learning_rate=self.learning_rate,
                                         momentum=self.momentum, l1_decay=self.l1_decay, l2_decay=self.l2_decay,
                                         batch_size=self.batch_size, freeze=tuple(self.freeze),
                                         update=self.update))
