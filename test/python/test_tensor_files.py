"""npz inputs are validated before anything is allocated: one error line per kind of bad file."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from lamina.dialects.diagnostics import LaminaError
from lamina.runtime.tensor_files import load_tensors, save_tensors
from lamina.tools import lamina_run


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _npz(path, members: dict[str, bytes]) -> str:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return str(path)


EXABYTES = _npy(np.zeros(3, np.float32)).replace(b"(3,)", b"(1000000000000000000,)")
NEGATIVE = _npy(np.zeros(3, np.float32)).replace(b"(3,)", b"(-3,)  ")


@pytest.mark.parametrize("members, message", [
    ({"x.txt": b"hello"}, "member 'x.txt' is not an .npy array"),
    ({"x.npy": EXABYTES}, "header claims [1000000000000000000] float32, more than the member's"),
    ({"x.npy": NEGATIVE}, "has a negative dimension"),
    ({"x.npy": _npy(np.zeros(3, [("a", "f4"), ("b", "i4")]))}, "is not a number or boolean"),
    ({"x.npy": _npy(np.array(["text"]))}, "element type <U4 is not a number or boolean"),
    ({"x.npy": b"garbage"}, "not a readable .npz file"),
    ({"x.npy": _npy(np.zeros(4, np.float32))[:-4]}, "the data is shorter than its header"),
])
def test_bad_members_are_one_line_errors(tmp_path, members, message):
    with pytest.raises(LaminaError) as error:
        load_tensors(_npz(tmp_path / "bad.npz", members))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_arrays_round_trip_in_either_order(tmp_path):
    fortran = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    path = _npz(tmp_path / "f.npz", {"x.npy": _npy(fortran)})
    np.testing.assert_array_equal(load_tensors(path)["x"], fortran)
    save_tensors(str(tmp_path / "g.npz"), {"gpu_0/data": np.ones((2, 3), np.int64), "b": np.zeros(2, bool)})
    loaded = load_tensors(str(tmp_path / "g.npz"))
    assert loaded["gpu_0/data"].dtype == np.int64 and loaded["b"].dtype == np.bool_


def test_a_negative_seed_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit_status:
        lamina_run.main(["model.mlir", "--seed", "-1"])
    assert exit_status.value.code == 2
    assert "seeds are integers >= 0" in capsys.readouterr().err
