"""Architectures: the named `.tarch` files load; bad files are one clear error."""

from __future__ import annotations

import json

import pytest

from lamina.target.tcu.architecture import architecture_names, load_architecture
from lamina.dialects.diagnostics import LaminaError

TENSIL_SHIPPED = {  # tensil-facts §1.2 (array, local depth, accumulator depth)
    "arty-a7": (8, 8192, 2048),
    "pynq-z1": (12, 8192, 2048),
    "ultra96v2": (16, 20480, 4096),
    "zcu104": (32, 16384, 4096),
}

VALID = {"data_type": "FP16BP8", "array_size": 8, "dram0_depth": 1048576, "dram1_depth": 1048576,
         "local_depth": 8192, "accumulator_depth": 2048, "simd_registers_depth": 1, "stride0_depth": 8,
         "stride1_depth": 8}


def test_named_architectures_load():
    assert architecture_names() == sorted(TENSIL_SHIPPED)
    for name, (array, local, accumulator) in TENSIL_SHIPPED.items():
        arch = load_architecture(name)
        assert arch.name == name and arch.data_type.name == "FP16BP8"
        assert (arch.array_size, arch.local_depth, arch.accumulator_depth) == (array, local, accumulator)


def test_file_round_trips_through_to_json(tmp_path):
    arch = load_architecture("ultra96v2")
    path = tmp_path / "copy.tarch"
    path.write_text(json.dumps(arch.to_json()))
    copy = load_architecture(path)
    assert copy.name == "copy" and copy.to_json() == arch.to_json()


def write(tmp_path, fields) -> str:
    path = tmp_path / "bad.tarch"
    path.write_text(fields if isinstance(fields, str) else json.dumps(fields))
    return str(path)


@pytest.mark.parametrize("fields, message", [
    ({k: v for k, v in VALID.items() if k != "local_depth"}, "missing architecture key(s) local_depth"),
    ({**VALID, "local_depth": 2**17}, "local_depth = 131072: must be in [2, 65536]"),
    ({**VALID, "array_size": 1}, "array_size = 1: must be in [2, 256]"),
    ({**VALID, "simd_registers_depth": 17}, "simd_registers_depth = 17: must be in [0, 16]"),
    ({**VALID, "number_of_threads": 2}, "number_of_threads = 2: only 1 thread is supported"),
    ({**VALID, "stride0_depth": "8"}, "stride0_depth must be an integer, got '8'"),
    ({**VALID, "array_size": True}, "array_size must be an integer, got True"),
    ({**VALID, "data_type": "FP8BP3"}, "data_type 'FP8BP3' is not supported; supported: "),
    ({**VALID, "arraysize": 8}, "unknown architecture key(s) arraysize"),
    ([1, 2], "an architecture is a JSON object, got list"),
    ('{"data_type": "FP16BP8",\n "array_size": 8,,}', ":2:18: not valid JSON"),
])
def test_bad_files_name_file_and_key(tmp_path, fields, message):
    path = write(tmp_path, fields)
    with pytest.raises(LaminaError) as error:
        load_architecture(path)
    assert str(error.value).startswith(path) and message in str(error.value)


def test_unknown_name_lists_the_named_ones():
    with pytest.raises(LaminaError, match="unknown architecture 'ultra96'; named architectures: arty-a7, pynq-z1, "
                                          "ultra96v2, zcu104, or give a .tarch file"):
        load_architecture("ultra96")


def test_missing_file(tmp_path):
    with pytest.raises(LaminaError, match="nothere.tarch: cannot read architecture: No such file"):
        load_architecture(tmp_path / "nothere.tarch")
