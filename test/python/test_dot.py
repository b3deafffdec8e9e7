"""The DOT dump: structurally valid Graphviz, one node per op, one edge per operand.

Graphviz is not installed, so the tests parse the DOT subset `to_dot` writes
(a digraph of node, edge and default-attribute statements) with a small
tokenizer and check it strictly: balanced braces and quotes, known
statement forms, every edge between declared nodes, record labels whose
special characters are escaped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from light_models import load_light_model

from lamina.dialects.context import make_context, parse_module, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.model import body_ops
from lamina.frontend.onnx_importer import import_model
from lamina.passes.graph.dot import FILL_COLORS, to_dot
from lamina.passes.pass_manager import run_pipeline

TOKEN = re.compile(r'\s*(?:(?P<string>"(?:[^"\\]|\\.)*")|(?P<arrow>->)|(?P<id>[A-Za-z_]\w*|-?\d+(?:\.\d+)?)'
                   r'|(?P<punct>[{}\[\];=,]))', re.DOTALL)


def tokens(text: str) -> list[str]:
    found, position = [], 0
    while text[position:].strip():
        match = TOKEN.match(text, position)
        assert match, f"unexpected DOT text at {position}: {text[position:position + 40]!r}"
        found.append(match.group(match.lastgroup))
        position = match.end()
    return found


@dataclass
class Dot:
    name: str
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)


def parse_dot(text: str) -> Dot:
    """`digraph NAME { statement* }`, statements: `node|edge [attrs];`, `ID [attrs];`, `ID -> ID [attrs];`."""
    stream = tokens(text)
    position = 0

    def take(expected: str | None = None) -> str:
        nonlocal position
        token = stream[position]
        assert expected is None or token == expected, f"expected {expected!r}, got {token!r}"
        position += 1
        return token

    def attributes() -> dict[str, str]:
        found = {}
        if stream[position] != "[":
            return found
        take("[")
        while stream[position] != "]":
            key = take()
            take("=")
            found[key] = unquote(take())
            if stream[position] == ",":
                take(",")
        take("]")
        return found

    take("digraph")
    dot = Dot(unquote(take()))
    take("{")
    while stream[position] != "}":
        first = take()
        if stream[position] == "->":
            take("->")
            dot.edges.append((first, take(), attributes()))
        elif first in ("node", "edge"):
            attributes()
        else:
            assert first not in dot.nodes, f"node {first} declared twice"
            dot.nodes[first] = attributes()
        take(";")
    take("}")
    assert position == len(stream), "text after the graph"
    return dot


def unquote(token: str) -> str:
    return re.sub(r"\\(.)", r"\1", token[1:-1]) if token.startswith('"') else token


def record_fields(label: str) -> list[str]:
    """The rows of a `{a|b|c}` record label, unescaped; no unescaped special character inside."""
    assert label.startswith("{") and label.endswith("}")
    fields, current, characters = [], "", iter(label[1:-1])
    for character in characters:
        if character == "\\":
            current += next(characters)
        elif character == "|":
            fields.append(current)
            current = ""
        else:
            assert character not in "{}<>", f"unescaped {character!r} in record label {label!r}"
            current += character
    return fields + [current]


def raw_label(text: str, node: str) -> str:
    """A node's label as written (escapes kept), for `record_fields`."""
    match = re.search(rf'^  {node} \[label="((?:[^"\\]|\\.)*)"', text, re.MULTILINE)
    return match.group(1)


def test_a_light_model_dumps_one_node_per_op_and_one_edge_per_operand():
    module = import_model(load_light_model("squeezenet"), make_context())
    text = to_dot(module)
    dot = parse_dot(text)
    ops = body_ops(module)
    assert dot.name == "main" and len(dot.nodes) == len(ops)
    assert len(dot.edges) == sum(len(op.operands) for op in ops)
    assert all(source in dot.nodes and target in dot.nodes for source, target, _ in dot.edges)
    for node, op in zip(dot.nodes, ops):
        fields = record_fields(raw_label(text, node))
        assert fields[0] == op.name
        assert dot.nodes[node].get("fillcolor") == FILL_COLORS.get(op.name.removeprefix("graph."))
        if op.results:
            assert fields[-1] == str(op.results[0].type)


MODEL = """
func.func @main() {
  %x = "graph.placeholder"() {name = "in{put}|<x>"} : () -> tensor<2x3xf32>
  %y = "graph.relu"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(fused["conv \\"1\\"", "relu|1"])
  %z = "graph.sum"(%x, %y, %x) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  "graph.save"(%z) {name = "z"} : (tensor<2x3xf32>) -> ()
  return
}
"""


def test_labels_escape_record_syntax_and_name_every_operand():
    text = to_dot(parse_module(MODEL, make_context()))
    dot = parse_dot(text)
    assert record_fields(raw_label(text, "op0")) == ["graph.placeholder", "name: in{put}|<x>", "tensor<2x3xf32>"]
    # A fused location shows every ONNX node it came from.
    assert record_fields(raw_label(text, "op1")) == ["graph.relu", 'conv "1"', "relu|1", "tensor<2x3xf32>"]
    assert [(source, target, attributes["label"]) for source, target, attributes in dot.edges] == [
        ("op0", "op1", "input"),
        ("op0", "op2", "inputs 0"), ("op1", "op2", "inputs 1"), ("op0", "op2", "inputs 2"),
        ("op2", "op3", "input"),
    ]


def test_the_pass_writes_the_dump_and_changes_nothing(tmp_path, capsys):
    module = parse_module(MODEL, make_context())
    text = print_module(module)
    path = tmp_path / "graph.dot"
    run_pipeline(module, f"builtin.module(graph-dump-dot{{output={path}}})")
    assert path.read_text() == to_dot(module)
    run_pipeline(module, "builtin.module(graph-dump-dot)")
    assert capsys.readouterr().err == to_dot(module)
    assert print_module(module) == text


def test_a_module_without_one_model_function_is_an_error():
    module = parse_module(MODEL + MODEL.replace("@main", "@other"), make_context())
    with pytest.raises(LaminaError, match="exactly one func.func, found 2"):
        to_dot(module)
