"""Making a model's shapes static: input shape overrides, then ONNX shape inference.

Lamina's graph level has static shapes only. Dynamic input dimensions
(`dim_param`, no value, or the -1 and 0 that some exporters write for
"unknown") are fixed by the user (`--input-shape NAME=1x3x224x224`,
`input_shapes=` in Python); ONNX shape inference with data propagation then
gives every intermediate value its static shape.
"""

from __future__ import annotations

import re
from typing import Mapping

import numpy as np
import onnx
from onnx import helper, numpy_helper

from lamina.dialects.diagnostics import LaminaError

_SHAPE_OPTION = re.compile(r"^(?P<name>.+)=(?P<dims>\d+(x\d+)*)?$")
_SIGNED_DIMS = re.compile(r"^.+=-?\d+(x-?\d+)*$")


def parse_input_shape(text: str) -> tuple[str, tuple[int, ...]]:
    """`NAME=1x3x224x224` -> ("NAME", (1, 3, 224, 224)); `NAME=` is a scalar."""
    match = _SHAPE_OPTION.match(text)
    if match is None and _SIGNED_DIMS.match(text):
        raise LaminaError(f"--input-shape gives a negative dimension in '{text}': give every dimension its size "
                          f"(e.g. 1 for a batch dimension the model declares as -1)")
    if match is None:
        raise LaminaError(f"--input-shape expects NAME=DIMxDIM... (e.g. data=1x3x224x224), got '{text}'")
    dims = match.group("dims")
    return match.group("name"), tuple(int(d) for d in dims.split("x")) if dims else ()


def graph_inputs(graph: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    """The real inputs: graph inputs that are not also initializers (as in IR < 4 models)."""
    initialized = {tensor.name for tensor in graph.initializer}
    return [value for value in graph.input if value.name not in initialized]


def declared_dims(value: onnx.ValueInfoProto) -> list[int | str | None] | None:
    """Each dimension as an int, its symbolic name, or None (no value, or a negative one); None for no shape."""
    tensor_type = value.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [
        (dim.dim_value if dim.dim_value >= 0 else None) if dim.HasField("dim_value") else (dim.dim_param or None)
        for dim in tensor_type.shape.dim
    ]


def input_dims(value: onnx.ValueInfoProto) -> list[int | str | None] | None:
    """`declared_dims` of a graph input as the model declares it: a 0 there is dynamic too (exporters
    write 0 for "unknown"); a real empty input is given with --input-shape."""
    dims = declared_dims(value)
    return None if dims is None else [None if dim == 0 else dim for dim in dims]


def dynamic_inputs(model: onnx.ModelProto) -> list[str]:
    """Graph inputs with a dynamic dimension or no shape."""
    return [value.name for value in graph_inputs(model.graph)
            if value.type.HasField("tensor_type") and not _all_known(input_dims(value))]


def _all_known(dims) -> bool:
    return dims is not None and all(isinstance(dim, int) for dim in dims)


def apply_input_shapes(model: onnx.ModelProto, input_shapes: dict[str, tuple[int, ...]], source: str) -> None:
    """Fix the shapes of the named inputs of `model` in place."""
    inputs = {value.name: value for value in graph_inputs(model.graph)}
    for name, shape in input_shapes.items():
        if name not in inputs:
            raise LaminaError(f"{source}: --input-shape names '{name}', which is not a model input; "
                              f"inputs: {', '.join(inputs) or 'none'}")
        if any(size < 0 for size in shape):
            raise LaminaError(f"{source}: input '{name}' is given the negative dimension in {shape}")
        dims = input_dims(inputs[name])
        if dims is not None and len(dims) != len(shape):
            raise LaminaError(f"{source}: input '{name}' has rank {len(dims)}, "
                              f"but --input-shape gives {len(shape)} dimensions")
        for axis, (declared, given) in enumerate(zip(dims or [], shape)):
            if isinstance(declared, int) and declared != given:
                raise LaminaError(f"{source}: input '{name}' dimension {axis} is {declared} in the model, "
                                  f"--input-shape gives {given}")
        shape_proto = inputs[name].type.tensor_type.shape
        shape_proto.Clear()
        for size in shape:
            shape_proto.dim.add().dim_value = size


def require_static_inputs(model: onnx.ModelProto, source: str, fixed=()) -> None:
    """Every graph input not `fixed` by the user must have a fully known shape; name each one that does not."""
    unfixed = [value for value in graph_inputs(model.graph) if value.name not in fixed]
    problems = [problem for problem in map(_dynamic_input_problem, unfixed) if problem]
    if problems:
        raise LaminaError(f"{source}: " + "; ".join(problems))


def _dynamic_input_problem(value: onnx.ValueInfoProto) -> str | None:
    if not value.type.HasField("tensor_type"):
        return f"input '{value.name}' is not a tensor"
    dims = input_dims(value)
    if dims is None:
        return f"input '{value.name}' has no shape; give it one with --input-shape {value.name}=DIMxDIM..."
    dynamic = [axis for axis, dim in enumerate(dims) if not isinstance(dim, int)]
    if not dynamic:
        return None
    described = ", ".join(f"{axis} ('{dims[axis]}')" if dims[axis] else str(axis) for axis in dynamic)
    example = "x".join(str(d) if isinstance(d, int) else "1" for d in dims)
    plural = "s" if len(dynamic) > 1 else ""
    return (f"input '{value.name}' has dynamic dimension{plural} {described}; "
            f"fix it with --input-shape {value.name}={example}")


def infer_shapes(model: onnx.ModelProto) -> tuple[onnx.ModelProto, str | None]:
    """ONNX shape inference with data propagation, and why strict inference failed (or None).

    Strict inference names the node at fault; when it fails (a wrong input
    shape, or an operator whose inference ONNX cannot do), the lenient pass
    still types what it can, so that every problem can be listed at once.
    """
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True), None
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError) as error:
        try:
            return onnx.shape_inference.infer_shapes(model, data_prop=True), _one_line(error)
        except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError):
            return model, _one_line(error)  # even lenient inference fails: nothing more is typed


