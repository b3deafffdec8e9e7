"""Bad profiles and calibration data: one line naming the file, field or tensor, never a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from lamina.runtime.tensor_files import save_tensors
from lamina.tools import lamina_opt, lamina_profile

MODEL = """
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<2x4xf32>
  %1 = "graph.constant"() {value = dense<0.5> : tensor<4x3xf32>} : () -> tensor<4x3xf32>
  %2 = "graph.constant"() {value = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>} : () -> tensor<3xf32>
  %3 = "graph.fully_connected"(%0, %1, %2) : (tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("fc")
  "graph.save"(%3) {name = "y"} : (tensor<2x3xf32>) -> ()
  return
}
"""


@pytest.fixture
def model(tmp_path) -> Path:
    path = tmp_path / "model.mlir"
    path.write_text(MODEL)
    return path


def _error(capsys, code: int) -> str:
    assert code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(lines)
    return lines[0]


def _profile(model: Path, capsys) -> Path:
    out = model.parent / "p.yaml"
    assert lamina_profile.main([str(model), "-o", str(out), "--samples", "2"]) == 0
    capsys.readouterr()
    return out


def _quantize(model: Path, profile: Path) -> int:
    return lamina_opt.main([str(model), f"--pass-pipeline=builtin.module(graph-quantize{{profile={profile}}})",
                            "-o", str(model.parent / "out.mlir")])


def _edit(profile: Path, change) -> None:
    document = yaml.safe_load(profile.read_text())
    change(document)
    profile.write_text(yaml.safe_dump(document))


def test_profile_of_another_graph(model, tmp_path, capsys):
    profile = _profile(model, capsys)
    _edit(profile, lambda d: d.update(GraphPreLowerHash="0" * 64))
    assert "the profile is of a different graph" in _error(capsys, _quantize(model, profile))


def test_profile_missing_a_node_output(model, capsys):
    profile = _profile(model, capsys)
    _edit(profile, lambda d: d["Profile"].pop())
    assert "no profile entry for node output 'fc:0'" in _error(capsys, _quantize(model, profile))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_profile_with_non_finite_range(model, capsys, value):
    profile = _profile(model, capsys)
    _edit(profile, lambda d: d["Profile"][0].update(Max=value))
    line = _error(capsys, _quantize(model, profile))
    assert "Profile[0] ('x'): field 'Max' is" in line and "finite ranges only" in line


def test_range_that_fits_no_format(model, capsys):
    profile = _profile(model, capsys)
    _edit(profile, lambda d: d["Profile"][0].update(Min=-1e300, Max=1e300))  # the layer's input
    line = _error(capsys, _quantize(model, profile))
    assert "node output 'x': range [-1e+300, 1e+300] fits no int8 format" in line


def test_int16_bias_beyond_the_i32_accumulator(model, capsys):
    """int16 data and weights put a bias in units of about 2^-30 of their ranges: 1e3 does not fit i32 (int8's
    2^-14 units hold it), and was clamped without a word."""
    model.write_text(MODEL.replace("[0.1, -0.2, 0.3]", "[0.1, -0.2, 1.0e3]"))
    profile = _profile(model, capsys)
    code = lamina_opt.main([str(model), f"--pass-pipeline=builtin.module(graph-quantize{{profile={profile} "
                            "precision=int16})", "-o", str(model.parent / "out.mlir")])
    line = _error(capsys, code)
    assert "fc" in line and "the bias needs" in line and "beyond the i32 accumulator's 2147483647 (int16)" in line
    assert _quantize(model, profile) == 0  # int8 holds it


def test_empty_calibration_data(model, tmp_path, capsys):
    save_tensors(str(tmp_path / "c.npz"), {"x": np.zeros((0, 2, 4), np.float32)})
    code = lamina_profile.main([str(model), "-o", str(tmp_path / "p.yaml"), "--inputs", str(tmp_path / "c.npz")])
    assert "input 'x' has no calibration samples" in _error(capsys, code)


def test_misshaped_calibration_data(model, tmp_path, capsys):
    save_tensors(str(tmp_path / "c.npz"), {"x": np.zeros((2, 4), np.float32)})
    code = lamina_profile.main([str(model), "-o", str(tmp_path / "p.yaml"), "--inputs", str(tmp_path / "c.npz")])
    assert "input 'x' has shape [2, 4], expected [samples, 2, 4]" in _error(capsys, code)


def test_calibration_data_that_overflows(model, tmp_path, capsys):
    save_tensors(str(tmp_path / "c.npz"), {"x": np.full((1, 2, 4), np.inf, np.float32)})
    code = lamina_profile.main([str(model), "-o", str(tmp_path / "p.yaml"), "--inputs", str(tmp_path / "c.npz")])
    assert "node output 'x' is NaN or infinite on calibration sample 0" in _error(capsys, code)


def test_profile_that_is_not_yaml(model, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("GraphPreLowerHash: [unclosed\n")
    assert "not a YAML profile" in _error(capsys, _quantize(model, bad))


def test_quantize_without_a_profile(model, capsys):
    code = lamina_opt.main([str(model), "--pass-pipeline=builtin.module(graph-quantize)"])
    assert "option 'profile' must name a profile file" in _error(capsys, code)


PROFILED = """
func.func @main() {
  %0 = "graph.placeholder"() {name = "x"} : () -> tensor<4xf32>
  "graph.profile"(%0) {name = "x"} : (tensor<4xf32>) -> ()
  %1 = "graph.relu"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  "graph.save"(%1) {name = "y"} : (tensor<4xf32>) -> ()
  return
}
"""


def test_profiling_probe_at_the_buffer_level(tmp_path, capsys):
    """Quantized graphs have a buffer form (test_precision_buffers.py); profiling probes do not."""
    path = tmp_path / "p.mlir"
    path.write_text(PROFILED)
    code = lamina_opt.main([str(path), "--pass-pipeline=builtin.module(convert-graph-to-buffer)"])
    assert "'graph.profile' has no buffer form: profile a graph in the graph interpreter" in _error(capsys, code)
