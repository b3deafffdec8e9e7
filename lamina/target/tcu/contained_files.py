"""Reading files a manifest names, without leaving the manifest's directory.

A `.tmodel` names its program, consts pages and host modules by file name.
Those names come from a file the user may not have written, so each one must
be a plain relative path that resolves (symlinks followed) inside the model
directory, must be a regular file (not a device or FIFO, which could be
endless), and is read only up to the size the manifest allows. Errors name
the manifest field and the name as written, never the contents or size of a
file outside the directory.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePosixPath

from lamina import LaminaError


def contained_path(directory: Path, file_name: str, source: str, field: str) -> Path:
    """`directory / file_name`, if that stays inside `directory`; else a LaminaError."""
    where = f"{source}: field '{field}'"
    if not file_name or "\x00" in file_name:
        raise LaminaError(f"{where} must be a non-empty file name")
    parts = PurePosixPath(file_name.replace("\\", "/"))
    if parts.is_absolute() or Path(file_name).is_absolute() or ".." in parts.parts:
        raise LaminaError(f"{where}: '{file_name}' must be a path inside the model's directory "
                          f"(no absolute path, no '..')")
    root = directory.resolve()
    resolved = (directory / file_name).resolve()
    if resolved != root and root not in resolved.parents:
        raise LaminaError(f"{where}: '{file_name}' leads outside the model's directory (a symbolic link)")
    return resolved


def read_contained(directory: Path, file_name: str, source: str, field: str, limit: int) -> bytes:
    """The bytes of a regular file inside `directory`, at most `limit` of them (more is an error)."""
    path = contained_path(directory, file_name, source, field)
    return read_bounded(path, limit, f"{source}: field '{field}': '{file_name}'")


def read_bounded(path: Path, limit: int, where: str) -> bytes:
    """The bytes of a regular file, at most `limit` of them; `where` starts every error message."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise LaminaError(f"{where}: cannot read: {error.strerror}") from None
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise LaminaError(f"{where}: not a regular file")
    with os.fdopen(descriptor, "rb") as handle:
        if info.st_size > limit:
            raise LaminaError(f"{where}: {info.st_size} bytes, more than the {limit} allowed here")
        try:
            data = handle.read(limit + 1)
        except OSError as error:
            raise LaminaError(f"{where}: cannot read: {error.strerror}") from None
    if len(data) > limit:
        raise LaminaError(f"{where}: grew past the {limit} bytes allowed here")
    return data


def read_json(path: Path, limit: int, source: str) -> object:
    """Decoded JSON of a bounded regular file; bad UTF-8, syntax, nesting or huge integers are LaminaErrors."""
    text = read_bounded(path, limit, source)
    try:
        return json.loads(text.decode("utf-8"))
    except json.JSONDecodeError as error:
        raise LaminaError(f"{source}:{error.lineno}:{error.colno}: not valid JSON: {error.msg}") from None
    except UnicodeDecodeError:
        raise LaminaError(f"{source}: not valid JSON: not UTF-8 text") from None
    except RecursionError:
        raise LaminaError(f"{source}: not valid JSON: nested too deeply") from None
    except ValueError as error:  # an integer with more digits than Python converts
        raise LaminaError(f"{source}: not valid JSON: {error}") from None