def _one_line(error: Exception) -> str:
    text = re.sub(r"\[\w+Error\]\s*", "", str(error)).replace("Inference error(s): ", "")
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


def specialize(model: onnx.ModelProto, input_shapes: dict[str, tuple[int, ...]] | None, source: str,
               require_static: bool = True) -> tuple[onnx.ModelProto, str | None]:
    """A copy of `model` with `input_shapes` applied and every inferable shape inferred.

    Also returns why strict shape inference failed, if it did (see `infer_shapes`).
    """
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    apply_input_shapes(copy, dict(input_shapes or {}), source)
    _forget_dynamic_dims(copy.graph)
    if require_static:
        require_static_inputs(copy, source, fixed=set(input_shapes or {}))
    return infer_shapes(copy)


def _forget_dynamic_dims(graph: onnx.GraphProto) -> None:
    """Unknown dimensions written as numbers become unknown for shape inference, which would otherwise
    see a conflict: negative ones everywhere, 0 in outputs and intermediate values (inference recomputes a
    real 0)."""
    for values, lowest_known in ((graph.input, 0), (graph.output, 1), (graph.value_info, 1)):
        for value in values:
            for dim in value.type.tensor_type.shape.dim:
                if dim.HasField("dim_value") and dim.dim_value < lowest_known:
                    dim.Clear()


def refine_shapes(model: onnx.ModelProto, known: Mapping[str, np.ndarray]) -> tuple[onnx.ModelProto, str | None] | None:
    """Shape inference again, seeing the values Lamina computed at compile time.

    ONNX's data propagation stops at operators such as Div or Cast on shape
    tensors; with every fully known node replaced by Constant nodes it goes
    further. Returns `model` with the newly static shapes added to its
    value_info (and why strict inference failed, or None), or None when
    nothing new was learned.
    """
    substituted, error = infer_shapes(_with_constant_nodes(model, known))
    graph = substituted.graph
    static = {value.name: value for value in (*graph.value_info, *graph.output) if _is_static(value)}
    current = {value.name: value for value in (*model.graph.value_info, *model.graph.output)}
    learned = {name: value for name, value in static.items() if name not in current or not _is_static(current[name])}
    if not learned:
        return None
    refined = onnx.ModelProto()
    refined.CopyFrom(model)
    for values in (refined.graph.value_info, refined.graph.output):
        for value in values:
            if value.name in learned:
                value.CopyFrom(learned.pop(value.name))
    refined.graph.value_info.extend(learned.values())
    return refined, error


def _is_static(value: onnx.ValueInfoProto) -> bool:
    return _all_known(declared_dims(value))


def _with_constant_nodes(model: onnx.ModelProto, known: Mapping[str, np.ndarray]) -> onnx.ModelProto:
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    nodes = []
    for node in copy.graph.node:
        outputs = [name for name in node.output if name]
        if node.op_type == "Constant" or not outputs or not all(name in known for name in outputs):
            nodes.append(node)
            continue
        nodes.extend(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(known[name]))
                     for name in outputs)
    del copy.graph.node[:]
    copy.graph.node.extend(nodes)
    return copy
