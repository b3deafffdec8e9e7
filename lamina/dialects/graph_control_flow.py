"""The graph dialect's control flow: `graph.if`, `graph.loop` and `graph.scan`
(docs/control-flow.md).

Each op carries its branches or body as MLIR regions of one block, ended by
upstream `gpu.yield` (`TERMINATOR`): MLIR requires a block of an op without
the NoTerminator trait to end in an op with the IsTerminator trait, IRDL ops
have no traits, and `gpu.yield` is the one upstream terminator with no parent
restriction and operands of any types. A region uses values of the enclosing blocks directly (MLIR
regions see the values that dominate them), which is how ONNX subgraphs read
outer-scope values. IRDL checks the structure; the checks here (`op_check`)
check what it cannot: that every region's block arguments and yielded values
have the types the op's operands and results say.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from .graph import GRAPH, _require
from .irdl import I64, I64S, ShapeError
from .types import TensorSpec, UnsupportedType, spec_of

I64_SCALAR = TensorSpec((), np.dtype(np.int64))
BOOL_SCALAR = TensorSpec((), np.dtype(np.bool_))


TERMINATOR = "gpu.yield"


def create_yield(values) -> ir.Operation:
    """End the current block by yielding `values` to the enclosing control-flow op."""
    return ir.Operation.create(TERMINATOR, operands=list(values))


def region_block(op: ir.Operation, index: int) -> ir.Block:
    """The one block of region `index` of a control-flow op."""
    return op.regions[index].blocks[0]


def block_ops(block: ir.Block) -> list[ir.Operation]:
    """The ops of a region's block, its `gpu.yield` excluded."""
    return [op.operation for op in block.operations if op.operation.name != TERMINATOR]


def yielded(block: ir.Block) -> list[ir.Value]:
    """The values the block's `gpu.yield` returns."""
    ops = list(block.operations)
    return list(ops[-1].operation.operands) if ops and ops[-1].operation.name == TERMINATOR else []


def _specs(values) -> list[TensorSpec]:
    return [spec_of(value.type) for value in values]


def _shown(specs) -> str:
    return "(" + ", ".join(str(s) for s in specs) + ")"


def _check_block(op: ir.Operation, index: int, what: str, arguments: list[TensorSpec],
                 results: list[TensorSpec]) -> None:
    region = op.regions[index]
    blocks = list(region.blocks)
    _require(len(blocks) == 1, f"{what} must have exactly one block, has {len(blocks)}")
    block = blocks[0]
    ops = list(block.operations)
    _require(bool(ops) and ops[-1].operation.name == TERMINATOR, f"{what} must end with gpu.yield")
    given = _specs(block.arguments)
    _require(given == arguments, f"{what} takes arguments {_shown(arguments)}, its block has {_shown(given)}")
    returned = _specs(yielded(block))
    _require(returned == results, f"{what} must yield {_shown(results)}, yields {_shown(returned)}")


def _condition(spec: TensorSpec) -> None:
    _require(spec.dtype == np.bool_ and spec.num_elements == 1, f"condition must be a one-element i1 tensor, got {spec}")


def _checked(check):
    """A region check as an `op_check`: its ShapeError's message, or None."""

    def op_check(op: ir.Operation) -> str | None:
        try:
            check(op)
        except (ShapeError, UnsupportedType) as error:
            return str(error)
        return None

    return op_check


def _if_shape(ins, attrs, declared):
    _condition(ins[0])
    return list(declared or [])


def _check_if(op: ir.Operation) -> None:
    results = _specs(op.results)
    _check_block(op, 0, "then_branch", [], results)
    _check_block(op, 1, "else_branch", [], results)


def loop_counts(op: ir.Operation) -> tuple[int, int]:
    """(loop-carried values, scan outputs) of a graph.loop."""
    scans = GRAPH.view(op).attr("num_scan_outputs")
    return len(op.operands) - 2, scans


def _loop_shape(ins, attrs, declared):
    trip_count, condition, *carried = ins
    _require(trip_count == I64_SCALAR, f"trip_count must be tensor<i64>, got {trip_count}")
    _condition(condition)
    declared = list(declared or [])
    scans = attrs["num_scan_outputs"]
    _require(scans >= 0 and len(declared) == len(carried) + scans,
             f"needs one result per carried value ({len(carried)}) and scan output ({scans}), has {len(declared)}")
    _require(declared[:len(carried)] == carried,
             f"carried values {_shown(carried)} must keep their types, results are {_shown(declared[:len(carried)])}")
    _require(all(s.rank >= 1 for s in declared[len(carried):]), "scan outputs need a leading iteration dimension")
    return declared


def _check_loop(op: ir.Operation) -> None:
    carried = _specs(op.operands[2:])
    scans = [TensorSpec(s.shape[1:], s.dtype) for s in _specs(op.results[len(carried):])]
    _check_block(op, 0, "body", [I64_SCALAR, BOOL_SCALAR, *carried], [BOOL_SCALAR, *carried, *scans])


def scan_slice(spec: TensorSpec, axis: int) -> TensorSpec:
    """One iteration's slice of a scanned tensor: `spec` without `axis`."""
    return TensorSpec(spec.shape[:axis] + spec.shape[axis + 1:], spec.dtype)


