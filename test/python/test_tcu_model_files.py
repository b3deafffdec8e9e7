"""`.tmodel`/`.tprog`/`.tdata` files: round trip, and clear errors for corrupt files."""

import json

import numpy as np
import pytest

from lamina.target.tcu.architecture import load_architecture
from lamina.target.tcu.model_files import (AcceleratorStep, ConstsStep, HostStep, TensorEntry, read_model,
                                             write_model_files)
from lamina.dialects.diagnostics import LaminaError

ARCH = load_architecture("ultra96v2")  # N = 16
HOST_TEXT = "module {}\n"


def _write(tmp_path, **overrides):
    consts = np.arange(3 * 16, dtype=np.int64).reshape(3, 16) - 20
    arguments = dict(
        arch=ARCH,
        inputs=[TensorEntry("x", 0, 4, (1, 3, 2, 2))],
        outputs=[TensorEntry("y", 4, 4, (2, 20)), TensorEntry("prob", None, 0, (2, 20))],
        vars=[TensorEntry("y", 4, 4, (2, 20))],
        plan=[AcceleratorStep(0, 2), HostStep("host-0.mlir", ("y",), ("prob",))],
        program_bytes=bytes(range(18)), instructions=2, consts_image=consts,
        host_modules={"host-0.mlir": HOST_TEXT})
    arguments.update(overrides)
    return write_model_files(tmp_path, "tiny", **arguments), consts


def test_round_trip(tmp_path):
    paths, consts = _write(tmp_path)
    loaded = read_model(paths.tmodel)
    manifest = loaded.manifest
    assert manifest.name == "tiny"
    assert manifest.prog.size == 18 and manifest.prog.instructions == 2
    assert manifest.inputs == (TensorEntry("x", 0, 4, (1, 3, 2, 2)),)
    assert manifest.outputs[1] == TensorEntry("prob", None, 0, (2, 20))
    assert manifest.plan == (AcceleratorStep(0, 2), HostStep("host-0.mlir", ("y",), ("prob",)))
    assert loaded.arch.to_json() == ARCH.to_json()
    assert loaded.program_bytes == bytes(range(18))
    np.testing.assert_array_equal(loaded.consts_images[0], consts)
    assert loaded.host_modules == {"host-0.mlir": HOST_TEXT}
    assert json.loads(paths.tmodel.read_text())["consts"] == [{"file_name": "tiny.tdata", "base": 0, "size": 3}]


def test_pages_round_trip_as_consts_entries_and_plan_steps(tmp_path):
    page = np.full((2, 16), 7, np.int64)
    plan = [ConstsStep(1), AcceleratorStep(0, 2), HostStep("host-0.mlir", ("y",), ("prob",))]
    paths, consts = _write(tmp_path, plan=plan, consts_base=2, pages=(page,))
    loaded = read_model(paths.tmodel)
    assert loaded.manifest.plan == tuple(plan)
    assert json.loads(paths.tmodel.read_text())["consts"] == [
        {"file_name": "tiny.tdata", "base": 2, "size": 3}, {"file_name": "tiny.page1.tdata", "base": 0, "size": 2}]
    assert paths.pages == (tmp_path / "tiny.page1.tdata",)
    np.testing.assert_array_equal(loaded.consts_images[1], page)


def _edit_manifest(path, edit):
    value = json.loads(path.read_text())
    edit(value)
    path.write_text(json.dumps(value))


@pytest.mark.parametrize("edit, message", [
    (lambda m: m.pop("prog"), "field 'prog' is missing"),
    (lambda m: m["prog"].update(size=17), "field 'prog.size' says 17 bytes but tiny.tprog has 18"),
    (lambda m: m["consts"][0].update(size=4), "field 'consts[0].size' says 4 vectors"),
    (lambda m: m["inputs"][0].update(size=5), "field 'inputs[0]' (x): size 5 does not match shape [1, 3, 2, 2]"),
    (lambda m: m["vars"][0].update(base=None), "a Vars entry needs a DRAM0 base, got null"),
    (lambda m: m["inputs"][0].update(base=None), "base null (host only) needs size 0, got 4"),
    (lambda m: m["vars"][0].update(shape=[2, "a"]), "field 'vars[0].shape' must be a list of non-negative"),
    (lambda m: m["plan"][0].update(count=3), "field 'plan[0]': instructions [0, 3) exceed the program's 2"),
    (lambda m: m["plan"][1].update(kind="gpu"), "field 'plan[1].kind' must be 'accelerator', 'consts' or 'host'"),
    (lambda m: m["plan"].insert(0, {"kind": "consts", "index": 1}),
     "field 'plan[0].index': consts entry 1 does not exist (the manifest has 1)"),
    (lambda m: m["plan"][1].update(file_name="gone.mlir"), "field 'plan[1].file_name': cannot read"),
    (lambda m: m["arch"].update(array_size="16"), "field 'arch': array_size must be an integer"),
    (lambda m: m.update(layout="nhwc"), "field 'layout' must be 'channel-tile-major'"),
    (lambda m: m["outputs"][0].update(base=ARCH.dram0_depth), "exceed DRAM0 depth"),
])
def test_corrupt_manifest_is_a_clear_error(tmp_path, edit, message):
    paths, _ = _write(tmp_path)
    _edit_manifest(paths.tmodel, edit)
    with pytest.raises(LaminaError) as error:
        read_model(paths.tmodel)
    assert str(paths.tmodel) in str(error.value)
    assert message in str(error.value)


def test_missing_and_truncated_files(tmp_path):
    paths, _ = _write(tmp_path)
    paths.tdata.write_bytes(paths.tdata.read_bytes()[:-2])
    with pytest.raises(LaminaError, match=r"consts\[0\]\.size.*has 94 bytes"):
        read_model(paths.tmodel)
    paths.tprog.unlink()
    with pytest.raises(LaminaError, match=r"field 'prog.file_name': cannot read .*tiny.tprog"):
        read_model(paths.tmodel)
    with pytest.raises(LaminaError, match="nowhere.tmodel: cannot read"):
        read_model(tmp_path / "nowhere.tmodel")


def test_bad_json_names_the_position(tmp_path):
    paths, _ = _write(tmp_path)
    paths.tmodel.write_text('{"name": ')
    with pytest.raises(LaminaError, match=r"tiny.tmodel:1:\d+: not valid JSON"):
        read_model(paths.tmodel)


def test_writer_refuses_inconsistent_parts(tmp_path):
    with pytest.raises(ValueError, match="host steps name"):
        _write(tmp_path, host_modules={})
    with pytest.raises(LaminaError, match="size 3 does not match"):
        _write(tmp_path, inputs=[TensorEntry("x", 0, 3, (1, 3, 2, 2))])
