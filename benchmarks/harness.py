"""What the benchmark scripts share: timing a call, the machine's load, and one row per
model even when a model fails (a failed model is a row saying why, not a lost run)."""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Iterable


def model_parser(doc: str, models: Iterable[str], output: Path, repeat: int) -> argparse.ArgumentParser:
    """The options every per-model timing benchmark has, `--models`, `--repeat` and `--output`; the script adds its
    own."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--models", default=",".join(models), help="comma-separated light model names")
    parser.add_argument("--repeat", type=int, default=repeat, help=f"timed calls per measurement (default: {repeat})")
    parser.add_argument("--output", default=str(output), help="where to write the markdown table")
    return parser


def median_seconds(call: Callable[[], object], repeat: int, warmup: int = 1) -> float:
    """Median wall time of `repeat` calls after `warmup` untimed ones."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def load_average() -> float:
    return os.getloadavg()[0]


def rows_per_model(names: Iterable[str], measure: Callable[[str], dict],
                   after: Callable[[list[dict]], object] | None = None) -> list[dict]:
    """`measure(name)` per model, in order, each row printed to stderr as it comes; `after(rows so far)` runs after
    each model (to free its memory, or to write the partial table)."""
    rows = []
    for name in names:
        try:
            rows.append(measure(name))
        except Exception as error:  # a model that fails is a row saying why, not a lost run
            rows.append({"model": name, "failure": f"{type(error).__name__}: {str(error).splitlines()[0]}"})
        if after is not None:
            after(rows)
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def table_lines(rows: list[dict], columns: int, line: Callable[[dict], str]) -> list[str]:
    """The table's line per row: `line(row)`, or for a model that failed its name and why, then empty cells up to
    `columns`."""
    return [f"| {r['model']} | {r['failure']} |" + " |" * (columns - 2) if "failure" in r else line(r) for r in rows]
