"""buffer-lower-concat: a concat becomes copies of its inputs into views of its destination."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import nbytes
from lamina.dialects.model import body_ops
from lamina.dialects.types import spec_of
from lamina.passes.registry import Pass, register_pass


@register_pass
@dataclass(frozen=True)
class LowerConcat(Pass):
    """Rewrite `buffer.concat(%dest, %lhs, %rhs)` as two `buffer.copy`s into views of `%dest`.

    Glow lowers a concat to `InsertTensor`s into its result so that its
    inputs can be computed in place. Here each input's part of `%dest`
    becomes a `buffer.view` (lhs at byte 0, rhs right after), and the concat
    a copy into each; `buffer-eliminate-copies` then lets each input's
    producer write its view directly. A chain of concats along one axis
    (Glow's concat-of-concat merge; the graph dialect's concat is binary)
    thereby ends as every input written straight into the last concat's
    buffer, with no copy left.

    Legal when each input's part is contiguous in `%dest`, i.e. every
    dimension before `axis` has size 1 (channel concats at batch 1), and
    the inputs have `%dest`'s scales if quantized (a quantized concat that
    rescales computes); other concats are left as they are.
    """

    name = "buffer-lower-concat"
    summary = "Concat to copies into views of its destination (Glow's InsertTensor), where the parts are contiguous"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        for concat in [child for child in body_ops(op) if child.name == "buffer.concat"]:
            if _parts_are_contiguous(concat) and _keeps_scales(concat):
                _lower(concat)


def _parts_are_contiguous(concat: ir.Operation) -> bool:
    axis = BUFFER.view(concat).attr("axis")
    return prod(spec_of(concat.operands[0].type).shape[:axis]) == 1


def _keeps_scales(concat: ir.Operation) -> bool:
    dest, *sources = (spec_of(value.type) for value in concat.operands)
    return all(source.quant == dest.quant for source in sources)


def _lower(concat: ir.Operation) -> None:
    dest, lhs, rhs = concat.operands
    with ir.InsertionPoint(concat), concat.location:
        for source, byte_offset in ((lhs, 0), (rhs, nbytes(lhs))):
            part = BUFFER.create("view", dest, result_types=[spec_of(source.type)], byte_offset=byte_offset)
            BUFFER.create("copy", part.result, source)
    concat.erase()

