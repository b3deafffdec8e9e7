"""The pass registry, typed options, the pipeline parser and the pass-manager builder."""

from dataclasses import dataclass
from typing import Literal

import pytest
from mlir import ir

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.op_registry import RegistryError
from lamina.passes.options import OptionError, instantiate, option
from lamina.passes.pass_manager import PipelineFailed, build_pass_manager, run_pipeline
from lamina.passes.pipeline_syntax import (NestedPipeline, PassElement, PipelineError, parse_elements, parse_pipeline,
                                           split_options)
from lamina.passes.registry import REGISTRY, Pass, PassError, Pipeline, Registry

MODEL = """
func.func @first() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.relu"(%0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
func.func @second() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  %1 = "graph.transpose"(%0) {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  "graph.save"(%1) {name = "y"} : (tensor<3x2xf32>) -> ()
  return
}
"""

# What the test passes saw, in order: (pass, detail, op name).
RUNS: list[tuple[str, str, str]] = []


@dataclass(frozen=True)
class Settings:
    """Options of every supported type."""

    flag: bool = option(False, "a switch")
    count: int = option(1, "how many")
    ratio: float = option(0.5, "how much")
    label: str = option("", "a name")
    backend: Literal["cpu", "accelerator"] = option("cpu", "where to run")
    sizes: tuple[int, ...] = option((), "a list")


@pytest.fixture
def registry() -> Registry:
    RUNS.clear()
    registry = Registry()

    @registry.register_pass
    @dataclass(frozen=True)
    class Record(Pass):
        """Records the ops it runs on; changes nothing, so legal anywhere."""

        name = "test-record"
        summary = "Record the op the pass runs on"
        tag: str = option("", "label for the record")

        def run(self, op):
            RUNS.append((self.name, self.tag, op.name))

    @registry.register_pass
    @dataclass(frozen=True)
    class ModuleOnly(Pass):
        """Runs on modules only, like a pass that needs the whole model."""

        name = "test-module-only"
        summary = "A pass anchored on builtin.module"
        op_name = "builtin.module"

        def run(self, op):
            RUNS.append((self.name, "", op.name))

    @registry.register_pass
    @dataclass(frozen=True)
    class Fail(Pass):
        """Fails the way its option says: a located error, a plain one, a bug."""

        name = "test-fail"
        summary = "Fail"
        how: Literal["located", "plain", "bug"] = option("located", "how to fail")

        def run(self, op):
            first = op.regions[0].blocks[0].operations[0]
            if self.how == "located":
                raise PassError("cannot handle this op", first.location)
            if self.how == "plain":
                raise LaminaError("cannot handle this module")
            raise RuntimeError("a bug in the pass")

    @registry.register_pass
    @dataclass(frozen=True)
    class BreakPerm(Pass):
        """Makes every transpose's perm invalid: IR that fails verification."""

        name = "test-break-perm"
        summary = "Leave semantically invalid IR"

        def run(self, op):
            def visit(nested):
                if nested.name == "graph.transpose":
                    nested.attributes["perm"] = ir.DenseI64ArrayAttr.get([0, 0])
                return ir.WalkResult.ADVANCE

            op.walk(visit)

    @registry.register_pipeline
    @dataclass(frozen=True)
    class Twice(Pipeline):
        """Records twice around canonicalize: a pipeline mixing Lamina and upstream passes."""

        name = "test-twice"
        summary = "Record, canonicalize, record"
        tag: str = option("t", "tag of both records")

        def expand(self):
            return f"test-record{{tag={self.tag}-1}}, canonicalize, test-record{{tag={self.tag}-2}}"

    @registry.register_pipeline
    @dataclass(frozen=True)
    class BreakThenRecord(Pipeline):
        """Leaves invalid IR, then records: verified once, at its end."""

        name = "test-break-then-record"
        summary = "Break, then record"

        def expand(self):
            return "test-break-perm, test-record"

    @registry.register_pipeline
    @dataclass(frozen=True)
    class Loop(Pipeline):
        """Expands to itself: an error."""

        name = "test-loop"
        summary = "A cycle"

        def expand(self):
            return "test-record, test-loop"

    @registry.register_pipeline
    @dataclass(frozen=True)
    class Broken(Pipeline):
        """Expands to malformed text: an error."""

        name = "test-broken"
        summary = "Bad syntax"

        def expand(self):
            return "test-record canonicalize"

    return registry


