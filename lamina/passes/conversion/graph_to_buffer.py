"""convert-graph-to-buffer: Glow's IRGen, from the node graph to buffer instructions."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER, UNPLANNED
from lamina.dialects.buffer_analysis import flat_ops
from lamina.dialects.graph import GRAPH, MODEL_INTERFACE
from lamina.dialects.irdl import I64, PROBE, STORAGE, STR
from lamina.dialects.model import main_function
from lamina.dialects.types import spec_of, to_memref
from lamina.passes.registry import Pass, PassError, register_pass

from .graph_to_buffer_regions import generate_region_op
from .naming import UniqueNames, location_name


@register_pass
@dataclass(frozen=True)
class ConvertGraphToBuffer(Pass):
    """Turn the graph function into buffer instructions (Glow's IRGen).

    The model's function keeps its name; its graph ops are replaced, in
    their current order (a scheduler orders the graph before IRGen), by:

    - `graph.placeholder` -> a public mutable `buffer.weight` (a model input);
    - `graph.save` -> a public mutable `buffer.weight` (the output) and a
      `buffer.copy` into it, which copy elimination may later remove; a save
      named like a placeholder of the function (a training function's
      updated weight, Glow's Save(SGD, W)) copies into that placeholder's
      weight instead, in place, after every other instruction (so after
      every read of the old value: copy elimination moves the write earlier
      only where no read of the weight lies between);
    - `graph.constant` -> `buffer.constant`, named after its location;
    - `graph.reshape` -> a `buffer.view` (byte offset 0) of its input's buffer;
    - any other graph.X -> a `buffer.alloc` right before `buffer.X(%dest, ...)`
      with graph.X's operands (as buffers) and attributes;
    - `graph.if`, `graph.loop`, `graph.scan` -> `buffer.if`, `buffer.loop`,
      `buffer.scan` with their regions' ops generated inside, the regions'
      own allocs freed at their end (`graph_to_buffer_regions.py`).

    A quantized value's buffer holds its stored integers and keeps its
    `!quant.uniform` type in the memref's memory space (`types.to_memref`),
    so graph.quantize, graph.dequantize and quantized ops become
    instructions like any other; profiling probes have no buffer form.

    Weights and constants are declared first, in graph order, like Glow's
    `declare` section. As in Glow's IRBuilder, every `buffer.dealloc` is
    appended at the end of the function (in allocation order): hoisting them
    to their last use is `buffer-hoist-deallocs`' job. Every buffer is left
    unplanned (offset -1) for memory planning. Each op keeps the location of
    the graph op it comes from; allocs and constants are named after it,
    uniquely.

    Legal on a model whose function holds only graph ops; anything else in it
    is an error at that op.
    """

    name = "convert-graph-to-buffer"
    summary = "Glow's IRGen: graph ops to buffer weights, allocs and instructions"

    def run(self, op: ir.Operation) -> None:
        block = main_function(op).regions[0].blocks[0]
        graph_ops = [child.operation for child in block.operations if child.operation.name != "func.return"]
        for graph_op in flat_ops(graph_ops):  # regions' ops too
            if GRAPH.lookup(graph_op) is None:
                raise PassError(f"'{graph_op.name}' is not a graph op; IRGen converts graph functions only",
                                graph_op.location)
            if GRAPH.lookup(graph_op).has(PROBE):
                raise PassError(f"'{graph_op.name}' has no buffer form: profile a graph in the graph interpreter "
                                "(lamina-profile), then quantize it", graph_op.location)
            if len(graph_op.results) > 1 and not len(graph_op.regions):
                raise PassError(f"'{graph_op.name}' has no buffer form (multi-result ops): lower recurrent layers "
                                "(graph-lower), or run the model on the CPU path", graph_op.location)
        terminator = block.operations[len(block.operations) - 1]
        _IRGen(graph_ops, terminator).emit()
        for graph_op in reversed(graph_ops):  # users before producers: nothing is used once erased
            graph_op.erase()


class _IRGen:
    """Emits the buffer program for `graph_ops` before `terminator`."""

    def __init__(self, graph_ops: list[ir.Operation], terminator: ir.OpView):
        self.graph_ops = graph_ops
        # Model inputs and outputs keep their names; other buffers avoid them.
        interface = [op for op in graph_ops if GRAPH.lookup(op).name in MODEL_INTERFACE]
        self.names = UniqueNames({GRAPH.view(op).attr("name") for op in interface})
        self.buffers: dict[ir.Value, ir.Value] = {}  # graph value -> the buffer holding it
        self.output_weights: dict[ir.Operation, ir.Value] = {}  # graph.save -> its weight
        self.allocs: list[ir.Operation] = []
        self.program = ir.InsertionPoint(terminator)
        # Placeholders by name: a save of the same name and type updates that weight in place.
        self.inputs = {GRAPH.view(op).attr("name"): op for op in interface if GRAPH.lookup(op).name == "placeholder"}
        self.updates: list[tuple[ir.Operation, ir.Value]] = []  # (graph.save, the buffer it copies), emitted last

    def emit(self) -> None:
        with self.program:
            for op in flat_ops(self.graph_ops):  # a region's constants too: read-only, live all the run
                self._declare(op)
            for op in self.graph_ops:
                self._generate(op)
            for save, source in self.updates:
                BUFFER.create("copy", self.output_weights[save], source, loc=save.location)
            for alloc in self.allocs:
                BUFFER.create("dealloc", alloc.result, loc=alloc.location)

    def _updated_input(self, save: ir.Operation) -> ir.Operation | None:
        """The placeholder a save writes in place: same name and type (a training function's Save(SGD, W))."""
        placeholder = self.inputs.get(GRAPH.view(save).attr("name"))
        return placeholder if placeholder is not None and placeholder.result.type == save.operands[0].type else None

    def _declare(self, op: ir.Operation) -> None:
        """The buffers living outside the program: weights and constants."""
        kind = GRAPH.lookup(op).name
        if kind == "placeholder":
            self.buffers[op.result] = self._weight(GRAPH.view(op).attr("name"), op.result.type, op.location)
        elif kind == "save":
            placeholder = self._updated_input(op)
            self.output_weights[op] = self._weight(GRAPH.view(op).attr("name"), op.operands[0].type, op.location) \
                if placeholder is None else self.buffers[placeholder.result]
        elif kind == "constant":
            # The data carries over as the same attribute: exact, and large weights are never decoded.
            attributes = {"name": STR.encode(self._name(op)), "value": op.attributes["value"],
                          "offset": I64.encode(UNPLANNED)}
            constant = ir.Operation.create("buffer.constant", results=[to_memref(spec_of(op.result.type))],
                                           attributes=attributes, loc=op.location)
            self.buffers[op.result] = constant.result

    def _generate(self, op: ir.Operation) -> None:
        definition = GRAPH.lookup(op)
        kind = definition.name
        if definition.has(STORAGE):  # a model input or a weight: a buffer of its own, made before
            return
        sources = [self.buffers[value] for value in op.operands]
        if definition.regions:
            generate_region_op(self, op)
        elif kind == "save" and self._updated_input(op) is not None:
            self.updates.append((op, *sources))
        elif kind == "save":
            BUFFER.create("copy", self.output_weights[op], *sources, loc=op.location)
        elif kind == "reshape":
            view = BUFFER.create("view", *sources, result_types=[spec_of(op.result.type)], loc=op.location,
                                 byte_offset=0)
            self.buffers[op.result] = view.result
        else:
            alloc = BUFFER.create("alloc", result_types=[spec_of(op.result.type)], loc=op.location,
                                  name=self._name(op), offset=UNPLANNED)
            self.allocs.append(alloc)
            # graph.X's attributes carry over as they are.
            attributes = {name: op.attributes[name] for name in op.attributes}
            ir.Operation.create(f"buffer.{kind}", operands=[alloc.result, *sources], attributes=attributes,
                                loc=op.location)
            self.buffers[op.result] = alloc.result

    def _name(self, op: ir.Operation) -> str:
        """A unique buffer name from the location of the op it comes from."""
        return self.names.fresh(location_name(op.location) or GRAPH.lookup(op).name)

    @staticmethod
    def _weight(name: str, tensor_type: ir.Type, loc: ir.Location) -> ir.Value:
        weight = BUFFER.create("weight", result_types=[spec_of(tensor_type)], loc=loc, name=name, mutable=True,
                               public=True, offset=UNPLANNED)
        return weight.result
