"""Epilogues of `linalg-convolution-to-matmuls`: the element-wise ops after a convolution, applied per block.

A convolution's bias is its init; the ReLU, clip or residual add after it
were separate passes over the whole output (issue 18: a quarter of the
time outside convolutions). When the convolution's only user is an
element-wise `linalg.generic` (and that one's only user is another, and so
on), the chain is applied to each block of the convolution's output right
after its matmuls, while the block is in cache, in one generic that updates
the block in place, and the chain's generics are erased.

A generic joins the chain when it is in the convolution's block, all-parallel, its result has the
convolution's element type, its init is a `tensor.empty`, it reads the
chain's value once through an identity map and every other input either as
a scalar (a map with no results) or, when the convolution's positions are
exactly its output's (`dense`: an unpadded 1x1 convolution), as a
contiguous tensor of the same shape through an identity map. Anything else
ends the chain (a ReLU with a second user, say, stays a generic of its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from lamina.passes.conversion.graph_to_linalg.builders import generic, tensor_type
from lamina.passes.conversion.graph_to_linalg.shape_ops import collapse

# Marks an epilogue generic for `cpu-vectorize` (which tiles it like a depthwise tap sum: 32 positions per vector).
EPILOGUE = "lamina.epilogue"


@dataclass
class Epilogue:
    """The chain of element-wise generics after a convolution, in order, and the tensors they read besides it."""

    source: ir.Value  # the convolution's result the chain starts from
    chain: list[ir.Operation]
    others: list[ir.Value]  # [1, filters, oh, ow] tensors (identity maps), in the order the chain reads them

    @property
    def last(self) -> ir.Operation | None:
        return self.chain[-1] if self.chain else None


def _is_identity(attr: ir.Attribute) -> bool:
    affine = ir.AffineMapAttr(attr).value
    return affine == ir.AffineMap.get_identity(affine.n_dims)


def _is_scalar(attr: ir.Attribute) -> bool:
    return len(ir.AffineMapAttr(attr).value.results) == 0


def _single_user(value: ir.Value) -> ir.Operation | None:
    uses = list(value.uses)
    return uses[0].owner.operation if len(uses) == 1 else None


def contiguous(value: ir.Value) -> bool:
    """Whether `value` bufferizes to a contiguous buffer: not a slice (through reshapes).

    (Flattening a slice, e.g. a convolution's cropped output, bufferizes to a
    copy. A concatenation's result, slices inserted into a whole tensor, is
    contiguous: SqueezeNet's and Inception's 1x1 convolutions after their
    concatenations read it as it is instead of copying it into a padded buffer.)
    """
    owner = value.owner
    while isinstance(owner, ir.OpView) and owner.operation.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        owner = owner.operation.operands[0].owner
    return not (isinstance(owner, ir.OpView) and owner.operation.name == "tensor.extract_slice")


def _joins(op: ir.Operation, value: ir.Value, dense: bool) -> list[ir.Value] | None:
    """The other tensors `op` reads if it can join a chain whose value so far is `value`, else None."""
    if op.name != "linalg.generic" or len(op.results) != 1 or op.block != value.owner.operation.block:
        return None  # (in another block, e.g. a loop's body, the convolution would move into it)
    if any(str(kind) != "#linalg.iterator_type<parallel>" for kind in op.attributes["iterator_types"]):
        return None
    inputs, init = list(op.operands)[:-1], op.operands[-1]
    maps = list(op.attributes["indexing_maps"])
    if (tensor_type(op.results[0].type) != tensor_type(value.type) or not _is_identity(maps[-1])
            or not (isinstance(init.owner, ir.OpView) and init.owner.operation.name == "tensor.empty")
            or sum(1 for v in inputs if v == value) != 1):
        return None
    others = []
    for operand, map_ in zip(inputs, maps):
        if operand == value:
            if not _is_identity(map_):
                return None
        elif not _is_scalar(map_):
            if not (dense and _is_identity(map_) and contiguous(operand)):
                return None
            others.append(operand)
    return others


def epilogue_after(result: ir.Value, dense: bool) -> Epilogue:
    """The element-wise chain after a float convolution's `result` [1, filters, oh, ow] (empty when none joins)."""
    epilogue = Epilogue(result, [], [])
    value = result
    while (user := _single_user(value)) is not None:
        others = _joins(user, value, dense)
        if others is None:
            break
        epilogue.chain.append(user)
        epilogue.others.extend(others)
        value = user.results[0]
    return epilogue


