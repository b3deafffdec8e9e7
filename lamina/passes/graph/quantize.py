"""graph-quantize: Glow's Quantize precision mode, from a profile to `!quant.uniform` ops."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mlir import ir

from lamina.backends import BackendName, backend_named
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import QuantParams, TensorSpec, spec_of
from lamina.passes.options import option
from lamina.passes.registry import Pass, register_pass
from lamina.quantization import calibration
from .graph_identity import graph_hash, output_names
from lamina.quantization.profile import Profile, check_matches, read_profile

from lamina.dialects.values import constant_value, defining_op, has_uses, producer

from .rewriting import graph_ops, replace_op

@register_pass
@dataclass(frozen=True)
class GraphQuantize(Pass):
    """Convert every float op the backend runs quantized to `!quant.uniform` types, from a profile.

    Glow's Quantize mode (`transformForPrecisionMode`). The profile must be of
    this very graph (same GraphPreLowerHash, every node output present: take
    it with `lamina-profile` at the same pipeline position). Each converted op
    reads quantized operands (a `graph.quantize` at the border with float
    code, weights quantized now: symmetric, per output channel with
    `per-channel`, an i32 bias for convolutions and fully-connected layers)
    and its result gets the format of its profiled range (`same_scale` ops:
    their input's); a `graph.dequantize` feeds float consumers. Ops whose kind
    is in `keep` or whose result is in `keep_nodes`, that have no quantized form, that the backend does not run
    quantized, or whose types are not f32 stay float.
    """

    name = "graph-quantize"
    summary = "Quantize ops to !quant.uniform types from a lamina-profile profile (Glow's Quantize mode)"
    op_name = "builtin.module"

    profile: str = option("", "the profile (lamina-profile's YAML) of this graph")
    precision: calibration.Precision = option("int8", "stored integer type of activations and weights")
    schema: calibration.Schema = option("asymmetric", "how ranges map to integers")
    calibration: calibration.Calibration = option("minmax", "range of activations: profiled min/max or KL threshold")
    per_channel: bool = option(False, "one weight scale per output channel")
    keep: tuple[str, ...] = option((), "graph op kinds to keep in float (e.g. add,concat)")
    keep_nodes: tuple[str, ...] = option((), "node outputs (profile names, e.g. conv1:0) whose ops stay float: "
                                             "mixed precision for sensitive layers (lamina/runtime/sensitivity.py)")
    backend: BackendName = option("reference", "the backend whose quantized support decides")

    def run(self, op: ir.Operation) -> None:
        if not self.profile:
            raise LaminaError("graph-quantize: option 'profile' must name a profile file (lamina-profile writes one)")
        unknown = [kind for kind in self.keep if kind not in GRAPH.ops]
        if unknown:
            raise LaminaError(f"graph-quantize: option 'keep' names '{unknown[0]}', which is not a graph op kind")
        profile = read_profile(self.profile)
        names = output_names(op)
        unknown = sorted(set(self.keep_nodes) - set(names.values()))
        if unknown:
            raise LaminaError(f"graph-quantize: option 'keep-nodes' names '{unknown[0]}', which is no node output "
                              f"of this graph (names as in its profile)")
        float_names = [name for value, name in names.items() if _is_f32(spec_of(value.type))]
        check_matches(profile, graph_hash(op), float_names, self.profile)
        _Quantizer(self, profile, names).run(op)


def _is_f32(spec: TensorSpec) -> bool:
    return spec.quant is None and spec.dtype == np.float32


class _Quantizer:
    def __init__(self, options: GraphQuantize, profile: Profile, names: dict[ir.Value, str]):
        self.options = options
        self.profile = profile
        self.names = names
        self.backend = backend_named(options.backend)
        self.storage = calibration.STORAGE[options.precision]
        self.borders: dict[ir.Value, ir.Value] = {}  # float value -> its graph.quantize

    def run(self, module: ir.Operation) -> None:
        converted = [op for op in graph_ops(module) if self._convertible(op)]
        chosen = {_operation(op) for op in converted}
        # decided before ops are replaced; an i32 accumulator holds int8 products only (int16's overflow it)
        plan = [(op, self.options.precision == "int8" and _feeds_only_float_code(op, chosen)) for op in converted]
        for op, wide in plan:
            self._convert(op, wide)
        for op in reversed(graph_ops(module)):  # dequantizes nobody reads after all
            if op.name == "graph.dequantize" and not has_uses(op.results[0]):
                op.erase()

    def _convertible(self, op: ir.Operation) -> bool:
        view = GRAPH.view(op)
        kind = view.definition.quantized
        if kind in (None, "carrier") or view.name in self.options.keep or len(op.results) != 1:
            return False
        if self.names.get(op.results[0]) in self.options.keep_nodes:
            return False
        specs = [*view.operand_specs(), *view.result_specs()]
        if not all(_is_f32(s) for s in specs) or self.backend.why_not_quantized(view) is not None:
            return False
        if kind == "accumulate":
            return all(constant_value(v) is not None for v in op.operands[1:])
        return True

    def _convert(self, op: ir.Operation, wide: bool) -> None:
        """Convert `op`; a layer whose result only float code reads (`wide`) keeps its i32 accumulator, in
        the units of its input scale x its largest weight scale, so its result is not rounded to the
        8-bit format before the float code (a classifier's logits before a softmax)."""
        view = GRAPH.view(op)
        storage = self.storage
        with ir.InsertionPoint(op), op.location:
            if view.definition.quantized == "accumulate":
                operands = self._layer_operands(op, view.name)
            else:
                operands = [self._quantized(v) for v in op.operands]
            if view.definition.quantized == "same_scale":
                params = spec_of(operands[0].type).quant
            elif view.definition.quantized == "accumulate" and wide:
                params, storage = calibration.accumulator_params(*(spec_of(v.type).quant for v in operands[:2]))
            else:
                params = self._activation(op.results[0])
            result = spec_of(op.results[0].type).with_quant(params, storage)
            new = GRAPH.create(view.name, *operands, result_types=[result], loc=op.location, **view.attrs())
            float_spec = spec_of(op.results[0].type)
            dequantized = GRAPH.create("dequantize", new.results[0], result_types=[float_spec], loc=op.location)
        replace_op(op, [dequantized.results[0]])

    def _layer_operands(self, op: ir.Operation, name: str) -> list[ir.Value]:
        data = self._quantized(op.operands[0])
        weights = constant_value(op.operands[1]).astype(np.float64)
        bias = constant_value(op.operands[2]).astype(np.float64)
        where = _where(op)
        axis = GRAPH.ops[name].channel_weights[1] if self.options.per_channel else None  # output channels
        weight_params = calibration.weight_params(weights, axis, self.options.precision, self.options.schema,
                                                  f"{where}: weights")
        bias_params = calibration.bias_params(spec_of(data.type).quant.scales[0], weight_params)
        if bias_params.axis is not None:
            bias_params = QuantParams(bias_params.scales, bias_params.zero_points, 0, bias_params.qmin, bias_params.qmax)
        units = np.abs(bias) / bias_params.broadcast(np.asarray(bias_params.scales, np.float64), bias.ndim)
        if bias.size and units.max() > bias_params.qmax:  # int16 data and weights: products in units of 2^-30
            raise LaminaError(f"{where}: the bias needs {units.max():.3g} units of input scale x weight scale, "
                              f"beyond the i32 accumulator's {bias_params.qmax} ({self.options.precision})")
        return [data,
                self._constant(calibration.quantize_constant(weights, weight_params, self.storage), weight_params),
                self._constant(calibration.quantize_constant(bias, bias_params, np.dtype(np.int32)), bias_params)]

    def _constant(self, stored: np.ndarray, params: QuantParams) -> ir.Value:
        return quantized_constant(stored, params, ir.Location.current)

    def _quantized(self, value: ir.Value) -> ir.Value:
        """`value` as a quantized value: its producer's stored result, a quantized constant, or a new border."""
        dequantize = producer(value, "dequantize")
        if dequantize is not None:
            return dequantize.operands[0]
        array = constant_value(value)
        if array is not None:
            params = calibration.range_params(array.min(initial=0.0), array.max(initial=0.0), self.options.precision,
                                              self.options.schema, f"constant at {_where(defining_op(value))}")
            return self._constant(calibration.quantize_constant(array, params, self.storage), params)
        if value not in self.borders:
            owner = defining_op(value)
            point = ir.InsertionPoint.after(owner) if owner is not None else ir.InsertionPoint.current
            with point:
                spec = spec_of(value.type).with_quant(self._activation(value), self.storage)
                self.borders[value] = GRAPH.create("quantize", value, result_types=[spec],
                                                   loc=owner.location).results[0]
        return self.borders[value]

    def _activation(self, value: ir.Value) -> QuantParams:
        name = self.names[value]
        return calibration.activation_params(self.profile.tensors[name], self.options.precision, self.options.schema,
                                             self.options.calibration, f"node output '{name}'")


def quantized_constant(stored: np.ndarray, params: QuantParams, loc: ir.Location) -> ir.Value:
    """A `graph.constant` of stored integers declared with format `params`, at the current insertion point."""
    with loc:  # types are built in the location's context
        return GRAPH.create("constant", value=stored, result_types=[TensorSpec(stored.shape, stored.dtype, params)],
                            loc=loc).results[0]


def _feeds_only_float_code(op: ir.Operation, converted: set[ir.Operation]) -> bool:
    """Whether no op that is converted reads `op`'s result (its users stay float: a dequantize feeds them)."""
    return all(_operation(use.owner) not in converted for use in op.results[0].uses)


def _operation(op) -> ir.Operation:
    return op.operation if isinstance(op, ir.OpView) else op


def _where(op: ir.Operation) -> str:
    return str(op.location)
