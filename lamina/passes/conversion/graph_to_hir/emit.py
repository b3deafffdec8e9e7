"""Emit the HIR program of planned steps into the model's function.

Memory objects (`hir.vars`, `hir.view`, `hir.consts`) are declared before
the program, created the first time a step needs them; every base is left
at -1 for the memory manager. Each layer declares its temps; an op writes
over its input's temp when nothing else reads that value, and a value read
outside its layer (by another layer, a placement, the host or an output) is
saved at the end of the layer. Each op's step comes from its family's rule
(`rules.py`), in the family's module.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from mlir import ir

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.data_layout import channel_tiles
from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_control_flow import outer_operands
from lamina.dialects.hir import HIR
from lamina.dialects.types import TensorSpec, spec_of
from lamina.dialects.values import defining_op, is_constant_view, op_name, users

from ..naming import UniqueNames, location_name
from .formats import Formats
from .graph_values import per_channel
from .layering import HostSegment, Layer, Step
from .memory_manager import ConcatCopy, ConcatPlan
from .partition import host_module
from .rules import RULES
from .weights import selection_filter, tile_weights

UNPLACED = -1

Temps = dict[ir.Value, ir.Value]  # a layer's graph values -> the temps holding them


class Names:
    """Names of values in DRAM0: model inputs and outputs keep theirs, others are named after their node."""

    def __init__(self, ops: list[ir.Operation]):
        self.fixed: dict[ir.Value, str] = {}
        self.outputs: dict[ir.Value, list[str]] = {}
        for op in ops:
            kind = op_name(op)
            if kind == "placeholder":
                self.fixed[op.result] = GRAPH.view(op).attr("name")
            elif kind == "save":
                self.outputs.setdefault(op.operands[0], []).append(GRAPH.view(op).attr("name"))
        for value, names in self.outputs.items():
            self.fixed.setdefault(value, names[0])
        self.unique = UniqueNames(set(self.fixed.values()) | {n for names in self.outputs.values() for n in names})
        self.given: dict[ir.Value, str] = {}

    def of(self, value: ir.Value) -> str:
        if value in self.fixed:
            return self.fixed[value]
        if value not in self.given:
            op = defining_op(value)
            self.given[value] = self.unique.fresh(location_name(op.location) or op_name(op))
        return self.given[value]


class HirEmitter:
    def __init__(self, ops: list[ir.Operation], terminator: ir.Operation, architecture: Architecture,
                 verdicts: dict[ir.Operation, str | None], concats: ConcatPlan, formats: Formats):
        self.verdicts = verdicts
        self.formats = formats
        self.data_type = architecture.data_type
        self.lanes = architecture.array_size
        self.concats = concats
        self.names = Names(ops)
        self.objects = ir.InsertionPoint(ops[0]) if ops else ir.InsertionPoint(terminator)
        self.program = ir.InsertionPoint(terminator)
        self.vars: dict[ir.Value, ir.Value] = {}
        # Consts made once per graph constant: per-channel constants, and weights with their tile_slots.
        self.channel_constants: dict[ir.Value, ir.Value] = {}
        self.weights: dict[tuple, tuple[ir.Value, tuple[int, ...]]] = {}
        self.layer_index = 0
        self.segment_index = 0

    # -- memory objects -------------------------------------------------------

    def storage(self, value: ir.Value) -> TensorSpec:
        return TensorSpec(spec_of(value.type).shape, self.data_type.storage)

    def declare_inputs(self, placeholders: list[ir.Operation]) -> None:
        """Every model input's Vars, in order (they go first in DRAM0)."""
        for op in placeholders:
            if spec_of(op.result.type).rank in (2, 4):
                self.vars_of(op.result)

    def vars_of(self, value: ir.Value) -> ir.Value:
        """The Vars object (or view of one) holding a graph value."""
        if value in self.vars:
            return self.vars[value]
        op = defining_op(value)
        with self.objects:
            if self.is_placement(op, "reshape"):  # a layout-keeping alias: one object, two shapes
                source = self.vars_of(op.operands[0])
                name = HIR.view(source.owner).attr("name")
                result = HIR.create("vars", result_types=[self.storage(value)], name=name, base=UNPLACED,
                                    binary_point=self.formats.of(value), loc=op.location).result
            elif value in self.concats.placements:
                placement = self.concats.placements[value]
                result = self.view(placement.root, placement.offset, spec_of(value.type).shape)
            else:
                result = HIR.create("vars", result_types=[self.storage(value)], name=self.names.of(value),
                                    base=UNPLACED, binary_point=self.formats.of(value), loc=op.location if op is not None else ir.Location.unknown()).result
        self.vars[value] = result
        return result

    def is_placement(self, op: ir.Operation | None, kind: str) -> bool:
        """Whether `op` is a `kind` op the accelerator runs as a placement (no computation)."""
        return op is not None and op_name(op) == kind and self.verdicts.get(op, "") is None

    def view(self, root: ir.Value, offset: int, shape: tuple[int, ...]) -> ir.Value:
        """Channels [offset, offset + shape[1]) of `root`'s Vars."""
        with self.objects:
            return HIR.create("view", self.vars_of(root), result_types=[TensorSpec(shape, self.data_type.storage)],
                              channel_offset=offset, loc=ir.Location.unknown()).result

    def consts(self, image: np.ndarray, binary_point: int, loc: ir.Location) -> ir.Value:
        with self.objects:
            return HIR.create("consts", base=UNPLACED, page=0, value=image, binary_point=binary_point, loc=loc).result

    def channel_consts(self, data: ir.Value, binary_point: int | None, loc: ir.Location) -> ir.Value:
        """A per-channel constant as CT vectors: channel c at vector c div N, lane c mod N.

        `binary_point` None: a factor, in the format its own values need; else the format of what it is
        added to or compared with."""
        vector = per_channel(data)
        if binary_point is None:
            binary_point = self.formats.of_data(vector, f"the constant at {location_name(loc) or 'an op'}")
        if (data, binary_point) not in self.channel_constants:
            tiles = channel_tiles(len(vector), self.lanes)
            lanes = np.zeros(tiles * self.lanes, dtype=self.data_type.storage)
            lanes[:len(vector)] = self.data_type.at(binary_point).from_float(vector)
            self.channel_constants[data, binary_point] = self.consts(lanes.reshape(tiles, self.lanes), binary_point,
                                                                     loc)
        return self.channel_constants[data, binary_point]

    # -- steps --------------------------------------------------------------

    def emit(self, steps: list[Step]) -> None:
        for step in steps:
            if isinstance(step, HostSegment):
                self.emit_host(step)
            elif isinstance(step, ConcatCopy):
                self.emit_concat_copy(step)
            else:
                self.emit_layer(step)

    def temp(self, value: ir.Value, loc: ir.Location) -> ir.Value:
        spec = self.storage(value)
        with self.program:
            return HIR.create("temp", result_types=[spec], layer=self.layer_index,
                              binary_point=self.formats.of(value), loc=loc).result

    def op(self, name: str, *operands: ir.Value, loc: ir.Location, **attrs) -> None:
        with self.program:
            HIR.create(name, *operands, layer=self.layer_index, loc=loc, **attrs)

    def emit_layer(self, layer: Layer) -> None:
        members = set(layer.ops)
        escaping = [value for op in layer.ops for value in op.results
                    if any(user not in members for user in users(value))]
        temps: Temps = {}
        escaping_set = set(escaping)
        for op in layer.ops:
            self.emit_op(op, temps, escaping_set)
        for value in escaping:
            self.op("save", self.vars_of(value), temps[value], loc=defining_op(value).location)
        self.layer_index += 1

    def loaded(self, value: ir.Value, temps: Temps, loc: ir.Location) -> ir.Value:
        """The value's temp, loading it from its Vars first if the layer does not hold it."""
        if value not in temps:
            temps[value] = self.temp(value, loc)
            self.op("load", temps[value], self.vars_of(value), loc=loc)
        return temps[value]

    def result_temp(self, op: ir.Operation, candidates: list[ir.Value], temps: Temps,
                    escaping: set[ir.Value]) -> ir.Value:
        """A temp for the op's result: an input's, when only this op reads that input and it is not saved."""
        for value in candidates:
            if value in temps and value not in escaping and users(value) == [op] and \
                    value.type == op.result.type and self.formats.of(value) == self.formats.of(op.result):
                temps[op.result] = temps[value]
                return temps[value]
        temps[op.result] = self.temp(op.result, op.location)
        return temps[op.result]

    def emit_op(self, op: ir.Operation, temps: Temps, escaping: set[ir.Value]) -> None:
        RULES[op_name(op)].emit(self, op, temps, escaping)

    def matmul(self, op: ir.Operation, source: ir.Value, window: dict, image: tuple[int, int, int] | None,
               temps: Temps, filter_and_bias: Callable[[], tuple[np.ndarray, np.ndarray]]) -> None:
        """A matmul step of `op` reading `source`'s Vars; its weights (`filter_and_bias()`) are tiled into Consts
        once per weights, fused image and output format."""
        kind, loc = op_name(op), op.location
        output_point = self.formats.of(op.result)
        key = (kind, *op.operands[1:], image, output_point)
        if key not in self.weights:
            filter_, bias = filter_and_bias()
            weight_point = self.formats.of_data(filter_, f"the weights of {location_name(loc) or kind}")
            tiled = tile_weights(filter_, bias, self.data_type.at(weight_point), self.lanes,
                                 self.data_type.at(output_point))
            self.weights[key] = (self.consts(tiled.image, weight_point, loc), tiled.tile_slots)
        weights, tile_slots = self.weights[key]
        temps[op.result] = self.temp(op.result, loc)
        self.op("matmul", temps[op.result], self.vars_of(source), weights, loc=loc, tile_slots=tile_slots, **window)

    def emit_concat_copy(self, copy: ConcatCopy) -> None:
        concat, loc = copy.concat, copy.concat.location
        output = concat.result
        home = self.concats.home(output)
        if copy.select:
            start, channels = copy.span
            selection = selection_filter(channels, spec_of(copy.input.type).shape[1], copy.offset - start)
            weight_point = self.formats.of_data(selection, "a concat selection")
            tiled = tile_weights(selection, np.zeros(channels), self.data_type.at(weight_point), self.lanes)
            weights = self.consts(tiled.image, weight_point, loc)
            shape = spec_of(output.type).shape
            shape = (shape[0], channels, *shape[2:])
            window = (self.vars_of(output) if channels == spec_of(output.type).shape[1] else
                      self.view(home.root, home.offset + start, shape))
            with self.program:
                result = HIR.create("temp", result_types=[TensorSpec(shape, self.data_type.storage)],
                                    layer=self.layer_index, binary_point=self.formats.of(output), loc=loc).result
            self.op("matmul", result, self.vars_of(copy.input), weights, loc=loc,
                    kernel=(1, 1), strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), tile_slots=tiled.tile_slots)
            if copy.accumulate:
                self.op("add", result, result, window, loc=loc)
            self.op("save", window, result, loc=loc)
        else:
            result = self.temp(copy.input, loc)
            self.op("load", result, self.vars_of(copy.input), loc=loc)
            self.op("save", self.view(home.root, home.offset + copy.offset, spec_of(copy.input.type).shape), result,
                    loc=loc)
        self.layer_index += 1

    def emit_host(self, segment: HostSegment) -> None:
        members = set(segment.ops)
        inputs: dict[ir.Value, str] = {}
        for op in segment.ops:
            for value in (*op.operands, *outer_operands(op)):
                if not is_constant_view(value) and defining_op(value) not in members and value not in inputs:
                    inputs[value] = self.names.of(value)
        outputs: dict[ir.Value, list[str]] = {}
        for op in segment.ops:
            for value in op.results:
                outside = [user for user in users(value) if user not in members]
                names = [self.names.of(value)] if any(op_name(u) != "save" for u in outside) else []
                names += [n for n in self.names.outputs.get(value, []) if n not in names]
                if names:
                    outputs[value] = names
        self.host(host_module(segment.ops[0].context, segment.ops, inputs, outputs), segment.ops[0].location)

    def host(self, text: str, loc: ir.Location) -> None:
        with self.program:
            HIR.create("host", segment=self.segment_index, module=text, loc=loc)
        self.segment_index += 1

    def emit_output_copies(self, context: ir.Context) -> None:
        """A last host segment saving the outputs no layer or segment writes under their names:
        model inputs, constants, and the second names of values the accelerator computes."""
        inputs: dict[ir.Value, str] = {}
        outputs: dict[ir.Value, list[str]] = {}
        for value, names in self.names.outputs.items():
            op = defining_op(value)
            if self.verdicts.get(op) is not None:
                continue  # computed on the host, which saves it under every name
            if is_constant_view(value):
                outputs[value] = names
            elif op_name(op) == "placeholder" or len(names) > 1:
                inputs[value] = self.names.of(value)
                outputs[value] = [name for name in names if name != inputs[value]] or names
        if outputs:
            self.host(host_module(context, [], inputs, outputs), ir.Location.unknown())
