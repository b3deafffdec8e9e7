"""What surrounds the interpreter: tensor files, output comparison, executor choice."""

from __future__ import annotations

import numpy as np
import pytest

from lamina.dialects.context import make_context, parse_module
from lamina.dialects.diagnostics import LaminaError
from lamina.runtime.compare import Difference, compare
from lamina.runtime.executors import EXECUTORS, executor_for
from lamina.runtime.tensor_files import load_tensors, save_tensors


def test_any_name_round_trips_through_npz(tmp_path):
    tensors = {"gpu_0/data_0": np.arange(6, dtype=np.float32).reshape(2, 3), "file": np.array([True, False]),
               "allow_pickle": np.int64(7), "a:b.c": np.zeros((0, 2), np.float16)}
    path = str(tmp_path / "t.bin")  # no .npz suffix is added
    save_tensors(path, tensors)
    loaded = load_tensors(path)
    assert list(loaded) == list(tensors)
    for name, array in tensors.items():
        assert loaded[name].dtype == np.asarray(array).dtype
        np.testing.assert_array_equal(loaded[name], array)


def test_object_arrays_are_not_loaded(tmp_path):
    path = tmp_path / "objects.npz"
    np.savez(path, x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(LaminaError, match=r"objects\.npz: member .x\.npy.: element type object is not a number or boolean"):
        load_tensors(str(path))


def test_unwritable_path_is_a_lamina_error(tmp_path):
    with pytest.raises(LaminaError, match="cannot write"):
        save_tensors(str(tmp_path / "missing" / "out.npz"), {"x": np.zeros(1)})


def test_compare_measures_absolute_and_relative_errors():
    actual = {"y": np.array([1.0, 2.2, 0.5, 0.0], np.float32), "extra": np.zeros(1)}
    reference = {"y": np.array([1.0, 2.0, 0.0, 0.0], np.float32), "gone": np.zeros(1)}
    comparison = compare(actual, reference)
    (y,) = comparison.differences
    assert y.name == "y" and y.mismatch is None
    assert y.max_abs == pytest.approx(0.5)  # at a zero reference: no relative error there
    assert y.max_rel == pytest.approx(0.1, rel=1e-6)
    assert y.cosine == pytest.approx(5.4 / np.sqrt(6.09 * 5.0), rel=1e-6)
    assert y.sqnr_db == pytest.approx(10 * np.log10(5.0 / 0.29), rel=1e-6)
    assert comparison.only_actual == ["extra"] and comparison.only_reference == ["gone"]


def test_compare_treats_equal_specials_as_equal_and_shows_other_nans():
    same = np.array([np.inf, -np.inf, np.nan])
    assert compare({"y": same}, {"y": same.copy()}).differences == [Difference("y", 0.0, 0.0)]  # no cosine: inf
    (nan,) = compare({"y": np.array([np.nan, 1.0])}, {"y": np.array([1.0, 1.0])}).differences
    assert np.isnan(nan.max_abs)


def test_compare_reports_shape_and_type_mismatches():
    (shapes,) = compare({"y": np.zeros((2, 3))}, {"y": np.zeros((3, 2))}).differences
    assert shapes == Difference("y", None, None, "shapes differ: [2, 3] vs [3, 2]")
    (types,) = compare({"y": np.ones(2, np.float32)}, {"y": np.ones(2, np.float64)}).differences
    assert (types.max_abs, types.mismatch) == (0.0, "element types differ: float32 vs float64")


GRAPH_MODULE = """
func.func @main() {
  %x = "graph.placeholder"() {name = "x"} : () -> tensor<2xf32>
  "graph.save"(%x) {name = "y"} : (tensor<2xf32>) -> ()
  return
}
"""


def test_graph_modules_run_in_the_graph_interpreter():
    module = parse_module(GRAPH_MODULE, make_context())
    assert executor_for(module) is EXECUTORS["graph"]
    assert EXECUTORS["graph"].input_types(module)["x"].shape == (2,)


def test_modules_mixing_levels_are_refused(monkeypatch):
    monkeypatch.setitem(EXECUTORS, "func", EXECUTORS["graph"])  # pretend `func` were a level
    with pytest.raises(LaminaError, match="the module mixes the dialects func, graph; each level runs on its own"):
        executor_for(parse_module(GRAPH_MODULE, make_context()))
