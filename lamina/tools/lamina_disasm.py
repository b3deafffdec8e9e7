"""`lamina-disasm`: a compiled program (`.tprog`) as LIR text.

    lamina-disasm model.tmodel [-o out.mlir]
    lamina-disasm model.tprog --arch NAME|file.tarch [-o out.mlir]

A `.tmodel` names its program file and architecture; a bare `.tprog` needs
`--arch` for the instruction layout. Rules the program breaks (addresses
beyond a memory, bad strides) are printed as warnings: the LIR shows them
as they are, and `lamina-opt` reports them at their ops.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lamina.target.tcu.architecture import Architecture, load_architecture
from lamina.target.tcu.encoding import decode
from lamina.target.tcu.model_files import read_model
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.lir_program import program_to_lir_text, verify_program
from lamina.tools.cli import parse_arguments, run_tool, write_text


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lamina-disasm",
                                     description="Print a compiled accelerator program as LIR (.mlir) text.")
    parser.add_argument("file", help="a .tmodel (names its program and architecture) or a .tprog")
    parser.add_argument("--arch", metavar="NAME|FILE", help="the architecture of a .tprog: a name or a .tarch file")
    parser.add_argument("-o", dest="output", default="-", metavar="OUT", help="output .mlir file (default: stdout)")
    return parser


def _read_program(file: str, arch_option: str | None) -> tuple[bytes, Architecture, str]:
    """(program bytes, architecture, name of the program file)."""
    path = Path(file)
    if path.suffix == ".tmodel":
        if arch_option is not None:
            raise LaminaError(f"{file}: a .tmodel names its architecture; --arch is for .tprog files")
        model = read_model(path)
        return model.program_bytes, model.arch, str(path.parent / model.manifest.prog.file_name)
    if arch_option is None:
        raise LaminaError(f"{file}: give the program's architecture with --arch NAME|file.tarch "
                          f"(or disassemble its .tmodel)")
    arch = load_architecture(arch_option)
    try:
        return path.read_bytes(), arch, file
    except OSError as error:
        raise LaminaError(f"{file}: cannot read: {error.strerror}") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(_parser(), argv)

    def body() -> None:
        data, arch, source = _read_program(args.file, args.arch)
        program = decode(data, arch, source=source)
        for problem in verify_program(program, arch, source=source):
            print(f"lamina-disasm: warning: {problem}", file=sys.stderr)
        write_text(args.output, program_to_lir_text(program, arch))

    return run_tool("lamina-disasm", body)


if __name__ == "__main__":
    raise SystemExit(main())
