"""Control flow: If, Loop and Scan, with their subgraphs as regions (docs/control-flow.md)."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import BOOL_SCALAR, I64_SCALAR, scan_slice
from lamina.dialects.irdl import ShapeError
from lamina.dialects.types import TensorSpec

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
from ..subgraphs import Subgraph, emit_region, materialize_outer, subgraph

# An absent Loop trip count: ONNX runs until the condition fails.
UNBOUNDED = np.iinfo(np.int64).max


def _shown(specs) -> str:
    return "(" + ", ".join(str(s) if s is not None else "unknown" for s in specs) + ")"


def _checked(view: NodeView, parts):
    """The subgraphs' problems and the node's own, as a support check yields them."""
    try:
        built = parts(view)
    except ShapeError as error:
        return [str(error)]
    problems = [problem for part in built[:-1] for problem in part.problems()]
    if problems:
        return problems
    try:
        built[-1](view, *built[:-1])
    except ShapeError as error:
        return [str(error)]
    return []


def _scalar(n: NodeEmitter, value: ir.Value, dtype) -> ir.Value:
    """A one-element tensor as a 0-d tensor of `dtype`."""
    return n.convert(n.reshape(value, ()), dtype)


# -- If ------------------------------------------------------------------------


def _if_specs(view: NodeView, then: Subgraph, other: Subgraph) -> list[TensorSpec]:
    yields, other_yields = then.output_specs(), other.output_specs()
    if yields != other_yields:
        raise ShapeError(f"If branches yield different types: then_branch {_shown(yields)}, "
                         f"else_branch {_shown(other_yields)}")
    return yields


def _if_parts(view: NodeView):
    return subgraph(view, "then_branch", []), subgraph(view, "else_branch", []), _if_specs


def _if_output_specs(view: NodeView):
    then, other, specs = _if_parts(view)
    return specs(view, then, other)


@converter("If", graph_ops=("if", "reshape"), check=lambda view: _checked(view, _if_parts),
           output_specs=_if_output_specs,
           notes="Both branches become regions of `graph.if`; they must yield the same static types.")
def convert_if(n: NodeEmitter):
    then, other, specs = _if_parts(n)
    result_specs = specs(n, then, other)
    condition = _scalar(n, n.input(0), np.bool_)
    materialize_outer(n, [then, other])
    op = GRAPH.create("if", condition, result_types=result_specs)
    emit_region(n, op.regions[0], then, [])
    emit_region(n, op.regions[1], other, [])
    return list(op.results)


# -- Loop ----------------------------------------------------------------------


def _loop_carried(view: NodeView) -> list[TensorSpec]:
    specs = [view.input_spec(i) for i in range(2, len(view.node.input))]
    missing = [view.input_name(i + 2) for i, s in enumerate(specs) if s is None]
    if missing:
        raise ShapeError(f"the type of loop-carried value '{missing[0]}' is unknown")
    return specs


def _loop_parts(view: NodeView):
    if not view.has_input(0) and not view.has_input(1):
        raise ShapeError("Loop has neither a trip count nor a condition: it would never end")
    carried = _loop_carried(view)
    trip_count = view.static_ints(0) if view.has_input(0) else None
    initial = [view.static(i) for i in range(2, len(view.node.input))]
    return (subgraph(view, "body", [I64_SCALAR, BOOL_SCALAR, *carried], trip_count and trip_count[0], initial),
            _loop_specs)


def _loop_specs(view: NodeView, body: Subgraph) -> list[TensorSpec]:
    carried = _loop_carried(view)
    condition, *produced = body.output_specs()
    if condition is None or condition.dtype != np.bool_ or condition.num_elements != 1:
        raise ShapeError(f"the body's condition output must be one boolean, got {condition}")
    names = body.output_names[1:]
    for name, before, after in zip(names, carried, produced):
        if before != after:
            raise ShapeError(f"loop-carried value '{name}' changes type between iterations, from {before} to {after}")
    trip_count = view.static_ints(0) if view.has_input(0) else None
    scans = []
    for name, spec in zip(names[len(carried):], produced[len(carried):]):
        if trip_count is None or (view.has_input(1) and not _always_true(view)):
            raise ShapeError(f"scan output '{name}' needs a compile-time trip count and no loop condition")
        scans.append(TensorSpec((trip_count[0], *spec.shape), spec.dtype))
    return [*carried, *scans]


def _always_true(view: NodeView) -> bool:
    value = view.static(1)
    return value is not None and bool(np.all(value))


def _loop_output_specs(view: NodeView):
    body, specs = _loop_parts(view)
    return specs(view, body)


def _yielded_condition(n: NodeEmitter):
    return lambda index, value: _scalar(n, value, np.bool_) if index == 0 else value


@converter("Loop", graph_ops=("loop", "reshape", "constant"), check=lambda view: _checked(view, _loop_parts),
           bindable_inputs=(0, 1), output_specs=_loop_output_specs,
           notes="The body becomes the region of `graph.loop`; an absent trip count is INT64_MAX, an absent "
                 "condition `true`. Carried values keep their static types; scan outputs need a compile-time trip "
                 "count.")
def convert_loop(n: NodeEmitter):
    body, specs = _loop_parts(n)
    result_specs = specs(n, body)
    trip_count = _scalar(n, n.input(0), np.int64) if n.has_input(0) else n.constant(np.array(UNBOUNDED, np.int64))
    condition = _scalar(n, n.input(1), np.bool_) if n.has_input(1) else n.constant(np.array(True))
    carried = [n.input(i) for i in range(2, len(n.node.input))]
    materialize_outer(n, [body])
    op = GRAPH.create("loop", trip_count, condition, *carried, result_types=result_specs,
                      num_scan_outputs=len(result_specs) - len(carried))
    emit_region(n, op.regions[0], body, [I64_SCALAR, BOOL_SCALAR, *[n.spec(v) for v in carried]],
                _yielded_condition(n))
    return list(op.results)


# -- Scan (opset 9 and later) --------------------------------------------------


def _scan_operands(view: NodeView) -> list[TensorSpec | None]:
    """The types of the body's states and scan inputs for one batch element (opset 8: without the batch axis)."""
    if view.opset >= 9:
        return [view.input_spec(i) for i in range(len(view.node.input))]
    specs = [view.input_spec(i) for i in range(1, len(view.node.input))]
    _sequence_lengths(view)
    return [None if s is None else TensorSpec(s.shape[1:], s.dtype) for s in specs]