def run(pipeline: str, registry: Registry, verify_each: bool = True) -> ir.Operation:
    module = parse_module(MODEL, make_context(), "model.mlir")
    run_pipeline(module, pipeline, registry=registry, verify_each=verify_each)
    return module


# ---------------------------------------------------------------------------
# Options.
# ---------------------------------------------------------------------------


def test_options_parse_every_supported_type():
    settings = instantiate(Settings, {"flag": None, "count": "3", "ratio": "0.25", "label": "a b",
                                      "backend": "accelerator", "sizes": "1, 2,3"})
    assert settings == Settings(True, 3, 0.25, "a b", "accelerator", (1, 2, 3))
    assert instantiate(Settings, {}) == Settings()
    assert instantiate(Settings, {"flag": "false", "sizes": ""}) == Settings(flag=False, sizes=())


@pytest.mark.parametrize("values, message", [
    ({"colour": "red"}, "unknown option 'colour' (options are flag, count, ratio, label, backend, sizes)"),
    ({"count": None}, "option 'count' needs a value"),
    ({"count": "many"}, "option 'count': expected int, got 'many'"),
    ({"flag": "yes"}, "option 'flag': expected true or false, got 'yes'"),
    ({"backend": "gpu"}, "option 'backend': expected one of cpu, accelerator, got 'gpu'"),
    ({"sizes": "1,x"}, "option 'sizes': expected int, got 'x'"),
])
def test_bad_option_values_are_named(values, message):
    with pytest.raises(OptionError) as error:
        instantiate(Settings, values)
    assert str(error.value) == message


def test_pass_definitions_are_checked_when_registered():
    registry = Registry()

    with pytest.raises(TypeError, match="needs a docstring"):
        class Undocumented(Pass):
            name = "undocumented"

    @dataclass(frozen=True)
    class NoDefault(Pass):
        """An option without a default."""

        name = "no-default"
        summary = "x"
        count: int

    @dataclass(frozen=True)
    class Unparsable(Pass):
        """An option whose type has no text form."""

        name = "unparsable"
        summary = "x"
        table: frozenset = option(frozenset(), "no")

    @dataclass
    class Mutable(Pass):
        """Not frozen."""

        name = "mutable"
        summary = "x"

    for cls, message in [(NoDefault, "needs a default"), (Unparsable, "not supported"), (Mutable, "frozen")]:
        with pytest.raises(TypeError, match=message):
            registry.register_pass(cls)
    with pytest.raises(TypeError, match="not a Pipeline"):
        registry.register_pipeline(Settings)


def test_a_name_is_registered_once(registry):
    @dataclass(frozen=True)
    class Again(Pass):
        """Same name as another pass."""

        name = "test-record"
        summary = "x"

    with pytest.raises(RegistryError, match="two registrations for 'test-record'"):
        registry.register_pass(Again)


def test_default_registry_loads_lamina_passes_on_first_use():
    assert REGISTRY.lookup("graph-dce").__name__ == "GraphDCE"
    assert {"graph-dce", "graph-verify"} <= {p.name for p in REGISTRY.passes()}
    assert REGISTRY.close_matches("graph-dec")[0] == "graph-dce"


# ---------------------------------------------------------------------------
# Pipeline syntax.
# ---------------------------------------------------------------------------


