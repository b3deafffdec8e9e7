"""Read a HIR module (lamina/dialects/hir.py) into the scheduler's plain objects (layers.py)."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.target.tcu.architecture import Architecture
from lamina.dialects.diagnostics import format_location
from lamina.dialects.hir import HIR, OUTPUTS_ATTRIBUTE, binary_point_of, interface_of, rounding_shift
from lamina.dialects.hir_architecture import architecture_of
from lamina.dialects.irdl import IN_PLACE, MEMORY_OBJECT
from lamina.dialects.model import main_function
from lamina.dialects.types import spec_of

from .emitter import SCHEDULER_CONSTS_RESERVE
from .errors import ScheduleError
from .layers import ConstsImage, Elementwise, HostSegment, Layer, Load, MatMul, Pool, Program, Save, Vars


# Consts images hold storage integers; the widest data type (FP32BP16) has 32 bits, so int32 holds every one
# at half int64's memory traffic (ResNet-50's images are 25.6 M scalars).
STORAGE = np.int32


class _Objects:
    """The memory object each SSA value declares: Vars, consts base, or a temp name."""

    def __init__(self, lanes: int):
        self.lanes = lanes
        self.values: dict[ir.Value, object] = {}
        self.consts: dict[ir.Value, tuple[int, int, np.ndarray]] = {}  # (page, base, image)

    def declare(self, op: ir.Operation) -> None:
        view = HIR.view(op)
        name = HIR.lookup(op).name
        result = op.results[0]
        shape = tuple(spec_of(result.type).shape)
        if name == "vars":
            if view.attr("base") < 0:
                raise ScheduleError(format_location(op.location), f"hir.vars '{view.attr('name')}' has no DRAM0 "
                                    "base: run the memory manager (convert-graph-to-hir) first", location=op.location)
            self.values[result] = Vars(view.attr("name"), view.attr("base"), shape)
        elif name == "view":
            source = self.values[op.operands[0]]
            offset = view.attr("channel_offset") // self.lanes
            self.values[result] = Vars(source.name, source.base, shape, source.tile_offset + offset)
        elif name == "consts":
            self.values[result] = view.attr("base")
            self.consts[result] = (view.attr("page"), view.attr("base"), np.asarray(view.attr("value"), STORAGE))
        else:  # temp
            self.values[result] = f"t{len(self.values)}"

    def __getitem__(self, value: ir.Value):
        return self.values[value]

    def images(self) -> list[ConstsImage]:
        """One image per page; page 0 (resident) starts above the page region and ends everything."""
        consts = self.consts.values()
        pages = max((page for page, _, _ in consts), default=0)
        region = max((base + len(value) for page, base, value in consts if page), default=0)
        starts = [region] + [0] * pages
        ends = starts[:]
        for page, base, value in consts:
            if page < 0 or (page == 0 and base < region):
                raise ScheduleError("hir.consts", f"a consts object on page {page} at base {base} is outside its "
                                    f"page's region (pages > 0 below vector {region}, page 0 above)")
            ends[page] = max(ends[page], base + len(value))
        # page 0 is allocated with the scheduler's reserve after it, so its constants append without a copy
        room = [SCHEDULER_CONSTS_RESERVE] + [0] * pages
        buffers = [np.zeros((end - start + extra, self.lanes), STORAGE)
                   for start, end, extra in zip(starts, ends, room)]
        for page, base, value in consts:
            buffers[page][base - starts[page]:base - starts[page] + len(value)] = value
        return [ConstsImage(page, start, buffer[:end - start], buffer)
                for page, (start, end, buffer) in enumerate(zip(starts, ends, buffers))]

    def page_of(self, op: ir.Operation) -> int:
        """The consts page an op reads (0 when it reads resident consts only)."""
        return max((self.consts[operand][0] for operand in op.operands if operand in self.consts), default=0)


def _layer_op(op: ir.Operation, objects: _Objects):
    view = HIR.view(op)
    name = HIR.lookup(op).name
    operand = lambda role: objects[view.operand(role)]  # noqa: E731
    shape = lambda role: tuple(spec_of(view.operand(role).type).shape)  # noqa: E731
    if name == "matmul":
        return MatMul(operand("output"), shape("output"), operand("input"), operand("weights"),
                      tuple(view.attr("kernel")), tuple(view.attr("strides")), tuple(view.attr("pads")),
                      tuple(view.attr("dilations")), tuple(view.attr("tile_slots")), rounding_shift(op))
    if name == "load":
        return Load(operand("output"), operand("input"))
    if name == "pool":
        return Pool(operand("output"), operand("input"), shape("output"), view.attr("kind"),
                    tuple(view.attr("kernel")), tuple(view.attr("strides")), tuple(view.attr("pads")),
                    view.attr("count_include_pad"))
    if name == "save":
        return Save(operand("output"), operand("input"))
    formats = {"shift": rounding_shift(op), "binary_point": binary_point_of(view.operand("output")),
               "in_place": HIR.lookup(op).has(IN_PLACE)}
    if name in ("add", "binary"):
        op_name = "add" if name == "add" else view.attr("op")
        return Elementwise(op_name, operand("output"), (operand("lhs"), operand("rhs")), **formats)
    if name == "channel":
        return Elementwise(view.attr("op"), operand("output"), (operand("input"),), constant=operand("constant"),
                           swap=view.attr("swap"), **formats)
    params = {"clip": ("min", "max"), "leaky_relu": ("alpha",), "relu": ()}[name]
    return Elementwise(name, operand("output"), (operand("input"),),
                       params=tuple(float(view.attr(p)) for p in params), **formats)


def read_program(module: ir.Operation) -> tuple[Program, Architecture]:
    """The layers and host segments of a HIR module in order, its consts image and architecture."""
    arch = architecture_of(module)
    objects = _Objects(arch.array_size)
    steps: list = []
    for child in main_function(module).regions[0].blocks[0].operations:
        op = child.operation
        if op.name == "func.return":
            continue
        definition = HIR.require(op, "the scheduler (convert-hir-to-lir)")
        if definition.has(MEMORY_OBJECT):
            objects.declare(op)
        elif definition.name == "host":
            view = HIR.view(op)
            steps.append(HostSegment(view.attr("segment"), view.attr("module")))
        else:
            index = HIR.view(op).attr("layer")
            if not steps or not isinstance(steps[-1], Layer) or steps[-1].index != index:
                steps.append(Layer(index, format_location(op.location)))
            layer, page = steps[-1], objects.page_of(op)
            if page and layer.page and page != layer.page:
                raise ScheduleError(layer.location, f"layer {index} reads consts on pages {layer.page} and {page}; "
                                    "a layer's weights are on one page", location=op.location)
            layer.page = layer.page or page
            layer.ops.append(_layer_op(op, objects))
    outputs = frozenset(interface_of(module)[1]) if OUTPUTS_ATTRIBUTE in module.attributes else None
    return Program(steps, objects.images(), outputs), arch
