"""Calibrated formats: one binary point per graph value, weight and constant (docs/accelerator.md, "Formats").

Tensil's FP16BP8 gives every tensor 8 fractional bits: a He-scaled filter
keeps 3 significant bits and activations past 128 saturate. Here each
tensor keeps the data type's width but gets its own binary point, Glow's
symmetric-with-power-of-two-scale schema on a fixed-point array:

- weights and per-channel constants: the largest binary point at which their
  largest magnitude fits (from the data itself);
- activations: from the largest magnitude the float graph reaches on the
  calibration samples, times HEADROOM (inputs the samples did not cover);
  a value the host computes beyond every format (-inf attention masks) takes
  the widest and saturates. Bounded values need less: a clip's result never
  leaves its bounds, and a product read only by clips saturates harmlessly
  at its final sum, so a conv -> relu6 group gets the bit the 2x headroom
  would spend (MobileNet V1 export on pynq-z1: output SQNR 24.4 -> 29.6 dB).

An average pool's group also holds the window sums (area x the input's
largest magnitude), which the array forms before it scales them.

Rescaling is free only where a product is rounded: a matmul (MatMul rounds
at the array's `ARRAY_SHIFT` = input + weight - output binary point) or a
multiply (SIMD Multiply at `SIMD_SHIFT`). Every other op (add, max, relu,
pools, concat placements, flatten) needs its operands and result in one
format, so those values are tied together (union-find) and the group takes
the format its widest member needs; no SIMD rescale instruction is ever
emitted. A group's binary point is then lowered where a product feeding it
would need a negative shift (the product has fewer fractional bits than the
group wants): lossless, as the product is exact at that point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError, format_location
from lamina.dialects.graph import GRAPH
from lamina.dialects.irdl import BOUNDED, INTERFACE, LAYER
from lamina.dialects.values import constant_view, defining_op, has_trait, is_constant_view, op_name, users
from lamina.dialects.types import TensorSpec
from lamina.target.tcu.fixed_point import DataType
from lamina.target.tcu.program import MAX_SHIFT

from ..naming import location_name
from .graph_values import per_channel
from .rules import MATMUL, form_of

# Activations get one bit above the largest magnitude the calibration samples reach.
HEADROOM = 2.0

# Ops whose result lies within their `min`/`max` attributes (clip).
BOUNDED_OPS = GRAPH.with_trait(BOUNDED)


def is_product(name: str | None) -> bool:
    """Whether graph.<name>'s result is a rounded product (a matmul layer, or mul): where a format may change for
    free."""
    return name == "mul" or form_of(name) == MATMUL


def largest_binary_point(data_type: DataType) -> int:
    """Binary points go from 0 to MAX_SHIFT // 2, so a product's rounding shift never exceeds MAX_SHIFT.

    (23 for 16 bits: weights down to 2^-8 in magnitude keep all 15 bits.)"""
    return MAX_SHIFT // 2


def binary_point_for(magnitude: float, data_type: DataType, what: str, headroom: float = 1.0) -> int:
    """The largest binary point at which `magnitude` times `headroom` fits the data type's width (at least
    `magnitude` itself); a LaminaError naming `what` and its range if none does."""
    top = largest_binary_point(data_type)
    if not math.isfinite(magnitude):
        raise LaminaError(f"{what}: range [-{magnitude}, {magnitude}] fits no {data_type.width}-bit format "
                          f"(calibration met a non-finite value)")
    if magnitude == 0:
        return top
    point = max(math.floor(math.log2(data_type.maximum / (magnitude * headroom))), 0)
    if magnitude > data_type.maximum:
        raise LaminaError(f"{what}: range [-{magnitude:.6g}, {magnitude:.6g}] fits no {data_type.width}-bit format "
                          f"(the widest, binary point 0, holds magnitudes up to {data_type.maximum})")
    return min(point, top)


def data_binary_point(values: np.ndarray, data_type: DataType, what: str) -> int:
    """The format of weights or a constant: chosen from the values themselves."""
    magnitude = float(np.max(np.abs(values))) if np.size(values) else 0.0
    return binary_point_for(magnitude, data_type, what)


@dataclass
class Formats:
    """Binary points of graph values; `calibrated` False is Tensil's mode (every tensor at the data type's)."""

    data_type: DataType
    calibrated: bool = False
    points: dict[ir.Value, int] = field(default_factory=dict)

    def of(self, value: ir.Value) -> int:
        return self.points.get(value, self.data_type.binary_point)

    def of_data(self, values: np.ndarray, what: str) -> int:
        """The format of weights or a per-channel constant multiplied in."""
        if not self.calibrated:
            return self.data_type.binary_point
        return data_binary_point(values, self.data_type, what)


def seeded_samples(specs: Mapping[str, TensorSpec], count: int, seed: int) -> list[dict[str, np.ndarray]]:
    """`count` U[0, 1) samples of the inputs `specs`, sample k drawn from seed + k. Integer inputs (indices)
    get zeros: the one value every index input accepts."""
    def sample(rng: np.random.Generator, spec: TensorSpec) -> np.ndarray:
        if np.issubdtype(spec.dtype, np.floating):
            return rng.random(spec.shape, np.float32).astype(spec.dtype)  # f64 models get f64 samples
        return np.zeros(spec.shape, spec.dtype)

    return [{name: sample(np.random.default_rng(seed + k), spec) for name, spec in specs.items()}
            for k in range(count)]


class _Groups:
    """Union-find over graph values that must share a format."""

    def __init__(self):
        self.parent: dict[ir.Value, ir.Value] = {}

    def find(self, value: ir.Value) -> ir.Value:
        self.parent.setdefault(value, value)
        while self.parent[value] != value:
            self.parent[value] = self.parent[self.parent[value]]
            value = self.parent[value]
        return value

    def union(self, values: list[ir.Value]) -> None:
        roots = [self.find(v) for v in values]
        for root in roots[1:]:
            self.parent[root] = roots[0]


def _weights(op: ir.Operation) -> ir.Value | None:
    """The multiplied constant of a product op (filter, weights, per-channel factor), if it has one."""
    constants = [v for v in op.operands[1:] if is_constant_view(v)] if op_name(op) != "mul" else \
        [v for v in op.operands if is_constant_view(v)]
    return constants[0] if constants else None


def calibrate(ops: list[ir.Operation], verdicts: Mapping[ir.Operation, str | None], ranges: Mapping[ir.Value, float],
              data_type: DataType) -> Formats:
    """Binary points for every value the accelerator stores, from the measured `ranges`."""
    groups = _Groups()
    magnitude: dict[ir.Value, float] = {}
    headroom: dict[ir.Value, float] = {}  # HEADROOM unless the value is bounded (`_bounded_headroom`)
    products: list[tuple[ir.Operation, list[ir.Value], int]] = []  # (op, multiplied values, constant's bp)
    for op in ops:
        if not op.results or is_constant_view(op.results[0]) or has_trait(op, INTERFACE):
            for result in op.results:
                if not is_constant_view(result):
                    magnitude[result] = ranges.get(result, 0.0)
            continue
        result = op.results[0]
        if verdicts.get(op) is not None:  # the host computes it and converts into the value's own format
            magnitude.update((value, _saturating(ranges.get(value, 0.0), data_type)) for value in op.results)
            continue
        magnitude.update((value, ranges.get(value, 0.0)) for value in op.results)
        activations = [v for v in op.operands if not is_constant_view(v)]
        constants = [v for v in op.operands if is_constant_view(v)]
        name = op_name(op)
        headroom.update(_bounded_headroom(op, ranges))
        if is_product(name):
            weights = _weights(op)
            point = data_binary_point(constant_view(weights), data_type, f"the weights of {_node(op)}") \
                if weights is not None else 0
            products.append((op, activations, point))
            if has_trait(op, LAYER) and is_constant_view(op.operands[2]):
                bias = constant_view(op.operands[2])  # stored at the output's format: the output must hold it
                magnitude[result] = max(magnitude[result], float(np.max(np.abs(bias))) if bias.size else 0.0)
            continue
        if name == "avg_pool":  # the accelerator sums each window before scaling: the sum must fit
            kh, kw = GRAPH.view(op).attr("kernel")
            magnitude[result] = max(magnitude[result], kh * kw * max(ranges.get(v, 0.0) for v in activations))
        for constant in constants:  # added, compared: held at the group's format
            channel = per_channel(constant)
            if channel is not None and channel.size:
                magnitude[result] = max(magnitude[result], float(np.max(np.abs(channel))))
        groups.union([result, *activations])
    widest: dict[ir.Value, float] = {}  # per group, the largest magnitude times its headroom
    names: dict[ir.Value, ir.Value] = {}
    for value, size in magnitude.items():
        root = groups.find(value)
        needed = size * headroom.get(value, HEADROOM)
        if needed >= widest.get(root, -1.0):
            names[root] = value
        widest[root] = max(widest.get(root, 0.0), needed)
    points = {root: binary_point_for(magnitude[names[root]], data_type, _tensor(names[root].owner),
                                     headroom.get(names[root], HEADROOM))
              for root in widest}
    changed = True
    while changed:  # lower a group where a product feeding it would round at a negative shift
        changed = False
        for op, activations, weight_point in products:
            root = groups.find(op.results[0])
            product_point = sum(points[groups.find(v)] for v in activations) + weight_point
            if points[root] > product_point:
                points[root] = product_point
                changed = True
    return Formats(data_type, True, {value: points[groups.find(value)] for value in magnitude})


def _bounded_headroom(op: ir.Operation, ranges: Mapping[ir.Value, float]) -> dict[ir.Value, float]:
    """Headroom of values a clip bounds: its result never exceeds its bounds, so it needs headroom only up to
    them; a product read by clips alone saturates harmlessly at its final sum (clip(sat(x)) = clip(x) while
    the format holds the bounds), so it needs none beyond its measured range."""
    if op_name(op) not in BOUNDED_OPS:
        return {}
    low, high = (float(GRAPH.view(op).attr(bound)) for bound in ("min", "max"))
    if not (math.isfinite(low) and math.isfinite(high)):
        return {}
    result, source = op.results[0], op.operands[0]
    bound = max(abs(low), abs(high))
    measured = ranges.get(result, 0.0)
    bounded = {result: min(HEADROOM, bound / measured) if measured else HEADROOM}
    if is_product(op_name(defining_op(source))) and all(op_name(user) in BOUNDED_OPS for user in users(source)):
        bounded[source] = 1.0
    return bounded


def _saturating(magnitude: float, data_type: DataType) -> float:
    """A host-computed value's range, where no format holds it (an attention mask of -inf or the float minimum)
    the widest format's: the host's conversion saturates it, as a mask needs (softmax gives it weight 0)."""
    widest = data_type.maximum / HEADROOM
    return magnitude if magnitude <= widest else widest


def _node(op: ir.Operation) -> str:
    """`node 'NAME'` (the ONNX node an op came from), else the op's location and name."""
    name = location_name(op.location)
    return f"node '{name}'" if name else f"'{op.name}' at {format_location(op.location)}"


def _tensor(owner) -> str:
    """How an error names the value an op produces: an input by its name, else its node's output."""
    op = owner.operation if hasattr(owner, "operation") else owner
    if op_name(op) == "placeholder":
        return f"input '{GRAPH.view(op).attr('name')}'"
    return f"the output of {_node(op)}"
