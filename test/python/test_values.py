"""The IR helpers every level shares (`lamina.dialects.values`), and the broadcast-of-constant rule."""

from __future__ import annotations

import numpy as np
from mlir import ir

from lamina.dialects.context import make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.types import TensorSpec
from lamina.dialects.values import (constant_source, constant_value, constant_view, defining_op, has_one_use,
                                    is_constant, is_constant_view, op_name, producer, uniform_scalar, users)

F32 = np.float32


def test_constants_seen_through_broadcast_reshape_and_convert():
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            x = GRAPH.create("placeholder", name="x", result_types=[TensorSpec((1, 3, 2, 2), F32)]).result
            c = GRAPH.create("constant", value=np.array([1, 2, 3], np.float64)).result
            shaped = GRAPH.create("reshape", c, result_types=[TensorSpec((1, 3, 1, 1), np.float64)]).result
            converted = GRAPH.create("convert", shaped, result_types=[TensorSpec((1, 3, 1, 1), F32)]).result
            wide = GRAPH.create("broadcast", converted, result_types=[TensorSpec((1, 3, 2, 2), F32)]).result
            total = GRAPH.create("add", x, wide).result
            splat = GRAPH.create("splat", value=2.0, result_types=[TensorSpec((2,), F32)]).result

        assert is_constant(c) and not is_constant(wide) and not is_constant(x)
        assert is_constant_view(wide) and not is_constant_view(total) and not is_constant_view(x)
        assert constant_source(wide) == defining_op(c) and constant_source(total) is None
        view = constant_view(wide)
        assert view.dtype == F32 and view.shape == (1, 3, 2, 2) and view[0, 2, 1, 1] == 3
        assert constant_value(wide) is None and constant_view(total) is None
        assert np.array_equal(constant_value(splat), [2, 2]) and uniform_scalar(splat) == 2
        assert uniform_scalar(c) is None

        assert op_name(defining_op(total)) == "add" and op_name(None) is None
        assert producer(wide, "broadcast") is not None and producer(wide, "reshape") is None
        assert users(x) == [defining_op(total)] and has_one_use(x) and not has_one_use(splat)
