"""The HIR executor: a HIR model run exactly in the accelerator's fixed point.

This is the numeric contract of the accelerator path (docs/accelerator.md):
the scheduler's instructions, run by the simulator, must give these very
integers. Vars live in a DRAM0 image in the channel-tile-major layout; temps
are integer tensors; every operation is the data type's (`fixed_point.py`).
A matmul applies, for each output vector, the present tiles of its channel
tile in (kh, kw, ci_t) order, one array pass (one rounding) each, the first
overwriting and the others accumulating with saturation; pools go over
in-bounds pixels in (kh, kw) order, then average pooling multiplies by
`scale_factors(1/count)` in turn. Host segments run in the graph interpreter
following the `.tmodel` plan's rules: a placeholder reads the host's value
of that name if it has one (model inputs, earlier host results: exact
floats), else the Vars of that name; a save is kept on the host and, if a
Vars has that name, also written to DRAM0.
"""

from __future__ import annotations

import itertools
from typing import Callable, Mapping

import numpy as np
from mlir import ir

from lamina.target.tcu.data_layout import as_nchw, channel_tiles, from_vectors, to_vectors, vector_count
from lamina.target.tcu.fixed_point import DataType, scale_factors
from lamina.dialects.context import check_module, embedded_source, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.hir import (HIR, binary_point_of, interface_of, matmul_weight_offsets, rounding_shift,
                                 window_output_shape)
from lamina.dialects.hir_architecture import architecture_of
from lamina.dialects.model import body_ops
from lamina.dialects.op_registry import OpRegistry
from lamina.dialects.model import inputs as graph_inputs
from lamina.dialects.types import TensorSpec, spec_of

from . import graph_interpreter
from .blas_products import one_thread_rows

# HIR op name -> what the machine does for it: `(machine, op) -> None`.
STEPS: OpRegistry = OpRegistry("HIR interpreter step", HIR)
step = STEPS.register


def computes(*names: str):
    """Register a method computing an op's output temp from (source values, attributes, output shape)."""

    def decorate(method):
        def run(machine: "_Machine", op: ir.Operation) -> None:
            output, *sources = op.operands
            attrs = {**HIR.view(op).attrs(), "shift": rounding_shift(op), "binary_point": binary_point_of(output)}
            machine.temps[output] = method(machine, sources, attrs, spec_of(output.type).shape)

        step(*names)(run)
        return method

    return decorate


def inputs(module: ir.Operation) -> dict[str, TensorSpec]:
    """The model's inputs as the graph had them: float32 Vars, or the type of the host segment reading them
    (integer indices stay integers)."""
    names, _ = interface_of(module)
    specs: dict[str, TensorSpec] = {}
    for op in body_ops(module):
        if op.name == "hir.vars":
            specs.setdefault(HIR.view(op).attr("name"), TensorSpec(spec_of(op.result.type).shape, np.float32))
        elif op.name == "hir.host":
            host = parse_module(HIR.view(op).attr("module"), module.context, embedded_source(op, "module"))
            specs.update(graph_inputs(host))  # the host's type wins: it reads the value as given
    missing = [name for name in names if name not in specs]
    if missing:
        raise LaminaError(f"HIR model input(s) {', '.join(missing)} are read by nothing: no Vars and no host segment")
    return {name: specs[name] for name in names}


def run_hir(module: ir.Operation, feeds: Mapping[str, np.ndarray],
            observe: Callable[[str, np.ndarray], None] | None = None) -> dict[str, np.ndarray]:
    """Execute a HIR model; returns output name -> float32 array.

    `observe`, if given, hears every layer's save into a Vars object: its name and value as floats
    (the compile summary's per-layer accuracy)."""
    check_module(module)
    input_names, output_names = interface_of(module)
    given = graph_interpreter.check_inputs(inputs(module), feeds)
    machine = _Machine(module)
    machine.observe = observe
    machine.host_values.update(given)
    for name in input_names:
        if name in machine.vars_by_name:
            machine.write_named(name, machine.format_of(name).from_float(given[name]))
    for op in body_ops(module):
        machine.execute(op)
    outputs = {}
    for name in output_names:
        if name in machine.host_values and name not in input_names:
            outputs[name] = np.asarray(machine.host_values[name], dtype=np.float32)
        elif name in machine.vars_by_name:
            outputs[name] = machine.format_of(name).to_float(machine.read_named(name))
        else:
            raise LaminaError(f"HIR model output '{name}' is written by nothing")
    return outputs


