"""Run ONNX's whole node test suite against Lamina and write the report.

Usage: .venv/bin/python benchmarks/onnx_node_tests.py [--output docs/onnx-backend-tests.md] [--levels graph,cpu]
       .venv/bin/python benchmarks/onnx_node_tests.py --filter REGEX [--levels graph,cpu] [--merge]

The suite is the one `test/python/test_onnx_node_suite.py` runs, without its
exclusions, once on the graph interpreter and once on the CPU path
(`test/python/test_cpu_node_suite.py`'s backend): every CPU node test passes,
is skipped (Lamina cannot import the model: the reason is the importer's own)
or fails (the reason is the exception's message). The report also lists the
pytest run's exclusions. Each level's outcomes are also saved as
`benchmarks/results/onnx-node-tests-LEVEL.json`; a level not in `--levels` is
reported from its saved outcomes (the CPU run compiles every test and takes
long on a loaded machine, so it can run on its own). With `--filter`, only
the tests whose names match REGEX run, at each level in `--levels`, and
their outcomes are printed one per line; nothing is saved or written, unless
`--merge`: then they replace those tests' saved outcomes (the re-run is
listed in the JSON and the report) and the report is written, so a change
that touches a few operators is measured without a full run.
"""

from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import re
import sys
import time
import unittest
from pathlib import Path

import onnx
from onnx.backend.test.loader import load_model_tests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "test" / "python"))

from test_cpu_node_suite import node_test_case as cpu_node_test_case  # noqa: E402
from test_onnx_node_suite import EXCLUDED, node_test_case  # noqa: E402

from lamina.dialects.diagnostics import LaminaError  # noqa: E402
from lamina.frontend.onnx_importer import unsupported_nodes  # noqa: E402

COMMAND = ".venv/bin/python benchmarks/onnx_node_tests.py"
SAVED = ROOT / "benchmarks" / "results" / "onnx-node-tests-{level}.json"
MAX_REASON = 240
MAX_REASONS = 3


class Outcomes(unittest.TestResult):
    """Each test's outcome and, for failures, a one-line reason."""

    def __init__(self):
        super().__init__()
        self.outcome: dict[str, str] = {}
        self.reason: dict[str, str] = {}
        self.load: float | None = None  # the machine's 5-minute load average as the run ended
        self.reruns: list[dict] = []  # filtered re-runs merged into a saved run (`--merge`)

    def _record(self, test, outcome: str, reason: str = "") -> None:
        name = test.id().rsplit(".", 1)[-1].removesuffix("_cpu")
        self.outcome[name] = outcome
        if reason:
            self.reason[name] = reason
        if len(self.outcome) % 100 == 0:
            print(f"{len(self.outcome)} tests run", file=sys.stderr, flush=True)

    def addSuccess(self, test):
        self._record(test, "passed")

    def addSkip(self, test, reason):
        self._record(test, "skipped", reason)

    def addFailure(self, test, err):
        self._record(test, "failed", one_line(err[1]))

    def addError(self, test, err):
        self._record(test, "failed", one_line(err[1]))


def one_line(error: BaseException) -> str:
    """`Type: message` on one line, shortened for a table cell."""
    text = re.sub(r"\s+", " ", str(error)).strip()
    text = f"{type(error).__name__}: {text}"
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 3] + "..."


def refusals(model: onnx.ModelProto) -> set[tuple[str, str]]:
    """(operator type or model part, reason) for each problem the importer reports in a model.

    Quoted value names are blanked so that one reason groups many tests.
    """
    try:
        problems = [(problem.subject, problem.reason) for problem in unsupported_nodes(model)]
    except LaminaError as error:
        problems = [("the model", str(error).split(": ", 1)[-1])]
    refused = set()
    for subject, reason in problems:
        node = re.search(r"\((\w+)\)$", subject)
        part = node.group(1) if node else re.sub(r" '[^']*'", "", subject)
        refused.add((part, re.sub(r"'[^']*'", "'…'", reason)))
    return refused


def run_suite(case: type[unittest.TestCase]) -> tuple[Outcomes, float]:
    """Every test of `case`; and the seconds the run took."""
    start = time.perf_counter()
    outcomes = Outcomes()
    unittest.defaultTestLoader.loadTestsFromTestCase(case).run(outcomes)
    return outcomes, time.perf_counter() - start