def flattened_others(epilogue: Epilogue) -> list[ir.Value]:
    """The chain's other tensors [1, filters, oh, ow] as [filters, oh * ow] (dense positions)."""
    flat = []
    for other in epilogue.others:
        _, filters, oh, ow = tensor_type(other.type).shape
        flat.append(collapse(other, [filters, oh * ow], [[0, 1], [2, 3]]))
    return flat


def apply_epilogue(epilogue: Epilogue, block: ir.Value, flat_others: list[ir.Value], start: int | ir.Value,
                   slicer) -> ir.Value:
    """The chain applied to `block` [filters, positions] (positions from `start`), in place: one generic whose
    init is the block and whose inputs are the others' slices (`slicer(flat, start, size)`), tagged `EPILOGUE`."""
    if not epilogue.chain:
        return block
    filters, size = tensor_type(block.type).shape
    inputs = [slicer(flat, start, size) for flat in flat_others]
    identity, scalar = ir.AffineMap.get_identity(2), ir.AffineMap.get(2, 0, [])
    scalars = [operand for op in epilogue.chain for operand, map_ in
               zip(list(op.operands)[:-1], op.attributes["indexing_maps"]) if _is_scalar(map_)]
    maps = [identity] * len(inputs) + [scalar] * len(scalars) + [identity]

    def body(*arguments: ir.Value) -> ir.Value:
        others = iter(arguments[:len(inputs)])
        scalar_arguments = iter(arguments[len(inputs):len(inputs) + len(scalars)])
        current, value = arguments[-1], epilogue.source
        for op in epilogue.chain:
            current = _inline_body(op, current, value, others, scalar_arguments)
            value = op.results[0]
        return current

    (result,) = generic(inputs + scalars, [block], maps, ["parallel", "parallel"], body)
    result.owner.attributes[EPILOGUE] = ir.UnitAttr.get()
    return result


def _inline_body(op: ir.Operation, current: ir.Value, value: ir.Value, others, scalars) -> ir.Value:
    """`op`'s body cloned at the insertion point, reading `current` for the chain's `value`, the next of
    `others`/`scalars` for its other inputs; returns what it yields."""
    block = op.regions[0].blocks[0]
    mapping = {}
    for operand, argument, map_ in zip(list(op.operands)[:-1], block.arguments, op.attributes["indexing_maps"]):
        if operand == value:
            mapping[argument] = current
        elif _is_scalar(map_):
            mapping[argument] = next(scalars)
        else:
            mapping[argument] = next(others)
    yielded = None
    for nested in block.operations:
        if nested.operation.name == "linalg.yield":
            yielded = mapping.get(nested.operation.operands[0], nested.operation.operands[0])
            break
        clone = nested.operation.clone()
        for index, operand in enumerate(clone.operands):
            if operand in mapping:
                clone.operands[index] = mapping[operand]
        for old, new in zip(nested.operation.results, clone.results):
            mapping[old] = new
    return yielded


def erase_chain(epilogue: Epilogue, replacement: ir.Value) -> None:
    """Replace the chain's last result with `replacement` and erase the chain's generics (last first)."""
    if not epilogue.chain:
        return
    epilogue.chain[-1].results[0].replace_all_uses_with(replacement)
    for op in reversed(epilogue.chain):
        op.erase()

