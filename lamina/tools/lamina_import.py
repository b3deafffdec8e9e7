"""`lamina-import`: an ONNX model to graph-dialect `.mlir`, node names kept as locations."""

from __future__ import annotations

import argparse
from pathlib import Path

from lamina.dialects.context import make_context, print_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.external_weights import write_module
from lamina.frontend.model_source import load_onnx_graph
from lamina.frontend.onnx_importer import LIGHT_MODELS, parse_input_shape
from lamina.tools.cli import parse_arguments, run_tool, write_text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lamina-import",
        description="Import an ONNX model into Lamina's graph dialect.",
        epilog=f"MODEL may be light:NAME, a model shipped in the onnx wheel: {', '.join(LIGHT_MODELS)}.",
    )
    parser.add_argument("model", metavar="MODEL", help="the .onnx file, or light:NAME")
    parser.add_argument("-o", dest="output", default="-", metavar="OUT",
                        help="output .mlir file (default: stdout); constants of more than 1,024 elements go "
                             "to OUT.weights.npz beside it")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMxDIM...",
                        help="fix the shape of input NAME, e.g. data=1x3x224x224 (repeatable)")
    parser.add_argument("--random-weights", type=int, metavar="SEED",
                        help="replace the weights by seeded random ones (lamina/frontend/random_weights.py)")
    parser.add_argument("--elide", action="store_true",
                        help="shorten large constants for reading (the output no longer parses back)")
    return parser


def _input_shapes(options: list[str]) -> dict[str, tuple[int, ...]]:
    shapes = {}
    for option in options:
        name, shape = parse_input_shape(option)
        if name in shapes:
            raise LaminaError(f"--input-shape gives input '{name}' twice")
        shapes[name] = shape
    return shapes


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(_parser(), argv)

    def body() -> None:
        module = load_onnx_graph(args.model, make_context(), _input_shapes(args.input_shape), args.random_weights)
        if args.output == "-" or args.elide:
            write_text(args.output, print_module(module, debug_info=True, elide=args.elide))
        else:  # constants of more than 1,024 elements into OUT.weights.npz beside it
            write_module(module, Path(args.output))

    return run_tool("lamina-import", body)


if __name__ == "__main__":
    raise SystemExit(main())
