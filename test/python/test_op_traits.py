"""Op facts live on the op table: traits and enum attributes on `OpDef`."""

from __future__ import annotations

import pytest
from mlir import ir

from lamina.dialects.buffer import BUFFER
from lamina.dialects.context import make_context
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import HIR
from lamina.dialects.irdl import (CONSTANT, ELEMENTWISE, FORWARDING, IN_PLACE, INTERFACE, LAYER, MEMORY_OBJECT,
                                  REARRANGING, STR, TRAITS, VIEW, DialectDef, ShapeError)
from lamina.dialects.types import TensorSpec
from lamina.frontend.converters.resize import COORDINATE_MODES
from lamina.frontend.converters.shape_ops import PAD_MODES


def test_an_op_defined_without_traits_or_enums_is_a_plain_pure_op():
    dialect = DialectDef("scratch", "a test dialect")
    definition = dialect.op("thing", "Does a thing.", operands=("input",))
    assert definition.traits == frozenset() and definition.enums == {}
    assert not any(definition.has(trait) for trait in TRAITS)
    assert dialect.with_trait(ELEMENTWISE) == frozenset()


def test_unknown_traits_and_enums_on_non_strings_are_refused():
    dialect = DialectDef("scratch", "a test dialect")
    with pytest.raises(AssertionError, match="unknown traits"):
        dialect.op("bad", "Bad.", traits={"fast"})
    with pytest.raises(AssertionError, match="enums on non-string"):
        dialect.op("worse", "Worse.", enums={"n": ("a",)})
    assert dialect.op("fine", "Fine.", attrs={"mode": STR}, enums={"mode": ("a", "b")}).enums == {"mode": ("a", "b")}


def test_graph_traits_answer_what_the_passes_ask():
    assert GRAPH.with_trait(CONSTANT) == {"constant", "splat"}
    assert GRAPH.with_trait(INTERFACE) == {"placeholder", "save"}
    assert GRAPH.with_trait(FORWARDING) == {"identity", "dropout"}
    assert GRAPH.with_trait(REARRANGING) == {"reshape", "broadcast", "transpose", "tile", "slice"}
    # In place needs the result to have the operand's type: comparisons (i1) and convert are element-wise only.
    assert GRAPH.with_trait(ELEMENTWISE) - GRAPH.with_trait(IN_PLACE) == {"equal", "less", "greater", "convert"}
    # Buffer instructions keep their graph op's facts; a copy runs in place too.
    assert BUFFER.with_trait(IN_PLACE) == GRAPH.with_trait(IN_PLACE) | {"copy"}


def test_layer_and_memory_facts_are_on_the_tables():
    """What fold-batch-norm, quantization, IRGen and the accelerator passes ask instead of lists of op names."""
    assert GRAPH.with_trait(LAYER) == {"convolution", "fully_connected"}
    weighted = {name: op.channel_weights for name, op in GRAPH.ops.items() if op.channel_weights}
    assert weighted == {"convolution": ("filter", 0), "fully_connected": ("weights", 1), "batch_norm": ("scale", 0)}
    assert GRAPH.with_trait(VIEW) == {"reshape"}
    assert BUFFER.with_trait(MEMORY_OBJECT) == {"weight", "constant", "alloc", "view"}
    assert HIR.with_trait(MEMORY_OBJECT) == {"vars", "view", "consts", "temp"}
    assert HIR.with_trait(IN_PLACE) == {"add", "binary", "channel", "relu", "clip", "leaky_relu"}


def test_the_importer_reads_enum_values_from_the_table():
    assert PAD_MODES == GRAPH.ops["pad"].enums["mode"]
    assert COORDINATE_MODES == GRAPH.ops["resize_nearest"].enums["coordinate_transformation_mode"]


def test_a_builder_refuses_a_value_outside_the_enum():
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        with ir.InsertionPoint(module.body):
            x = GRAPH.create("placeholder", name="x", result_types=[TensorSpec((2,), "float32")]).result
            with pytest.raises(ShapeError, match="approximate must be one of 'none', 'tanh', got 'fast'"):
                GRAPH.create("gelu", x, approximate="fast")
            assert GRAPH.create("gelu", x, approximate="tanh").name == "graph.gelu"