class _Machine:
    """DRAM0 (vectors of storage integers, held as int64), temps, consts and host values."""

    def __init__(self, module: ir.Operation):
        architecture = architecture_of(module)
        self.context = module.context
        self.data_type: DataType = architecture.data_type
        self.lanes = architecture.array_size
        self.places: dict[ir.Value, tuple[int, tuple[int, ...]]] = {}  # vars/view -> (base, shape)
        self.vars_by_name: dict[str, ir.Value] = {}
        self.consts: dict[ir.Value, np.ndarray] = {}
        self.temps: dict[ir.Value, np.ndarray] = {}
        self.host_values: dict[str, np.ndarray] = {}
        self.observe: Callable[[str, np.ndarray], None] | None = None
        ops = body_ops(module)
        for op in ops:
            if op.name in ("hir.vars", "hir.view"):
                self._declare(op)
        end = max((base + vector_count(shape, self.lanes) for base, shape in self.places.values()), default=0)
        self.dram0 = np.zeros((end, self.lanes), dtype=np.int64)

    def _declare(self, op: ir.Operation) -> None:
        shape = spec_of(op.result.type).shape
        view = HIR.view(op)
        if op.name == "hir.vars":
            base = view.attr("base")
            if base < 0:
                raise LaminaError(f"hir.vars '{view.attr('name')}' has no DRAM0 base: run the memory manager first")
            self.places[op.result] = (base, shape)
            self.vars_by_name.setdefault(view.attr("name"), op.result)
            return
        source_base, _ = self.places[op.operands[0]]
        n, _, h, w = as_nchw(shape)
        self.places[op.result] = (source_base + view.attr("channel_offset") // self.lanes * n * h * w, shape)

    # -- memory ---------------------------------------------------------------

    def read(self, value: ir.Value, shape=None) -> np.ndarray:
        base, declared = self.places[value]
        shape = declared if shape is None else shape
        return from_vectors(self.dram0[base:base + vector_count(shape, self.lanes)], shape, self.lanes)

    def write(self, value: ir.Value, tensor: np.ndarray) -> None:
        base, shape = self.places[value]
        self.dram0[base:base + vector_count(shape, self.lanes)] = to_vectors(tensor.reshape(shape), self.lanes)

    def format_of(self, name: str) -> DataType:
        """The data type at the binary point of the Vars named `name`."""
        return self.data_type.at(binary_point_of(self.vars_by_name[name]))

    def read_named(self, name: str, shape=None) -> np.ndarray:
        return self.read(self.vars_by_name[name], shape)

    def write_named(self, name: str, tensor: np.ndarray) -> None:
        base, _ = self.places[self.vars_by_name[name]]
        shape = tensor.shape
        self.dram0[base:base + vector_count(shape, self.lanes)] = to_vectors(np.asarray(tensor, np.int64), self.lanes)

    def operand(self, value: ir.Value) -> np.ndarray:
        """A temp's tensor, or a Vars object's (the rhs of `hir.add` and `hir.binary` may be either)."""
        return self.temps[value] if value in self.temps else self.read(value)

    # -- execution ------------------------------------------------------------

    def execute(self, op: ir.Operation) -> None:
        STEPS[HIR.require(op, "the HIR executor").name](self, op)

    @step("vars", "view")
    def _placed(self, op):
        """Vars objects and views are placed in DRAM0 before the program runs."""

    @step("consts")
    def _consts(self, op):
        self.consts[op.result] = np.asarray(HIR.view(op).attr("value"), dtype=np.int64)

    @step("temp")
    def _temp(self, op):
        self.temps[op.result] = np.zeros(spec_of(op.result.type).shape, dtype=np.int64)

    @step("host")
    def _host(self, op):
        self.host(HIR.view(op).attr("module"), embedded_source(op, "module"))

    @step("save")
    def _save(self, op):
        output, source = op.operands
        self.write(output, self.temps[source])
        if self.observe is not None and output.owner.name == "hir.vars":
            name = HIR.view(output.owner).attr("name")
            self.observe(name, self.format_of(name).to_float(self.temps[source]))

    @computes("load")
    def _load(self, sources, attrs, shape):
        return self.read(sources[0])

    @computes("add")
    def _add(self, sources, attrs, shape):
        return self.data_type.add(self.temps[sources[0]], self.operand(sources[1]))

    @computes("binary")
    def _binary(self, sources, attrs, shape):
        lhs, rhs = self.temps[sources[0]], self.operand(sources[1])
        return self.elementwise(attrs["op"], lhs, rhs, attrs["shift"])

    @computes("channel")
    def _channel(self, sources, attrs, shape):
        data = self.temps[sources[0]]
        channels = data.shape[1]
        constant = self.consts[sources[1]].reshape(-1)[:channels].reshape((1, channels) + (1,) * (data.ndim - 2))
        lhs, rhs = (constant, data) if attrs["swap"] else (data, constant)
        return self.elementwise(attrs["op"], lhs, rhs, attrs["shift"])

    def elementwise(self, op: str, lhs: np.ndarray, rhs: np.ndarray, shift: int | None) -> np.ndarray:
        if op == "mul":
            return self.data_type.mul(lhs, rhs, shift)
        if op in ("add", "sub"):
            return getattr(self.data_type, op)(lhs, rhs)
        return (np.maximum if op == "max" else np.minimum)(lhs, rhs)

    @computes("relu")
    def _relu(self, sources, attrs, shape):
        return np.maximum(self.temps[sources[0]], 0)

    @computes("clip")
    def _clip(self, sources, attrs, shape):
        data_type = self.data_type.at(attrs["binary_point"])
        low, high = (int(data_type.from_float(attrs[bound])) for bound in ("min", "max"))
        return np.minimum(np.maximum(self.temps[sources[0]], low), high)

    @computes("leaky_relu")
    def _leaky_relu(self, sources, attrs, shape):
        data = self.temps[sources[0]]
        return np.maximum(data, self.data_type.mul(data, int(self.data_type.from_float(attrs["alpha"]))))

    @computes("matmul")
    def _matmul(self, sources, attrs, shape):
        return matmul(self.read(sources[0]), self.consts[sources[1]], attrs, shape, self.data_type, self.lanes,
                      attrs["shift"])

    @computes("pool")
    def _pool(self, sources, attrs, shape):
        return pool(self.temps[sources[0]], attrs, self.data_type)

    def host(self, text: str, source: str) -> None:
        module = parse_module(text, self.context, source)
        feeds = {}
        for name, spec in graph_inputs(module).items():
            if name in self.host_values:
                feeds[name] = self.host_values[name]
            elif name in self.vars_by_name:
                feeds[name] = self.format_of(name).to_float(self.read_named(name, spec.shape))
            else:
                raise LaminaError(f"host segment reads '{name}', which is neither a host value nor a Vars object")
        for name, value in graph_interpreter.run(module, feeds).items():
            self.host_values[name] = value
            if name in self.vars_by_name:
                self.write_named(name, self.format_of(name).from_float(value))


def matmul(data: np.ndarray, image: np.ndarray, attrs: dict, out_shape: tuple[int, ...], data_type: DataType,
           lanes: int, shift: int | None = None) -> np.ndarray:
    """`hir.matmul`: per (kh, kw, ci_t), one array pass for every channel tile with a present tile there.

    A pass adds the co_t's bias only on its first present tile (the one that overwrites), as the array
    does with the bias row the scheduler loads there and the zero row it pushes for the others.
    """
    n, ci, height, width = as_nchw(data.shape)
    _, co, ho, wo = as_nchw(out_shape)
    kh, kw = attrs["kernel"]
    sh, sw = attrs["strides"]
    top, left, bottom, right = attrs["pads"]
    dh, dw = attrs["dilations"]
    ci_tiles, co_tiles = channel_tiles(ci, lanes), channel_tiles(co, lanes)
    padded = np.zeros((n, ci_tiles * lanes, height + top + bottom, width + left + right), dtype=np.int64)
    padded[:, :ci, top:top + height, left:left + width] = data.reshape(n, ci, height, width)
    offsets, bias_offsets = matmul_weight_offsets(attrs["tile_slots"], co_tiles, lanes)
    offsets = offsets.reshape(co_tiles, kh, kw, ci_tiles)
    acc = np.zeros((n * ho * wo, co_tiles, lanes), dtype=np.int64)
    started = np.zeros(co_tiles, dtype=bool)
    for y, x, c in itertools.product(range(kh), range(kw), range(ci_tiles)):
        present = np.flatnonzero(offsets[:, y, x, c] >= 0)
        if present.size == 0:
            continue
        patch = padded[:, c * lanes:(c + 1) * lanes, y * dh:y * dh + sh * (ho - 1) + 1:sh,
                       x * dw:x * dw + sw * (wo - 1) + 1:sw]
        vectors = patch.transpose(0, 2, 3, 1).reshape(-1, lanes)
        loaded = image[offsets[present, y, x, c][:, None] + np.arange(lanes)]  # (k, N, N): rows of input lanes
        weights = loaded.transpose(1, 0, 2).reshape(lanes, -1)
        first = ~started[present]
        bias = np.where(first[:, None], image[bias_offsets[present]], 0)
        passes = _stacked_matmul(vectors, weights, bias.reshape(-1), shift, data_type).reshape(-1, present.size, lanes)
        acc[:, present] = np.where(first[None, :, None], passes, data_type.add(acc[:, present], passes))
        started[present] = True
    result = acc.reshape(n, ho, wo, co_tiles * lanes).transpose(0, 3, 1, 2)[:, :co]
    return np.ascontiguousarray(result).reshape(out_shape)


def _stacked_matmul(vectors: np.ndarray, weights: np.ndarray, bias: np.ndarray, shift: int | None,
                    data_type: DataType) -> np.ndarray:
    """`data_type.matmul` of all vectors, as a stacked product of blocks that keep OpenBLAS on one thread."""
    rows = one_thread_rows(*weights.shape)
    blocks = -(-len(vectors) // rows)
    stacked = np.zeros((blocks * rows, vectors.shape[1]), vectors.dtype)
    stacked[:len(vectors)] = vectors
    passes = data_type.matmul(stacked.reshape(blocks, rows, -1), weights, bias, shift)
    return passes.reshape(blocks * rows, -1)[:len(vectors)]


def pool(data: np.ndarray, attrs: dict, data_type: DataType) -> np.ndarray:
    """`hir.pool`: in-bounds pixels in (kh, kw) order (the first overwrites), then average's scale factors."""
    n, c, height, width = data.shape
    ho, wo = window_output_shape(data.shape, attrs)
    kh, kw = attrs["kernel"]
    sh, sw = attrs["strides"]
    top, left = attrs["pads"][:2]
    acc = np.zeros((n, c, ho, wo), dtype=np.int64)
    count = np.zeros((ho, wo), dtype=np.int64)
    for y, x in itertools.product(range(kh), range(kw)):
        rows, columns = np.arange(ho) * sh - top + y, np.arange(wo) * sw - left + x
        inside = ((rows >= 0) & (rows < height))[:, None] & ((columns >= 0) & (columns < width))[None, :]
        pixels = data[:, :, np.clip(rows, 0, height - 1)][:, :, :, np.clip(columns, 0, width - 1)]
        combined = np.maximum(acc, pixels) if attrs["kind"] == "max" else data_type.add(acc, pixels)
        acc = np.where(inside, np.where(count > 0, combined, pixels), acc)
        count += inside
    if attrs["kind"] == "avg":
        divisors = np.full_like(count, kh * kw) if attrs["count_include_pad"] else count
        for divisor in np.unique(divisors):
            if divisor <= 1:
                continue
            where = divisors == divisor
            for factor in scale_factors(1.0 / divisor, data_type):
                acc[:, :, where] = data_type.mul(acc[:, :, where], factor)
    return acc
