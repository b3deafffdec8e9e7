"""Layers whose weights alone exceed DRAM1, split by output channels.

The memory manager pages weights layer by layer (memory_manager.py), so one
layer's weight tiles must fit the room DRAM1 has for a page. A convolution
(one group) or fully-connected layer with more becomes parts over
consecutive output channels, each a whole number of channel tiles with its
slice of the filter and bias, joined by concats along channels. The concat
planner places those as views, so each part saves straight into its
channels of the original output and the parts' weights page separately.
Exact: output channels do not depend on each other. VGG-19's first
fully-connected layer (103 M weights) is the case that needs it on every
shipped architecture.
"""

from __future__ import annotations

from mlir import ir

from lamina.target.tcu.architecture import Architecture
from lamina.target.tcu.data_layout import channel_tiles
from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import LAYER
from lamina.dialects.types import spec_of
from lamina.dialects.values import constant_view, has_trait, is_constant_view, op_name
from lamina.passes.conversion.hir_to_lir.emitter import SCHEDULER_CONSTS_RESERVE, weights_room
from lamina.passes.graph.rewriting import create_before, create_constant, erase_unused_producers, replace_op

from .graph_values import flattened_image
from .partition import why_on_host

def split_large_layers(ops: list[ir.Operation], architecture: Architecture) -> bool:
    """Split every layer whose weights exceed a page; True if the module changed."""
    lanes = architecture.array_size
    room = weights_room(architecture)
    changed = False
    for op in ops:
        if not has_trait(op, LAYER) or not all(is_constant_view(value) for value in op.operands[1:]):
            continue
        if why_on_host(op) is not None:
            continue  # the host has no weight pages (a 1-D or 3-D convolution, say)
        if op_name(op) == "convolution" and GRAPH.view(op).attr("group") != 1:
            continue  # block-diagonal tiles: too large ones are reported by the memory manager
        per_tile = _vectors_per_channel_tile(op, lanes)
        tiles = channel_tiles(_out_channels(op), lanes)
        if tiles * per_tile <= room:
            continue
        if room < per_tile:
            raise LaminaError(
                f"the model does not fit: DRAM1 (Consts): the layer at {format_location(op.location)} needs "
                f"{per_tile} vectors for the weights of one output channel tile, architecture "
                f"'{architecture.name}' has room for {room} per page ({architecture.dram1_depth} minus "
                f"{SCHEDULER_CONSTS_RESERVE} reserved for the scheduler; {per_tile - room} too many)")
        _split(op, (room // per_tile) * lanes)
        changed = True
    return changed


def _out_channels(op: ir.Operation) -> int:
    return spec_of(op.results[0].type).shape[1]


def _vectors_per_channel_tile(op: ir.Operation, lanes: int) -> int:
    """Weight vectors of one output channel tile (its tiles of N rows and its bias vector), at most.

    A fully-connected layer after a flatten counts as fused (emit.py): its
    kernel is the image, with channel tiles per pixel, never fewer vectors.
    """
    if op_name(op) == "convolution":
        _, ci, kh, kw = spec_of(op.operands[1].type).shape
    else:
        ci, kh, kw = flattened_image(op.operands[0]) or (spec_of(op.operands[1].type).shape[0], 1, 1)
    return channel_tiles(ci, lanes) * kh * kw * lanes + 1


def _split(op: ir.Operation, part_channels: int) -> None:
    """Replace `op` by parts of `part_channels` output channels joined by concats."""
    kind, loc, attrs = op_name(op), op.location, GRAPH.view(op).attrs()
    weights, bias = (constant_view(value) for value in op.operands[1:])
    # convolution filters are (co, ...), fully-connected weights (features, co)
    channel_axis = 0 if kind == "convolution" else 1
    joined = None
    for start in range(0, _out_channels(op), part_channels):
        part = slice(start, start + part_channels)
        with ir.InsertionPoint(op):
            part_weights = create_constant(weights[(slice(None),) * channel_axis + (part,)], loc)
            part_bias = create_constant(bias[part], loc)
        result = create_before(op, kind, op.operands[0], part_weights, part_bias, loc=loc, **attrs)
        joined = result if joined is None else create_before(op, "concat", joined, result, loc=loc, axis=1)
    whole = list(op.operands[1:])
    replace_op(op, [joined])
    erase_unused_producers(whole)  # the whole filter: free its memory