def _scan_shape(ins, attrs, declared):
    declared = list(declared or [])
    inputs = attrs["num_scan_inputs"]
    states = len(ins) - inputs
    outputs = len(declared) - states
    _require(0 < inputs <= len(ins) and outputs >= 0, f"num_scan_inputs {inputs} does not fit {len(ins)} operands")
    _require(len(attrs["scan_input_axes"]) == len(attrs["scan_input_directions"]) == inputs,
             f"needs {inputs} scan input axes and directions")
    _require(len(attrs["scan_output_axes"]) == len(attrs["scan_output_directions"]) == outputs,
             f"needs {outputs} scan output axes and directions")
    _require(declared[:states] == ins[:states], f"states {_shown(ins[:states])} must keep their types")
    lengths = set()
    for spec, axis in zip(ins[states:], attrs["scan_input_axes"]):
        _require(0 <= axis < spec.rank, f"scan axis {axis} out of range for {spec}")
        lengths.add(spec.shape[axis])
    for spec, axis in zip(declared[states:], attrs["scan_output_axes"]):
        _require(0 <= axis < spec.rank, f"scan output axis {axis} out of range for {spec}")
        lengths.add(spec.shape[axis])
    _require(len(lengths) == 1, f"scanned axes have different lengths {sorted(lengths)}")
    return declared


def _check_scan(op: ir.Operation) -> None:
    attrs = GRAPH.view(op).attrs()
    ins, outs = _specs(op.operands), _specs(op.results)
    states = len(ins) - attrs["num_scan_inputs"]
    slices = [scan_slice(s, a) for s, a in zip(ins[states:], attrs["scan_input_axes"])]
    out_slices = [scan_slice(s, a) for s, a in zip(outs[states:], attrs["scan_output_axes"])]
    _check_block(op, 0, "body", [*ins[:states], *slices], [*ins[:states], *out_slices])


GRAPH.op("if", "Runs then_branch if `condition` holds, else else_branch; results are what the branch yields.",
         operands=("condition",), results=("outputs",), variadic_results="outputs", mixed=True,
         regions=("then_branch", "else_branch"), shape_fn=_if_shape, op_check=_checked(_check_if))
GRAPH.op("loop", "ONNX Loop: body(iteration, condition, carried...) yields (condition, carried..., scan slices...) "
                 "while iteration < trip_count and condition; results are the last carried values, then the "
                 "scan slices stacked.",
         operands=("trip_count", "condition", "carried"), variadic="carried", results=("outputs",),
         variadic_results="outputs", mixed=True, regions=("body",), attrs={"num_scan_outputs": I64},
         shape_fn=_loop_shape, op_check=_checked(_check_loop))
GRAPH.op("scan", "ONNX Scan (opset 9+): body(states..., slices...) yields (states..., output slices...) for each "
                 "position along the scan axes; directions 1 run backward.",
         operands=("inputs",), variadic="inputs", results=("outputs",), variadic_results="outputs", mixed=True,
         regions=("body",), attrs={"num_scan_inputs": I64, "scan_input_axes": I64S, "scan_input_directions": I64S,
                                   "scan_output_axes": I64S, "scan_output_directions": I64S},
         shape_fn=_scan_shape, op_check=_checked(_check_scan))



def _dynamic_slice(ins, attrs, declared):
    data, starts = ins
    (result,) = declared or [None]
    axes, steps = attrs["axes"], attrs["steps"]
    _require(result is not None and result.rank == data.rank and result.dtype == data.dtype,
             f"needs an explicit result type of the input's rank and element type ({data})")
    _require(starts.rank == 1 and starts.shape[0] == len(axes) == len(steps) and starts.dtype == np.int64,
             f"starts must be tensor<{len(axes)}xi64>, one per axis, got {starts}")
    _require(len(set(axes)) == len(axes) and all(0 <= a < data.rank for a in axes),
             f"axes {list(axes)} must be distinct dimensions of {data}")
    for dim, (size, result_size) in enumerate(zip(data.shape, result.shape)):
        if dim in axes:
            step = steps[list(axes).index(dim)]
            _require(step > 0, f"steps must be positive, got {step}")
            _require(result_size == 0 or (result_size - 1) * step < size,
                     f"dimension {dim}: {result_size} elements {step} apart do not fit {size}")
        else:
            _require(result_size == size, f"dimension {dim} is not sliced: the result keeps its size {size}")
    return [result]


def dynamic_starts(start: int, size: int, dim: int, step: int) -> int:
    """Where graph.dynamic_slice starts: ONNX Slice's start (negative counts from the end, clamped into the
    dimension), then clamped so that `size` elements `step` apart fit."""
    start = start + dim if start < 0 else start
    return min(max(start, 0), max(dim - (size - 1) * step - 1, 0))


GRAPH.op("dynamic_slice", "Slice whose starts are data (a loop's iteration number): along each of `axes`, the "
                          "result's size elements `steps` apart from `starts` (ONNX's normalization: negative "
                          "counts from the end, clamped so that they fit).",
         operands=("input", "starts"), attrs={"axes": I64S, "steps": I64S}, shape_fn=_dynamic_slice)


def nested_operands(op: ir.Operation) -> list[ir.Value]:
    """Every value the ops inside `op`'s regions read (outer-scope values among them)."""
    found = []

    def collect(nested: ir.Operation) -> ir.WalkResult:
        if nested != op:
            found.extend(nested.operands)
        return ir.WalkResult.ADVANCE

    if len(op.regions):
        op.walk(collect)
    return found


def outer_operands(op: ir.Operation) -> list[ir.Value]:
    """The values defined outside `op` that the ops inside its regions read (ONNX outer-scope references)."""
    inner: set[ir.Value] = set()

    def define(nested: ir.Operation) -> ir.WalkResult:
        if nested != op:
            inner.update(nested.results)
        for region in nested.regions:
            for block in region.blocks:
                inner.update(block.arguments)
        return ir.WalkResult.ADVANCE

    if len(op.regions):
        op.walk(define)
    return list(dict.fromkeys(value for value in nested_operands(op) if value not in inner))