def _sequence_lengths(view: NodeView) -> list[int] | None:
    """Opset 8's `sequence_lens`, one length per batch element, checked; None when absent (full lengths)."""
    if not view.has_input(0):
        return None
    lengths = view.static_ints(0)
    if lengths is None:
        raise ShapeError("Scan's sequence_lens (opset 8) must be a compile-time constant")
    batch, steps = view.input_spec(len(view.node.input) - 1).shape[:2]
    if len(lengths) != batch or not all(1 <= length <= steps for length in lengths):
        raise ShapeError(f"Scan's sequence_lens must hold {batch} lengths in [1, {steps}], got {lengths}")
    return lengths


def _scan_layout(view: NodeView) -> tuple[int, int, list[int], list[int]]:
    """(states, scan inputs, input axes, input directions) of one batch element, axes normalized."""
    inputs = view.attr("num_scan_inputs")
    operands = _scan_operands(view)
    if any(spec is None for spec in operands):
        raise ShapeError("the types of Scan's inputs must be known")
    states = len(operands) - inputs
    axes = [a % operands[states + i].rank for i, a in enumerate(view.attr("scan_input_axes", [0] * inputs))]
    directions = view.attr("scan_input_directions" if view.opset >= 9 else "directions", [0] * inputs)
    return states, inputs, axes, directions


def _scan_parts(view: NodeView):
    states, inputs, axes, _ = _scan_layout(view)
    operands = _scan_operands(view)
    slices = [scan_slice(spec, axis) for spec, axis in zip(operands[states:], axes)]
    return subgraph(view, "body", [*operands[:states], *slices]), _scan_specs


def _scan_output_axes(view: NodeView, body: Subgraph, states: int) -> list[int]:
    produced = body.output_specs()[states:]
    axes = view.attr("scan_output_axes", [0] * len(produced))
    return [a % (spec.rank + 1) for a, spec in zip(axes, produced)]


def _scan_specs(view: NodeView, body: Subgraph) -> list[TensorSpec]:
    """The output types for one batch element (opset 8 adds the batch axis: `_batched`)."""
    states, inputs, axes, _ = _scan_layout(view)
    operands = _scan_operands(view)
    produced = body.output_specs()
    for name, before, after in zip(body.output_names, operands[:states], produced[:states]):
        if before != after:
            raise ShapeError(f"scan state '{name}' changes type between iterations, from {before} to {after}")
    length = operands[states].shape[axes[0]]
    outputs = []
    for spec, axis in zip(produced[states:], _scan_output_axes(view, body, states)):
        outputs.append(TensorSpec((*spec.shape[:axis], length, *spec.shape[axis:]), spec.dtype))
    return [*operands[:states], *outputs]


