"""Import an ONNX model into the graph dialect: the frontend's public API.

The steps: fix input shapes and run ONNX shape inference (`static_shapes`),
learn every value's type and compile-time data (`analysis`), check every node
and report all problems at once (`support`), then emit one or more graph ops
per node (`emitter`, `converters/`).
"""

from __future__ import annotations

import onnx
from mlir import ir

from lamina.dialects.context import check_module
from lamina.dialects.diagnostics import LaminaError

from . import converters  # noqa: F401 - registers every converter
from .analysis import LoopIteration, ModelAnalysis, analyze
from .contrib_quantized import rewrite_contrib_ops
from .emitter import ModuleBuilder
from .function_expansion import MAX_EXPANSION_ROUNDS, expand_functions
from .loading import light_model_names, load_onnx, resolve_model_path
from .registry import CONVERTERS
from .node_view import NodeView
from .schema_checks import schema_problems
from .static_shapes import infer_shapes, parse_input_shape, refine_shapes, specialize
from .subgraphs import refine_control_flow
from .support import Unsupported, find_unsupported, node_problems
from .validation import check_input_shapes, check_with_onnx_checker, validate_model

__all__ = ["SUPPORTED_OPS", "LIGHT_MODELS", "Unsupported", "import_model", "load_onnx", "parse_input_shape",
           "resolve_model_path", "unsupported_nodes"]

# ONNX operators (default domain) with a converter. Others import only when
# their outputs are known at compile time (then they become graph.constant).
SUPPORTED_OPS: frozenset[str] = frozenset(CONVERTERS)
LIGHT_MODELS: list[str] = light_model_names()

InputShapes = dict[str, tuple[int, ...]]


def import_model(model: onnx.ModelProto | str, context: ir.Context, input_shapes: InputShapes | None = None,
                 source_name: str | None = None) -> ir.Operation:
    """The graph-dialect module (a `builtin.module` operation) of an ONNX model.

    `model` is a ModelProto or a path (or `light:NAME`); `input_shapes` fixes
    dynamic input dimensions; `source_name` names the model in errors.
    Raises LaminaError for anything the model does that Lamina cannot import.
    """
    proto, source = _model_and_source(model, source_name)
    analysis = _analyze(proto, input_shapes, source, require_static=True)
    problems = find_unsupported(analysis)
    if problems:
        count = len(problems)
        listing = "\n".join(str(problem) for problem in problems)
        raise LaminaError(f"{source}: cannot import the model ({count} problem{'s' if count > 1 else ''}):\n{listing}")
    known = {name: (analysis.specs[name].shape, analysis.element_types[name])
             for name in (output.name for output in analysis.graph.output)
             if name in analysis.specs and name in analysis.element_types}
    check_with_onnx_checker(proto, source, known)  # the model as given, before Lamina expands functions
    module = ModuleBuilder(analysis, context).build()
    check_module(module)
    return module


def unsupported_nodes(model: onnx.ModelProto | str, input_shapes: InputShapes | None = None) -> list[Unsupported]:
    """What keeps `model` from importing, without importing it; empty when it imports.

    Dynamic input dimensions are not an error here; what they keep unknown is.
    Raises LaminaError only for a file that does not load or `input_shapes`
    that do not fit the model.
    """
    proto, source = _model_and_source(model, None)
    return find_unsupported(_analyze(proto, input_shapes, source, require_static=False))


def _model_and_source(model: onnx.ModelProto | str, source_name: str | None) -> tuple[onnx.ModelProto, str]:
    if isinstance(model, onnx.ModelProto):
        return model, source_name or model.graph.name or "<onnx model>"
    path = resolve_model_path(str(model))
    return load_onnx(path), source_name or path


def analyze_model(model: onnx.ModelProto, source: str, iteration: LoopIteration | None = None) -> ModelAnalysis:
    """The analysis of a model whose inputs all have static shapes (a subgraph made a model); `iteration`: a
    Loop body's iteration-number input and compile-time trip count (`ModelAnalysis.iteration`)."""
    return _analyze(model, None, source, require_static=True, iteration=iteration)


def _analyze(model: onnx.ModelProto, input_shapes: InputShapes | None, source: str,
             require_static: bool, iteration: LoopIteration | None = None) -> ModelAnalysis:
    """The model validated, onnxruntime's contrib QOperator ops rewritten into QDQ nodes, its shapes inferred
    and analysed, then operators without a converter (or whose converter refuses the node) expanded into
    their ONNX function bodies (which may in turn need expanding) and the result analysed again."""
    validate_model(model, source)
    check_input_shapes(input_shapes, source)
    model = rewrite_contrib_ops(model) or model
    try:
        analysis = _analyze_to_fixpoint(*specialize(model, input_shapes, source, require_static=require_static),
                                        source, iteration)
        for _ in range(MAX_EXPANSION_ROUNDS):
            refused = [index for index, node in enumerate(analysis.nodes)  # malformed nodes stay refused
                       if node.op_type in SUPPORTED_OPS and not schema_problems(node, analysis.opset)
                       and node_problems(NodeView(analysis, index))]
            expanded = expand_functions(analysis.model, SUPPORTED_OPS, analysis.constants, refused, source)
            if expanded is None:
                break
            analysis = _analyze_to_fixpoint(*infer_shapes(expanded), source, iteration)
    except LaminaError:
        raise
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, ValueError) as error:
        lines = str(error).strip().splitlines() or [type(error).__name__]
        raise LaminaError(f"{source}: ONNX shape inference fails: {lines[0][:300]}") from None
    return analysis


def _analyze_to_fixpoint(inferred: onnx.ModelProto, inference_error: str | None, source: str,
                         iteration: LoopIteration | None = None) -> ModelAnalysis:
    """Shapes re-inferred while compile-time values keep making more of them static."""
    analysis = analyze(inferred, source, inference_error, iteration)
    while analysis.unknown_shapes():
        refined = refine_shapes(inferred, analysis.constants) or refine_control_flow(inferred, analysis)
        if refined is None:
            break
        inferred, inference_error = refined
        analysis = analyze(inferred, source, inference_error, iteration)
    return analysis
