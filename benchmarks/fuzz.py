"""The bad-input fuzzer's command line (engine: test/fuzz/).

    python benchmarks/fuzz.py --cases 10000 --seed 1 --report docs/fuzzing-report.md
    python benchmarks/fuzz.py --seed 1 --only 4711 --keep     # replay one case, keep its files

Mutates ONNX models, .mlir text, pass pipelines, npz inputs and compiled
model files (.tmodel/.tprog/.tdata/.tarch) and runs the tools on them in
forked children with memory, CPU and wall-clock limits; prints one line per
failure and writes a Markdown report. Exit status 1 if any case ended in a
traceback, a crash, a hang or an accepted invalid ONNX model.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "test"))

from fuzz.campaign import FAILURES, report_text, run_campaign  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per case (a hang)")
    parser.add_argument("--budget", type=float, help="stop starting cases after this many seconds")
    parser.add_argument("--only", type=int, help="run just this case index")
    parser.add_argument("--keep", action="store_true", help="keep every case's files")
    parser.add_argument("--workdir", type=Path, help="where cases are written (default: a temporary directory)")
    parser.add_argument("--report", type=Path, help="write the Markdown report here")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lamina-fuzz-"))

    def progress(index, result):
        if result.outcome in FAILURES:
            print(f"case {index} [{result.case.kind}, {result.case.tool} {' '.join(result.case.argv)}]: "
                  f"{result.outcome}: {result.detail}", flush=True)
        elif index % 500 == 0:
            print(f"case {index}: {result.outcome}", flush=True)

    report = run_campaign(args.cases, args.seed, workdir, wall_seconds=args.timeout, budget_seconds=args.budget,
                          only=args.only, keep=args.keep, progress=progress)
    command = "python benchmarks/fuzz.py " + " ".join(sys.argv[1:])
    text = report_text(report, command)
    print(text)
    if args.report:
        args.report.write_text(text)
    print(f"case files in {workdir}")
    return 1 if report.failures() else 0


if __name__ == "__main__":
    sys.exit(main())
