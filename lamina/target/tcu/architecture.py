"""Accelerator architectures: Tensil `.tarch` JSON files, validated on load.

The named architectures live beside this module in `architectures/NAME.tarch`;
`load_architecture` takes a name or a path. Every key of Tensil's format is
read and checked against the range Tensil documents, and a bad file is a
LaminaError that names the file and the key.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from lamina import LaminaError

from .contained_files import read_json
from .fixed_point import DATA_TYPES, DataType

ARCHITECTURES_DIR = Path(__file__).parent / "architectures"
ARCHITECTURE_BYTES = 1 << 16


def architecture_names() -> list[str]:
    return sorted(path.stem for path in ARCHITECTURES_DIR.glob("*.tarch"))


@dataclass(frozen=True)
class Architecture:
    """One configuration of the processing unit; memory depths are in vectors."""

    name: str
    data_type: DataType
    array_size: int
    dram0_depth: int
    dram1_depth: int
    local_depth: int
    accumulator_depth: int
    simd_registers_depth: int
    stride0_depth: int
    stride1_depth: int
    number_of_threads: int = 1
    thread_queue_depth: int = 8

    def to_json(self) -> dict:
        """The `.tarch` object (as written into `.tmodel`)."""
        fields = asdict(self)
        fields.pop("name")
        fields["data_type"] = self.data_type.name
        return fields


# key -> inclusive range (depths need not be powers of two: zcu104_uram has 49152)
_RANGES: dict[str, tuple[int, int]] = {
    "array_size": (2, 256),
    "dram0_depth": (2, 2**32),
    "dram1_depth": (2, 2**32),
    "local_depth": (2, 2**16),
    "accumulator_depth": (2, 2**16),
    "simd_registers_depth": (0, 16),
    "stride0_depth": (1, 16),
    "stride1_depth": (1, 16),
    "number_of_threads": (1, 1),
    "thread_queue_depth": (1, 2**16),
}
_OPTIONAL = {"number_of_threads": 1, "thread_queue_depth": 8}


def parse_architecture(fields: object, name: str, source: str) -> Architecture:
    """An Architecture from a decoded `.tarch` object; `source` names it in errors."""
    if not isinstance(fields, dict):
        raise LaminaError(f"{source}: an architecture is a JSON object, got {type(fields).__name__}")
    known = {"data_type", *_RANGES}
    unknown = sorted(set(fields) - known)
    if unknown:
        raise LaminaError(f"{source}: unknown architecture key(s) {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(known))}")
    values = {**_OPTIONAL, **fields}
    missing = sorted(known - set(values))
    if missing:
        raise LaminaError(f"{source}: missing architecture key(s) {', '.join(missing)}")
    data_type = DATA_TYPES.get(values["data_type"]) if isinstance(values["data_type"], str) else None
    if data_type is None:
        raise LaminaError(f"{source}: data_type '{str(values['data_type'])[:40]}' is not supported; "
                          f"supported: {', '.join(DATA_TYPES)}")
    checked = {}
    for key, (low, high) in _RANGES.items():
        value = values[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise LaminaError(f"{source}: {key} must be an integer, got {value!r:.40}")
        if not low <= value <= high:
            what = "only 1 thread is supported" if key == "number_of_threads" else f"must be in [{low}, {high}]"
            raise LaminaError(f"{source}: {key} = {value}: {what}")
        checked[key] = value
    return Architecture(name=name, data_type=data_type, **checked)


def load_architecture(name_or_path: str | Path) -> Architecture:
    """A named architecture (`ultra96v2`) or a `.tarch` file, validated."""
    if not str(name_or_path).strip():
        raise LaminaError(f"an architecture needs a name ({', '.join(architecture_names())}) or a .tarch file")
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        path = ARCHITECTURES_DIR / f"{name_or_path}.tarch"
        if not path.exists():
            raise LaminaError(f"unknown architecture '{name_or_path}'; named architectures: "
                              f"{', '.join(architecture_names())}, or give a .tarch file")
    fields = read_json(path, ARCHITECTURE_BYTES, str(path))
    return parse_architecture(fields, path.stem, str(path))
