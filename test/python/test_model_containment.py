"""A `.tmodel` cannot make Lamina read outside its directory, nor read without bound.

Every file the manifest names (program, consts pages, host modules) must
resolve inside the model's directory; the test watches every `open` the
process makes (Python's audit hook) and checks that no path outside the
directory is opened, and that errors do not quote the outside file.
"""

import json
import os
import sys
from pathlib import Path

import pytest

from lamina.target.tcu.model_files import read_model
from lamina.dialects.diagnostics import LaminaError
from lamina.tools import lamina_disasm

from tcu_tiny_model import write_tiny_model

_OPENED: list[str] | None = None


def _audit(event, args):
    if event == "open" and _OPENED is not None and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


def _opened_while(action) -> list[str]:
    global _OPENED
    _OPENED = []
    try:
        action()
    finally:
        opened, _OPENED = _OPENED, None
    return opened


@pytest.fixture
def model(tmp_path):
    directory = tmp_path / "model"
    directory.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET " * 10)
    return write_tiny_model(directory), secret


def _point(tmodel: Path, field: str, file_name: str) -> None:
    manifest = json.loads(tmodel.read_text())
    if field == "prog":
        manifest["prog"]["file_name"] = file_name
    elif field == "consts":
        manifest["consts"][0]["file_name"] = file_name
    else:
        next(step for step in manifest["plan"] if step["kind"] == "host")["file_name"] = file_name
    tmodel.write_text(json.dumps(manifest))


def _outside_names(secret: Path, directory: Path) -> dict[str, str]:
    link = directory / "innocent.tdata"
    link.symlink_to(secret)
    return {"absolute": str(secret), "dotdot": f"../{secret.name}", "nested-dotdot": f"sub/../../{secret.name}",
            "symlink": link.name}


@pytest.mark.parametrize("field", ["prog", "consts", "host"])
@pytest.mark.parametrize("kind", ["absolute", "dotdot", "nested-dotdot", "symlink"])
def test_no_byte_is_read_outside_the_model_directory(model, field, kind):
    tmodel, secret = model
    name = _outside_names(secret, tmodel.parent)[kind]
    _point(tmodel, field, name)
    errors = []

    def load():
        with pytest.raises(LaminaError) as error:
            read_model(tmodel)
        errors.append(str(error.value))

    opened = _opened_while(load)
    root = tmodel.parent.resolve()
    for path in opened:
        resolved = Path(path).resolve()
        assert resolved == root or root in resolved.parents, f"opened {path} outside {root}"
    assert "inside the model's directory" in errors[0] or "leads outside" in errors[0]
    assert "TOPSECRET" not in errors[0] and "100 bytes" not in errors[0]


def test_a_device_file_is_not_read(model, monkeypatch):
    tmodel, _ = model
    (tmodel.parent / "endless.tdata").symlink_to("/dev/zero")
    _point(tmodel, "consts", "endless.tdata")
    with pytest.raises(LaminaError, match="leads outside"):
        read_model(tmodel)


def test_a_fifo_inside_the_directory_is_not_read(model):
    tmodel, _ = model
    os.mkfifo(tmodel.parent / "pipe.tdata")
    _point(tmodel, "consts", "pipe.tdata")
    with pytest.raises(LaminaError, match="'pipe.tdata': not a regular file"):
        read_model(tmodel)


def test_lamina_disasm_refuses_a_program_elsewhere(model, capsys):
    tmodel, secret = model
    _point(tmodel, "prog", str(secret))
    assert lamina_disasm.main([str(tmodel)]) == 1
    err = capsys.readouterr().err
    assert "must be a path inside the model's directory" in err and "TOPSECRET" not in err


def test_links_and_subfolders_inside_the_directory_are_fine(model):
    tmodel, _ = model
    manifest = json.loads(tmodel.read_text())
    sub = tmodel.parent / "sub"
    sub.mkdir()
    (tmodel.parent / manifest["consts"][0]["file_name"]).rename(sub / "weights.tdata")
    (tmodel.parent / "alias.tdata").symlink_to(sub / "weights.tdata")
    _point(tmodel, "consts", "alias.tdata")
    assert read_model(tmodel).consts_images[0].size > 0
