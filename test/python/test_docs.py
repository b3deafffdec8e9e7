"""Generated documents and the README's commands stay true."""

from pathlib import Path

from lamina.dialects.context import DIALECTS
from lamina.dialects.docgen import markdown

ROOT = Path(__file__).resolve().parents[2]


def test_dialect_reference_pages_are_current():
    for dialect in DIALECTS:
        page = ROOT / "docs" / "dialects" / f"{dialect.name}.md"
        assert page.read_text() == markdown(dialect), (
            f"{page} is stale: run python -m lamina.dialects.docgen {dialect.name} > {page.relative_to(ROOT)}"
        )


def test_ci_runs_exactly_the_readme_commands():
    readme = (ROOT / "README.md").read_text()
    commands = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#") and not line.startswith(("set ", "cd "))
    ]
    assert len(commands) == 2, commands
    for command in commands:
        assert f"\n{command}\n" in readme, f"README does not show the CI command: {command}"


def test_op_coverage_page_is_current():
    from lamina.tools.op_coverage import COMMAND, markdown as coverage

    page = ROOT / "docs" / "op-coverage.md"
    assert page.read_text() == coverage(), f"{page} is stale: run {COMMAND}"
