"""Lamina as an ONNX backend (`onnx.backend.base`): import, then interpret.

This is the interface ONNX's backend test runner drives, so ONNX's own node
test suite checks the importer and the reference interpreter together.
`prepare` imports once; the returned rep runs the graph interpreter on
positional inputs, as every ONNX backend does.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np
import onnx
from onnx import helper, shape_inference
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.onnx_importer import import_model, unsupported_nodes
from lamina.runtime.graph_interpreter import run as interpret


def _runtime_input_names(graph: onnx.GraphProto) -> list[str]:
    """Graph inputs fed at run time: initializers may be listed as inputs too."""
    initializers = {tensor.name for tensor in graph.initializer}
    return [value.name for value in graph.input if value.name not in initializers]


def _positional(inputs: Any, names: Sequence[str], what: str) -> list[np.ndarray]:
    """Inputs as a list in `names` order, from a list, a dict by name or one array."""
    if isinstance(inputs, dict):
        missing = [name for name in names if name not in inputs]
        if missing or len(inputs) != len(names):
            raise LaminaError(f"{what} takes inputs {list(names)}, got {list(inputs)}")
        return [np.asarray(inputs[name]) for name in names]
    if isinstance(inputs, np.ndarray):
        inputs = [inputs]
    inputs = list(inputs)
    if len(inputs) != len(names):
        raise LaminaError(f"{what} takes {len(names)} input(s) {list(names)}, got {len(inputs)}")
    return [np.asarray(value) for value in inputs]


@contextmanager
def _onnx_checker_errors(subject: str) -> Iterator[None]:
    """The ONNX checker's (or shape inference's) verdict on a user's model or node, as a LaminaError."""
    try:
        yield
    except (onnx.checker.ValidationError, shape_inference.InferenceError) as error:
        raise LaminaError(f"{subject} is not valid ONNX: {str(error).strip().splitlines()[0]}") from None


class LaminaBackendRep(BackendRep):
    """An imported model, run by the graph interpreter."""

    def __init__(self, context, module, input_names: list[str], output_names: list[str]):
        self._context = context  # the module lives as long as its context
        self.module = module
        self.input_names = input_names
        self.output_names = output_names

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Outputs in graph-output order, also addressable by output name."""
        values = _positional(inputs, self.input_names, "the model")
        results = interpret(self.module, dict(zip(self.input_names, values)))
        return namedtupledict("Outputs", self.output_names)(*(results[name] for name in self.output_names))


class LaminaBackend(Backend):
    """ONNX models on the CPU through Lamina's importer and graph interpreter."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        """False when the importer would refuse the model: an unsupported node, element type or
        shape, or a model it cannot analyse at all (too old an opset, failed shape inference)."""
        if not cls.supports_device(device):
            return False
        try:
            return not unsupported_nodes(model, kwargs.get("input_shapes"))
        except LaminaError:
            return False

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> LaminaBackendRep:
        """Import `model` once; `input_shapes` (name -> shape) fixes dynamic input dimensions."""
        if not cls.supports_device(device):
            raise LaminaError(f"Lamina runs on the CPU only, not on device '{device}'")
        with _onnx_checker_errors(f"model '{model.graph.name}'"):
            super().prepare(model, device, **kwargs)
        context = make_context()
        module = import_model(model, context, input_shapes=kwargs.get("input_shapes"))
        output_names = [value.name for value in model.graph.output]
        return LaminaBackendRep(context, module, _runtime_input_names(model.graph), output_names)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple[np.dtype, tuple[int, ...]]] | None = None,
                 **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Run one node as a one-node model typed by its inputs (and `outputs_info` if given).

        Without `outputs_info`, ONNX shape inference types the outputs.
        `opset_version` selects the operator's version (default: the newest).
        """
        subject = f"node '{node.name or node.op_type}'"
        with _onnx_checker_errors(subject):
            super().run_node(node, inputs, device=device, outputs_info=outputs_info, **kwargs)
        names = [name for name in node.input if name]  # an empty name omits an optional input
        values = _positional(inputs, names, subject)
        output_names = [name for name in node.output if name]
        if outputs_info is None:
            outputs = [helper.make_empty_tensor_value_info(name) for name in output_names]
        else:
            outputs = [_value_info(name, dtype, shape) for name, (dtype, shape) in zip(output_names, outputs_info)]
        graph = helper.make_graph([node], node.name or node.op_type,
                                  [_value_info(name, value.dtype, value.shape) for name, value in zip(names, values)],
                                  outputs)
        opset = kwargs.get("opset_version", onnx.defs.onnx_opset_version())
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid(node.domain, opset)])
        with _onnx_checker_errors(subject):
            model = shape_inference.infer_shapes(model, strict_mode=True)  # types the outputs
        return cls.run_model(model, values, device)


def _value_info(name: str, dtype: np.dtype, shape: Sequence[int]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape)
