""".npz files of named tensors: how model inputs and outputs travel between tools.

Keys are model input and output names, which in ONNX models often contain
'/' (`gpu_0/data_0`). Both directions keep any name: members are written as
`NAME.npy` (what `np.load` reads back as `NAME`), without going through
`np.savez`'s keyword arguments, which would reject names like `file`.
"""

from __future__ import annotations

import zipfile
from typing import Mapping

import numpy as np

from lamina.dialects.diagnostics import LaminaError

_NUMBER_KINDS = "biufc"  # booleans, signed and unsigned integers, floats, complex
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
TENSORS_BYTES = 1 << 31  # all arrays of one file, uncompressed


def load_tensors(path: str) -> dict[str, np.ndarray]:
    """Every array in an .npz file, by name; a LaminaError if it cannot be read as one.

    Each member must be an `.npy` array of numbers or booleans whose header
    agrees with the member's size, so a forged header cannot make the
    reader allocate more than the file holds.
    """
    try:
        with open(path, "rb") as handle:
            if not zipfile.is_zipfile(handle):
                raise LaminaError(f"{path}: not an .npz file (numpy.savez writes them)")
            handle.seek(0)
            with zipfile.ZipFile(handle) as archive:
                members = [member for member in archive.infolist() if not member.is_dir()]
                names = [member.filename for member in members]
                if len(set(names)) != len(names):
                    raise LaminaError(f"{path}: a member name appears twice")
                if sum(member.file_size for member in members) > TENSORS_BYTES:
                    raise LaminaError(f"{path}: more than {TENSORS_BYTES} bytes of arrays")
                return {member.filename[:-len(".npy")]: _member(archive, member, path) for member in members}
    except OSError as error:
        raise LaminaError(f"{path}: cannot read: {error.strerror or error}") from None
    except (ValueError, EOFError, zipfile.BadZipFile, NotImplementedError, RuntimeError) as error:
        raise LaminaError(f"{path}: not a readable .npz file: {str(error)[:120]}") from None


def _member(archive: zipfile.ZipFile, member: zipfile.ZipInfo, path: str) -> np.ndarray:
    """One `.npy` member, its header checked against its size before the data is read."""
    where = f"{path}: member '{member.filename[:80]}'"
    if not member.filename.endswith(".npy"):
        raise LaminaError(f"{where} is not an .npy array")
    with archive.open(member) as stream:
        version = np.lib.format.read_magic(stream)
        read_header = _HEADER_READERS.get(version)
        if read_header is None:
            raise LaminaError(f"{where}: unsupported .npy format version {version}")
        shape, fortran, dtype = read_header(stream)
        if dtype.kind not in _NUMBER_KINDS or dtype.fields is not None or dtype.subdtype is not None:
            raise LaminaError(f"{where}: element type {dtype} is not a number or boolean")
        if any(dim < 0 for dim in shape):
            raise LaminaError(f"{where}: its header's shape {list(shape)} has a negative dimension")
        count = int(np.prod(shape, dtype=object))
        if count * dtype.itemsize > member.file_size:
            raise LaminaError(f"{where}: its header claims {list(shape)} {dtype}, more than the member's "
                              f"{member.file_size} bytes")
        data = stream.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise LaminaError(f"{where}: the data is shorter than its header's {list(shape)} {dtype}")
    array = np.frombuffer(data, dtype=dtype).copy()
    return array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)


def save_tensors(path: str, tensors: Mapping[str, np.ndarray]) -> None:
    """Write named arrays as an .npz file at exactly `path` (no suffix is added)."""
    try:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, array in tensors.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
    except OSError as error:
        raise LaminaError(f"{path}: cannot write: {error.strerror or error}") from None
