"""Every tool ends quietly (exit 0, nothing on stderr) when its reader closes stdout (`| head`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

TOOLS = ("lamina_opt", "lamina_import", "lamina_run", "lamina_compile", "lamina_disasm")
MODULE = '"builtin.module"() ({\n' + "\n".join(
    f'  %c{i} = "graph.constant"() {{value = dense<{i}.0> : tensor<64xf32>}} : () -> tensor<64xf32>'
    for i in range(2000)) + "\n}) : () -> ()\n"


def _into_a_closed_pipe(args: list[str], stdin: str = "") -> tuple[int, str]:
    process = subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.close()  # before the tool starts writing
    process.stdin.write(stdin.encode())
    process.stdin.close()
    error = process.stderr.read().decode()
    return process.wait(timeout=120), error


@pytest.mark.parametrize("tool", TOOLS)
def test_help_into_a_closed_pipe(tool):
    assert _into_a_closed_pipe([f"lamina.tools.{tool}", "--help"]) == (0, "")


def test_module_text_into_a_closed_pipe():
    assert _into_a_closed_pipe(["lamina.tools.lamina_opt", "-"], MODULE) == (0, "")
