"""A non-editable install ships every package: each source folder under lamina/ is a package setuptools finds."""

import tomllib
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_every_source_folder_is_a_found_package():
    include = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_packages(where=str(ROOT), include=include))
    folders = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "lamina").rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert folders <= found, f"folders without __init__.py, not shipped: {sorted(folders - found)}"
