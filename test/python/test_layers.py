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
    "target",
    "dialects",
    "kernels",
    "quantization",
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


def _loaded_by(script: str) -> list[str]:
    """The Lamina modules a fresh interpreter has loaded after running `script`."""
    script += "\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.startswith('lamina.'))))\n"
    return subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout.split()


def _loaded_by_verifying(body: str) -> list[str]:
    """The Lamina modules loaded by parsing and verifying a `func.func @main` with `body` in a fresh interpreter."""
    return _loaded_by(
        "from lamina.dialects.context import make_context, parse_module, verify_module\n"
        f"verify_module(parse_module({'func.func @main() {' + body + ' return }'!r}, make_context()))\n"
    )


def test_importing_the_dialects_loads_nothing_outside_them():
    """`import lamina.dialects.context` loads no module outside `dialects` (the root package `lamina` aside):
    not even the target description, which only the HIR and LIR module verifiers need."""
    loaded = _loaded_by("import lamina.dialects.context")
    assert "lamina.dialects.context" in loaded
    assert [m for m in loaded if _layer(m) != "dialects"] == []


def test_verifying_a_graph_module_loads_nothing_outside_the_dialects():
    loaded = _loaded_by_verifying('"graph.placeholder"() {name = "x"} : () -> tensor<2xf32>')
    assert "lamina.dialects.values" in loaded
    assert [m for m in loaded if _layer(m) != "dialects"] == []


def test_verifying_a_hir_module_loads_the_target_description():
    """The HIR module verifier needs the architecture: it is where the target package is loaded."""
    vars_op = '"hir.vars"() {base = 0 : i64, binary_point = 8 : i64, name = "x"} : () -> memref<1x4xi16>'
    loaded = _loaded_by_verifying(vars_op)
    assert "lamina.dialects.hir_architecture" in loaded and "lamina.target.tcu.architecture" in loaded