def _load(outcomes: Outcomes) -> str:
    return "" if outcomes.load is None else f" (load average {outcomes.load:.1f} on {os.cpu_count()} cores)"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def report(outcomes: Outcomes, seconds: float, cpu: Outcomes, cpu_seconds: float) -> str:
    models = {test.name: test.model for test in load_model_tests(kind="node")}
    counts = collections.Counter(outcomes.outcome.values())
    cpu_counts = collections.Counter(cpu.outcome.values())
    lines = [
        "# ONNX node tests against Lamina",
        "",
        "Generated by:",
        "",
        "```sh",
        COMMAND,
        "```",
        "",
        f"Date: {datetime.date.today().isoformat()}; onnx {onnx.__version__}; "
        f"{len(outcomes.outcome)} node tests (CPU), interpreter run {seconds:.1f} s{_load(outcomes)}, CPU-path run "
        f"{cpu_seconds:.1f} s{_load(cpu)}.",
        "",
        "A test is skipped when the importer reports its model as unsupported",
        "(`LaminaBackend.is_compatible`, or the import with inputs bound: a shape,",
        "axes or pads input is bound to the test's value at run time, see",
        "`lamina/runtime/onnx_backend.py`); every test it accepts should pass.",
        "Operators without a converter import through their ONNX function bodies",
        "(`lamina/frontend/function_expansion.py`). The pytest run",
        "(`test/python/test_onnx_node_suite.py`) is the interpreter suite minus the",
        "exclusions listed below and is part of the default `pytest` run; the CPU",
        "path's full run is `pytest -m slow test/python/test_cpu_node_suite.py`.",
        "",
        "| level | passed | skipped (not compatible) | failed |",
        "|---|---:|---:|---:|",
        f"| graph interpreter | {counts['passed']} | {counts['skipped']} | {counts['failed']} |",
        f"| CPU path (linalg, LLVM JIT) | {cpu_counts['passed']} | {cpu_counts['skipped']} | {cpu_counts['failed']} |",
    ]
    for name, level in (("interpreter", outcomes), ("CPU-path", cpu)):
        lines += [""] * bool(level.reruns) + [
            f"Re-run since the full {name} run (`--filter REGEX --merge`): tests matching `{rerun['pattern']}` "
            f"({rerun['tests']}), {rerun['date']}, {rerun['seconds']} s (load average {rerun['load']:.1f})."
            for rerun in level.reruns]
    lines += failures_section(outcomes, models)
    lines += failures_section(cpu, models, "## Failures on the CPU path")
    lines += exclusions_section()
    lines += skips_section(outcomes, models)
    return "\n".join(lines) + "\n"


def failures_section(outcomes: Outcomes, models: dict[str, onnx.ModelProto], title: str = "## Failures") -> list[str]:
    failed = sorted(name for name, outcome in outcomes.outcome.items() if outcome == "failed")
    lines = ["", title, ""]
    if not failed:
        return lines + ["None."]
    lines += ["| test | operators | reason |", "|---|---|---|"]
    for name in failed:
        ops = ", ".join(sorted({node.op_type for node in models[name].graph.node}))
        lines.append(f"| `{name}` | {ops} | {cell(outcomes.reason[name])} |")
    return lines


def exclusions_section() -> list[str]:
    lines = ["", "## Exclusions in the pytest run", ""]
    if not EXCLUDED:
        return lines + ["None."]
    lines += ["| pattern | reason |", "|---|---|"]
    return lines + [f"| `{cell(pattern)}` | {cell(reason)} |" for pattern, reason in EXCLUDED.items()]


def skips_section(outcomes: Outcomes, models: dict[str, onnx.ModelProto]) -> list[str]:
    """What blocks the skipped tests, grouped by operator, most tests first."""
    blocked: dict[str, set[str]] = collections.defaultdict(set)
    reasons: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for name, outcome in outcomes.outcome.items():
        if outcome == "skipped":
            for part, reason in refusals(models[name]):
                blocked[part].add(name)
                reasons[part][reason] += 1
    lines = ["", "## Why tests are skipped", "",
             "What the importer refuses (`unsupported_nodes`), by operator, or by model part",
             "(`input`, `initializer`, `the model`), with the number of skipped tests it blocks",
             "(a test may be blocked by several) and its most common reasons:", "",
             "| operator / part | tests | reasons |", "|---|---:|---|"]
    for part in sorted(blocked, key=lambda part: (-len(blocked[part]), part)):
        common = [reason for reason, _ in reasons[part].most_common(MAX_REASONS)]
        more = len(reasons[part]) - len(common)
        shown = "; ".join(common) + (f"; and {more} more" if more > 0 else "")
        lines.append(f"| {cell(part)} | {len(blocked[part])} | {cell(shown)} |")
    return lines


