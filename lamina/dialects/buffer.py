"""The `buffer` dialect: Glow's low-level instruction IR over memref buffers.

A model is one `func.func @main()` whose body first declares the buffers that
live outside it (`buffer.weight` for the model's inputs and outputs,
`buffer.constant` for weights with data), then runs instructions. Activations
are `buffer.alloc`/`buffer.dealloc` pairs that bound their lifetime;
`buffer.view` reinterprets part of a buffer with another shape (no copy).

Instructions write into destination buffers instead of returning values. Every
operand has a role: `in` (read), `out` (overwritten) or `inout` (read, then
written), defined once here on each `OpDef` and read by every pass.

There is one instruction per lowered graph op, derived from the graph
dialect's table: `buffer.X(%dest, %operands...)` has graph.X's operands and
attributes, writes its result into `%dest` (role `out`) and is checked by
graph.X's shape function (the destination must have the type graph.X would
produce). The graph level's kernels therefore define these instructions'
semantics too.

A quantized value's buffer is a memref of its stored integers with the
`!quant.uniform` type in its memory space (`types.QUANT_KEY`), so every
buffer is as many bytes as its stored type needs and instructions read
their scales from their operands' types, as graph ops do; graph.quantize
and graph.dequantize have instructions like every other computation.

Memory planning gives every `alloc`, `weight` and `constant` a byte `offset`
in its region (-1 until planned) and records the regions' sizes on the module.
"""

from __future__ import annotations

from .graph import GRAPH
from .irdl import (BOOL, COMMUTATIVE, ELEMENTS, ELEMENTWISE, I64, IN_PLACE, INTERFACE, MEMORY_OBJECT, PROBE,
                   REARRANGING, STORAGE, STR, VIEW, DialectDef, OpDef, ShapeError, same_types)
from .types import TensorSpec

BUFFER = DialectDef("buffer", "Glow-style instructions over memref buffers", values="memref")

# Graph ops that are not computations: they become buffers (placeholder,
# constant: storage), a copy into an output weight (save: interface), or views (reshape).
NOT_INSTRUCTIONS = GRAPH.with_trait(STORAGE) | GRAPH.with_trait(INTERFACE) | GRAPH.with_trait(VIEW)
# What an instruction keeps of its graph op's facts (the rest are about values, not buffers).
INSTRUCTION_TRAITS = frozenset({ELEMENTWISE, REARRANGING, COMMUTATIVE, IN_PLACE})

UNPLANNED = -1  # the `offset` of a buffer memory planning has not placed yet


def _declared_buffer(ins, attrs, declared):
    if declared is None or len(declared) != 1:
        raise ShapeError("needs one explicit result type")
    return declared


def _constant_buffer(ins, attrs, declared):
    value = attrs["value"]
    return [TensorSpec(value.shape, value.dtype)]


def _view(ins, attrs, declared):
    (source,) = ins
    (result,) = _declared_buffer(ins, attrs, declared)
    offset = attrs["byte_offset"]
    if result.dtype != source.dtype:
        raise ShapeError(f"a view keeps the element type: {source} viewed as {result}")
    if offset < 0 or offset % source.dtype.itemsize or offset + result.nbytes > source.nbytes:
        raise ShapeError(f"view of {result.nbytes} bytes at byte {offset} does not fit in a buffer of "
                         f"{source.nbytes} bytes")
    return [result]


def _copy(ins, attrs, declared):
    dest, source = ins
    if dest != source or dest.quant != source.quant:  # TensorSpec equality leaves the scales out
        raise ShapeError(f"copy needs buffers of one type, got {dest} and {source}")
    return []


def _no_results(ins, attrs, declared):
    return []


BUFFER.op("weight", "A buffer outside the function: a model input or output (public), or a mutable weight.",
          attrs={"name": STR, "mutable": BOOL, "public": BOOL, "offset": I64}, shape_fn=_declared_buffer,
          traits={MEMORY_OBJECT})
BUFFER.op("constant", "A read-only weight with its data.", attrs={"name": STR, "value": ELEMENTS, "offset": I64},
          shape_fn=_constant_buffer, traits={MEMORY_OBJECT})
BUFFER.op("alloc", "An activation buffer; its lifetime starts here.", attrs={"name": STR, "offset": I64},
          shape_fn=_declared_buffer, traits={MEMORY_OBJECT})
BUFFER.op("dealloc", "Ends an activation buffer's lifetime.", operands=("buffer",), results=(),
          roles={"buffer": "out"}, shape_fn=_no_results)
BUFFER.op("view", "The bytes of `source` from `byte_offset` on, seen with the result's shape (no copy).",
          operands=("source",), attrs={"byte_offset": I64}, shape_fn=_view, traits={MEMORY_OBJECT})
BUFFER.op("copy", "dest = source.", operands=("dest", "source"), results=(), roles={"dest": "out"}, traits={IN_PLACE},
          shape_fn=_copy)


def _instruction_shape_fn(graph_op: OpDef):
    """graph.X's shape rule, read as: the destination has the type graph.X produces."""

    def check(ins, attrs, declared):
        dest, *sources = ins
        expected = graph_op.shape_fn(sources, attrs, [dest])
        if not same_types(expected, [dest]):  # as graph ops are checked: a quantized result picks its scale
            raise ShapeError(f"destination {dest} does not have the result type {expected[0]} of graph.{graph_op.name}")
        return []

    return check


def _define_instructions() -> None:
    for graph_op in GRAPH.ops.values():
        if (graph_op.name in NOT_INSTRUCTIONS or graph_op.has(PROBE) or graph_op.training or graph_op.regions
                or len(graph_op.results) > 1):
            continue  # lowered before IRGen (training, control flow, multi-result), or probes (profiling)
        BUFFER.op(
            graph_op.name,
            f"graph.{graph_op.name} into `dest`: {graph_op.summary}",
            operands=("dest", *graph_op.operands),
            results=(),
            attrs=dict(graph_op.attrs),
            variadic=graph_op.variadic,
            roles={"dest": "out"},
            shape_fn=_instruction_shape_fn(graph_op),
            traits=graph_op.traits & INSTRUCTION_TRAITS,
            enums=dict(graph_op.enums),
        )


_define_instructions()

# Ops that declare a buffer (their result) rather than compute.
BUFFER_SOURCES = BUFFER.with_trait(MEMORY_OBJECT)


def _verify_module(module):
    """Lifetimes, aliasing and placement (buffer_verifier.py, imported here because it imports this module)."""
    from .buffer_verifier import verify_buffers

    return verify_buffers(module)


BUFFER.module_verifier = _verify_module

# Control flow (If, Loop, Scan) on buffers lives in its own module of this table.
from . import buffer_control_flow  # noqa: E402,F401 - registers its ops on BUFFER
