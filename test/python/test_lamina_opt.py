"""lamina-opt in process: input splitting, expected-diagnostics matching, the driver."""

import io
from dataclasses import dataclass
from typing import Literal

import pytest
from mlir import ir

from lamina.dialects.graph import GRAPH
from lamina.passes.options import option
from lamina.passes.registry import REGISTRY, Pass, Registry
from lamina.tools.expected_diagnostics import Reported, verify
from lamina.tools.lamina_opt import list_passes, main, split_input

VALID = """func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x3xf32>
  "graph.save"(%0) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
"""


def test_split_input_keeps_line_numbers():
    chunks = split_input("a\n// -----\nb\n  // ----- more dashes are fine\nc\n")
    assert chunks == ["a", "\n\nb", "\n\n\n\nc\n"]
    assert split_input("no marker") == ["no marker"]


# ---------------------------------------------------------------------------
# Expected diagnostics.
# ---------------------------------------------------------------------------


@pytest.fixture
def at():
    """Locations in file `f.mlir` (line 0: unknown)."""
    with ir.Context():
        yield lambda line: ir.Location.file("f.mlir", line, 3) if line else ir.Location.unknown()


def test_every_severity_and_placement_matches(at):
    source = "\n".join([
        "op  // expected-warning {{careful}}",
        "// expected-remark @+1 {{fyi}}",
        "op",
        "// expected-note @-2 {{see there}}",
        "// expected-error @unknown {{somewhere}}",
        "// expected-error-re @below {{value {{[0-9]+}} out of range}}",
        "op",
    ])
    reported = [Reported(at(1), "warning", "be careful here"), Reported(at(3), "remark", "fyi: done"),
                Reported(at(2), "note", "see there"), Reported(at(0), "error", "somewhere else"),
                Reported(at(7), "error", "value 42 out of range")]
    assert verify(source, "f.mlir", reported) == []


def test_mismatches_are_reported_like_mlir_opt(at):
    source = "op\n  // expected-warning @-1 {{careful}}\nop // expected-error {{never}}\n"
    reported = [Reported(at(1), "error", "careful"), Reported(at(0), "remark", "from nowhere")]
    assert verify(source, "f.mlir", reported) == [
        "f.mlir:1:3: error: unexpected error: careful",
        "unknown location: error: unexpected remark: from nowhere",
        'f.mlir:2:6: error: expected warning "careful" was not produced',
        'f.mlir:3:7: error: expected error "never" was not produced',
    ]


def test_diagnostics_in_another_file_are_unexpected(at):
    with ir.Context():
        elsewhere = ir.Location.file("other.mlir", 1, 1)
    assert verify("op // expected-error {{boom}}", "f.mlir", [Reported(elsewhere, "error", "boom")]) == [
        "other.mlir:1:1: error: unexpected error: boom",
        'f.mlir:1:7: error: expected error "boom" was not produced',
    ]


def test_a_bad_regex_is_reported_at_its_directive():
    (problem,) = verify("// expected-error-re {{a {{(}} b}}", "f.mlir", [])
    assert problem.startswith("f.mlir:1:4: error: invalid expected-error-re:")


# ---------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------


def write(tmp_path, text: str, name: str = "in.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_top_level_ops_get_an_implicit_module(tmp_path, capsys):
    source = write(tmp_path, VALID + VALID.replace("@main", "@other"))
    assert main([source]) == 0
    output = capsys.readouterr().out
    assert output.startswith("module {\n  func.func @main()") and "func.func @other()" in output


def test_reads_stdin_and_writes_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(VALID))
    output = tmp_path / "out.mlir"
    assert main(["-", "-o", str(output)]) == 0
    assert '"graph.save"' in output.read_text()
    assert capsys.readouterr().out == ""


def test_no_output_file_after_a_failure(tmp_path, capsys):
    source = write(tmp_path, VALID.replace("tensor<2x3xf32>) -> ()", "tensor<3x3xf32>) -> ()"))
    output = tmp_path / "out.mlir"
    assert main([source, "-o", str(output)]) == 1
    assert not output.exists()
    errors = capsys.readouterr().err.splitlines()
    assert errors[0].endswith("in.mlir:3:16: error: use of value '%0' expects different type than prior uses: "
                              "'tensor<3x3xf32>' vs 'tensor<2x3xf32>'")
    assert errors[1].endswith("in.mlir:2:3: note: prior use here")


def test_verify_each_false_skips_the_semantic_checks(tmp_path, capsys):
    source = write(tmp_path, VALID.replace('{name = "x"}', '{name = ""}'))
    assert main([source]) == 1
    assert "placeholder needs a non-empty name" in capsys.readouterr().err
    assert main([source, "--verify-each=false"]) == 0
    assert main([source, "--verify-each", "0"]) == 0


def test_bad_flags_are_usage_errors(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--verify-each=maybe"])
    assert exit.value.code == 2
    assert "expected true or false, got 'maybe'" in capsys.readouterr().err


def test_dump_irdl_and_list_passes(capsys):
    assert main(["--dump-irdl=graph"]) == 0
    assert capsys.readouterr().out == GRAPH.irdl()
    assert main(["--list-passes"]) == 0
    assert capsys.readouterr().out == list_passes(REGISTRY)


def test_ir_printing_shows_every_pass(tmp_path, capfd):
    source = write(tmp_path, VALID)
    assert main([source, "-p", "builtin.module(graph-dce,cse)", "--mlir-print-ir-after-all",
                 "--mlir-print-ir-before-all"]) == 0
    dumps = [line for line in capfd.readouterr().err.splitlines() if "IR Dump" in line]
    assert dumps == [
        "// -----// IR Dump Before GraphDCE (graph-dce) //----- //",
        "// -----// IR Dump After GraphDCE (graph-dce) //----- //",
        "// -----// IR Dump Before CSE (cse) //----- //",
        "// -----// IR Dump After CSE (cse) //----- //",
    ]


def test_list_passes_shows_summaries_and_options():
    registry = Registry()

    @registry.register_pass
    @dataclass(frozen=True)
    class Tile(Pass):
        """Tiles nothing: an example for the listing."""

        name = "example-tile"
        summary = "Tile things"
        size: int = option(4, "tile size")
        mode: Literal["fast", "exact"] = option("fast", "how to tile")

        def run(self, op):
            pass

    assert list_passes(registry).splitlines()[:5] == [
        "Lamina passes:",
        "  example-tile             Tile things",
        "      size=<int>  tile size (default: 4)",
        "      mode=<fast|exact>  how to tile (default: fast)",
        "",
    ]
