"""A Glow-style quantization profile: per node output, its range and histogram, plus the graph's hash.

The file is YAML, one document, as Glow's `-dump-profile` writes it:

    GlowToolsVersion: lamina 0.1.0
    GraphPreLowerHash: <hex digest of the profiled graph, `graph_identity.graph_hash`>
    Profile:
      - NodeOutputName: conv1:0
        Min: -1.5
        Max: 3.25
        Histogram: [0, 4, 17, ...]   # equal bins over [Min, Max]

Reading validates everything a quantizer relies on, so a bad file fails here
with one line naming the file and the entry; `check_matches` checks that a
profile belongs to the graph about to be quantized.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import yaml

from lamina.dialects.diagnostics import LaminaError

TOOLS_VERSION = "lamina 0.1.0"


class ProfileError(LaminaError):
    """A profile file that cannot be read, is malformed, or does not fit the graph."""


@dataclass(frozen=True)
class TensorProfile:
    """The values one node output took over the calibration samples."""

    min: float
    max: float
    histogram: tuple[int, ...]  # equal-width bins over [min, max]

    def bin_edges(self) -> np.ndarray:
        return np.linspace(self.min, self.max, len(self.histogram) + 1)


@dataclass(frozen=True)
class Profile:
    """What `lamina-profile` writes and `graph-quantize` reads."""

    graph_hash: str
    tensors: Mapping[str, TensorProfile]


def write_profile(profile: Profile, path: str | Path) -> None:
    entries = [{"NodeOutputName": name, "Min": float(t.min), "Max": float(t.max),
                "Histogram": [int(c) for c in t.histogram]} for name, t in profile.tensors.items()]
    document = {"GlowToolsVersion": TOOLS_VERSION, "GraphPreLowerHash": profile.graph_hash, "Profile": entries}
    try:
        with open(path, "w", encoding="utf-8") as handle:
            yaml.dump(document, handle, Dumper=_DUMPER, sort_keys=False, default_flow_style=None, width=120)
    except OSError as error:
        raise ProfileError(f"{path}: cannot write: {error.strerror}") from None


def read_profile(path: str | Path) -> Profile:
    """The profile in `path`, validated; a ProfileError (one line) otherwise."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise ProfileError(f"{path}: cannot read profile: {reason}") from None
    try:
        document = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise ProfileError(f"{path}{where}: not a YAML profile ({getattr(error, 'problem', None) or error})") from None
    return parse_profile(document, str(path))


def parse_profile(document, source: str) -> Profile:
    """A `Profile` from a loaded YAML document, checking every field."""
    if not isinstance(document, dict):
        raise ProfileError(f"{source}: a profile is a mapping with GraphPreLowerHash and Profile")
    graph_hash = document.get("GraphPreLowerHash")
    if not isinstance(graph_hash, str) or not graph_hash:
        raise ProfileError(f"{source}: field 'GraphPreLowerHash' must be a non-empty string")
    entries = document.get("Profile")
    if not isinstance(entries, list):
        raise ProfileError(f"{source}: field 'Profile' must be a list of node outputs")
    tensors: dict[str, TensorProfile] = {}
    for index, entry in enumerate(entries):
        name, tensor = _entry(entry, f"{source}: Profile[{index}]")
        if name in tensors:
            raise ProfileError(f"{source}: Profile[{index}]: node output '{name}' is profiled twice")
        tensors[name] = tensor
    return Profile(graph_hash, tensors)


def _entry(entry, where: str) -> tuple[str, TensorProfile]:
    if not isinstance(entry, dict):
        raise ProfileError(f"{where}: expected a mapping with NodeOutputName, Min, Max, Histogram")
    name = entry.get("NodeOutputName")
    if not isinstance(name, str) or not name:
        raise ProfileError(f"{where}: field 'NodeOutputName' must be a non-empty string")
    where = f"{where} ('{name}')"
    low, high = (_finite(entry.get(field), f"{where}: field '{field}'") for field in ("Min", "Max"))
    if low > high:
        raise ProfileError(f"{where}: Min {low} exceeds Max {high}")
    histogram = entry.get("Histogram")
    if (not isinstance(histogram, list) or not histogram
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in histogram)):
        raise ProfileError(f"{where}: field 'Histogram' must be a non-empty list of counts >= 0")
    return name, TensorProfile(low, high, tuple(histogram))


def _finite(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(f"{where} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ProfileError(f"{where} is {value}; a profile holds finite ranges only")
    return float(value)


def check_matches(profile: Profile, graph_hash: str, names: list[str], source: str) -> None:
    """Fail unless `profile` was taken on this graph: same hash, every node output profiled."""
    if profile.graph_hash != graph_hash:
        raise ProfileError(f"{source}: the profile is of a different graph (GraphPreLowerHash {profile.graph_hash[:12]}..., "
                           f"this graph {graph_hash[:12]}...); profile the graph being quantized")
    missing = [name for name in names if name not in profile.tensors]
    if missing:
        shown = ", ".join(f"'{name}'" for name in missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
        raise ProfileError(f"{source}: no profile entry for node output {shown}")


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
