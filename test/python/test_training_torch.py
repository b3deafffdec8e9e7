"""Gradients and SGD steps against torch: random torch models exported to ONNX, differentiated by
Lamina, compared with torch.autograd; one SGD-with-momentum step against torch.optim.SGD."""

from __future__ import annotations

import io

import numpy as np
import onnx
import pytest
import torch

from lamina.dialects.context import make_context
from lamina.frontend.onnx_importer import import_model
from lamina.passes.graph.differentiate import TrainingConfig, initial_values

from gradient_check import training_runner

BATCH = 4
ACTIVATIONS = [torch.nn.ReLU, torch.nn.Sigmoid, torch.nn.Tanh, lambda: torch.nn.LeakyReLU(0.1)]


def random_model(seed: int) -> tuple[torch.nn.Module, tuple]:
    """A seeded random CNN or MLP with healthy activations; returns it with its input shape."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    if seed % 2:
        width = int(rng.integers(3, 7))
        layers = [torch.nn.Linear(5, width), ACTIVATIONS[rng.integers(4)](), torch.nn.Linear(width, 3)]
        return torch.nn.Sequential(*layers), (BATCH, 5)
    channels = int(rng.integers(2, 5))
    layers = [torch.nn.Conv2d(2, channels, 3, stride=int(rng.integers(1, 3)), padding=1)]
    if rng.integers(2):
        layers.append(torch.nn.BatchNorm2d(channels))
    layers.append(ACTIVATIONS[rng.integers(4)]())
    if rng.integers(2):
        layers.append(torch.nn.MaxPool2d(2) if rng.integers(2) else torch.nn.AvgPool2d(2))
    model = torch.nn.Sequential(*layers, torch.nn.Flatten())
    features = model(torch.zeros(1, 2, 6, 6)).shape[1]
    model.append(torch.nn.Linear(features, 3))
    for module in model.modules():  # statistics unlike the affine parameters (the exporter merges equal tensors)
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.5, 0.5)
            module.running_var.uniform_(0.5, 1.5)
            module.weight.data.uniform_(0.5, 1.5)
    return model, (BATCH, 2, 6, 6)


def exported(model: torch.nn.Module, shape: tuple) -> onnx.ModelProto:
    buffer = io.BytesIO()
    torch.onnx.export(model.eval(), torch.zeros(shape), buffer, input_names=["x"], output_names=["y"], dynamo=False,
                      training=torch.onnx.TrainingMode.PRESERVE)  # keeps batch norm unfolded
    return onnx.load_from_string(buffer.getvalue())


@pytest.mark.parametrize("seed", range(6))
def test_gradients_match_torch_autograd(seed):
    model, shape = random_model(seed)
    proto = exported(model, shape)
    rng = np.random.default_rng(100 + seed)
    x = rng.standard_normal(shape).astype(np.float32)
    labels = rng.integers(0, 3, BATCH)

    module = import_model(proto, make_context(), {"x": shape})
    config = TrainingConfig(update="gradients", weights=tuple(i.name for i in proto.graph.initializer))
    run = training_runner(module, "interpreter", config)
    results = run({**initial_values(module), "x": x, "labels": labels})

    model.train()
    loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(labels))
    loss.backward()
    assert results["loss"] == pytest.approx(loss.item(), rel=1e-5)
    for name, parameter in model.named_parameters():
        expected = parameter.grad.numpy()
        np.testing.assert_allclose(results[f"{name}.grad"], expected, rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    for name, buffer in model.named_buffers():  # batch norm's running averages, updated as torch does
        if name.endswith(("running_mean", "running_var")):
            np.testing.assert_allclose(results[name], buffer.numpy(), rtol=1e-5, atol=1e-6, err_msg=name)


def test_sgd_with_momentum_matches_torch_optim_on_the_cpu_path():
    """Three steps of SGD (momentum 0.9, L2 decay) on the CPU path against torch.optim.SGD, within 1e-5."""
    from lamina.runtime.trainer import TrainOptions, Trainer

    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh(), torch.nn.Linear(4, 3))
    buffer = io.BytesIO()
    torch.onnx.export(model, torch.zeros(2, 5), buffer, input_names=["x"], output_names=["y"], dynamo=False,
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    options = TrainOptions(batch=BATCH, learning_rate=0.1, momentum=0.9, l2_decay=0.01)
    trainer = Trainer(onnx.load_from_string(buffer.getvalue()), options, "model.onnx", {"x": (5,)})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.01)
    rng = np.random.default_rng(0)
    for _ in range(3):
        x, labels = rng.standard_normal((BATCH, 5)).astype(np.float32), rng.integers(0, 3, BATCH)
        loss, _ = trainer.step({"x": x}, labels)
        optimizer.zero_grad()
        expected = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)), torch.from_numpy(labels))
        expected.backward()
        optimizer.step()
        assert loss == pytest.approx(expected.item(), abs=1e-5)
    for name, parameter in model.named_parameters():
        np.testing.assert_allclose(trainer.state[name], parameter.detach().numpy(), rtol=0, atol=1e-5, err_msg=name)
