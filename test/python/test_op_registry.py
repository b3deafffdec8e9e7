"""The one op-keyed registry: unknown ops and duplicates fail at registration, coverage is reported."""

from __future__ import annotations

import pytest

import lamina.frontend.converters  # noqa: F401 (the real converters first: the tests below must not register)
from lamina.dialects.graph import GRAPH
from lamina.dialects.hir import HIR
from lamina.dialects.op_registry import OpRegistry, RegistryError
from lamina.frontend.registry import register as register_onnx_converter
from lamina.kernels.control_flow import REGION_KERNELS
from lamina.kernels.graph_kernels import KERNELS, kernel
from lamina.passes.conversion.graph_to_hir.rules import RULES, form_of
from lamina.passes.conversion.graph_to_linalg.registry import converts
from lamina.passes.graph.lowerings.base import lowering
from lamina.runtime.hir_interpreter import STEPS


def test_a_registry_takes_ops_of_its_dialect_once_and_reports_the_rest():
    registry = OpRegistry("test entry", GRAPH)
    registry.register("relu", "sigmoid")(len)
    assert registry["relu"] is len and "tanh" not in registry and len(registry) == 2
    assert "relu" not in registry.missing() and "tanh" in registry.missing()
    with pytest.raises(RegistryError, match="test entry for 'conv2d', which is not an op of the graph dialect"):
        registry.add("conv2d", len)
    with pytest.raises(RegistryError, match="two test entrys for 'relu': len and abs"):
        registry.add("relu", abs)


@pytest.mark.parametrize("decorator", [kernel, converts, lowering])
def test_every_graph_registry_refuses_an_unknown_op(decorator):
    with pytest.raises(RegistryError, match="'not_an_op', which is not an op of the graph dialect"):
        decorator("not_an_op")(lambda *args: None)


@pytest.mark.parametrize("decorator", [kernel, converts, lowering])
def test_every_graph_registry_refuses_a_second_entry(decorator):
    existing = {kernel: "relu", converts: "relu", lowering: "softmax"}[decorator]
    with pytest.raises(RegistryError, match=f"two .* for '{existing}'"):
        decorator(existing)(lambda *args: None)


def test_the_onnx_converter_table_checks_onnx_names_and_graph_ops():
    with pytest.raises(RegistryError, match="'Relux', which is not a name of ONNX's operator set"):
        register_onnx_converter("Relux", lambda n: None, graph_ops=("relu",))
    with pytest.raises(RegistryError, match="emits \\['relux'\\], which are not graph ops"):
        register_onnx_converter("Relu", lambda n: None, graph_ops=("relux",))
    with pytest.raises(RegistryError, match="two ONNX converters for 'Relu': <lambda> and test_the"):
        register_onnx_converter("Relu", lambda n: None, graph_ops=("relu",))


def test_every_graph_op_has_a_kernel_and_every_hir_op_an_interpreter_step():
    # Control flow has a region kernel instead; training ops have none: every backend lowers them.
    assert sorted(KERNELS.missing()) == sorted({*REGION_KERNELS, *(name for name, op in GRAPH.ops.items() if op.training)})
    assert STEPS.missing() == [] and set(STEPS) == set(HIR.ops)


def test_accelerator_rules_give_each_op_its_form():
    assert form_of("convolution") == "matmul" and form_of("max_pool") == "pool" and form_of("concat") == "placement"
    assert form_of("softmax") is None
    assert all(rule.emit is not None for name, rule in RULES.items() if rule.form != "placement")
