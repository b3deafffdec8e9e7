"""The buffer dialect's control flow: `buffer.if`, `buffer.loop` and `buffer.scan` (docs/control-flow.md).

At the buffer level a region op holds instructions, not values: its regions
read and write buffers of the enclosing blocks directly, and every value
that crosses an iteration (a loop-carried value, a scan state, the loop
condition) lives in a buffer allocated outside the op, which IRGen copies
the next value into at the end of the body. A region's own allocs are
allocated and deallocated inside it: they live within one iteration (or
one branch). So a buffer read or written in a body is live across the whole
op, because its alloc and dealloc are outside it (the verifier requires a
buffer to be deallocated in the block that allocates it).

Operands and their roles:

| op | operands | regions' block arguments |
| --- | --- | --- |
| `buffer.if` | condition (in), outputs... (out) | - |
| `buffer.loop` | trip_count (in), condition (inout), iteration (out), carried... (inout), scan outputs... (out) | one slice per scan output |
| `buffer.scan` | states... (inout), scanned inputs... (in), scan outputs... (out) | one slice per input, then per output |

A block argument is the slice of a scanned input or scan output at the
current position along axis 0 (a view whose offset moves each iteration):
scans are always along axis 0 here, IRGen transposes the others. Regions end
with upstream `gpu.yield` (no operands), as at the graph level.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from .buffer import BUFFER
from .graph import _require
from .graph_control_flow import TERMINATOR, _checked
from .irdl import I64, I64S
from .types import TensorSpec, spec_of

I64_SCALAR = TensorSpec((), np.dtype(np.int64))
BOOL_SCALAR = TensorSpec((), np.dtype(np.bool_))


def _one_element_bool(spec: TensorSpec, what: str) -> None:
    _require(spec.dtype == np.bool_ and spec.num_elements == 1, f"{what} must be a one-element i1 buffer, got {spec}")


def slice_of(spec: TensorSpec) -> TensorSpec:
    """One position of a buffer scanned along axis 0."""
    return TensorSpec(spec.shape[1:], spec.dtype)


def loop_groups(op: ir.Operation) -> tuple[list[ir.Value], list[ir.Value]]:
    """(carried buffers, scan output buffers) of a buffer.loop."""
    values = list(op.operands)[3:]
    scans = BUFFER.view(op).attr("num_scan_outputs")
    return values[:len(values) - scans], values[len(values) - scans:]


def scan_groups(op: ir.Operation) -> tuple[list[ir.Value], list[ir.Value], list[ir.Value]]:
    """(states, scanned inputs, scan outputs) of a buffer.scan."""
    view = BUFFER.view(op)
    values = list(op.operands)
    inputs, outputs = view.attr("num_scan_inputs"), view.attr("num_scan_outputs")
    states = len(values) - inputs - outputs
    return values[:states], values[states:states + inputs], values[states + inputs:]


def declared_roles(op: ir.Operation) -> list[str]:
    """The role of each operand of a region op (a loop's scan outputs are written, its carried values
    read and written: one variadic group holds both, so the table's per-name roles cannot say it)."""
    name = BUFFER.lookup(op).name
    if name == "if":
        return ["in"] + ["out"] * (len(op.operands) - 1)
    if name == "loop":
        carried, scans = loop_groups(op)
        return ["in", "inout", "out"] + ["inout"] * len(carried) + ["out"] * len(scans)
    states, inputs, outputs = scan_groups(op)
    return ["inout"] * len(states) + ["in"] * len(inputs) + ["out"] * len(outputs)


def _check_block(op: ir.Operation, index: int, what: str, arguments: list[TensorSpec]) -> None:
    blocks = list(op.regions[index].blocks)
    _require(len(blocks) == 1, f"{what} must have exactly one block, has {len(blocks)}")
    operations = list(blocks[0].operations)
    _require(bool(operations) and operations[-1].operation.name == TERMINATOR, f"{what} must end with gpu.yield")
    _require(not len(operations[-1].operation.operands),
             f"{what} ends with a gpu.yield of values; buffer regions write buffers and yield nothing")
    given = [spec_of(argument.type) for argument in blocks[0].arguments]
    _require(given == arguments, f"{what} takes arguments ({', '.join(map(str, arguments))}), its block has "
                                 f"({', '.join(map(str, given))})")


def _if_shape(ins, attrs, declared):
    _one_element_bool(ins[0], "condition")
    return []


def _check_if(op: ir.Operation) -> None:
    _check_block(op, 0, "then_branch", [])
    _check_block(op, 1, "else_branch", [])


def _loop_shape(ins, attrs, declared):
    trip_count, condition, iteration, *values = ins
    _require(trip_count == I64_SCALAR, f"trip_count must be memref<i64>, got {trip_count}")
    _require(condition == BOOL_SCALAR, f"condition must be memref<i1>, got {condition}")
    _require(iteration == I64_SCALAR, f"iteration must be memref<i64>, got {iteration}")
    scans = attrs["num_scan_outputs"]
    _require(0 <= scans <= len(values), f"num_scan_outputs {scans} does not fit {len(values)} buffers")
    _require(all(s.rank >= 1 for s in values[len(values) - scans:]),
             "scan outputs need a leading iteration dimension")
    return []


def _check_loop(op: ir.Operation) -> None:
    _, scans = loop_groups(op)
    _check_block(op, 0, "body", [slice_of(spec_of(v.type)) for v in scans])


def _scan_shape(ins, attrs, declared):
    inputs, outputs = attrs["num_scan_inputs"], attrs["num_scan_outputs"]
    _require(0 < inputs and 0 <= outputs and inputs + outputs <= len(ins),
             f"num_scan_inputs {inputs} and num_scan_outputs {outputs} do not fit {len(ins)} buffers")
    _require(len(attrs["scan_input_directions"]) == inputs and len(attrs["scan_output_directions"]) == outputs,
             "needs one direction per scanned input and scan output")
    scanned = ins[len(ins) - inputs - outputs:]
    _require(all(s.rank >= 1 for s in scanned), "scanned buffers need a leading axis")
    lengths = sorted({s.shape[0] for s in scanned})
    _require(len(lengths) == 1, f"scanned buffers have different lengths {lengths} along axis 0")
    return []


def _check_scan(op: ir.Operation) -> None:
    _, inputs, outputs = scan_groups(op)
    _check_block(op, 0, "body", [slice_of(spec_of(v.type)) for v in (*inputs, *outputs)])


BUFFER.op("if", "Runs then_branch if `condition` holds, else else_branch; each branch writes every output.",
          operands=("condition", "outputs"), variadic="outputs", mixed=True, results=(),
          roles={"outputs": "out"}, regions=("then_branch", "else_branch"), shape_fn=_if_shape,
          op_check=_checked(_check_if))
BUFFER.op("loop", "ONNX Loop on buffers: writes the iteration number into `iteration`, then runs the body while "
                  "iteration < trip_count and `condition` holds; the body reads and rewrites `condition` and the "
                  "carried buffers, and writes each scan output's slice at the iteration (its block arguments).",
          operands=("trip_count", "condition", "iteration", "values"), variadic="values", mixed=True, results=(),
          roles={"condition": "inout", "iteration": "out", "values": "inout"}, regions=("body",),
          attrs={"num_scan_outputs": I64}, shape_fn=_loop_shape, op_check=_checked(_check_loop))
BUFFER.op("scan", "ONNX Scan on buffers, along axis 0: for each position, the body reads the scanned inputs' slices "
                  "and the states, rewrites the states and writes the scan outputs' slices (block arguments: input "
                  "slices, then output slices); directions 1 run backward.",
          operands=("values",), variadic="values", mixed=True, results=(), roles={"values": "inout"},
          regions=("body",), attrs={"num_scan_inputs": I64, "num_scan_outputs": I64, "scan_input_directions": I64S,
                                    "scan_output_directions": I64S},
          shape_fn=_scan_shape, op_check=_checked(_check_scan))
