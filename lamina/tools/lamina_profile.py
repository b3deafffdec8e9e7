"""lamina-profile: Glow's profiling run, writing the profile `graph-quantize` reads.

    lamina-profile MODEL -o PROFILE.yaml [--inputs FILE.npz] [--random-weights SEED] [--input-shape NAME=DIMS]...
                   [--samples N] [--seed S] [--bins B] [--backend NAME]

MODEL is an .onnx file, light:NAME or a graph .mlir file. The graph is
optimized up to Glow's precision stage (`graph-optimize`'s stages before it,
for `--backend`), probed after every computed value and run by the reference
interpreter on each calibration sample: `--inputs` holds, per input name, an
array with a leading sample axis; without it, `--samples` seeded random
samples (floats uniform in [0, 1)). A graph that already carries probes
(`graph-profile-instrument`) is profiled as it is.
"""

from __future__ import annotations

import argparse
import sys

from lamina.dialects.context import make_context
from lamina.dialects.model import inputs as model_inputs
from lamina.frontend.model_source import load_graph
from lamina.passes.graph.profile_instrument import PROFILED_HASH_ATTRIBUTE
from lamina.passes.pass_manager import run_pipeline
from lamina.pipelines.graph_optimize import GraphOptimize
from lamina.quantization.profile import write_profile
from lamina.runtime.profiler import DEFAULT_BINS, DEFAULT_SAMPLES, calibration_samples, profile_graph
from lamina.runtime.tensor_files import load_tensors

from .cli import run_tool
from .lamina_import import _input_shapes
from .lamina_run import random_inputs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lamina-profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", metavar="MODEL", help="the .onnx file, light:NAME, or a graph .mlir file")
    parser.add_argument("-o", "--output", required=True, metavar="PROFILE.yaml", help="where to write the profile")
    parser.add_argument("--inputs", metavar="NPZ", help="calibration samples: per input, an array [samples, ...]")
    parser.add_argument("--random-weights", type=int, metavar="SEED", help="redraw an ONNX model's weights (seeded)")
    parser.add_argument("--input-shape", action="append", default=[], metavar="NAME=DIMxDIM...",
                        help="fix a dynamic input's shape (repeatable)")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, help="random samples without --inputs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first random sample (default: 0)")
    parser.add_argument("--bins", type=int, default=DEFAULT_BINS, help=f"histogram bins (default: {DEFAULT_BINS})")
    parser.add_argument("--backend", default="reference", help="the backend graph-optimize will target")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)

    def body() -> None:
        from lamina.dialects.diagnostics import LaminaError

        if args.samples < 1 or args.bins < 1:
            raise LaminaError("--samples and --bins must be at least 1")
        module = load_graph(args.model, make_context(), _input_shapes(args.input_shape), args.random_weights)
        if PROFILED_HASH_ATTRIBUTE not in module.attributes:
            run_pipeline(module, f"builtin.module({','.join(GraphOptimize(backend=args.backend).before_precision())})")
        if args.inputs:
            samples = calibration_samples(module, load_tensors(args.inputs), args.inputs)
        else:
            types = model_inputs(module)
            samples = [random_inputs(types, args.seed + i) for i in range(args.samples)]
        profile = profile_graph(module, samples, args.bins)
        write_profile(profile, args.output)
        print(f"profiled {len(profile.tensors)} node outputs over {len(samples)} samples; wrote {args.output}")

    return run_tool("lamina-profile", body)


if __name__ == "__main__":
    sys.exit(main())
