"""`lamina-compile`: a model to accelerator files (`model.tprog`, `.tdata`, `.tmodel`) and every level's IR.

    lamina-compile MODEL --arch NAME|FILE.tarch -o OUTDIR [--input-shape NAME=DIMxDIM...] [--random-weights SEED]
                   [--emit LEVEL,...] [--formats calibrated|tensil] [--calibration-inputs FILE.npz]
                   [--samples N] [--no-check]

Prints the compile summary (also written to OUTDIR/summary.txt and
summary.json), ending with the accuracy of the simulated binary against
the float model on the calibration samples. While compiling, stderr shows each stage with the elapsed
time: one line per stage, or one line rewritten in place on a terminal.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TextIO

# One BLAS thread, set before NumPy loads its BLAS: the compile runs its own threads (calibration samples,
# the check's simulations), and a multithreaded BLAS beside them spins for its partner threads on every
# small matrix product (ResNet-50's calibration at load 13: 6.1 s CPU with 2 BLAS threads, 1.7 s with 1).
# A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from lamina.driver.accuracy import DEFAULT_SAMPLES
from lamina.driver.compiler import DEFAULT_EMIT, FORMATS, LEVELS, compile_model
from lamina.driver.summary import summary_text
from lamina.target.tcu.architecture import architecture_names
from lamina.frontend.onnx_importer import LIGHT_MODELS

from .cli import parse_arguments, run_tool
from .lamina_import import _input_shapes


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lamina-compile", description=__doc__.split("\n\n")[0].strip("`"),
        epilog=f"Named architectures: {', '.join(architecture_names())}. "
               f"MODEL may be light:NAME ({', '.join(LIGHT_MODELS)}) or a graph-dialect .mlir file.")
    parser.add_argument("model", metavar="MODEL", help="the .onnx file, light:NAME, or a graph .mlir file")
    parser.add_argument("--arch", required=True, metavar="ARCH", help="a named architecture or a .tarch file")
    parser.add_argument("-o", dest="outdir", required=True, metavar="OUTDIR", help="directory for the files")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMxDIM...",
                        help="fix the shape of input NAME, e.g. data=1x3x224x224 (repeatable)")
    parser.add_argument("--random-weights", type=int, metavar="SEED",
                        help="replace ConstantOfShape weights by seeded random ones (He-normal, calibrated "
                             "batch norms; see lamina/frontend/random_weights.py)")
    parser.add_argument("--emit", type=_levels, default=DEFAULT_EMIT, metavar="LEVEL,...",
                        help=f"the levels written as LEVEL.mlir, from {', '.join(LEVELS)} (default "
                             f"{','.join(DEFAULT_EMIT)}: the others are large; the buffer level is built only "
                             "when named); their constants of more than 1,024 elements go to OUTDIR/weights.npz")
    parser.add_argument("--formats", choices=FORMATS, default="calibrated",
                        help="calibrated: a binary point per tensor from the calibration samples (default); "
                             "tensil: every tensor in the architecture's data type, as Tensil does")
    parser.add_argument("--calibration-inputs", metavar="FILE.npz",
                        help="calibration samples: per model input an array with a leading sample axis "
                             "(default: seeded U[0, 1) samples)")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, metavar="N",
                        help=f"how many seeded random samples without --calibration-inputs (default "
                             f"{DEFAULT_SAMPLES}; seed: --random-weights, else 0)")
    parser.add_argument("--no-check", dest="check", action="store_false",
                        help="do not simulate the samples to report accuracy against the float model")
    return parser


def _levels(text: str) -> tuple[str, ...]:
    levels = tuple(level.strip() for level in text.split(",") if level.strip())
    unknown = [level for level in levels if level not in LEVELS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown level {', '.join(unknown)} (levels: {', '.join(LEVELS)})")
    return levels


class ProgressDisplay:
    """Stage names with elapsed seconds on stderr; rewritten in place on a terminal."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.interactive = stream.isatty()
        self.start = time.perf_counter()

    def __call__(self, stage: str) -> None:
        text = f"[{time.perf_counter() - self.start:7.1f} s] {stage}"
        if self.interactive:
            self.stream.write(f"\r\033[K{text}")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.interactive:
            self.stream.write("\r\033[K")
            self.stream.flush()


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(_parser(), argv)

    def body() -> None:
        display = ProgressDisplay(sys.stderr)
        try:
            result = compile_model(args.model, args.arch, args.outdir, input_shapes=_input_shapes(args.input_shape),
                                   random_weights=args.random_weights, progress=display, emit=args.emit,
                                   formats=args.formats, calibration_inputs=args.calibration_inputs,
                                   samples=args.samples, check=args.check)
        finally:
            display.finish()
        if result.activation_peak is not None:
            print(f"random weights (seed {args.random_weights}): largest |activation| on random inputs "
                  f"{result.activation_peak:.3g}")
        sys.stdout.write(summary_text(result.summary))
        print(f"wrote {', '.join(result.files)} to {result.outdir}")

    return run_tool("lamina-compile", body)


if __name__ == "__main__":
    raise SystemExit(main())
