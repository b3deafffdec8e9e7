"""The graph dialect's index-producing ops: `graph.arg_max` and `graph.arg_min`
(ONNX ArgMax, ArgMin). Their i64 results are positions along one axis.
"""

from __future__ import annotations

import numpy as np

from .graph import GRAPH, _axis, _require
from .irdl import BOOL, I64


def _arg_reduce(ins, attrs, declared):
    (data,) = ins
    _require(data.dtype != np.bool_, f"expects a numeric operand, got {data}")
    axis = _axis(attrs["axis"], data.rank)
    shape = tuple(1 if i == axis else d for i, d in enumerate(data.shape)) if attrs["keepdims"] else \
        tuple(d for i, d in enumerate(data.shape) if i != axis)
    return [data.with_shape(shape).with_dtype(np.int64)]


for _name, _which in (("arg_max", "largest"), ("arg_min", "smallest")):
    GRAPH.op(_name, f"Index of the {_which} element along `axis` (the first, or the last when "
             "`select_last_index`; a NaN wins).", operands=("input",),
             attrs={"axis": I64, "keepdims": BOOL, "select_last_index": BOOL}, shape_fn=_arg_reduce)
