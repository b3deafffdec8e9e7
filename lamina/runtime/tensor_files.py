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


def load_tensors(path: str) -> dict[str, np.ndarray]:
    """Every array in an .npz file, by name; a LaminaError if it cannot be read as one."""
    try:
        with open(path, "rb") as handle:
            if not zipfile.is_zipfile(handle):
                raise LaminaError(f"{path}: not an .npz file (numpy.savez writes them)")
            handle.seek(0)
            with np.load(handle, allow_pickle=False) as archive:
                return {name: archive[name] for name in archive.files}
    except OSError as error:
        raise LaminaError(f"{path}: cannot read: {error.strerror or error}") from None
    except (ValueError, EOFError, zipfile.BadZipFile) as error:
        raise LaminaError(f"{path}: not a readable .npz file: {error}") from None


def save_tensors(path: str, tensors: Mapping[str, np.ndarray]) -> None:
    """Write named arrays as an .npz file at exactly `path` (no suffix is added)."""
    try:
        with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, array in tensors.items():
                with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
    except OSError as error:
        raise LaminaError(f"{path}: cannot write: {error.strerror or error}") from None
