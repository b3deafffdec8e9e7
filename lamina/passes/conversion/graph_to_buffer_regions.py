"""IRGen of control flow: graph.if, graph.loop and graph.scan to buffer region ops (docs/control-flow.md).

Every value that crosses an iteration gets a buffer allocated before the op
and freed after it: the loop condition, the iteration number, each carried
value or scan state (its initial value copied in), and each scan output.
The body's instructions are generated inside the region with their own
allocs, freed at the end of the body; a body yields by copying its values
into those buffers (or into its scan output slices, the region's block
arguments). Copies whose source is another of those buffers go through a
temporary first, so that a body yielding its carried values swapped reads
them before any is overwritten. Scans along another axis than 0 are
transposed before and after the op: at the buffer level a slice is
contiguous bytes.
"""

from __future__ import annotations

from contextlib import contextmanager

from mlir import ir

from lamina.dialects.buffer import BUFFER, UNPLANNED
from lamina.dialects.buffer_analysis import byte_range, root_buffer
from lamina.dialects.buffer_control_flow import BOOL_SCALAR, I64_SCALAR, slice_of
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import block_ops, create_yield, region_block, yielded
from lamina.dialects.types import TensorSpec, spec_of, to_memref


def generate_region_op(irgen, op: ir.Operation) -> None:
    """Emit the buffer form of region op `op` at the current insertion point; `irgen` is the pass's `_IRGen`."""
    GENERATORS[GRAPH.lookup(op).name](_Regions(irgen), op)


class _Regions:
    """What region IRGen adds to the pass's IRGen: allocs, copies, and bodies generated in place."""

    def __init__(self, irgen):
        self.irgen = irgen

    def alloc(self, spec: TensorSpec, op: ir.Operation) -> ir.Value:
        """A buffer of `spec` named after `op`, freed at the end of the block being generated."""
        alloc = BUFFER.create("alloc", result_types=[spec], loc=op.location, name=self.irgen._name(op),
                              offset=UNPLANNED)
        self.irgen.allocs.append(alloc)
        return alloc.result

    def copy(self, dest: ir.Value, source: ir.Value, loc: ir.Location) -> None:
        if source.type != dest.type:  # a one-element condition seen as a scalar
            source = BUFFER.create("view", source, result_types=[spec_of(dest.type)], loc=loc, byte_offset=0).result
        BUFFER.create("copy", dest, source, loc=loc)

    def initialized(self, op: ir.Operation, values: list[ir.Value], specs: list[TensorSpec]) -> list[ir.Value]:
        """New buffers holding `values`' buffers' contents: what a loop carries, from its initial values."""
        buffers = []
        for value, spec in zip(values, specs):
            buffer = self.alloc(spec, op)
            self.copy(buffer, self.irgen.buffers[value], op.location)
            buffers.append(buffer)
        return buffers

    def body(self, op: ir.Operation, region: ir.Region, graph_block: ir.Block, slices: list[TensorSpec],
             bind) -> None:
        """Generate `graph_block` into a new block of `region` whose arguments are `slices`' buffers;
        `bind(block arguments)` gives the buffers of `graph_block`'s arguments and those its yields go to."""
        block = region.blocks.append(*[to_memref(spec) for spec in slices], arg_locs=[op.location] * len(slices))
        with ir.InsertionPoint(block), op.location:
            terminator = create_yield([])
        arguments, destinations = bind(list(block.arguments))
        self.irgen.buffers.update(zip(graph_block.arguments, arguments))
        with ir.InsertionPoint(terminator), self._own_allocs():
            for nested in block_ops(graph_block):
                self.irgen._generate(nested)
            self._yield(op, [self.irgen.buffers[value] for value in yielded(graph_block)], destinations)

    @contextmanager
    def _own_allocs(self):
        """The allocs made meanwhile are freed at the end of the current block, not the function's."""
        outer, self.irgen.allocs = self.irgen.allocs, []
        try:
            yield
            for alloc in self.irgen.allocs:
                BUFFER.create("dealloc", alloc.result, loc=alloc.location)
        finally:
            self.irgen.allocs = outer

    def _yield(self, op: ir.Operation, sources: list[ir.Value], destinations: list[ir.Value]) -> None:
        """Copy each source into its destination; sources that are other destinations' bytes first into
        temporaries (all reads before any write: a parallel assignment)."""
        position = {root_buffer(d): i for i, d in enumerate(destinations)}
        staged = []
        for index, (source, dest) in enumerate(zip(sources, destinations)):
            other = position.get(root_buffer(source))
            if other == index and byte_range(source) == byte_range(dest):
                source = None  # yields its own value unchanged
            elif other is not None:
                temporary = self.alloc(spec_of(source.type), op)
                self.copy(temporary, source, op.location)
                source = temporary
            staged.append(source)
        for source, dest in zip(staged, destinations):
            if source is not None:
                self.copy(dest, source, op.location)