def test_pipeline_nesting_options_and_columns():
    text = "builtin.module( func.func(cse, test-record{tag='a b' n={x=1}}),canonicalize )"
    pipeline = parse_pipeline(text)
    assert pipeline.op_name == "builtin.module"
    nested, canonicalize = pipeline.elements
    assert isinstance(nested, NestedPipeline) and nested.op_name == "func.func"
    assert nested.column == text.index("func.func") + 1
    cse, record = nested.elements
    assert cse == PassElement("cse", None, text.index("cse") + 1)
    assert record.name == "test-record" and record.options == "tag='a b' n={x=1}"
    assert text[record.options_column - 1:].startswith("tag=")
    assert record.text() == "test-record{tag='a b' n={x=1}}"
    assert canonicalize == PassElement("canonicalize", None, text.index("canonicalize") + 1)
    assert split_options(record, text) == {"tag": "a b", "n": "{x=1}"}


def test_empty_pipelines_and_bare_option_keys():
    assert parse_pipeline("builtin.module()").elements == ()
    assert parse_elements("", "pipeline 'p'") == ()
    (element,) = parse_elements("p{flag other=2}", "pipeline 'p'")
    assert split_options(element, "p{flag other=2}") == {"flag": None, "other": "2"}


@pytest.mark.parametrize("text, column, message", [
    ("builtin.module(a b)", 18, "expected ',' or ')' after 'a'"),
    ("builtin.module(a", 15, "unbalanced '(': expected ')'"),
    ("builtin.module(a))", 18, "unexpected ')' after the pipeline"),
    ("builtin.module(a,)", 18, "expected a pass name, found ')'"),
    ("a,b", 1, "a pass pipeline names the op it runs on"),
    ("", 1, "expected the op the pipeline runs on"),
    ("builtin.module(a{x=1)", 17, "unbalanced '{': expected '}'"),
    ("builtin.module(a{x='1})", 20, "unbalanced ''': expected '''"),
])
def test_syntax_errors_point_at_their_column(text, column, message):
    with pytest.raises(PipelineError) as error:
        parse_pipeline(text)
    assert error.value.column == column
    first_line, echoed, caret = str(error.value).split("\n")
    assert first_line.startswith(f"pass pipeline, column {column}: {message}")
    assert echoed == text and caret == " " * (column - 1) + "^"


@pytest.mark.parametrize("text, column, message", [
    ("p{a=1 a=2}", 7, "option 'a' is given twice"),
    ("p{a=1 +}", 7, "expected an option name, found '+'"),
])
def test_option_syntax_errors_point_into_the_pipeline(text, column, message):
    (element,) = parse_elements(text, "pass pipeline")
    with pytest.raises(PipelineError) as error:
        split_options(element, text)
    assert error.value.column == column and message in str(error.value)


# ---------------------------------------------------------------------------
# Building and running pass managers.
# ---------------------------------------------------------------------------


def test_lamina_passes_run_where_they_are_nested(registry):
    run("builtin.module(test-record{tag=top}, func.func(test-record{tag=nested}), test-module-only)", registry)
    assert RUNS == [
        ("test-record", "top", "builtin.module"),
        ("test-record", "nested", "func.func"),
        ("test-record", "nested", "func.func"),
        ("test-module-only", "", "builtin.module"),
    ]


def test_named_pipelines_expand_with_their_options(registry):
    module = run("builtin.module(test-twice{tag=x}, func.func(test-twice))", registry)
    assert RUNS == [
        ("test-record", "x-1", "builtin.module"),
        ("test-record", "x-2", "builtin.module"),
        ("test-record", "t-1", "func.func"),
        ("test-record", "t-1", "func.func"),
        ("test-record", "t-2", "func.func"),
        ("test-record", "t-2", "func.func"),
    ]
    assert '"graph.relu"' in print_module(module)  # canonicalize ran and kept the (trait-less) graph ops


