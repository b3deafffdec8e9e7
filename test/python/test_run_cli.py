"""lamina-run as people use it: a subprocess, files in, text and files out."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lamina.runtime.tensor_files import load_tensors, save_tensors

LAMINA_RUN = str(Path(sys.executable).parent / "lamina-run")

# in/x + [[1,2,3],[4,5,6]] -> relu -> "out/relu"; "idx" passes through to "out/idx".
MODEL = """
module {
  func.func @main() {
    %x = "graph.placeholder"() {name = "in/x"} : () -> tensor<2x3xf32>
    %i = "graph.placeholder"() {name = "idx"} : () -> tensor<4xi64>
    %c = "graph.constant"() {value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>} : () -> tensor<2x3xf32>
    %s = "graph.add"(%x, %c) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %r = "graph.relu"(%s) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "graph.save"(%r) {name = "out/relu"} : (tensor<2x3xf32>) -> ()
    "graph.save"(%i) {name = "out/idx"} : (tensor<4xi64>) -> ()
    return
  }
}
"""
CONSTANT = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
GOOD_INPUTS = {"in/x": np.array([[-9, 0, 1], [2, -3, 4]], dtype=np.float32), "idx": np.arange(4, dtype=np.int64)}


def lamina_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([LAMINA_RUN, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "model.mlir").write_text(MODEL)
    save_tensors(str(tmp_path / "in.npz"), GOOD_INPUTS)
    return tmp_path


def assert_one_line_error(result: subprocess.CompletedProcess, pattern: str) -> None:
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert re.fullmatch(pattern, lines[0]), lines[0]


def test_random_inputs_are_seeded_and_announced(workdir):
    first = lamina_run("model.mlir", "--output", "a.npz", cwd=workdir)
    assert first.returncode == 0, first.stderr
    assert "random inputs (seed 0; floats in [0, 1), integers in [0, 10)):" in first.stdout
    assert "in/x  float32 [2, 3]" in first.stdout
    assert "out/relu  float32 [2, 3]  min " in first.stdout
    lamina_run("model.mlir", "--output", "b.npz", cwd=workdir)
    lamina_run("model.mlir", "--output", "c.npz", "--seed", "7", cwd=workdir)
    a, b, c = (load_tensors(str(workdir / f"{n}.npz")) for n in "abc")
    np.testing.assert_array_equal(a["out/relu"], b["out/relu"])
    assert not np.array_equal(a["out/relu"], c["out/relu"])
    x = a["out/relu"] - CONSTANT  # relu is the identity here: inputs are in [0, 1)
    assert ((0 <= x) & (x < 1)).all() and ((0 <= a["out/idx"]) & (a["out/idx"] < 10)).all()


def test_inputs_and_outputs_round_trip_through_npz(workdir):
    result = lamina_run("model.mlir", "--inputs", "in.npz", "--output", "out.npz", cwd=workdir)
    assert result.returncode == 0, result.stderr
    assert "inputs from in.npz:" in result.stdout and "wrote out.npz" in result.stdout
    outputs = load_tensors(str(workdir / "out.npz"))
    assert list(outputs) == ["out/relu", "out/idx"]
    np.testing.assert_array_equal(outputs["out/relu"], np.maximum(GOOD_INPUTS["in/x"] + CONSTANT, 0))
    np.testing.assert_array_equal(outputs["out/idx"], GOOD_INPUTS["idx"])
    assert outputs["out/idx"].dtype == np.int64


def test_compare_prints_errors_and_missing_outputs(workdir):
    expected = np.maximum(GOOD_INPUTS["in/x"] + CONSTANT, 0)
    reference = expected.copy()
    reference[1, 2] = 12.5  # we compute 10: abs error 2.5, rel error 0.2
    save_tensors(str(workdir / "ref.npz"), {"out/relu": reference, "other": np.zeros(1)})
    result = lamina_run("model.mlir", "--inputs", "in.npz", "--compare", "ref.npz", cwd=workdir)
    assert result.returncode == 0, result.stderr
    report = result.stdout.split("compared with ref.npz:\n")[1].splitlines()
    a, r = expected.astype(np.float64), reference.astype(np.float64)
    cosine = np.dot(a.ravel(), r.ravel()) / (np.linalg.norm(a) * np.linalg.norm(r))
    sqnr = 10 * np.log10(np.sum(r ** 2) / 2.5 ** 2)
    assert report == [f"  out/relu  max abs 2.5  max rel 0.2  cosine {cosine:.6f}  SQNR {sqnr:.1f} dB",
                      "  missing from ref.npz: out/idx",
                      "  not produced by this run: other"]


def test_compare_reports_shape_mismatch(workdir):
    save_tensors(str(workdir / "ref.npz"), {"out/relu": np.zeros((3, 2), np.float32)})
    result = lamina_run("model.mlir", "--inputs", "in.npz", "--compare", "ref.npz", cwd=workdir)
    assert "  out/relu  (shapes differ: [2, 3] vs [3, 2])" in result.stdout.splitlines()


def test_malformed_mlir_is_one_located_line(workdir):
    (workdir / "bad.mlir").write_text('module {\n  func.func @main() {\n    %x = graph.relu\n')
    assert_one_line_error(lamina_run("bad.mlir", cwd=workdir), r"lamina-run: error: bad\.mlir:3:\d+: error: .+")


def test_module_without_an_executor_is_refused(workdir):
    (workdir / "arith.mlir").write_text("func.func @main() {\n  %0 = arith.constant 1 : i32\n  return\n}\n")
    assert_one_line_error(lamina_run("arith.mlir", cwd=workdir),
                          r"lamina-run: error: no executor for this module \(its dialects: arith\); "
                          r"executable dialects: buffer, graph, hir")


def test_wrong_shaped_input_is_named(workdir):
    save_tensors(str(workdir / "wrong.npz"), {**GOOD_INPUTS, "in/x": np.zeros((3, 2), np.float32)})
    assert_one_line_error(lamina_run("model.mlir", "--inputs", "wrong.npz", cwd=workdir),
                          r"lamina-run: error: input 'in/x': expected float32 \[2, 3\], got float32 \[3, 2\]")


def test_missing_input_is_named(workdir):
    save_tensors(str(workdir / "partial.npz"), {"in/x": GOOD_INPUTS["in/x"]})
    assert_one_line_error(lamina_run("model.mlir", "--inputs", "partial.npz", cwd=workdir),
                          r"lamina-run: error: missing input 'idx': expected int64 \[4\]")


@pytest.mark.parametrize("option", ["--inputs", "--compare"])
def test_a_file_that_is_not_an_npz_is_one_line(workdir, option):
    assert_one_line_error(lamina_run("model.mlir", option, "model.mlir", cwd=workdir),
                          r"lamina-run: error: model\.mlir: not an \.npz file \(numpy\.savez writes them\)")


def test_missing_files_are_one_line(workdir):
    assert_one_line_error(lamina_run("nowhere.mlir", cwd=workdir),
                          r"lamina-run: error: nowhere\.mlir: cannot read: No such file or directory")
    assert_one_line_error(lamina_run("model.mlir", "--inputs", "nowhere.npz", cwd=workdir),
                          r"lamina-run: error: nowhere\.npz: cannot read: No such file or directory")
