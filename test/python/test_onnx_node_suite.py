"""ONNX's own node test suite, run against Lamina through its ONNX backend.

Every node test runs on the CPU. A model Lamina cannot import (an operator,
element type or attribute case the importer reports as unsupported) is
skipped as "Not compatible with backend"; so a failure here is a supported
node that imports wrongly or computes the wrong numbers. The whole suite
takes seconds, so it is in the default run. `benchmarks/onnx_node_tests.py`
runs the same suite without exclusions and writes the per-test report,
`docs/onnx-backend-tests.md`.
"""

from __future__ import annotations

import unittest
import warnings
from pathlib import Path

import onnx
import onnx.backend.test

from lamina.runtime.onnx_backend import LaminaBackend

# Pattern (searched in the test name) -> why the pytest run skips it. Each one
# is a known gap; docs/onnx-backend-tests.md lists them with these reasons.
EXCLUDED: dict[str, str] = {}
REPORT = Path(__file__).resolve().parents[2] / "docs" / "onnx-backend-tests.md"


class NodeSuiteBackend(LaminaBackend):
    """LaminaBackend as the node tests need it.

    ONNX's runner asks `is_compatible` only of models stored on disk; node
    tests go straight to `prepare`, so the compatibility check happens here
    (at run time, once bound inputs have their values: the model is then
    specialized and checked again).
    """

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs):
        if not cls.is_compatible(model, device, **kwargs) and not cls.value_inputs_needed(model, **kwargs):
            raise unittest.SkipTest("Not compatible with backend")
        return super().prepare(model, device, **kwargs)


def node_test_case(module_name: str, excluded: dict[str, str]) -> type[unittest.TestCase]:
    """The runner's `OnnxBackendNodeModelTest`, CPU tests only, `excluded` skipped."""
    with warnings.catch_warnings():  # the generators of the cast and reduce tests overflow on purpose
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"onnx\.backend\.test\.case")
        backend_test = onnx.backend.test.BackendTest(NodeSuiteBackend, module_name).include(r"_cpu$")
    for pattern in excluded:
        backend_test.exclude(pattern)
    case = backend_test.test_cases["OnnxBackendNodeModelTest"]
    for name in [name for name in vars(case) if name.startswith("test_") and not name.endswith("_cpu")]:
        delattr(case, name)  # other devices: the runner would list each as skipped
    return case


OnnxBackendNodeModelTest = node_test_case(__name__, EXCLUDED)


def test_every_exclusion_is_documented_with_its_reason():
    report = REPORT.read_text()
    for pattern, reason in EXCLUDED.items():
        row = "| `{}` | {} |".format(pattern.replace("|", r"\|"), reason)  # a table row, pipes escaped
        assert row in report, f"exclusion {pattern!r} is not in {REPORT.name}: run benchmarks/onnx_node_tests.py"
