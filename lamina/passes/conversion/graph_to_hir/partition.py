"""Which graph ops run on the accelerator, the host segments, and the printable partition.

An op runs on the accelerator when `lamina/backends/accelerator.py` supports it,
its tensors have rank 2 or 4 (what the data layout stores), and it has an
HIR form; every other computing op runs on the host. Maximal runs of host
ops in program order become host segments, each a complete graph module
whose placeholders and saves are named after the Vars (or model inputs and
outputs) it reads and writes. Control flow (if, loop, scan) runs there whole,
its regions copied with it.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np
from mlir import ir

from lamina.backends.registry import backend_named
from lamina.target.tcu.data_layout import as_nchw
from lamina.dialects.context import embedded_source, parse_module, print_module
from lamina.dialects.graph import FLOAT_DTYPES, GRAPH
from lamina.dialects.graph_control_flow import outer_operands
from lamina.dialects.hir import HIR
from lamina.dialects.irdl import INTERFACE, MEMORY_OBJECT
from lamina.dialects.model import body_ops, create_model
from lamina.dialects.types import spec_of
from lamina.dialects.values import is_constant_view, op_name, remap_operands, users

from .graph_values import per_channel
from .rules import ELEMENTWISE, PLACEMENT, POOL, form_of



def computes(op: ir.Operation) -> bool:
    """Whether the op computes at run time: not the model's interface, nor compile-time data (a broadcast of an
    activation computes; of a constant, not)."""
    return not GRAPH.lookup(op).has(INTERFACE) and not any(is_constant_view(value) for value in op.results)


def _tensors(op: ir.Operation) -> list:
    values = [v for v in op.operands if not is_constant_view(v)] + list(op.results)
    return [spec_of(v.type) for v in values]


def _why_no_hir_form(op: ir.Operation) -> str | None:
    view = GRAPH.view(op)
    name = view.name
    form = form_of(name)
    if form is None:
        return f"'{op.name}' has no HIR form"
    specs = _tensors(op)
    if any(spec.rank not in (2, 4) for spec in specs):
        return "the accelerator stores rank-2 and rank-4 tensors only"
    if any(spec.dtype not in FLOAT_DTYPES for spec in specs):
        return "the accelerator computes on real numbers only"
    if form == POOL and (view.attr("ceil_mode") or any(d != 1 for d in view.attrs().get("dilations", (1, 1)))):
        return "pooling with ceil_mode or dilations has no HIR form"
    if name == "concat" and any(is_constant_view(value) for value in op.operands):
        return "a concat places activations; a constant input has no Vars to copy from"
    if name == "leaky_relu" and view.attr("alpha") > 1:
        return "leaky_relu is max(x, alpha * x) on the accelerator, which needs alpha <= 1"
    if form == ELEMENTWISE:
        constants = [v for v in op.operands if is_constant_view(v)]
        if len(constants) == 2 or (constants and per_channel(constants[0]) is None):
            return "an element-wise op with a constant needs a per-channel constant"
    return None


def _is_layout_keeping(op: ir.Operation) -> bool:
    """A reshape whose input and result have one vector layout (e.g. (1, C, 1, 1) <-> (1, C))."""
    source, result = spec_of(op.operands[0].type), spec_of(op.results[0].type)
    return source.rank in (2, 4) and result.rank in (2, 4) and as_nchw(source.shape) == as_nchw(result.shape)


def is_fused_flatten(op: ir.Operation, on_accelerator: Callable[[ir.Operation], bool]) -> bool:
    """A flatten (n, c, h, w) -> (n, c*h*w) read only as the input of accelerated fully-connected layers."""
    source, result = spec_of(op.operands[0].type), spec_of(op.results[0].type)
    if source.rank != 4 or result.shape != (source.shape[0], int(np.prod(source.shape[1:]))):
        return False
    readers = users(op.results[0])
    return bool(readers) and all(op_name(user) in ("fully_connected", "matmul") and on_accelerator(user)
                                 and user.operands[0] == op.results[0] and op.results[0] not in list(user.operands)[1:]
                                 for user in readers)


def why_on_host(op: ir.Operation) -> str | None:
    """Why a computing op other than a reshape runs on the host, or None if the accelerator runs it."""
    return backend_named("accelerator").why_unsupported(GRAPH.view(op)) or _why_no_hir_form(op)


def classify(ops: list[ir.Operation]) -> dict[ir.Operation, str | None]:
    """For every computing op: None if it runs on the accelerator, else why it runs on the host.

    Reshapes are decided last: one is a placement only if every reader is an
    accelerated layer (a layout-keeping alias, or a flatten fused into
    fully-connected layers); a reshape the host or an output reads runs on the host.
    """
    verdicts: dict[ir.Operation, str | None] = {}
    for op in ops:
        if computes(op) and op_name(op) != "reshape":
            verdicts[op] = why_on_host(op)
    for op in reversed(ops):  # readers first: a reshape may feed another
        if computes(op) and op_name(op) == "reshape":
            verdicts[op] = _reshape_verdict(op, verdicts)
    return verdicts


def _reshape_verdict(op: ir.Operation, verdicts: dict[ir.Operation, str | None]) -> str | None:
    def on_accelerator(user: ir.Operation) -> bool:
        return user in verdicts and verdicts[user] is None and form_of(op_name(user)) != PLACEMENT

    if is_fused_flatten(op, on_accelerator):
        return None
    readers = users(op.results[0])
    if _is_layout_keeping(op) and readers and all(on_accelerator(user) for user in readers):
        return None
    return "only a reshape keeping the vector layout, or a flatten into fully-connected layers, is a placement"


# ---------------------------------------------------------------------------
# Host segments as graph modules.
# ---------------------------------------------------------------------------


def host_module(context: ir.Context, segment: list[ir.Operation], input_names: dict[ir.Value, str],
                output_names: dict[ir.Value, list[str]]) -> str:
    """The graph module running `segment` on the host, as text.

    `input_names` names the values it reads (placeholders), `output_names`
    the names each value it produces for others is saved under; the constants
    it reads or saves are copied into it.
    """
    module, block = create_model(context)
    mapping: dict[ir.Value, ir.Value] = {}
    with context, ir.Location.unknown(), ir.InsertionPoint(block.operations[0]):
        for value, name in input_names.items():
            mapping[value] = GRAPH.create("placeholder", result_types=[spec_of(value.type)], name=name).result
        for op in segment:
            for operand in op.operands:
                if operand not in mapping:
                    _copy_data(operand, mapping)
            for value in outer_operands(op):
                if value not in mapping:
                    _copy_data(value, mapping)
            mapping.update(zip(op.results, _copy(op, mapping)))
        for value, names in output_names.items():
            if value not in mapping:
                _copy_data(value, mapping)
            for name in names:
                GRAPH.create("save", mapping[value], name=name)
    return print_module(module)


def _copy_data(value: ir.Value, mapping: dict[ir.Value, ir.Value]) -> None:
    op = value.owner.operation
    for operand in op.operands:
        if operand not in mapping:
            _copy_data(operand, mapping)
    (mapping[value],) = _copy(op, mapping)


def _copy(op: ir.Operation, mapping: dict[ir.Value, ir.Value]) -> list[ir.Value]:
    """The op copied at the insertion point, reading `mapping`'s values (inside its regions too)."""
    copy = op.clone()
    remap_operands(copy, mapping)
    return list(copy.results)


