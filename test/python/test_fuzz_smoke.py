"""A seeded smoke run of the bad-input fuzzer (test/fuzz): no traceback, crash, hang or accepted invalid model.

About a minute of cases over every input kind and tool; the long campaign
(10,000 cases) is `benchmarks/fuzz.py`, its report docs/fuzzing.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz.campaign import KINDS, report_text, run_campaign  # noqa: E402

BUDGET_SECONDS = 60
MINIMUM_CASES = 40  # even on a loaded machine a minute runs this many


def test_fuzz_smoke_run_has_no_failures(tmp_path):
    report = run_campaign(100_000, seed=2026, workdir=tmp_path, wall_seconds=60, budget_seconds=BUDGET_SECONDS)
    text = report_text(report, "test_fuzz_smoke")
    assert len(report.results) >= MINIMUM_CASES, text
    assert {result.case.kind for result in report.results} == set(KINDS), text
    assert not report.failures(), text
