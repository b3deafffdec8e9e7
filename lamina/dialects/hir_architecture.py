"""The HIR module's architecture: the `hir.architecture` attribute and every check that needs the target.

`hir.py` defines the ops and the rules one op shows alone; what depends on
the TCU's description (array size, DRAM depths, the channel-tile data layout,
the rounding positions the hardware has) is checked here, over the whole
module. This is the only part of the HIR dialect that imports
`lamina.target`, and `hir.py`'s module verifier loads it when a module holds
HIR ops, so loading the dialects does not load the target description.
"""

from __future__ import annotations

import json

import numpy as np
from mlir import ir

from lamina.target.tcu.architecture import Architecture, parse_architecture
from lamina.target.tcu.data_layout import channel_tiles, vector_count
from lamina.target.tcu.program import MAX_SHIFT

from .diagnostics import LaminaError
from .hir import (ARCHITECTURE_ATTRIBUTE, HIR, INPUTS_ATTRIBUTE, OUTPUTS_ATTRIBUTE, binary_point_of, interface_of,
                  object_kind, rounding_shift)
from .irdl import MEMORY_OBJECT, ShapeError
from .types import TensorSpec, UnsupportedType, spec_of
from .values import ops_of


def architecture_json(architecture: Architecture) -> str:
    """The text of the `hir.architecture` attribute: the `.tarch` object with its name."""
    return json.dumps({"name": architecture.name, **architecture.to_json()}, sort_keys=True)


def set_architecture(module: ir.Operation, architecture: Architecture) -> None:
    module.attributes[ARCHITECTURE_ATTRIBUTE] = ir.StringAttr.get(architecture_json(architecture))


def architecture_of(module: ir.Operation) -> Architecture:
    """The architecture a HIR module was compiled for (a LaminaError if missing or invalid)."""
    if ARCHITECTURE_ATTRIBUTE not in module.attributes:
        raise LaminaError(f"a HIR module needs the module attribute '{ARCHITECTURE_ATTRIBUTE}' (the .tarch JSON)")
    source = f"module attribute '{ARCHITECTURE_ATTRIBUTE}'"
    try:
        fields = json.loads(ir.StringAttr(module.attributes[ARCHITECTURE_ATTRIBUTE]).value)
    except (ValueError, TypeError, RecursionError) as error:
        raise LaminaError(f"{source}: not a JSON string: {str(error)[:80]}") from None
    if not isinstance(fields, dict) or not isinstance(fields.get("name"), str):
        raise LaminaError(f"{source}: needs a JSON object with a \"name\"")
    name = fields.pop("name")
    return parse_architecture(fields, name, source)


# ---------------------------------------------------------------------------
# The data layout: weights in tiles, per-channel constants in channel tiles.
# ---------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ShapeError(message)


def _tile_slots(slots, weights: TensorSpec, ci: int, co: int, pixels: int) -> None:
    """`tile_slots` numbers the present tiles in order, every co_t has one, and the weights hold exactly them."""
    lanes = weights.shape[1]
    co_tiles = channel_tiles(co, lanes)
    expected = co_tiles * pixels * channel_tiles(ci, lanes)
    _require(len(slots) == expected,
             f"tile_slots needs one entry per (co_t, kh, kw, ci_t) = {expected}, got {len(slots)}")
    present = [slot for slot in slots if slot != -1]
    _require(present == list(range(len(present))),
             "tile_slots must number the present tiles 0, 1, ... in (co_t, kh, kw, ci_t) order (-1 = absent)")
    per_co_t = np.asarray(slots).reshape(co_tiles, -1)
    _require(bool((per_co_t >= 0).any(axis=1).all()),
             "every output channel tile needs a present tile (it carries the bias)")
    vectors = len(present) * lanes + co_tiles
    _require(weights.shape[0] == vectors,
             f"weights must be {vectors} vectors of N lanes ({co_tiles} bias vectors and {len(present)} tiles of "
             f"N vectors), got {weights}")


def _check_layout(op: ir.Operation) -> None:
    """A matmul's weights hold exactly its present tiles; a per-channel constant has one vector per channel tile."""
    view = HIR.view(op)
    specs = dict(zip(HIR.lookup(op).operands, view.operand_specs()))
    if view.name == "matmul":
        kh, kw = view.attr("kernel")
        _tile_slots(view.attr("tile_slots"), specs["weights"], specs["input"].shape[1], specs["output"].shape[1],
                    kh * kw)
    elif view.name == "channel":
        constant, channels = specs["constant"], specs["input"].shape[1]
        _require(constant.shape[0] == channel_tiles(channels, constant.shape[1]),
                 f"a per-channel constant for {channels} channels is one vector per channel tile, got {constant}")


