"""A non-editable install ships every package: pyproject lists them all."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_python_package_is_listed_in_pyproject():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    found = set()
    for package, folder in setuptools["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *relative.parts]))
    assert found == listed, f"missing from pyproject: {sorted(found - listed)}; stale: {sorted(listed - found)}"
