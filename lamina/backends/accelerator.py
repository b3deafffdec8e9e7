"""The accelerator backend: what a Tensil-style systolic-array target runs, as a table.

The target (`/work/shared/design/ACCELERATOR.md`) is an N x N systolic array
fed from local memory, accumulators behind it with a SIMD unit that can only
add, subtract, multiply, take min/max and move, and two DRAM banks: Vars
(inputs, outputs, activations) and Consts (weights, biases, constants).
Anything that needs exp, division, square roots, erf or tanh has no unit to
run on: softmax, LRN, layer norm, GELU and sigmoid are reported unsupported,
which is the honest answer (Tensil itself silently runs softmax as identity).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from lamina.dialects.graph import GRAPH
from lamina.dialects.graph_recurrent import CELLS
from lamina.dialects.irdl import OpView
from lamina.dialects.op_registry import OpRegistry
from lamina.dialects.values import is_constant

from .backend import Backend


@dataclass(frozen=True)
class Requirement:
    """A condition an op must meet to run, and what to tell people when it does not."""

    holds: Callable[[OpView], bool]
    otherwise: str


@dataclass(frozen=True)
class Capability:
    """How the target runs one graph op (`how`), under some requirements."""

    how: str
    requires: tuple[Requirement, ...] = ()


def _constant(operand: str) -> Requirement:
    return Requirement(lambda op: is_constant(op.operand(operand)),
                       f"its {operand} must be a constant: the array loads weights from the Consts bank")


SPATIAL_2D = Requirement(lambda op: op.operand_specs()[0].rank == 4,
                         "only 2-D windows over N x C x H x W tensors")
MATRICES = Requirement(lambda op: all(spec.rank == 2 for spec in op.operand_specs()),
                       "only 2-D operands: the array multiplies vectors by one weight matrix")
CHANNEL_AXIS = Requirement(lambda op: op.attr("axis") == 1,
                           "only along channels (axis 1): a concat is a placement of channel vectors")

# What the accelerator runs; every other op is unsupported.
SUPPORTED: OpRegistry[Capability] = OpRegistry("accelerator capability", GRAPH)
SUPPORTED.update({
    "placeholder": Capability("an input: a Vars object in DRAM0"),
    "save": Capability("an output: a Vars object in DRAM0"),
    "constant": Capability("a Consts object in DRAM1"),
    "splat": Capability("a Consts object in DRAM1"),
    "convolution": Capability("one array matmul per kernel pixel, accumulated; the bias is the weights' extra row",
                              (SPATIAL_2D, _constant("filter"), _constant("bias"))),
    "fully_connected": Capability("an array matmul; the bias is the weights' extra row",
                                  (_constant("weights"), _constant("bias"))),
    "matmul": Capability("an array matmul", (MATRICES, _constant("rhs"))),
    "add": Capability("SIMD Add (or a DataMove that accumulates)"),
    "sub": Capability("SIMD Subtract"),
    "mul": Capability("SIMD Multiply"),
    "max": Capability("SIMD Max"),
    "min": Capability("SIMD Min"),
    "relu": Capability("SIMD Max with a zeroed register"),
    "leaky_relu": Capability("SIMD Multiply by alpha, then Max"),
    "clip": Capability("SIMD Max with the lower bound, then Min with the upper one"),
    "max_pool": Capability("a chain of SIMD Max over the window", (SPATIAL_2D,)),
    "avg_pool": Capability("a chain of SIMD Add over the window, then Multiply by 1/size", (SPATIAL_2D,)),
    "reshape": Capability("no instruction: the same DRAM vectors seen with another shape"),
    "concat": Capability("no instruction: the inputs' channel vectors placed side by side", (CHANNEL_AXIS,)),
    "broadcast": Capability("no instruction: a constant laid out broadcast in the Consts bank",
                            (Requirement(lambda op: is_constant(op.operand("input")), "only of constants"),)),
})

# Ops the accelerator wants lowered: their lowerings produce only ops it runs.
# (Softmax, LRN, layer norm, GELU and swish have lowerings too, into exp,
# pow, sqrt, div, erf, tanh or sigmoid: lowering them would trade one op the
# target cannot run for several, so they stay and are reported as they are.)
LOWERED: OpRegistry[str] = OpRegistry("accelerator lowering note", GRAPH)
LOWERED.update({
    "batch_norm": "sub/mul/add by per-channel constants (when not folded into a convolution)",
    "global_avg_pool": "an avg_pool whose window is the whole image",
    "global_max_pool": "a max_pool whose window is the whole image",
})

# Ops lowered although their lowerings are only partly ops it runs: the recurrent
# layers, unrolled over the sequence. Their input and recurrent matmuls by constant
# weights run on the array; the gates' sigmoid and tanh run on the host.
PARTLY_LOWERED: dict[str, str] = {
    name: "matmuls by the constant weights (on the array) and element-wise gates, one step per sequence position"
    for name in CELLS
}

# Why an op with regions (if, loop, scan) runs on the host, whole.
CONTROL_FLOW = ("control flow: the accelerator's program has no branches or loops, so the host runs the op and its "
                "regions, deciding conditions and trip counts from the data")


class AcceleratorBackend(Backend):
    """The Tensil-style systolic-array target: matmul-like layers, SIMD element-wise ops, pooling.

    `SUPPORTED` says what runs and how; `LOWERED` what `graph-lower` expands
    first. There is no post-lowering transform yet: the accelerator's own
    ops come with its dialects, below the graph level.
    """

    name = "accelerator"
    summary = "Tensil-style systolic array: conv/matmul layers, SIMD add/mul/min/max, pooling"

    def why_unsupported(self, op: OpView) -> str | None:
        if any(s.quant is not None for s in (*op.operand_specs(), *op.result_specs())):
            return self.why_not_quantized(op)
        if op.definition.regions:
            return CONTROL_FLOW
        capability = SUPPORTED.get(op.name)
        lowered = LOWERED.get(op.name) or PARTLY_LOWERED.get(op.name)
        if capability is None and lowered:
            return f"lower it first: graph-lower makes it {lowered}"
        if capability is None:
            return "no unit of the accelerator computes it (its SIMD unit adds, subtracts, multiplies, takes min/max)"
        failed = [requirement.otherwise for requirement in capability.requires if not requirement.holds(op)]
        return "; ".join(failed) or None

    def why_not_quantized(self, op: OpView) -> str | None:
        return ("the accelerator computes in its own fixed-point formats from float graphs "
                "(lamina-compile), not on !quant.uniform values")

    def should_lower(self, op: OpView) -> bool:
        return op.name in LOWERED or op.name in PARTLY_LOWERED or op.definition.training
