"""Kernels of `graph_indexing.py`'s ops: ArgMax, ArgMin (NumPy's argmax/argmin, whose first NaN wins) and the
scatters (updates applied in index order; an out-of-range index is an error)."""

from __future__ import annotations

import numpy as np

from .graph_kernels import Node, _wrapped_indices, kernel


def _arg(node: Node, x, find) -> np.ndarray:
    axis = node.attrs["axis"]
    if node.attrs["select_last_index"]:
        index = x.shape[axis] - 1 - find(np.flip(x, axis), axis=axis)
    else:
        index = find(x, axis=axis)
    index = np.asarray(index, np.int64)
    return np.expand_dims(index, axis) if node.attrs["keepdims"] else index


kernel("arg_max")(lambda node, x: _arg(node, x, np.argmax))
kernel("arg_min")(lambda node, x: _arg(node, x, np.argmin))


COMBINE = {"none": lambda old, new: new, "add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


@kernel("scatter_elements")
def _scatter_elements(node: Node, x, indices, updates):
    axis, combine = node.attrs["axis"], COMBINE[node.attrs["reduction"]]
    positions = _wrapped_indices("scatter_elements", axis, indices, x.shape[axis])
    result = x.copy()
    for where in np.ndindex(*indices.shape):
        target = where[:axis] + (positions[where],) + where[axis + 1:]
        result[target] = combine(result[target], updates[where])
    return result


@kernel("scatter_nd")
def _scatter_nd(node: Node, x, indices, updates):
    combine, depth = COMBINE[node.attrs["reduction"]], indices.shape[-1]
    result = x.copy()
    for where in np.ndindex(*indices.shape[:-1]):
        target = tuple(_wrapped_indices("scatter_nd", axis, indices[where][axis], x.shape[axis])
                       for axis in range(depth))
        result[target] = combine(result[target], updates[where])
    return result


@kernel("top_k")
def _top_k(node: Node, x):
    """A stable sort: ascending for the smallest; for the largest, the ascending sort of the reversed axis,
    reversed (equal values then keep index order, and unsigned values need no negation)."""
    axis, k = node.attrs["axis"], node.attrs["k"]
    if node.attrs["largest"]:
        size = x.shape[axis]
        order = size - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    indices = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, indices, axis=axis), indices.astype(np.int64)


@kernel("gather_nd")
def _gather_nd(node: Node, x, indices):
    """out[b..., j...] = x[b..., indices[b..., j..., :]] over the `batch_dims` leading axes b (negative indices
    count from the end)."""
    batch_dims, depth = node.attrs["batch_dims"], indices.shape[-1]
    batch_shape = x.shape[:batch_dims]
    positions = [_wrapped_indices("gather_nd", batch_dims + k, indices[..., k], x.shape[batch_dims + k])
                 for k in range(depth)]
    batch = [np.arange(size).reshape((-1,) + (1,) * (indices.ndim - 2 - axis))
             for axis, size in enumerate(batch_shape)]
    return x[(*batch, *positions)]
