"""One MLIR `PassManager` for a whole pipeline of Lamina and upstream passes.

Lamina passes join the pass manager as Python passes (`PassManager.add(callable)`),
upstream elements as their text (`PassManager.add("func.func(cse)")`), in
pipeline order, so that MLIR's own instrumentation (`--mlir-print-ir-after-all`,
verification after each pass) sees every pass. Named pipelines are expanded
in place.

The bindings can only add passes to the top-level (module) pass manager. A
Lamina pass nested under ops, `func.func(graph-dce)`, therefore runs as a
module pass that visits those ops itself, which is what MLIR's nested pass
managers would do; upstream nested elements keep their MLIR nesting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from mlir import ir
from mlir.passmanager import PassManager

from lamina.dialects.context import InvalidIR, Problem, problems_of, verify_module
from lamina.dialects.diagnostics import LaminaError

from .options import OptionError, instantiate
from .pipeline_syntax import (Element, NestedPipeline, PassElement, PipelineError, parse_elements, parse_pipeline,
                              split_options)
from .registry import REGISTRY, Pass, PassError, Pipeline, Registry

# The op every Lamina pipeline runs on.
TOP_LEVEL_OP = "builtin.module"


class PipelineFailed(InvalidIR):
    """A pass failed; `problems` holds the errors the pipeline reported."""


def build_pass_manager(pipeline: str, context: ir.Context, *, registry: Registry = REGISTRY,
                       verify_each: bool = True) -> PassManager:
    """A pass manager running `pipeline` (`builtin.module(...)` syntax).

    With `verify_each`, MLIR verifies after every pass and Lamina's semantic
    rules (`verify_module`) are checked after each element of `pipeline`: a
    pass as written, or a named pipeline once, after its last Lamina pass.
    Checking inside named pipelines made verification most of the compile
    time on large graphs (13 checks in `graph-to-buffers`); spelling a
    pipeline's passes out checks after each. Raises PipelineError naming the
    column of a bad element.
    """
    parsed = parse_pipeline(pipeline)
    if parsed.op_name != TOP_LEVEL_OP:
        raise PipelineError(f"pipelines run on '{TOP_LEVEL_OP}', not '{parsed.op_name}'", pipeline, parsed.column)
    pass_manager = PassManager(TOP_LEVEL_OP, context)
    pass_manager.enable_verifier(verify_each)
    _Builder(pass_manager, registry, verify_each).add(parsed.elements, (), _Source(pipeline, "pass pipeline", ()))
    return pass_manager


def run_pass_manager(pass_manager: PassManager, module: ir.Operation) -> None:
    """Run on a module; a failing pass raises PipelineFailed with its diagnostics."""
    try:
        pass_manager.run(module)
    except ir.MLIRError as error:
        problems = problems_of(error) or [Problem(module.location, "pass pipeline failed")]
        raise PipelineFailed(problems) from None


def run_pipeline(module: ir.Operation, pipeline: str, *, registry: Registry = REGISTRY,
                 verify_each: bool = True) -> None:
    """Build and run `pipeline` on `module` (Python handles to ops inside it go stale)."""
    run_pass_manager(build_pass_manager(pipeline, module.context, registry=registry, verify_each=verify_each), module)


@dataclass(frozen=True)
class _Source:
    """Pipeline text being added, for errors; `expanding` guards against cycles."""

    text: str
    label: str  # how errors name the text: "pass pipeline", "pipeline 'x' (expands to ...)"
    expanding: tuple[str, ...]  # the named pipelines this text is inside of

    def error(self, message: str, column: int) -> PipelineError:
        return PipelineError(message, self.text, column, self.label)


class _Builder:
    """Adds parsed elements to one pass manager, in pipeline order."""

    def __init__(self, pass_manager: PassManager, registry: Registry, verify_each: bool):
        self.pass_manager = pass_manager
        self.registry = registry
        self.verify_each = verify_each
        self.runners: list[_LaminaPassRunner] = []  # of the named pipeline being expanded, if any

    def add(self, elements: tuple[Element, ...], anchors: tuple[str, ...], source: _Source) -> None:
        """Add `elements`, nested under the ops named by `anchors` (outermost first)."""
        for element in elements:
            if isinstance(element, NestedPipeline):
                self.add(element.elements, anchors + (element.op_name,), source)
                continue
            entry = self.registry.lookup(element.name)
            if entry is None:
                self.add_upstream(element, anchors, source)
                continue
            try:
                instance = instantiate(entry, split_options(element, source.text, source.label))
            except OptionError as error:
                raise source.error(f"{element.name}: {error}", element.column) from None
            if isinstance(instance, Pipeline):
                self.expand(instance, element, anchors, source)
            else:
                self.add_lamina_pass(instance, element, anchors, source)

    def expand(self, pipeline: Pipeline, element: PassElement, anchors: tuple[str, ...], source: _Source) -> None:
        if pipeline.name in source.expanding:
            cycle = " -> ".join((*source.expanding, pipeline.name))
            raise source.error(f"pipeline '{pipeline.name}' expands to itself ({cycle})", element.column)
        text = pipeline.expand()
        inner = _Source(text, f"pipeline '{pipeline.name}' (expands to '{text}')", (*source.expanding, pipeline.name))
        first = len(self.runners)
        self.add(parse_elements(text, inner.label), anchors, inner)
        if not source.expanding and len(self.runners) > first:  # an element as written: verify once, at its end
            self.runners[-1].verify_after = f"pipeline '{pipeline.name}' (last pass '{self.runners[-1].pass_.name}')"

    def add_lamina_pass(self, instance: Pass, element: PassElement, anchors: tuple[str, ...],
                        source: _Source) -> None:
        anchor = anchors[-1] if anchors else TOP_LEVEL_OP
        if instance.op_name is not None and instance.op_name != anchor:
            raise source.error(f"'{instance.name}' runs on '{instance.op_name}' ops, not on '{anchor}'",
                               element.column)
        verify_after = f"pass '{instance.name}'" if self.verify_each and not source.expanding else None
        runner = _LaminaPassRunner(instance, anchors, verify_after)
        if self.verify_each:
            self.runners.append(runner)
        self.pass_manager.add(runner, name=type(instance).__name__, argument=instance.name,
                              description=instance.summary)

    def add_upstream(self, element: PassElement, anchors: tuple[str, ...], source: _Source) -> None:
        text = element.text()
        for anchor in reversed(anchors):
            text = f"{anchor}({text})"
        try:
            self.pass_manager.add(text)
        except ValueError as error:
            reason = str(error)
            if "does not refer to a registered pass" in reason:
                raise source.error(self.unknown(element.name), element.column) from None
            first_line = next((line.strip() for line in reason.splitlines() if line.strip()), "invalid element")
            raise source.error(f"MLIR rejects '{element.text()}': {first_line}", element.column) from None

    def unknown(self, name: str) -> str:
        matches = self.registry.close_matches(name)
        hint = f"; did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""
        return f"unknown pass or pipeline '{name}'{hint} (see lamina-opt --list-passes)"


class _LaminaPassRunner:
    """Runs a Lamina pass inside MLIR's pass manager and reports its failures there.

    A `LaminaError` from the pass, or IR left failing `verify_module` (checked
    when `verify_after` names what ran since the last check), becomes error
    diagnostics at IR locations and fails the pipeline. Any other exception
    is a bug in the pass and propagates with its traceback.
    """

    def __init__(self, pass_: Pass, anchors: tuple[str, ...], verify_after: str | None):
        self.pass_ = pass_
        self.anchors = anchors
        self.verify_after = verify_after

    def __call__(self, module: ir.Operation, external_pass) -> None:
        for op in list(_ops_at(module, self.anchors)):
            try:
                with module.context:  # passes build attributes and types
                    self.pass_.run(op)
            except LaminaError as error:
                _emit(error, op.location)
                external_pass.signal_pass_failure()
                return
        if self.verify_after:
            problems = verify_module(module)
            for problem in problems:
                problem.location.emit_error(f"{problem.message} (after {self.verify_after})")
            if problems:
                external_pass.signal_pass_failure()


def _ops_at(op: ir.Operation, anchors: tuple[str, ...]) -> Iterator[ir.Operation]:
    """The ops a nested pass manager would run on: `anchors` ops, level by level."""
    if not anchors:
        yield op
        return
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                if anchors[0] in ("any", child.operation.name):
                    yield from _ops_at(child.operation, anchors[1:])


def _emit(error: LaminaError, fallback: ir.Location) -> None:
    if isinstance(error, InvalidIR):
        for problem in error.problems:
            problem.location.emit_error(problem.message)
    else:
        location = error.location if isinstance(error, PassError) else fallback
        location.emit_error(str(error))