def level_outcomes(level: str, run: bool) -> tuple[Outcomes, float]:
    """Run `level`'s suite (when asked, or nothing is saved) and save its outcomes, or load the saved ones."""
    path = Path(str(SAVED).format(level=level))
    if run or not path.exists():
        case = node_test_case(__name__, excluded={}) if level == "graph" else cpu_node_test_case([r"_cpu$"])
        outcomes, seconds = run_suite(case)
        outcomes.load = os.getloadavg()[1]
        save(level, outcomes, seconds)
        return outcomes, seconds
    saved = json.loads(path.read_text())
    outcomes = Outcomes()
    outcomes.outcome, outcomes.reason, outcomes.load = saved["outcome"], saved["reason"], saved.get("load")
    outcomes.reruns = saved.get("reruns", [])
    return outcomes, saved["seconds"]


def save(level: str, outcomes: Outcomes, seconds: float) -> None:
    Path(str(SAVED).format(level=level)).write_text(json.dumps(
        {"seconds": seconds, "load": outcomes.load, "outcome": outcomes.outcome, "reason": outcomes.reason,
         "reruns": outcomes.reruns}, indent=0, sort_keys=True) + "\n")


def merge(level: str, pattern: str, rerun: Outcomes, seconds: float) -> None:
    """The saved outcomes of `level` with the tests of `rerun` replaced by theirs."""
    outcomes, full_seconds = level_outcomes(level, False)
    for name, outcome in rerun.outcome.items():
        outcomes.outcome[name] = outcome
        outcomes.reason.pop(name, None)
        if name in rerun.reason:
            outcomes.reason[name] = rerun.reason[name]
    outcomes.reruns.append({"pattern": pattern, "tests": len(rerun.outcome), "seconds": round(seconds, 1),
                            "load": os.getloadavg()[1], "date": datetime.date.today().isoformat()})
    save(level, outcomes, full_seconds)


def filtered_outcomes(level: str, pattern: str) -> tuple[Outcomes, float]:
    """Run only the tests of `level` whose names match `pattern`."""
    case = node_test_case(__name__, excluded={}) if level == "graph" else cpu_node_test_case([r"_cpu$"])
    for name in [name for name in vars(case) if name.startswith("test_")]:
        if not re.search(pattern, name):
            delattr(case, name)
    return run_suite(case)


def print_filtered(levels: list[str], pattern: str, merged: bool) -> None:
    for level in levels:
        outcomes, seconds = filtered_outcomes(level, pattern)
        if merged:
            merge(level, pattern, outcomes, seconds)
        counts = collections.Counter(outcomes.outcome.values())
        print(f"{level}: {counts['passed']} passed, {counts['skipped']} skipped, {counts['failed']} failed "
              f"({seconds:.1f} s)")
        for name, outcome in sorted(outcomes.outcome.items()):
            reason = outcomes.reason.get(name, "")
            print(f"  {outcome:8} {name}" + (f": {reason}" if reason else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "onnx-backend-tests.md")
    parser.add_argument("--levels", default="graph,cpu", help="levels to run now: graph, cpu or both")
    parser.add_argument("--filter", help="run only the tests whose names match this regular expression, print "
                                         "their outcomes and write nothing")
    parser.add_argument("--merge", action="store_true", help="with --filter: merge the outcomes into the saved "
                                                             "ones and write the report")
    args = parser.parse_args()
    levels = args.levels.split(",")
    if args.filter:
        print_filtered(levels, args.filter, args.merge)
        if not args.merge:
            return
        levels = []  # the report from the saved outcomes, merged
    cpu, cpu_seconds = level_outcomes("cpu", "cpu" in levels)
    outcomes, seconds = level_outcomes("graph", "graph" in levels)
    text = report(outcomes, seconds, cpu, cpu_seconds)
    args.output.write_text(text)
    print(text.split("## Failures")[0].strip())
    print(f"\nwrote {args.output}")


if __name__ == "__main__":
    main()
