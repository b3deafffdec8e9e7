"""lamina-run: execute a Lamina module on given or random inputs, and compare.

    lamina-run FILE.mlir|MODEL.tmodel [--inputs in.npz] [--output out.npz] [--compare other.npz] [--seed N]
               [--target cpu [--fallback interpreter]]

The module's dialect picks the executor (`lamina/runtime/executors.py`). npz keys
are the model's input and output names. Without `--inputs`, inputs are
random and seeded: floats uniform in [0, 1), integers in [0, 10), booleans
fair coins. `--target cpu` compiles a graph module through upstream MLIR
and runs it in process (`lamina/runtime/cpu_executor.py`). A compiled `.tmodel`
runs on the accelerator simulator (`lamina/runtime/tcu_simulator.py`), which also
prints the latency model's cycles. `--compare` prints, per
output, the max absolute and relative error against another run's outputs
(onnxruntime's, another stage's).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Mapping

import numpy as np

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.dialects.types import TensorSpec
from lamina.runtime.compare import Comparison, compare
from lamina.runtime.executors import TARGETS, TMODEL_SUFFIX, accelerator_executor, executor_for, target_executor
from lamina.runtime.graph_interpreter import describe
from lamina.runtime.tcu_simulator import SimulationResult
from lamina.runtime.tensor_files import load_tensors, save_tensors

from .cli import parse_arguments, read_text, run_tool

RANDOM_INTEGERS = (0, 10)  # [low, high) of random integer inputs


def random_inputs(types: Mapping[str, TensorSpec], seed: int) -> dict[str, np.ndarray]:
    """Seeded random arrays of exactly the given types."""
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, spec in types.items():
        if np.issubdtype(spec.dtype, np.floating):
            arrays[name] = rng.random(spec.shape).astype(spec.dtype)
        elif spec.dtype == np.bool_:
            arrays[name] = rng.integers(0, 2, spec.shape).astype(np.bool_)
        else:
            arrays[name] = rng.integers(*RANDOM_INTEGERS, spec.shape).astype(spec.dtype)
    return arrays


def _seed(text: str) -> int:
    """A NumPy seed: a non-negative integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text[:40]}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; seeds are integers >= 0")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lamina-run", description="Execute a Lamina module on given or random inputs, and compare its outputs.")
    parser.add_argument("file", help="a Lamina module (.mlir, or '-' for stdin), or a compiled .tmodel")
    parser.add_argument("--inputs", metavar="NPZ", help="input arrays keyed by input name (default: random)")
    parser.add_argument("--output", metavar="NPZ", help="write the outputs here, keyed by output name")
    parser.add_argument("--compare", metavar="NPZ", help="print each output's error against these arrays")
    parser.add_argument("--seed", type=_seed, default=0, help="seed of the random inputs (default: 0)")
    parser.add_argument("--target", choices=sorted(TARGETS),
                        help="compile a graph module for this target instead of interpreting it")
    parser.add_argument("--fallback", choices=("none", "interpreter"), default="none",
                        help="with --target: what runs a model that does not compile (default: none, an error)")
    return parser


def _summary(array: np.ndarray) -> str:
    if array.size == 0:
        return "empty"
    wide = array.astype(np.float64)
    return f"min {wide.min():.6g}  max {wide.max():.6g}  mean {wide.mean():.6g}"


def _print_tensors(tensors: Mapping[str, np.ndarray], with_summary: bool) -> None:
    width = max((len(name) for name in tensors), default=0)
    for name, array in tensors.items():
        line = f"  {name:<{width}}  {describe(array.shape, array.dtype)}"
        print(f"{line}  {_summary(array)}" if with_summary else line)


def _print_comparison(comparison: Comparison, reference: str) -> None:
    print(f"compared with {reference}:")
    width = max((len(d.name) for d in comparison.differences), default=0)
    for d in comparison.differences:
        parts = [f"{d.name:<{width}}"]
        if d.max_abs is not None:
            parts.append(f"max abs {d.max_abs:.3g}  max rel {d.max_rel:.3g}")
        if d.cosine is not None:
            parts.append(f"cosine {d.cosine:.6f}  SQNR {d.sqnr_db:.1f} dB")
        if d.mismatch:
            parts.append(f"({d.mismatch})")
        print("  " + "  ".join(parts))
    if comparison.only_actual:
        print(f"  missing from {reference}: {', '.join(comparison.only_actual)}")
    if comparison.only_reference:
        print(f"  not produced by this run: {', '.join(comparison.only_reference)}")


def _print_simulation(result: SimulationResult) -> None:
    print(f"simulated {result.instructions} instructions, {result.cycles} cycles (latency model):")
    for name, summary in result.instructions_by_opcode.items():
        print(f"  {name:<11}  {summary.count:>9} instructions  {summary.vectors:>10} vectors  "
              f"{summary.cycles:>10} cycles")
    clipped = ", ".join(f"{name} {count}" for name, count in result.saturations.items())
    print(f"saturated lanes: {clipped or 'none'}")


def _run(args: argparse.Namespace) -> None:
    if args.file.endswith(TMODEL_SUFFIX):
        if args.target:
            raise LaminaError(f"--target compiles graph modules; {args.file} is already compiled")
        module, executor = args.file, accelerator_executor(_print_simulation)
    else:
        module = parse_module(read_text(args.file), make_context(), args.file)
        executor = target_executor(module, args.target, args.fallback) if args.target else executor_for(module)
    # Read every file before running, so a bad path fails fast.
    given = load_tensors(args.inputs) if args.inputs else None
    reference = load_tensors(args.compare) if args.compare else None
    if given is None:
        inputs = random_inputs(executor.input_types(module), args.seed)
        low, high = RANDOM_INTEGERS
        print(f"random inputs (seed {args.seed}; floats in [0, 1), integers in [{low}, {high})):")
    else:
        inputs = given
        print(f"inputs from {args.inputs}:")
    _print_tensors(inputs, with_summary=False)
    start = time.perf_counter()
    outputs = executor.run(module, inputs)
    print(f"outputs ({executor.description}, {time.perf_counter() - start:.2f} s):")
    _print_tensors(outputs, with_summary=True)
    if args.output:
        save_tensors(args.output, outputs)
        print(f"wrote {args.output}")
    if reference is not None:
        _print_comparison(compare(outputs, reference), args.compare)


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(_parser(), argv)
    return run_tool("lamina-run", lambda: _run(args))


if __name__ == "__main__":
    sys.exit(main())
