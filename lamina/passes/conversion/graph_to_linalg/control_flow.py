"""graph.if, graph.loop and graph.scan as upstream `scf` on tensors.

`graph.if` is `scf.if`; `graph.loop` is `scf.while` carrying the iteration
number, the condition, the loop-carried values and one accumulator per scan
output (each iteration inserts its slice at the iteration's row);
`graph.scan` is `scf.for` over the scanned axis, reading each input's slice
and inserting each output's slice at its position (backward for direction 1).
Regions are converted by the driver (`RegionConverter`), in the scope of the
values converted so far, so outer-scope uses stay uses. `graph.dynamic_slice`
(a loop body's slice at its iteration number) is `tensor.extract_slice` with
offsets computed from its starts.
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from lamina.dialects.graph_control_flow import region_block
from lamina.dialects.irdl import OpView

from .builders import filled, scalar
from .registry import converts
from .storage import result_type, storage_type

# (block, converted argument values) -> converted yielded values, at the current insertion point.
ConvertBlock = Callable[[ir.Block, list[ir.Value]], list[ir.Value]]
RegionConverter = Callable[[OpView, list[ir.Value], ConvertBlock], list[ir.Value]]
REGION_CONVERTERS: dict[str, RegionConverter] = {}

DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()


def converts_region(name: str):
    def register(converter: RegionConverter) -> RegionConverter:
        REGION_CONVERTERS[name] = converter
        return converter

    return register


def _i1(flag: ir.Value) -> ir.Value:
    """A stored one-element boolean tensor (i8) as an i1 scalar."""
    shape = ir.RankedTensorType(flag.type).shape
    element = tensor.extract(flag, [arith.constant(ir.IndexType.get(), 0) for _ in shape])
    return arith.cmpi(arith.CmpIPredicate.ne, element, scalar(element.type, 0))


def _as_tensor(value: ir.Value, type_: ir.RankedTensorType) -> ir.Value:
    """A scalar (i1 widened to i8, index cast to i64) as a 0-d tensor of `type_`."""
    element = type_.element_type
    if isinstance(value.type, ir.IndexType):
        value = arith.index_cast(element, value)
    elif ir.IntegerType(value.type).width < ir.IntegerType(element).width:
        value = arith.extui(element, value)
    return tensor.from_elements(type_, [value])


@converts_region("if")
def convert_if(op: OpView, operands: list[ir.Value], convert_block: ConvertBlock) -> list[ir.Value]:
    types = [result_type(op, i) for i in range(len(op.op.results))]
    branch = scf.IfOp(_i1(operands[0]), types, has_else=True)
    for index, block in enumerate((branch.then_block, branch.else_block)):
        with ir.InsertionPoint(block):
            scf.YieldOp(convert_block(region_block(op.op, index), []))
    return list(branch.results)


def _slice_at(source: ir.Value, axis: int, position: ir.Value, result: ir.RankedTensorType) -> ir.Value:
    """source[..., position, ...] along `axis`, rank-reduced to `result`."""
    shape = ir.RankedTensorType(source.type).shape
    offsets = [DYNAMIC if a == axis else 0 for a in range(len(shape))]
    sizes = [1 if a == axis else d for a, d in enumerate(shape)]
    return tensor.extract_slice(result, source, [position], [], [], offsets, sizes, [1] * len(shape))


def _insert_at(piece: ir.Value, dest: ir.Value, axis: int, position: ir.Value) -> ir.Value:
    """`piece` written into `dest` at `position` along `axis` (where `piece` lacks that axis)."""
    shape = ir.RankedTensorType(dest.type).shape
    offsets = [DYNAMIC if a == axis else 0 for a in range(len(shape))]
    sizes = [1 if a == axis else d for a, d in enumerate(shape)]
    return tensor.insert_slice(piece, dest, [position], [], [], offsets, sizes, [1] * len(shape))


@converts_region("loop")
def convert_loop(op: OpView, operands: list[ir.Value], convert_block: ConvertBlock) -> list[ir.Value]:
    trip_count, condition, *carried = operands
    index = ir.IndexType.get()
    scans = [result_type(op, i) for i in range(len(carried), len(op.op.results))]
    i64 = ir.IntegerType.get_signless(64)
    limit = tensor.extract(trip_count, [])
    state = [arith.constant(i64, 0), _i1(condition), *carried, *[filled(t, 0) for t in scans]]
    loop = scf.WhileOp([v.type for v in state], state)
    before = loop.before.blocks.append(*[v.type for v in state])
    with ir.InsertionPoint(before):
        iteration, running = before.arguments[0], before.arguments[1]
        below = arith.cmpi(arith.CmpIPredicate.slt, iteration, limit)
        scf.ConditionOp(arith.andi(below, running), list(before.arguments))
    after = loop.after.blocks.append(*[v.type for v in state])
    with ir.InsertionPoint(after):
        iteration, running, *rest = after.arguments
        values, accumulators = rest[:len(carried)], rest[len(carried):]
        body = region_block(op.op, 0)
        argument_types = [ir.RankedTensorType(v.type) for v in (trip_count, condition)]
        yielded = convert_block(body, [_as_tensor(iteration, argument_types[0]),
                                       _as_tensor(running, argument_types[1]), *values])
        new_condition, *new_values = yielded[:len(carried) + 1]
        row = arith.index_cast(index, iteration)
        updated = [_insert_at(piece, acc, 0, row) for piece, acc in zip(yielded[len(carried) + 1:], accumulators)]
        following = arith.addi(iteration, arith.constant(i64, 1))
        scf.YieldOp([following, _i1(new_condition), *_in_place(new_values, values), *updated])
    return list(loop.results)[2:]


def _in_place(values: list[ir.Value], destinations: list[ir.Value]) -> list[ir.Value]:
    """`values` copied into the loop's own iteration buffers, so that bufferization keeps one
    buffer per carried value across iterations (the memory planner's lifetime: the whole loop)."""
    return [linalg.copy(value, outs=[destination]) for value, destination in zip(values, destinations)]


@converts_region("scan")
def convert_scan(op: OpView, operands: list[ir.Value], convert_block: ConvertBlock) -> list[ir.Value]:
    attrs = op.attrs()
    states = len(operands) - attrs["num_scan_inputs"]
    outputs = [result_type(op, i) for i in range(states, len(op.op.results))]
    body = region_block(op.op, 0)
    slice_types = [storage_type(a.type) for a in body.arguments][states:]
    inputs = operands[states:]
    length = ir.RankedTensorType(inputs[0].type).shape[attrs["scan_input_axes"][0]]
    index = ir.IndexType.get()
    zero, one, last = (arith.constant(index, v) for v in (0, 1, length - 1))
    loop = scf.ForOp(zero, arith.constant(index, length), one, [*operands[:states], *[filled(t, 0) for t in outputs]])
    with ir.InsertionPoint(loop.body):
        step = loop.induction_variable
        backward = arith.subi(last, step)
        carried = list(loop.inner_iter_args)
        pieces = [_slice_at(x, axis, backward if direction else step, slice_type)
                  for x, axis, direction, slice_type in zip(inputs, attrs["scan_input_axes"],
                                                            attrs["scan_input_directions"], slice_types)]
        yielded = convert_block(body, [*carried[:states], *pieces])
        updated = [_insert_at(piece, acc, axis, backward if direction else step)
                   for piece, acc, axis, direction in zip(yielded[states:], carried[states:],
                                                          attrs["scan_output_axes"], attrs["scan_output_directions"])]
        scf.YieldOp([*_in_place(yielded[:states], carried[:states]), *updated])
    return list(loop.results)


@converts("dynamic_slice")
def convert_dynamic_slice(op: OpView, operands: list[ir.Value]) -> list[ir.Value]:
    """Each start normalized as ONNX does (negative + dim, clamped so that the result fits), then one slice."""
    data, starts = operands
    result = result_type(op)
    shape = ir.RankedTensorType(data.type).shape
    axes, steps = list(op.attr("axes")), list(op.attr("steps"))
    index = ir.IndexType.get()
    offsets, strides, dynamic = [0] * len(shape), [1] * len(shape), []
    for k, (axis, step) in enumerate(zip(axes, steps)):
        start = tensor.extract(starts, [arith.constant(index, k)])
        dim, last = shape[axis], max(shape[axis] - (result.shape[axis] - 1) * step - 1, 0)
        negative = arith.cmpi(arith.CmpIPredicate.slt, start, scalar(start.type, 0))
        start = arith.select(negative, arith.addi(start, scalar(start.type, dim)), start)
        start = arith.minsi(arith.maxsi(start, scalar(start.type, 0)), scalar(start.type, last))
        dynamic.append(arith.index_cast(index, start))
        offsets[axis], strides[axis] = DYNAMIC, step
    return [tensor.extract_slice(result, data, dynamic, [], [], offsets, list(result.shape), strides)]