def _generate_if(regions: _Regions, op: ir.Operation) -> None:
    irgen = regions.irgen
    outputs = [regions.alloc(spec_of(result.type), op) for result in op.results]
    buffer_if = BUFFER.create("if", irgen.buffers[op.operands[0]], *outputs, loc=op.location)
    for index in (0, 1):
        regions.body(op, buffer_if.regions[index], region_block(op, index), [], lambda _: ([], outputs))
    irgen.buffers.update(zip(op.results, outputs))


def _generate_loop(regions: _Regions, op: ir.Operation) -> None:
    irgen = regions.irgen
    trip_count, condition, *initial = op.operands
    scans = GRAPH.view(op).attr("num_scan_outputs")
    (running,) = regions.initialized(op, [condition], [BOOL_SCALAR])
    iteration = regions.alloc(I64_SCALAR, op)
    carried = regions.initialized(op, initial, [spec_of(v.type) for v in initial])
    outputs = [regions.alloc(spec_of(result.type), op) for result in op.results[len(carried):]]
    loop = BUFFER.create("loop", irgen.buffers[trip_count], running, iteration, *carried, *outputs, loc=op.location,
                         num_scan_outputs=scans)
    regions.body(op, loop.regions[0], region_block(op, 0), [slice_of(spec_of(v.type)) for v in outputs],
                 lambda slices: ([iteration, running, *carried], [running, *carried, *slices]))
    irgen.buffers.update(zip(op.results, [*carried, *outputs]))


def _moved_to_front(spec: TensorSpec, axis: int) -> tuple[TensorSpec, list[int]]:
    """`spec` with `axis` first, and the permutation that does it."""
    perm = [axis] + [d for d in range(spec.rank) if d != axis]
    return TensorSpec(tuple(spec.shape[d] for d in perm), spec.dtype), perm


def _transposed(regions: _Regions, op: ir.Operation, source: ir.Value, spec: TensorSpec, perm: list[int]) -> ir.Value:
    result = regions.alloc(spec, op)
    BUFFER.create("transpose", result, source, loc=op.location, perm=perm)
    return result


def _generate_scan(regions: _Regions, op: ir.Operation) -> None:
    irgen = regions.irgen
    attrs = GRAPH.view(op).attrs()
    count = attrs["num_scan_inputs"]
    initial, scanned = list(op.operands[:len(op.operands) - count]), list(op.operands[len(op.operands) - count:])
    states = regions.initialized(op, initial, [spec_of(v.type) for v in initial])
    inputs = []
    for value, axis in zip(scanned, attrs["scan_input_axes"]):
        spec, perm = _moved_to_front(spec_of(value.type), axis)
        inputs.append(irgen.buffers[value] if axis == 0 else _transposed(regions, op, irgen.buffers[value], spec, perm))
    results = op.results[len(states):]
    outputs = [regions.alloc(_moved_to_front(spec_of(r.type), axis)[0], op)
               for r, axis in zip(results, attrs["scan_output_axes"])]
    scan = BUFFER.create("scan", *states, *inputs, *outputs, loc=op.location, num_scan_inputs=count,
                         num_scan_outputs=len(outputs), scan_input_directions=attrs["scan_input_directions"],
                         scan_output_directions=attrs["scan_output_directions"])
    regions.body(op, scan.regions[0], region_block(op, 0), [slice_of(spec_of(v.type)) for v in (*inputs, *outputs)],
                 lambda slices: ([*states, *slices[:count]], [*states, *slices[count:]]))
    finals = []
    for result, output, axis in zip(results, outputs, attrs["scan_output_axes"]):
        spec = spec_of(result.type)
        perm = _moved_to_front(spec, axis)[1]
        finals.append(output if axis == 0 else _transposed(regions, op, output, spec, [perm.index(d) for d in range(spec.rank)]))
    irgen.buffers.update(zip(op.results, [*states, *finals]))


GENERATORS = {"if": _generate_if, "loop": _generate_loop, "scan": _generate_scan}
