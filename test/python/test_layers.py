"""Packages import only downward, in the order docs/architecture.md declares, and never another package's privates.

The order is data here and prose there; `test_layer_order_is_documented` keeps the two equal.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "lamina"

# Bottom to top. A module may import its own package and any package listed before it.
LAYERS = [
    "errors",
    "target",
    "dialects",
    "kernels",
    "backends",
    "frontend",
    "passes",
    "pipelines",
    "runtime",
    "driver",
    "tools",
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, absolute module, imported names) for every import in the file, nested ones included."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target, [alias.name for alias in node.names]))
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, []) for alias in node.names)
    return found


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "lamina" and len(parts) > 1 else None


def layering_violations(root: Path = PACKAGE) -> list[str]:
    """Every import of a higher layer, and every `_private` name imported from another package."""
    problems = []
    for path in sorted(root.rglob("*.py")):
        here = _layer(_module_name(path))
        for line, target, names in _imports(path):
            there = _layer(target)
            if here is None or there is None or there == here:
                continue
            where = f"{path.relative_to(ROOT)}:{line}"
            if there not in LAYERS or here not in LAYERS:
                problems.append(f"{where}: lamina.{here} or lamina.{there} is not in the declared layer order")
            elif LAYERS.index(there) > LAYERS.index(here):
                problems.append(f"{where}: lamina.{here} imports the higher layer {target}")
            private = [name for name in names if name.startswith("_")]
            if private:
                problems.append(f"{where}: imports private {', '.join(private)} from {target}")
    return problems


def test_no_upward_or_private_imports():
    assert layering_violations() == []


def test_an_upward_import_is_caught(tmp_path):
    fake = tmp_path / "lamina"
    (fake / "dialects").mkdir(parents=True)
    (fake / "dialects" / "bad.py").write_text("from lamina.runtime.graph_interpreter import run\n")
    (fake / "passes").mkdir()
    (fake / "passes" / "sneaky.py").write_text("def f():\n    from lamina.kernels.pooling import _hidden\n")
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        problems = layering_violations(fake)
    finally:
        ROOT = saved
    assert problems == [
        "lamina/dialects/bad.py:1: lamina.dialects imports the higher layer lamina.runtime.graph_interpreter",
        "lamina/passes/sneaky.py:2: imports private _hidden from lamina.kernels.pooling",
    ]


def test_every_package_has_a_layer():
    packages = {path.name for path in PACKAGE.iterdir() if path.is_dir() and (path / "__init__.py").exists()}
    modules = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    assert packages | modules == set(LAYERS)


def test_layer_order_is_documented():
    text = (ROOT / "docs" / "architecture.md").read_text()
    documented = " < ".join(f"`{layer}`" for layer in LAYERS)
    assert documented in text


def test_importing_the_dialects_loads_only_the_layers_below():
    """`import lamina.dialects.context` stays inside dialects, the target description and the error type."""
    script = (
        "import sys, lamina.dialects.context\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('lamina.'))))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout.split()
    outside = [m for m in loaded if _layer(m) not in ("dialects", "target", "errors")]
    assert outside == []
    assert "lamina.dialects.context" in loaded