def host_interface(text: str, context: ir.Context, source: str = "host segment"
                   ) -> tuple[list[str], list[str], Counter]:
    """(names read, names written, op counts) of a host segment's module; `source` names it in errors."""
    return module_interface(parse_module(text, context, source))


def module_interface(module: ir.Operation) -> tuple[list[str], list[str], Counter]:
    """(names read, names written, op counts) of a host segment's module, parsed."""
    reads, writes, counts = [], [], Counter()
    for op in body_ops(module):
        name = op_name(op)
        if name == "placeholder":
            reads.append(GRAPH.view(op).attr("name"))
        elif name == "save":
            writes.append(GRAPH.view(op).attr("name"))
        elif computes(op):
            counts[name] += 1
    return reads, writes, counts


# ---------------------------------------------------------------------------
# The partition, printed.
# ---------------------------------------------------------------------------


def partition_report(module: ir.Operation) -> str:
    """The HIR program as segments: accelerator runs (layers, op counts) and host segments."""
    lines: list[str] = []
    run: list[ir.Operation] = []

    def flush_accelerator() -> None:
        if run:
            layers = {HIR.view(op).attr("layer") for op in run}
            counts = Counter(HIR.lookup(op).name for op in run)
            lines.append(f"segment {len(lines)}: accelerator, {len(layers)} layer{'s' * (len(layers) != 1)}: "
                         f"{_counts(counts)}")
            run.clear()

    for op in body_ops(module):
        definition = HIR.lookup(op)
        if definition is None or definition.has(MEMORY_OBJECT):
            continue
        if definition.name != "host":
            run.append(op)
            continue
        flush_accelerator()
        reads, writes, counts = host_interface(HIR.view(op).attr("module"), module.context, embedded_source(op, "module"))
        lines.append(f"segment {len(lines)}: host, {_counts(counts) or 'no op'}; reads {', '.join(reads) or '-'}; "
                     f"writes {', '.join(writes) or '-'}")
    flush_accelerator()
    return "\n".join(lines) + "\n"


def _counts(counts: Counter) -> str:
    return ", ".join(f"{name} x{count}" for name, count in sorted(counts.items()))

