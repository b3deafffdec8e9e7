"""`lamina-import` as people run it: output, options, exit codes and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import helper

from importer_models import make_model, randn
from lamina.dialects.context import make_context, parse_module, print_module
from lamina.frontend.onnx_importer import resolve_model_path

TOOL = str(Path(sys.executable).parent / "lamina-import")


def lamina_import(*args) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True, timeout=120)


def assert_one_line_error(result: subprocess.CompletedProcess, message: str) -> None:
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == f"lamina-import: error: {message}\n"


def test_light_model_to_stdout_keeps_locations():
    result = lamina_import("light:squeezenet")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.startswith("module {")
    assert '"graph.convolution"' in result.stdout and 'loc("softmaxout_1")' in result.stdout


def test_output_file_parses_back(tmp_path):
    out = tmp_path / "model.mlir"
    result = lamina_import("light:zfnet512", "-o", out)
    assert result.returncode == 0 and result.stdout == ""
    text = out.read_text()
    assert print_module(parse_module(text, make_context(), str(out)), debug_info=True) == text


def test_elide_shortens_constants():
    result = lamina_import("light:squeezenet", "--elide")
    assert result.returncode == 0
    assert "dense_resource<__elided__>" in result.stdout


def test_input_shape_fixes_a_dynamic_dimension(tmp_path):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": randn(1, 3)}, ["y"])
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    path = tmp_path / "dynamic.onnx"
    onnx.save(model, str(path))
    assert_one_line_error(lamina_import(path),
                          f"{path}: input 'x' has dynamic dimension 0 ('N'); fix it with --input-shape x=1x3")
    result = lamina_import(path, "--input-shape", "x=4x3")
    assert result.returncode == 0
    assert "tensor<4x3xf32>" in result.stdout


def test_missing_file(tmp_path):
    assert_one_line_error(lamina_import(tmp_path / "none.onnx"), f"{tmp_path / 'none.onnx'}: no such file")


def test_truncated_file(tmp_path):
    path = tmp_path / "cut.onnx"
    path.write_bytes(Path(resolve_model_path("light:resnet50")).read_bytes()[:20000])
    assert_one_line_error(lamina_import(path),
                          f"{path}: not a valid ONNX model (the protobuf does not decode: truncated or not ONNX)")


def test_unknown_light_model():
    result = lamina_import("light:alexnet")
    assert result.returncode == 1
    assert result.stderr.startswith("lamina-import: error: light:alexnet: unknown light model; known: bvlc_alexnet")


@pytest.mark.parametrize("option, message", [
    ("data_0", "--input-shape expects NAME=DIMxDIM... (e.g. data=1x3x224x224), got 'data_0'"),
    ("data=1x3", "light:vgg19: --input-shape names 'data', which is not a model input; inputs: data_0"),
])
def test_bad_input_shape(option, message):
    result = lamina_import("light:vgg19", "--input-shape", option)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith(message)


def test_unsupported_nodes_are_listed_under_one_error(tmp_path):
    nodes = [helper.make_node("Unique", ["x"], ["u"], name="u1"), helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("NonZero", ["x"], ["n"], name="nz")]
    path = tmp_path / "unsupported.onnx"
    onnx.save(make_model(nodes, {"x": randn(3)}, ["u", "r", "n"]), str(path))
    result = lamina_import(path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"lamina-import: error: {path}: cannot import the model (2 problems):",
        "  node 'u1' (Unique): operator not supported",
        "  node 'nz' (NonZero): operator not supported",
    ]