def test_passes_run_in_one_pass_manager_in_order(registry, capfd):
    module = parse_module(MODEL, make_context(), "model.mlir")
    pass_manager = build_pass_manager("builtin.module(test-record, func.func(cse), test-twice)", module.context,
                                      registry=registry)
    pass_manager.enable_ir_printing(print_after_all=True)
    pass_manager.run(module)
    dumps = [line for line in capfd.readouterr().err.splitlines() if "IR Dump After" in line]
    assert [d.split("After ")[1].split(" //")[0] for d in dumps] == [
        "Record (test-record)", "CSE (cse)", "CSE (cse)", "Record (test-record)", "Canonicalizer (canonicalize)",
        "Record (test-record)",
    ]


@pytest.mark.parametrize("pipeline, column, message", [
    ("builtin.module(test-recrod)", 16, "unknown pass or pipeline 'test-recrod'; did you mean 'test-record'?"),
    ("builtin.module(test-record{colour=red})", 16, "test-record: unknown option 'colour' (options are tag)"),
    ("builtin.module(func.func(test-module-only))", 26,
     "'test-module-only' runs on 'builtin.module' ops, not on 'func.func'"),
    ("builtin.module(canonicalize{nope=1})", 16, "MLIR rejects 'canonicalize{nope=1}'"),
    ("builtin.module(test-loop)", 14, "pipeline 'test-loop' expands to itself (test-loop -> test-loop)"),
    ("builtin.module(test-broken)", 13, "expected ',' after 'test-record'"),
    ("func.func(cse)", 1, "pipelines run on 'builtin.module', not 'func.func'"),
])
def test_building_errors_name_the_element(registry, pipeline, column, message):
    with pytest.raises(PipelineError) as error:
        build_pass_manager(pipeline, make_context(), registry=registry)
    assert error.value.column == column
    assert message in str(error.value)


def test_errors_inside_a_named_pipeline_show_its_expansion(registry):
    with pytest.raises(PipelineError) as error:
        build_pass_manager("builtin.module(test-broken)", make_context(), registry=registry)
    assert str(error.value).startswith("pipeline 'test-broken' (expands to 'test-record canonicalize'), column 13")


def test_a_failing_pass_reports_at_a_location(registry):
    with pytest.raises(PipelineFailed) as error:
        run("builtin.module(func.func(test-fail))", registry)
    (problem,) = error.value.problems
    assert (problem.message, problem.location.start_line) == ("cannot handle this op", 3)

    with pytest.raises(PipelineFailed) as error:
        run("builtin.module(test-fail{how=plain})", registry)
    (problem,) = error.value.problems
    assert problem.message == "cannot handle this module"


def test_a_bug_in_a_pass_keeps_its_traceback(registry):
    with pytest.raises(RuntimeError, match="a bug in the pass"):
        run("builtin.module(test-fail{how=bug})", registry)


def test_a_pass_leaving_invalid_ir_fails_unless_verification_is_off(registry):
    with pytest.raises(PipelineFailed) as error:
        run("builtin.module(test-break-perm)", registry)
    (problem,) = error.value.problems
    assert problem.message.startswith("'graph.transpose' op perm [0, 0] is not a permutation")
    assert problem.message.endswith("(after pass 'test-break-perm')")
    assert problem.location.start_line == 10

    module = run("builtin.module(test-break-perm)", registry, verify_each=False)
    assert "array<i64: 0, 0>" in print_module(module)


def test_a_named_pipeline_is_verified_once_at_its_end(registry):
    """Verifying after each of a pipeline's passes made verification most of the compile time on large
    graphs; the error names the pipeline, and spelling its passes out checks after each."""
    RUNS.clear()
    with pytest.raises(PipelineFailed) as error:
        run("builtin.module(test-break-then-record)", registry)
    (problem,) = error.value.problems
    assert problem.message.endswith("(after pipeline 'test-break-then-record' (last pass 'test-record'))")
    assert [name for name, _, _ in RUNS] == ["test-record"]  # the record ran on the broken IR

    RUNS.clear()
    with pytest.raises(PipelineFailed) as error:
        run("builtin.module(test-break-perm, test-record)", registry)
    assert error.value.problems[0].message.endswith("(after pass 'test-break-perm')")
    assert RUNS == []
