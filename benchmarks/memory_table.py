"""Activation memory of the nine light models through `graph-to-buffers`, per graph scheduler.

Usage: .venv/bin/python benchmarks/memory_table.py [--models a,b]

Each model gets seeded random weights (`randomize_weights`, seed 0: weights
are constants, as in a trained model, not activations) and runs through
`graph-optimize{backend=reference}`, then `graph-to-buffers` once with each
scheduler. Per model: the naive total (IRGen's one buffer per value, no
reuse), and per scheduler the planned peak (`buffer.activation_bytes`), the
schedule's lower bound (`buffer.activation_lower_bound_bytes`: the most bytes
live at one point) and their ratio. Sizes count each buffer rounded up to 64
bytes. Writes `docs/memory-planning.md` (this table under the hand-written
explanation kept above `TABLE_MARKER`) and prints the table.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import onnxruntime
from mlir import ir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from light_models import LIGHT_MODELS, load_light_model, randomize_weights  # noqa: E402

from lamina.dialects.buffer_analysis import analyze, nbytes  # noqa: E402
from lamina.dialects.context import make_context  # noqa: E402
from lamina.frontend.onnx_importer import import_model  # noqa: E402
from lamina.passes.buffer.memory_plan import aligned  # noqa: E402
from lamina.passes.pass_manager import run_pipeline  # noqa: E402

onnxruntime.set_default_logger_severity(3)  # errors only: not one warning per unused initializer

SEED = 0
SCHEDULERS = ("memory", "topological")
DOC = ROOT / "docs" / "memory-planning.md"
TABLE_MARKER = "<!-- memory_table.py writes everything below this line -->"
COMMAND = ".venv/bin/python benchmarks/memory_table.py"


def measure(name: str) -> dict:
    """The row of one model: naive bytes and, per scheduler, planned peak and lower bound."""
    module = import_model(randomize_weights(load_light_model(name), SEED), make_context())
    run_pipeline(module, "builtin.module(graph-optimize{backend=reference})")
    row = {"model": name}
    unplanned = module.clone()
    run_pipeline(unplanned, "builtin.module(convert-graph-to-buffer)")
    _, buffers = analyze(unplanned)
    allocs = [info for info in buffers.values() if info.kind == "alloc"]
    row["allocs"] = len(allocs)
    row["naive"] = sum(aligned(nbytes(info.buffer)) for info in allocs)
    for scheduler in SCHEDULERS:
        planned = module.clone()
        run_pipeline(planned, f"builtin.module(graph-to-buffers{{scheduler={scheduler}}})")
        row[scheduler] = (_attribute(planned, "buffer.activation_bytes"),
                          _attribute(planned, "buffer.activation_lower_bound_bytes"))
    return row


def _attribute(module: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(module.attributes[name]).value


def _mib(nbytes: int) -> str:
    return f"{nbytes / 2**20:.2f}"


def table(rows: list[dict]) -> str:
    header = ["model", "allocs", "naive MiB"]
    for scheduler in SCHEDULERS:
        header += [f"{scheduler}: peak MiB", f"{scheduler}: lower bound MiB", f"{scheduler}: peak / bound"]
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    for row in rows:
        cells = [row["model"], str(row["allocs"]), _mib(row["naive"])]
        for scheduler in SCHEDULERS:
            peak, bound = row[scheduler]
            cells += [_mib(peak), _mib(bound), f"{peak / bound:.3f}" if bound else "-"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows: list[dict]) -> str:
    worst = max(rows, key=lambda row: max(peak / bound for peak, bound in (row[s] for s in SCHEDULERS)))
    ratio = max(peak / bound for peak, bound in (worst[s] for s in SCHEDULERS))
    better = [row["model"] for row in rows if row["memory"][1] < row["topological"][1]]
    worse = [row["model"] for row in rows if row["memory"][1] > row["topological"][1]]
    return (f"Worst peak / lower bound: {ratio:.3f} ({worst['model']}); target 1.10. "
            f"The memory scheduler's lower bound is smaller than the topological order's on "
            f"{', '.join(better) or 'no model'}, larger on {', '.join(worse) or 'no model'}, "
            f"equal on the others.")


def write_doc(rows: list[dict]) -> None:
    text = DOC.read_text()
    head = text[:text.index(TABLE_MARKER) + len(TABLE_MARKER)]
    DOC.write_text(f"{head}\n\n`{COMMAND}` ({datetime.date.today().isoformat()})\n\n"
                   f"{table(rows)}\n\n{summary(rows)}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(LIGHT_MODELS), help="comma-separated light model names")
    args = parser.parse_args()
    rows = []
    for name in args.models.split(","):
        rows.append(measure(name))
        print(f"measured {name}", file=sys.stderr, flush=True)
    write_doc(rows)
    print(table(rows))
    print(summary(rows))


if __name__ == "__main__":
    main()