# ---------------------------------------------------------------------------
# Whole-module checks: what needs the architecture or several ops.
# ---------------------------------------------------------------------------

# operand -> the memory objects it may be (by declaring op name)
_OPERAND_OBJECTS = {
    ("matmul", "output"): ("temp",), ("matmul", "input"): ("vars", "view"), ("matmul", "weights"): ("consts",),
    ("load", "output"): ("temp",), ("load", "input"): ("vars", "view"),
    ("add", "lhs"): ("temp",), ("add", "rhs"): ("vars", "view", "temp"),
    ("binary", "lhs"): ("temp",), ("binary", "rhs"): ("vars", "view", "temp"),
    ("channel", "input"): ("temp",), ("channel", "constant"): ("consts",),
    ("pool", "output"): ("temp",), ("pool", "input"): ("temp",),
    ("save", "output"): ("vars", "view"), ("save", "input"): ("temp",),
}


def _expected_objects(op_name: str, operand: str) -> tuple[str, ...]:
    return _OPERAND_OBJECTS.get((op_name, operand), ("temp",))


def _check_formats(op: ir.Operation) -> str | None:
    """Operands of a non-multiplying op share one format; a multiplying op's shift is a rounding position."""
    shift = rounding_shift(op)
    if shift is not None:
        return None if 0 <= shift <= MAX_SHIFT else \
            f"rounds its products at bit {shift}, outside 0..{MAX_SHIFT} (input + weight - output binary points)"
    view = HIR.view(op)
    points = {role: binary_point_of(view.operand(role)) for role in HIR.lookup(op).operands}
    if len(set(points.values())) > 1:
        listed = ", ".join(f"{role} {point}" for role, point in points.items())
        return f"operands must share one binary point (only multiplying ops rescale), got {listed}"
    return None


def _check_op(op: ir.Operation, arch: Architecture) -> str | None:
    definition = HIR.lookup(op)
    name = definition.name
    lanes = arch.array_size
    if name == "consts":
        rows, width = spec_of(op.results[0].type).shape
        if width != lanes:
            return f"consts must have {lanes} lanes (the array size), got {width}"
        return _within("DRAM1", HIR.view(op).attr("base"), rows, arch.dram1_depth)
    if name == "vars":
        vectors = vector_count(spec_of(op.results[0].type).shape, lanes)
        return _within("DRAM0", HIR.view(op).attr("base"), vectors, arch.dram0_depth)
    if name == "view":
        offset = HIR.view(op).attr("channel_offset")
        return None if offset % lanes == 0 else f"channel_offset {offset} is not a multiple of the array size {lanes}"
    if definition.has(MEMORY_OBJECT) or "layer" not in definition.attrs:
        return None  # the other objects and host segments read no layer's operands
    _check_layout(op)
    layer = HIR.view(op).attr("layer")
    for operand_name, value in zip(definition.operands, op.operands):
        kind = object_kind(value)
        allowed = _expected_objects(name, operand_name)
        if kind not in allowed:
            return f"operand '{operand_name}' must be a {' or '.join(allowed)} object, got {kind or 'another value'}"
        if kind == "temp" and HIR.view(value.owner).attr("layer") != layer:
            return f"operand '{operand_name}' is a temp of another layer: temps never cross layers"
    return _check_formats(op)


def _within(memory: str, base: int, vectors: int, depth: int) -> str | None:
    if base < 0 or base + vectors > depth:
        return f"vectors [{base}, {base + vectors}) are not within {memory}'s depth {depth}"
    return None


def verify_hir(module: ir.Operation) -> list[tuple[ir.Location, str]]:
    """Architecture and interface attributes, lanes, objects within DRAM, channel alignment, tile layout, operand
    objects, layer-local temps."""
    ops = ops_of(module, HIR)
    if not ops:
        return []
    try:
        arch = architecture_of(module)
        if INPUTS_ATTRIBUTE in module.attributes or OUTPUTS_ATTRIBUTE in module.attributes:
            interface_of(module)
    except LaminaError as error:
        return [(module.location, str(error))]
    problems = []
    for op in ops:
        try:
            message = _check_op(op, arch)
        except (ShapeError, UnsupportedType) as error:
            message = str(error)
        if message:
            problems.append((op.location, f"'{op.name}' op {message}"))
    return problems
