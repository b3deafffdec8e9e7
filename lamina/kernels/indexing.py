"""Kernels of `graph_indexing.py`'s ops (ArgMax, ArgMin): NumPy's argmax/argmin, whose first NaN wins."""

from __future__ import annotations

import numpy as np

from .graph_kernels import Node, kernel


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
