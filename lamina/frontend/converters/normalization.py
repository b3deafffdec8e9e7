"""Normalizations and softmax: BatchNormalization, LayerNormalization, InstanceNormalization, LRN, Softmax."""

from __future__ import annotations

import math
from typing import Iterable

from ..emitter import NodeEmitter
from ..node_view import NodeView
from ..registry import converter
from .axes import normalized_axis


def _unused_outputs(view: NodeView, first: int, what: str) -> Iterable[str]:
    if any(view.output_used(i) for i in range(first, view.output_count)):
        yield f"the {what} outputs are not supported (inference only)"


def _check_batch_norm(view: NodeView) -> Iterable[str]:
    if view.attr("training_mode", 0):
        yield "training_mode is not supported"
    if not view.attr("spatial", 1):
        yield "spatial = 0 (per-element statistics) is not supported"
    yield from _unused_outputs(view, 1, "running-statistics")


@converter("BatchNormalization", graph_ops=("batch_norm",), check=_check_batch_norm,
           notes="Inference form, `epsilon`; `training_mode`, `spatial = 0` and the statistics outputs are "
                 "unsupported.")
def convert_batch_norm(n: NodeEmitter):
    return n.emit("batch_norm", *(n.input(i) for i in range(5)), epsilon=n.attr("epsilon", 1e-5))


@converter("LayerNormalization", graph_ops=("layer_norm", "broadcast", "splat"),
           check=lambda view: _unused_outputs(view, 1, "Mean and InvStdDev"),
           notes="`axis`, `epsilon`; Scale and B are broadcast to the normalized shape; the Mean and InvStdDev "
                 "outputs are unsupported.")
def convert_layer_norm(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    axis = normalized_axis(n.attr("axis", -1), spec.rank)
    normalized = spec.shape[axis:]
    scale = n.broadcast(n.input(1), normalized)
    bias = n.broadcast(n.input(2), normalized) if n.has_input(2) else n.splat(spec.with_shape(normalized), 0)
    return [n.emit("layer_norm", data, scale, bias, axis=axis, epsilon=n.attr("epsilon", 1e-5)), None, None]


@converter("InstanceNormalization", graph_ops=("layer_norm", "splat", "broadcast", "mul", "add"),
           notes="`epsilon`: a layer_norm over the spatial dimensions, then the per-channel scale and bias.")
def convert_instance_norm(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    normalized = spec.shape[2:]
    plain = n.emit("layer_norm", data, n.splat(spec.with_shape(normalized), 1.0),
                   n.splat(spec.with_shape(normalized), 0.0), axis=2, epsilon=n.attr("epsilon", 1e-5))
    per_channel = (spec.shape[1], *[1] * len(normalized))
    scale = n.broadcast(n.reshape(n.input(1), per_channel), spec.shape)
    bias = n.broadcast(n.reshape(n.input(2), per_channel), spec.shape)
    return n.emit("add", n.emit("mul", plain, scale), bias)


@converter("LRN", graph_ops=("lrn",), notes="`size`, `alpha`, `beta`, `bias`.")
def convert_lrn(n: NodeEmitter):
    return n.emit("lrn", n.input(0), size=n.attr("size"), alpha=n.attr("alpha", 1e-4), beta=n.attr("beta", 0.75),
                  bias=n.attr("bias", 1.0))


@converter("Softmax", graph_ops=("softmax", "reshape"),
           notes="Opset 13+: along `axis`. Before 13: the input is coerced to 2-D at `axis` "
                 "(reshape, softmax over axis 1, reshape back; a last `axis` needs no reshape).")
def convert_softmax(n: NodeEmitter):
    data = n.input(0)
    spec = n.spec(data)
    axis = normalized_axis(n.attr("axis", -1 if n.opset >= 13 else 1), spec.rank)
    if n.opset >= 13 or axis == spec.rank - 1:
        return n.emit("softmax", data, axis=axis)
    matrix = (math.prod(spec.shape[:axis]), math.prod(spec.shape[axis:]))
    result = n.emit("softmax", n.reshape(data, matrix), axis=1)
    return n.reshape(result, spec.shape)
