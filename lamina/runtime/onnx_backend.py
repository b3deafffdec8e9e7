"""Lamina as an ONNX backend (`onnx.backend.base`): import, then interpret.

This is the interface ONNX's backend test runner drives, so ONNX's own node
test suite checks the importer and the reference interpreter together.
`prepare` imports once; the returned rep runs the graph interpreter on
positional inputs, as every ONNX backend does. A model that imports only once
some inputs' values are known (a Reshape shape or Squeeze axes fed as a graph
input) is imported at its first run instead, with those inputs bound to their
values (`lamina/frontend/input_binding.py`); a run with other values for them
imports again. Inputs with dynamic dimensions not fixed by `input_shapes` are
likewise fixed to the shapes of the first run's arrays.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import onnx
from onnx import helper, shape_inference
from onnx.backend.base import Backend, BackendRep, Device, DeviceType, namedtupledict

from lamina.dialects.context import make_context
from lamina.dialects.diagnostics import LaminaError
from lamina.frontend.input_binding import bind_inputs, value_inputs
from lamina.frontend.onnx_importer import import_model, unsupported_nodes
from lamina.frontend.static_shapes import dynamic_inputs
from lamina.frontend.validation import check_with_onnx_checker
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


Execute = Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]


class LaminaBackendRep(BackendRep):
    """An imported model, run by the backend's executor (the graph interpreter by default)."""

    def __init__(self, context, module, execute: Execute, input_names: list[str], output_names: list[str]):
        self._context = context  # the module lives as long as its context
        self.module = module
        self.execute = execute
        self.input_names = input_names
        self.output_names = output_names

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """Outputs in graph-output order, also addressable by output name."""
        values = _positional(inputs, self.input_names, "the model")
        results = self.execute(dict(zip(self.input_names, values)))
        return namedtupledict("Outputs", self.output_names)(*(results[name] for name in self.output_names))


Prepare = Callable[[onnx.ModelProto, dict[str, tuple[int, ...]]], BackendRep]


class SpecializingBackendRep(BackendRep):
    """A model imported at run time with its value inputs bound and its dynamic input shapes fixed by
    the arrays given; one import per distinct bound value and shape."""

    def __init__(self, prepare: Prepare, model: onnx.ModelProto, bound: list[str], shaped: list[str]):
        self._prepare = prepare
        self.model = model
        self.bound = bound
        self.shaped = [name for name in shaped if name not in bound]
        self.input_names = _runtime_input_names(model.graph)
        self._reps: dict[tuple, BackendRep] = {}

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        values = dict(zip(self.input_names, _positional(inputs, self.input_names, "the model")))
        bound = {name: values[name] for name in self.bound}
        shapes = {name: values[name].shape for name in self.shaped}
        key = (tuple((name, value.dtype.str, value.shape, value.tobytes()) for name, value in bound.items()),
               tuple(shapes.items()))
        if key not in self._reps:
            self._reps[key] = self._prepare(bind_inputs(self.model, bound), shapes)
        return self._reps[key].run([value for name, value in values.items() if name not in bound], **kwargs)


class LaminaBackend(Backend):
    """ONNX models on the CPU through Lamina's importer and graph interpreter."""

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return Device(device).type == DeviceType.CPU

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        """False when the importer would refuse the model: an unsupported node, element type or
        shape, a model it cannot analyse at all (too old an opset, failed shape inference), or one
        ONNX's full checker rejects."""
        if not cls.supports_device(device):
            return False
        try:
            if unsupported_nodes(model, kwargs.get("input_shapes")):
                return False
            check_with_onnx_checker(model, model.graph.name or "<onnx model>")
            return True
        except LaminaError:
            return False

    @classmethod
    def executor(cls, module) -> Execute:
        """What runs an imported module: the graph interpreter here; other backends compile it."""
        return lambda feeds: interpret(module, feeds)

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> BackendRep:
        """Import `model` once (or at run time, see the module docstring); `input_shapes` (name -> shape)
        fixes dynamic input dimensions."""
        if not cls.supports_device(device):
            raise LaminaError(f"Lamina runs on the CPU only, not on device '{device}'")
        with _onnx_checker_errors(f"model '{model.graph.name}'"):
            super().prepare(model, device, **kwargs)
        bound = cls.value_inputs_needed(model, **kwargs)
        shaped = [name for name in dynamic_inputs(model) if name not in (kwargs.get("input_shapes") or {})]
        if bound or shaped:
            def prepare_specialized(specialized: onnx.ModelProto, shapes: dict[str, tuple[int, ...]]) -> BackendRep:
                return cls.prepare(specialized, device, **{**kwargs, "input_shapes": {**kwargs.get("input_shapes", {}),
                                                                                         **shapes}})
            return SpecializingBackendRep(prepare_specialized, model, bound, shaped)
        context = make_context()
        module = import_model(model, context, input_shapes=kwargs.get("input_shapes"))
        output_names = [value.name for value in model.graph.output]
        return LaminaBackendRep(context, module, cls.executor(module), _runtime_input_names(model.graph), output_names)

    @classmethod
    def value_inputs_needed(cls, model: onnx.ModelProto, **kwargs: Any) -> list[str]:
        """The inputs to bind before `model` can import; empty when it imports as it is."""
        bound = value_inputs(model)
        if not bound:
            return []
        try:
            return bound if unsupported_nodes(model, kwargs.get("input_shapes")) else []
        except LaminaError:
            return bound

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
