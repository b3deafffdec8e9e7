"""The `hir` dialect: the accelerator's memory objects and layers (docs/accelerator.md).

A HIR module is one `func.func @main()` over memrefs. Memory objects are
declared first: `hir.vars` (a tensor in DRAM0 at a vector `base`),
`hir.view` (a concat input placed at a channel offset inside its output's
Vars), `hir.consts` (a `V x N` image of storage integers in DRAM1, on a
`page`: 0 resident, k > 0 an overlay the host loads when needed) and
`hir.temp` (a layer-local tensor the scheduler places in the accumulators).
Then come layers, in program order: a matmul or load followed by
accumulator ops and ending with saves, and `hir.host` segments that run a
graph module on the host.

Vars and temps have the tensor's logical shape (rank 2 or 4) and the data
type's storage integers as element type; consts are `V x N` images. The
module attribute `hir.architecture` holds the `.tarch` JSON with its name,
so HIR text is self-contained. Per-op shape rules live here; what needs the
architecture or the target's data layout (array size, channel alignment,
weight tiles, which object an operand is, temps staying in their layer) is
the module verifier's job, in `hir_architecture.py`, which alone imports
the target description.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from .diagnostics import LaminaError
from .graph import window_output_size
from .irdl import BOOL, ELEMENTS, F32, I64, I64S, IN_PLACE, MEMORY_OBJECT, STR, DialectDef, ShapeError
from .types import TensorSpec
from .values import ops_of

HIR = DialectDef("hir", "The accelerator's memory objects (Vars, Consts, Temps) and layers", values="memref")

ARCHITECTURE_ATTRIBUTE = "hir.architecture"
# The model's input and output names, in order (module attributes, arrays of strings).
INPUTS_ATTRIBUTE = "hir.inputs"
OUTPUTS_ATTRIBUTE = "hir.outputs"

BINARY_OPS = ("add", "sub", "mul", "max", "min")
POOL_KINDS = ("max", "avg")



def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)


def _tensor_rank(spec: TensorSpec, what: str) -> None:
    _require(spec.rank in (2, 4), f"{what} must be a rank-2 or rank-4 tensor, got {spec}")


def _declared_object(ins, attrs, declared):
    _require(declared is not None and len(declared) == 1, "needs one explicit result type")
    _tensor_rank(declared[0], "a memory object")
    return declared


def _view(ins, attrs, declared):
    (source,) = ins
    (view,) = _declared_object(ins, attrs, declared)
    offset = attrs["channel_offset"]
    _require(view.rank == source.rank and view.dtype == source.dtype,
             f"a view keeps the rank and element type of its source: {source} viewed as {view}")
    same_elsewhere = all(v == s for axis, (v, s) in enumerate(zip(view.shape, source.shape)) if axis != 1)
    _require(same_elsewhere, f"a view selects channels only: {source} viewed as {view}")
    _require(0 <= offset and offset + view.shape[1] <= source.shape[1],
             f"channels [{offset}, {offset + view.shape[1]}) are not inside the {source.shape[1]} of {source}")
    return [view]


def _consts(ins, attrs, declared):
    value = attrs["value"]
    _require(value.ndim == 2 and value.dtype.kind == "i",
             f"a consts value is a V x N image of storage integers, got shape {list(value.shape)} of {value.dtype}")
    return [TensorSpec(value.shape, value.dtype)]


def _same_shapes(ins, attrs, declared):
    first = ins[0]
    _tensor_rank(first, "an operand")
    _require(all(spec == first for spec in ins[1:]),
             f"operands must have one type, got {', '.join(str(spec) for spec in ins)}")
    return []


def _window_attrs(attrs: dict, names: tuple[str, ...]) -> None:
    for name in names:
        expected = 4 if name == "pads" else 2
        _require(len(attrs[name]) == expected, f"'{name}' needs {expected} values, got {len(attrs[name])}")
    _require(all(k >= 1 for k in attrs["kernel"]), "kernel sizes must be >= 1")
    _require(all(s >= 1 for s in attrs["strides"]), "strides must be >= 1")
    _require(all(p >= 0 for p in attrs["pads"]), "pads must be >= 0")
    if "dilations" in attrs:
        _require(all(d >= 1 for d in attrs["dilations"]), "dilations must be >= 1")


def window_output_shape(input_shape, attrs: dict) -> tuple[int, int]:
    """(ho, wo) of a window (kernel, strides, pads [t, l, b, r], dilations) over (n, c, h, w)."""
    dilations = attrs.get("dilations", (1, 1))
    return tuple(
        window_output_size(input_shape[2 + i], attrs["kernel"][i], attrs["strides"][i],
                           attrs["pads"][i], attrs["pads"][2 + i], dilations[i])
        for i in range(2)
    )


def _matmul(ins, attrs, declared):
    output, data, weights = ins
    _window_attrs(attrs, ("kernel", "strides", "pads", "dilations"))
    _tensor_rank(data, "the input")
    _tensor_rank(output, "the output")
    _require(output.shape[0] == data.shape[0], f"batch of {output} differs from input {data}")
    kh, kw = attrs["kernel"]
    if data.rank == 2:
        _require(output.rank == 2 and (kh, kw) == (1, 1) and not any(attrs["pads"]),
                 f"a matmul over a matrix is 1x1 without pads and yields a matrix, got {data} -> {output}")
    elif output.rank == 2:
        # flatten then fully-connected: the kernel covers the whole image
        _require((kh, kw) == tuple(data.shape[2:]) and not any(attrs["pads"]),
                 f"a matmul from {data} to a matrix needs the whole image {list(data.shape[2:])} as kernel "
                 f"and no pads, got kernel {[kh, kw]}")
    else:
        ho, wo = window_output_shape(data.shape, attrs)
        _require(output.shape[2:] == (ho, wo), f"output {output} must be {ho}x{wo} pixels for input {data}")
    _require(weights.rank == 2 and weights.shape[1] >= 2, f"weights must be vectors of N >= 2 lanes, got {weights}")
    _require(data.dtype == output.dtype == weights.dtype, "input, output and weights must share an element type")
    return []  # tile_slots against the weights: hir_architecture.py (the tiles are the target's data layout)


def matmul_weight_offsets(tile_slots, co_tiles: int, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """(vector offset of each slot's tile in the weights object or -1 if absent, offset of each co_t's bias vector).

    The weights object holds, co_t after co_t, the bias vector of co_t then its present tiles (N vectors,
    rows of input lanes 0..N-1) in slot order. So tile k of co_t starts at k*N + co_t + 1, and a co_t's bias
    sits right before its first present tile: tile and bias load with one DataMove of N+1 vectors, while the
    other tiles carry no stored zero bias row (docs/accelerator.md, `hir.matmul`).
    """
    slots = np.asarray(tile_slots, np.int64).reshape(co_tiles, -1)
    co_t = np.arange(co_tiles)
    tiles = np.where(slots >= 0, slots * lanes + co_t[:, None] + 1, -1)
    tiles_before = np.concatenate([[0], np.cumsum((slots >= 0).sum(axis=1))[:-1]])
    return tiles.reshape(-1), tiles_before * lanes + co_t


def _channel(ins, attrs, declared):
    output, data, constant = ins
    _same_shapes([output, data], attrs, declared)
    _require(attrs["op"] in BINARY_OPS, f"op must be one of {', '.join(BINARY_OPS)}, got '{attrs['op']}'")
    _require(constant.rank == 2, f"a per-channel constant is a matrix of vectors, got {constant}")
    return []  # one vector per channel tile: hir_architecture.py


def _binary(ins, attrs, declared):
    _require(attrs["op"] in BINARY_OPS, f"op must be one of {', '.join(BINARY_OPS)}, got '{attrs['op']}'")
    return _same_shapes(ins, attrs, declared)


def _clip(ins, attrs, declared):
    _require(attrs["min"] <= attrs["max"], f"min {attrs['min']} exceeds max {attrs['max']}")
    return _same_shapes(ins, attrs, declared)


def _pool(ins, attrs, declared):
    output, data = ins
    _window_attrs(attrs, ("kernel", "strides", "pads"))
    _require(attrs["kind"] in POOL_KINDS, f"kind must be one of {', '.join(POOL_KINDS)}, got '{attrs['kind']}'")
    _require(data.rank == 4, f"pooling needs an N x C x H x W input, got {data}")
    ho, wo = window_output_shape(data.shape, attrs)
    expected = data.with_shape((*data.shape[:2], ho, wo))
    _require(output == expected, f"output must be {expected} for input {data}, got {output}")
    return []


def _host(ins, attrs, declared):
    _require(attrs["segment"] >= 0, f"segment must be >= 0, got {attrs['segment']}")
    return []


LAYER = {"layer": I64}
OUT = {"output": "out"}

FORMAT = {"binary_point": I64}  # the object's format: storage integer q means q / 2**binary_point

HIR.op("vars", "A Vars object in DRAM0 at vector `base`, in format `binary_point`.",
       attrs={"name": STR, "base": I64, **FORMAT}, shape_fn=_declared_object, traits={MEMORY_OBJECT})
HIR.op("view", "Channels [channel_offset, +C) of a Vars object: a concat input placed in its output.",
       operands=("source",), attrs={"channel_offset": I64}, shape_fn=_view, traits={MEMORY_OBJECT})
HIR.op("consts", "A Consts object in DRAM1 at vector `base`: a V x N image of storage integers. Page 0 is "
       "loaded before the program runs; page k > 0 is loaded by the host before the first layer that reads it, "
       "over the previous page (weights larger than DRAM1).",
       attrs={"base": I64, "page": I64, "value": ELEMENTS, **FORMAT}, shape_fn=_consts, traits={MEMORY_OBJECT})
HIR.op("temp", "A Temp object of one layer, placed in the accumulators by the scheduler.",
       attrs={**LAYER, **FORMAT}, shape_fn=_declared_object, traits={MEMORY_OBJECT})
HIR.op("matmul", "Convolution / fully-connected from Vars through weight tiles into a Temp (weights: per "
       "co_t its bias vector, then its present tiles of N vectors; tile_slots: the tile's number per "
       "(co_t, kh, kw, ci_t), present tiles numbered in order, -1 = all-zero).",
       operands=("output", "input", "weights"), results=(),
       attrs={**LAYER, "kernel": I64S, "strides": I64S, "pads": I64S, "dilations": I64S, "tile_slots": I64S},
       roles=OUT, shape_fn=_matmul)
HIR.op("load", "Vars -> Temp.", operands=("output", "input"), results=(), attrs=LAYER, roles=OUT,
       shape_fn=_same_shapes)
# The accumulator ops are in place: each may write over an input temp that dies there, since each vector is
# read before it is written (leaky relu keeps its intermediate in a scratch region of its own).
HIR.op("add", "output = sat(lhs + rhs); lhs a Temp, rhs a Vars or Temp.", operands=("output", "lhs", "rhs"),
       results=(), attrs=LAYER, roles=OUT, shape_fn=_same_shapes, traits={IN_PLACE})
HIR.op("binary", "Element-wise `op` (add, sub, mul, max, min); lhs a Temp, rhs a Temp or Vars.", operands=("output", "lhs", "rhs"),
       results=(), attrs={**LAYER, "op": STR}, roles=OUT, shape_fn=_binary, traits={IN_PLACE})
HIR.op("channel", "Element-wise `op` with a per-channel constant (CT vectors); `swap` puts it on the left.",
       operands=("output", "input", "constant"), results=(), attrs={**LAYER, "op": STR, "swap": BOOL}, roles=OUT,
       shape_fn=_channel, traits={IN_PLACE})
HIR.op("relu", "max(x, 0).", operands=("output", "input"), results=(), attrs=LAYER, roles=OUT,
       shape_fn=_same_shapes, traits={IN_PLACE})
HIR.op("clip", "min(max(x, min), max).", operands=("output", "input"), results=(),
       attrs={**LAYER, "min": F32, "max": F32}, roles=OUT, shape_fn=_clip, traits={IN_PLACE})
HIR.op("leaky_relu", "max(x, alpha * x).", operands=("output", "input"), results=(), attrs={**LAYER, "alpha": F32},
       roles=OUT, shape_fn=_same_shapes, traits={IN_PLACE})
HIR.op("pool", "Max or average over each window's in-bounds pixels, in (kh, kw) order.", operands=("output", "input"),
       results=(), attrs={**LAYER, "kind": STR, "kernel": I64S, "strides": I64S, "pads": I64S,
                          "count_include_pad": BOOL}, roles=OUT, shape_fn=_pool)
HIR.op("save", "Temp -> Vars.", operands=("output", "input"), results=(), attrs=LAYER, roles=OUT,
       shape_fn=_same_shapes)
HIR.op("host", "Run the graph module `module` on the host; its placeholders and saves name Vars or model values.",
       results=(), attrs={"segment": I64, "module": STR}, shape_fn=_host)


def set_interface(module: ir.Operation, inputs: list[str], outputs: list[str]) -> None:
    for attribute, names in ((INPUTS_ATTRIBUTE, inputs), (OUTPUTS_ATTRIBUTE, outputs)):
        module.attributes[attribute] = ir.ArrayAttr.get([ir.StringAttr.get(name) for name in names])


def interface_of(module: ir.Operation) -> tuple[list[str], list[str]]:
    """(input names, output names) of a HIR model."""
    names = []
    for attribute in (INPUTS_ATTRIBUTE, OUTPUTS_ATTRIBUTE):
        if attribute not in module.attributes:
            raise LaminaError(f"a HIR model needs the module attribute '{attribute}' (its names, in order)")
        value = module.attributes[attribute]
        if not isinstance(value, ir.ArrayAttr) or not all(isinstance(name, ir.StringAttr) for name in value):
            raise LaminaError(f"module attribute '{attribute}' must be an array of strings, got {str(value)[:60]}")
        names.append([ir.StringAttr(name).value for name in ir.ArrayAttr(value)])
    return names[0], names[1]


# ---------------------------------------------------------------------------
# Formats: every memory object has a binary point; ops with a multiply round at a shift.
# ---------------------------------------------------------------------------


def binary_point_of(value: ir.Value) -> int:
    """The binary point of the memory object `value` is (a view has its source's)."""
    owner = value.owner
    if owner.name == "hir.view":
        return binary_point_of(owner.operands[0])
    return HIR.view(owner).attr("binary_point")


# (op, operand roles multiplied) for the ops whose result is a rounded product.
_PRODUCTS = {"matmul": ("input", "weights"), "binary": ("lhs", "rhs"), "channel": ("input", "constant")}


def rounding_shift(op: ir.Operation) -> int | None:
    """The bit a multiplying op rounds its products at (input bp + weight bp - output bp), None for the others.

    `binary` and `channel` multiply only with op = mul; pools and leaky relu
    multiply by factors at the data type's binary point (architecture default)."""
    view = HIR.view(op)
    name = view.name
    if name not in _PRODUCTS or (name != "matmul" and view.attr("op") != "mul"):
        return None
    left, right = (binary_point_of(view.operand(role)) for role in _PRODUCTS[name])
    return left + right - binary_point_of(view.operand("output"))


def object_kind(value: ir.Value) -> str | None:
    """Which memory object a value is (`vars`, `view`, `consts`, `temp`), or None."""
    owner = value.owner
    definition = HIR.lookup(owner) if isinstance(owner, ir.OpView) else None
    return definition.name if definition is not None and definition.has(MEMORY_OBJECT) else None


def _verify_module(module: ir.Operation) -> list[tuple[ir.Location, str]]:
    """The checks that need the architecture (hir_architecture.py); the target description loads only when a
    module holds HIR ops."""
    if not ops_of(module, HIR):
        return []
    from .hir_architecture import verify_hir

    return verify_hir(module)


HIR.module_verifier = _verify_module
