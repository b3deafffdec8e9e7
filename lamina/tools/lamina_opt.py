"""lamina-opt: Lamina's `mlir-opt`.

Reads `.mlir` (a file or stdin), verifies it, runs a pass pipeline mixing
Lamina's Python passes, named pipelines and upstream MLIR passes, verifies
again and prints the result (into a file `-o OUT`: constants of more than
1,024 elements into `OUT.weights.npz` beside it). The flags that matter for tests behave as in
`mlir-opt`: `--split-input-file`, `--verify-diagnostics`,
`--mlir-print-ir-after-all`, `--verify-each`. Diagnostics print as
`file:line:col: severity: message`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable

from mlir import ir
from mlir.passmanager import PassManager

from lamina.dialects.context import InvalidIR, check_module, dialect_named, make_context, parse_module
from lamina.dialects.diagnostics import collect_diagnostics
from lamina.dialects.external_weights import WeightsFile, external_text, weights_file_name
from lamina.passes.options import option_specs
from lamina.passes.pass_manager import build_pass_manager, run_pass_manager
from lamina.passes.registry import REGISTRY, Registry, RegistryEntry

from .cli import parse_arguments, read_text, run_tool, write_text
from .expected_diagnostics import Reported, reported_diagnostics, reported_problems, verify

SPLIT_MARKER = "// -----"


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(_argument_parser(), argv)
    return run_tool("lamina-opt", lambda: _run(args))


def _boolean(text: str) -> bool:
    lowered = text.lower()
    if lowered not in ("true", "false", "1", "0"):
        raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")
    return lowered in ("true", "1")


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lamina-opt", description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default="-", help="input .mlir file ('-': stdin, the default)")
    parser.add_argument("-o", dest="output", default="-", metavar="FILE", help="output file ('-': stdout)")
    parser.add_argument("--pass-pipeline", "-p", metavar="PIPELINE",
                        help="e.g. 'builtin.module(graph-dce,func.func(cse))'")
    parser.add_argument("--split-input-file", action="store_true",
                        help=f"process each chunk between '{SPLIT_MARKER}' lines on its own")
    parser.add_argument("--verify-diagnostics", action="store_true",
                        help="check diagnostics against the input's expected-* comments")
    parser.add_argument("--verify-each", type=_boolean, nargs="?", const=True, default=True, metavar="BOOL",
                        help="verify after parsing, after each pass or named pipeline as written, and after the "
                             "pipeline (default: true)")
    parser.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass")
    parser.add_argument("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass")
    parser.add_argument("--mlir-print-debuginfo", action="store_true", help="print locations")
    parser.add_argument("--mlir-elide-elementsattrs-if-larger", type=int, metavar="N",
                        help="print elements attributes with more than N elements as '...'")
    parser.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unknown dialects")
    parser.add_argument("--list-passes", action="store_true", help="list Lamina's passes and pipelines, then exit")
    parser.add_argument("--dump-irdl", metavar="DIALECT",
                        help="print a Lamina dialect's IRDL (for mlir-opt --irdl-file), then exit")
    return parser


def _run(args: argparse.Namespace) -> int:
    if args.list_passes:
        write_text(args.output, list_passes(REGISTRY))
        return 0
    if args.dump_irdl is not None:
        write_text(args.output, dialect_named(args.dump_irdl).irdl())
        return 0
    context = make_context()
    context.allow_unregistered_dialects = args.allow_unregistered_dialect
    pass_manager = _pass_manager(args, context) if args.pass_pipeline is not None else None
    source_name = "<stdin>" if args.input == "-" else args.input
    text = read_text(args.input)
    chunks = split_input(text) if args.split_input_file else [text]
    outputs, failed = [], False
    for chunk in chunks:
        output, reported = _process(chunk, source_name, context, pass_manager, args)
        if args.verify_diagnostics:
            mismatches = verify(chunk, source_name, reported)
            failed |= bool(mismatches)
            _print_errors(mismatches)
        else:
            failed |= output is None
            _print_errors(map(str, reported))
        outputs.append(output or "")
    if not failed or args.output == "-":  # like mlir-opt, keep no output file from a failed run
        write_text(args.output, f"{SPLIT_MARKER}\n".join(outputs))
    return 1 if failed else 0


def split_input(text: str) -> list[str]:
    """The chunks between `// -----` lines.

    Each chunk starts with as many blank lines as precede it in the file, so
    its diagnostics and expected-* comments keep the file's line numbers.
    """
    chunks, lines, first = [], [], 0
    for number, line in enumerate(text.split("\n")):
        if line.lstrip().startswith(SPLIT_MARKER):
            chunks.append("\n" * first + "\n".join(lines))
            lines, first = [], number + 1
        else:
            lines.append(line)
    chunks.append("\n" * first + "\n".join(lines))
    return chunks


def _pass_manager(args: argparse.Namespace, context: ir.Context) -> PassManager:
    pass_manager = build_pass_manager(args.pass_pipeline, context, verify_each=args.verify_each)
    if args.mlir_print_ir_before_all or args.mlir_print_ir_after_all:
        pass_manager.enable_ir_printing(
            print_before_all=args.mlir_print_ir_before_all,
            print_after_all=args.mlir_print_ir_after_all,
            large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
            enable_debug_info=args.mlir_print_debuginfo,
        )
    return pass_manager


def _process(source: str, source_name: str, context: ir.Context, pass_manager: PassManager | None,
             args: argparse.Namespace) -> tuple[str | None, list[Reported]]:
    """Parse, verify, transform, verify and print one input; None as output if that failed."""
    output, problems = None, []
    with collect_diagnostics(context) as captured:
        try:
            module = parse_module(source, context, source_name)
            if args.verify_each:
                check_module(module)
            if pass_manager is not None:
                sys.stderr.flush()  # MLIR prints IR dumps to the same stream, unbuffered
                run_pass_manager(pass_manager, module)
                if args.verify_each:
                    check_module(module)
            if _weights_beside_output(args):
                output = external_text(module, WeightsFile(Path(args.output).parent / weights_file_name(args.output)),
                                       debug_info=args.mlir_print_debuginfo)
            else:
                output = module.get_asm(enable_debug_info=args.mlir_print_debuginfo,
                                        large_elements_limit=args.mlir_elide_elementsattrs_if_larger)
        except InvalidIR as error:
            problems = error.problems
    return output, reported_problems(problems) + reported_diagnostics(captured)


def _weights_beside_output(args: argparse.Namespace) -> bool:
    """One module written to a file keeps its large constants in `OUT.weights.npz` beside it."""
    return args.output != "-" and not args.split_input_file and args.mlir_elide_elementsattrs_if_larger is None


def _print_errors(lines: Iterable[str]) -> None:
    for line in lines:
        print(line, file=sys.stderr)


def list_passes(registry: Registry) -> str:
    """What `--list-passes` prints: every pass and pipeline with its summary and options."""
    lines = ["Lamina passes:"]
    lines += [line for entry in registry.passes() for line in _describe(entry)] or ["  (none)"]
    lines += ["", "Lamina pipelines:"]
    lines += [line for entry in registry.pipelines() for line in _describe(entry)] or ["  (none)"]
    lines += ["", "Upstream MLIR passes (canonicalize, cse, ...) are accepted too; `mlir-opt --help` lists them."]
    return "\n".join(lines) + "\n"


def _describe(entry: type[RegistryEntry]) -> list[str]:
    return [f"  {entry.name:<24} {entry.summary}"] + [f"      {spec.describe()}" for spec in option_specs(entry)]


if __name__ == "__main__":
    sys.exit(main())
