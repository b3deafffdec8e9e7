"""buffer-share: an alloc reuses a same-size alloc whose lifetime has ended."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.buffer_analysis import programs
from lamina.dialects.types import spec_of
from lamina.passes.registry import Pass, register_pass

from .rewriting import dealloc_of


@register_pass
@dataclass(frozen=True)
class ShareBuffers(Pass):
    """Replace an alloc by an earlier alloc of the same element type and size that is already deallocated.

    Walking the program in order, each `buffer.alloc` takes the most
    recently deallocated alloc of its element type and byte size, if any:
    the later buffer becomes the earlier one (through a view at byte 0 when
    the shapes differ), whose lifetime now runs to the later one's dealloc.
    Uses cannot overlap: every use of the earlier buffer comes before its
    dealloc, which comes before the later alloc. This is the buffer reuse of
    Glow's ShareBuffers for backends without a memory planner: fewer, longer
    buffers. A planner (`buffer-allocate`) reuses bytes across sizes too, and
    a merged buffer hides the gap between its two lifetimes from it.

    Run after `buffer-hoist-deallocs` and `buffer-sink-allocs`: with IRGen's
    deallocs at the end of the function no lifetime ends before another
    starts. Weights and constants are never shared. Each block shares among
    its own allocs: a region's alloc never takes a buffer of the enclosing
    blocks (one that lives across the iterations of a loop holding it).
    Legal on verified IR.
    """

    name = "buffer-share"
    summary = "Reuse an already deallocated alloc of the same element type and size for a later alloc"
    op_name = "builtin.module"

    def run(self, op: ir.Operation) -> None:
        for program in programs(op):
            free: dict[tuple, list[ir.Value]] = {}  # (dtype, bytes) -> deallocated allocs, most recent last
            for instruction in program:
                if instruction.name == "buffer.dealloc":
                    buffer = instruction.operands[0]
                    free.setdefault(_size_class(buffer), []).append(buffer)
                elif instruction.name == "buffer.alloc" and free.get(_size_class(instruction.results[0])):
                    _reuse(free[_size_class(instruction.results[0])].pop(), instruction)


def _size_class(buffer: ir.Value) -> tuple:
    spec = spec_of(buffer.type)
    return spec.dtype, spec.nbytes


def _reuse(earlier: ir.Value, alloc: ir.Operation) -> None:
    """`alloc`'s buffer becomes `earlier`, which lives until `alloc`'s dealloc."""
    later = alloc.results[0]
    dealloc_of(earlier).erase()
    dealloc_of(later).operands[0] = earlier
    replacement = earlier
    if later.type != earlier.type:
        with ir.InsertionPoint(alloc), alloc.location:
            replacement = BUFFER.create("view", earlier, result_types=[spec_of(later.type)], byte_offset=0).result
    later.replace_all_uses_with(replacement)
    alloc.erase()