def _scan_output_specs(view: NodeView):
    body, specs = _scan_parts(view)
    return _batched(view, specs(view, body))


def _batched(view: NodeView, specs: list[TensorSpec]) -> list[TensorSpec]:
    if view.opset >= 9:
        return specs
    batch = view.input_spec(1).shape[0]
    return [TensorSpec((batch, *s.shape), s.dtype) for s in specs]


@converter("Scan", graph_ops=("scan", "slice", "reshape", "concat", "splat"), check=lambda view: _checked(view, _scan_parts),
           output_specs=_scan_output_specs,
           notes="The body becomes the region of `graph.scan`, axes normalized. Opset 8 (a batch axis first) "
                 "is one `graph.scan` per batch element, results concatenated; a compile-time `sequence_lens` "
                 "scans each element's first steps and pads its outputs with zeros.")
def convert_scan(n: NodeEmitter):
    body, specs = _scan_parts(n)
    result_specs = specs(n, body)
    if n.opset >= 9:
        return _emit_scan(n, body, n.inputs(), result_specs)
    batched = [n.input(i) for i in range(1, len(n.node.input))]
    states = len(batched) - n.attr("num_scan_inputs")
    batch, steps = n.spec(batched[-1]).shape[:2]
    per_element = []
    for b, length in enumerate(_sequence_lengths(n) or [steps] * batch):
        operands = []
        for i, value in enumerate(batched):
            scanned = i >= states
            shape = n.spec(value).shape[1:]
            operands.append(n.reshape(_element(n, value, b, length if scanned else None),
                                      (length, *shape[1:]) if scanned else shape))
        per_element.append(_padded(n, _emit_scan(n, body, operands, _shortened(result_specs, states, length)),
                                   states, steps))
    results = []
    for index, spec in enumerate(result_specs):
        rows = [n.reshape(parts[index], (1, *spec.shape)) for parts in per_element]
        results.append(n.chain("concat", rows, axis=0) if len(rows) > 1 else rows[0])
    return results


def _element(n: NodeEmitter, value: ir.Value, b: int, length: int | None) -> ir.Value:
    """Batch element `b` of an opset-8 operand; of a scanned one, its first `length` steps (axis 1)."""
    shape = n.spec(value).shape
    ends = [b + 1, *shape[1:]]
    if length is not None:
        ends[1] = length
    return n.emit("slice", value, starts=[b] + [0] * (len(shape) - 1), ends=ends, steps=[1] * len(shape))


def _shortened(specs: list[TensorSpec], states: int, length: int) -> list[TensorSpec]:
    """One batch element's result types when it scans `length` steps (opset-8 outputs stack along axis 0)."""
    return [*specs[:states], *[TensorSpec((length, *s.shape[1:]), s.dtype) for s in specs[states:]]]


def _padded(n: NodeEmitter, results: list[ir.Value], states: int, steps: int) -> list[ir.Value]:
    """Scan outputs of fewer than `steps` steps followed by zeros, as onnxruntime pads them."""
    padded = list(results[:states])
    for value in results[states:]:
        spec = n.spec(value)
        missing = steps - spec.shape[0]
        zeros = n.splat(TensorSpec((missing, *spec.shape[1:]), spec.dtype), 0) if missing else None
        padded.append(n.chain("concat", [value, zeros], axis=0) if missing else value)
    return padded


def _emit_scan(n: NodeEmitter, body: Subgraph, operands: list[ir.Value], result_specs) -> list[ir.Value]:
    states, inputs, axes, directions = _scan_layout(n)
    output_count = len(result_specs) - states
    materialize_outer(n, [body])
    op = GRAPH.create("scan", *operands, result_types=result_specs, num_scan_inputs=inputs, scan_input_axes=axes,
                      scan_input_directions=directions, scan_output_axes=_scan_output_axes(n, body, states),
                      scan_output_directions=n.attr("scan_output_directions", [0] * output_count))
    slices = [scan_slice(n.spec(v), axis) for v, axis in zip(operands[states:], axes)]
    emit_region(n, op.regions[0], body, [*[n.spec(v) for v in operands[:states]], *slices])
    return list(op.results)
