"""Every Lamina dialect loads from its IRDL, and the lit tests cover every op.

IRDL loading runs in a child process: a bad constraint can abort the process
inside MLIR (e.g. `irdl.base` inside `irdl.any_of` in 22.x), and that must
fail a test, not kill pytest.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from lamina.dialects.context import DIALECTS

TEST_ROOT = Path(__file__).resolve().parents[1]

# Reads IRDL on stdin, loads it into a fresh context and prints, one per line,
# which of the op names given as arguments the context then knows.
_LOAD_IRDL = """
import sys
from mlir import ir
from mlir.dialects import irdl

with ir.Context() as context:
    irdl.load_dialects(ir.Module.parse(sys.stdin.read()))
    print("\\n".join(name for name in sys.argv[1:] if context.is_registered_operation(name)))
"""


def load_in_fresh_process(irdl: str, op_names: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _LOAD_IRDL, *op_names], input=irdl, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_irdl_loads_and_registers_every_op(dialect):
    op_names = [f"{dialect.name}.{op}" for op in dialect.ops]
    result = load_in_fresh_process(dialect.irdl(), op_names)
    assert result.returncode == 0, f"loading {dialect.name}'s IRDL failed:\n{result.stderr}"
    assert result.stdout.split() == op_names


def test_a_crash_while_loading_is_a_test_failure():
    crashing = """irdl.dialect @bad {
  irdl.operation @op {
    %0 = irdl.base "#builtin.integer"
    %1 = irdl.base "#builtin.string"
    %2 = irdl.any_of(%0, %1)
    irdl.attributes {"value" = %2}
  }
}"""
    result = load_in_fresh_process(crashing, ["bad.op"])
    assert result.returncode != 0
    assert "unknown IRDL constraint" in result.stderr


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: d.name)
def test_round_trip_test_uses_every_op(dialect):
    path = TEST_ROOT / "Dialect" / dialect.name / "round-trip.mlir"
    texts = [p.read_text() for p in sorted(path.parent.glob("round-trip*.mlir"))]  # round-trip-training.mlir too
    used = {name for text in texts for name in re.findall(rf'"{dialect.name}\.(\w+)"\(', text)}
    assert used == set(dialect.ops), f"{path.name} misses {sorted(set(dialect.ops) - used)}"
