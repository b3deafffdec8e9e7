"""The compiled model on disk: `.tprog`, `.tdata`, `.tmodel` and host modules.

`.tmodel` is Tensil's JSON manifest plus what a host-fallback plan needs
(docs/accelerator.md, "Program files"): each input/output/Vars entry's
logical shape, the data layout, and the plan of accelerator instruction
ranges, host graph modules and consts pages. Consts entries that no plan
step names are loaded into DRAM1 before the plan runs; a `consts` step
loads its entry (a page of weights) when the plan reaches it. `write_model_files` writes all files of one
model; `read_model` reads them back and checks that they agree with each
other, so the simulator and drivers can trust sizes and addresses. A bad
file is a LaminaError naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import numpy as np

from lamina.errors import LaminaError

from .architecture import Architecture, parse_architecture
from .data_layout import vector_count

LAYOUT = "channel-tile-major"


@dataclass(frozen=True)
class TensorEntry:
    """A model input, output or Vars object in DRAM0.

    `base` None: the tensor lives on the host only (an output a host step
    computes, or an input only host steps read), with size 0.
    """

    name: str
    base: int | None
    size: int
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ProgramFile:
    file_name: str
    size: int  # bytes
    instructions: int


@dataclass(frozen=True)
class ConstsFile:
    file_name: str
    base: int  # DRAM1 vector address
    size: int  # vectors


@dataclass(frozen=True)
class AcceleratorStep:
    """Execute instructions [first, first + count)."""

    first: int
    count: int


@dataclass(frozen=True)
class ConstsStep:
    """Load consts entry `index` into DRAM1 at its base (over the previous page of weights)."""

    index: int


@dataclass(frozen=True)
class HostStep:
    """Run the graph module in `file_name` on the host (reads and writes are tensor names)."""

    file_name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]


PlanStep = Union[AcceleratorStep, ConstsStep, HostStep]


@dataclass(frozen=True)
class ModelManifest:
    name: str
    prog: ProgramFile
    consts: tuple[ConstsFile, ...]
    inputs: tuple[TensorEntry, ...]
    outputs: tuple[TensorEntry, ...]
    vars: tuple[TensorEntry, ...]
    arch: Architecture
    plan: tuple[PlanStep, ...]
    layout: str = LAYOUT

    def to_json(self) -> dict:
        def tensor(entry: TensorEntry) -> dict:
            return {"name": entry.name, "base": entry.base, "size": entry.size, "shape": list(entry.shape)}

        def step(entry: PlanStep) -> dict:
            if isinstance(entry, AcceleratorStep):
                return {"kind": "accelerator", "first": entry.first, "count": entry.count}
            if isinstance(entry, ConstsStep):
                return {"kind": "consts", "index": entry.index}
            return {"kind": "host", "file_name": entry.file_name,
                    "reads": list(entry.reads), "writes": list(entry.writes)}

        return {
            "name": self.name,
            "prog": {"file_name": self.prog.file_name, "size": self.prog.size,
                     "instructions": self.prog.instructions},
            "consts": [{"file_name": c.file_name, "base": c.base, "size": c.size} for c in self.consts],
            "inputs": [tensor(e) for e in self.inputs],
            "outputs": [tensor(e) for e in self.outputs],
            "vars": [tensor(e) for e in self.vars],
            "arch": self.arch.to_json(),
            "layout": self.layout,
            "plan": [step(s) for s in self.plan],
        }


@dataclass(frozen=True)
class ModelPaths:
    tmodel: Path
    tprog: Path
    tdata: Path
    pages: tuple[Path, ...]  # NAME.pageK.tdata, K = 1, 2, ...
    host_modules: tuple[Path, ...]


@dataclass(frozen=True)
class LoadedModel:
    """Everything a simulator or driver needs, checked for consistency."""

    path: Path
    manifest: ModelManifest
    program_bytes: bytes
    consts_images: tuple[np.ndarray, ...]  # per manifest.consts entry: (size, N) storage integers
    host_modules: dict[str, str]  # file_name -> graph module text

    @property
    def arch(self) -> Architecture:
        return self.manifest.arch


def write_model_files(outdir: str | Path, name: str, *, arch: Architecture,
                      inputs: list[TensorEntry], outputs: list[TensorEntry], vars: list[TensorEntry],
                      plan: list[PlanStep], program_bytes: bytes, instructions: int,
                      consts_image: np.ndarray, host_modules: dict[str, str], consts_base: int = 0,
                      pages: tuple[np.ndarray, ...] = ()) -> ModelPaths:
    """Write NAME.tprog, NAME.tdata, NAME.pageK.tdata, host modules and NAME.tmodel.

    `consts_image` (the resident consts, DRAM1 from `consts_base`) and each
    of `pages` (loaded at vector 0 by the plan's ConstsStep K) are
    (vectors, N) of the data type's storage integers. Returns the paths written.
    """
    outdir = Path(outdir)
    images = [np.asarray(consts_image), *(np.asarray(page) for page in pages)]
    for image in images:
        if image.ndim != 2 or image.shape[1] != arch.array_size:
            raise ValueError(f"consts image must be (vectors, {arch.array_size}), got {list(image.shape)}")
    host_files = {step.file_name for step in plan if isinstance(step, HostStep)}
    if host_files != set(host_modules):
        raise ValueError(f"host steps name {sorted(host_files)} but modules are given for {sorted(host_modules)}")
    files = [ConstsFile(f"{name}.tdata", consts_base, images[0].shape[0])]
    files += [ConstsFile(f"{name}.page{k}.tdata", 0, image.shape[0]) for k, image in enumerate(images[1:], 1)]
    manifest = ModelManifest(
        name=name,
        prog=ProgramFile(f"{name}.tprog", len(program_bytes), instructions),
        consts=tuple(files),
        inputs=tuple(inputs), outputs=tuple(outputs), vars=tuple(vars), arch=arch, plan=tuple(plan))
    _check_manifest(manifest, f"{name}.tmodel")
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        tprog = outdir / manifest.prog.file_name
        tprog.write_bytes(program_bytes)
        consts_paths = [outdir / entry.file_name for entry in files]
        for path, image in zip(consts_paths, images):
            path.write_bytes(image.astype(arch.data_type.storage).tobytes())
        host_paths = []
        for file_name, text in host_modules.items():
            host_paths.append(outdir / file_name)
            host_paths[-1].write_text(text, encoding="utf-8")
        tmodel = outdir / f"{name}.tmodel"
        tmodel.write_text(json.dumps(manifest.to_json(), indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise LaminaError(f"{error.filename}: cannot write: {error.strerror}") from None
    return ModelPaths(tmodel, tprog, consts_paths[0], tuple(consts_paths[1:]), tuple(host_paths))


# -- reading -------------------------------------------------------------------


class _Fields:
    """Typed access to one JSON object; errors name the file and the field path."""

    def __init__(self, value: object, source: str, where: str):
        if not isinstance(value, dict):
            raise LaminaError(f"{source}: {where or 'the manifest'} must be a JSON object")
        self.value, self.source, self.where = value, source, where

    def _path(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def error(self, key: str, message: str) -> LaminaError:
        return LaminaError(f"{self.source}: field '{self._path(key)}' {message}")

    def get(self, key: str, kind: type | tuple[type, ...], *, optional: bool = False):
        if key not in self.value:
            if optional:
                return None
            raise self.error(key, "is missing")
        value = self.value[key]
        if value is None and optional:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
            names = " or ".join(k.__name__ for k in _as_tuple(kind))
            raise self.error(key, f"must be {names}, got {json.dumps(value)[:40]}")
        return value

    def count(self, key: str) -> int:
        value = self.get(key, int)
        if value < 0:
            raise self.error(key, f"must be non-negative, got {value}")
        return value

    def objects(self, key: str) -> list[_Fields]:
        return [_Fields(item, self.source, f"{self._path(key)}[{i}]")
                for i, item in enumerate(self.get(key, list))]

    def strings(self, key: str) -> tuple[str, ...]:
        items = self.get(key, list)
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise self.error(f"{key}[{i}]", "must be a string")
        return tuple(items)


def _as_tuple(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _tensor(fields: _Fields) -> TensorEntry:
    base = fields.get("base", int, optional=True)
    if base is not None and base < 0:
        raise fields.error("base", f"must be non-negative or null, got {base}")
    shape = fields.get("shape", list)
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
        raise fields.error("shape", f"must be a list of non-negative integers, got {json.dumps(shape)}")
    return TensorEntry(fields.get("name", str), base, fields.count("size"), tuple(shape))


def _step(fields: _Fields) -> PlanStep:
    kind = fields.get("kind", str)
    if kind == "accelerator":
        return AcceleratorStep(fields.count("first"), fields.count("count"))
    if kind == "consts":
        return ConstsStep(fields.count("index"))
    if kind == "host":
        return HostStep(fields.get("file_name", str), fields.strings("reads"), fields.strings("writes"))
    raise fields.error("kind", f"must be 'accelerator', 'consts' or 'host', got '{kind}'")


def parse_manifest(value: object, source: str) -> ModelManifest:
    """A ModelManifest from decoded `.tmodel` JSON, checked in itself."""
    top = _Fields(value, source, "")
    prog = _Fields(top.get("prog", dict), source, "prog")
    layout = top.get("layout", str)
    if layout != LAYOUT:
        raise top.error("layout", f"must be '{LAYOUT}', got '{layout}'")
    manifest = ModelManifest(
        name=top.get("name", str),
        prog=ProgramFile(prog.get("file_name", str), prog.count("size"), prog.count("instructions")),
        consts=tuple(ConstsFile(c.get("file_name", str), c.count("base"), c.count("size"))
                     for c in top.objects("consts")),
        inputs=tuple(_tensor(e) for e in top.objects("inputs")),
        outputs=tuple(_tensor(e) for e in top.objects("outputs")),
        vars=tuple(_tensor(e) for e in top.objects("vars")),
        arch=parse_architecture(top.get("arch", dict), f"{Path(source).stem}", f"{source}: field 'arch'"),
        plan=tuple(_step(s) for s in top.objects("plan")),
        layout=layout)
    _check_manifest(manifest, source)
    return manifest


def _check_manifest(manifest: ModelManifest, source: str) -> None:
    """Addresses in range, sizes matching shapes, plan within the program."""
    arch = manifest.arch
    for group in ("inputs", "outputs", "vars"):
        for i, entry in enumerate(getattr(manifest, group)):
            where = f"{source}: field '{group}[{i}]' ({entry.name})"
            if entry.base is None:
                if group == "vars":
                    raise LaminaError(f"{where}: a Vars entry needs a DRAM0 base, got null")
                if entry.size != 0:
                    raise LaminaError(f"{where}: base null (host only) needs size 0, got {entry.size}")
                continue
            try:
                expected = vector_count(entry.shape, arch.array_size)
            except ValueError as error:
                raise LaminaError(f"{where}: {error}") from None
            if entry.size != expected:
                raise LaminaError(f"{where}: size {entry.size} does not match shape {list(entry.shape)} "
                                  f"({expected} vectors of {arch.array_size})")
            if entry.base + entry.size > arch.dram0_depth:
                raise LaminaError(f"{where}: vectors [{entry.base}, {entry.base + entry.size}) "
                                  f"exceed DRAM0 depth {arch.dram0_depth}")
    for i, consts in enumerate(manifest.consts):
        if consts.base + consts.size > arch.dram1_depth:
            raise LaminaError(f"{source}: field 'consts[{i}]': vectors [{consts.base}, {consts.base + consts.size}) "
                              f"exceed DRAM1 depth {arch.dram1_depth}")
    for i, step in enumerate(manifest.plan):
        if isinstance(step, AcceleratorStep) and step.first + step.count > manifest.prog.instructions:
            raise LaminaError(f"{source}: field 'plan[{i}]': instructions [{step.first}, "
                              f"{step.first + step.count}) exceed the program's {manifest.prog.instructions}")
        if isinstance(step, ConstsStep) and step.index >= len(manifest.consts):
            raise LaminaError(f"{source}: field 'plan[{i}].index': consts entry {step.index} does not exist "
                              f"(the manifest has {len(manifest.consts)})")


def _read_bytes(path: Path, source: str, field: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise LaminaError(f"{source}: field '{field}': cannot read {path}: {error.strerror}") from None


def read_manifest(path: str | Path) -> ModelManifest:
    """The checked manifest of a `.tmodel`, without reading the files it names."""
    source = str(path)
    try:
        value = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise LaminaError(f"{source}: cannot read: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        where = f":{error.lineno}:{error.colno}" if isinstance(error, json.JSONDecodeError) else ""
        raise LaminaError(f"{source}{where}: not valid JSON: {getattr(error, 'msg', error)}") from None
    return parse_manifest(value, source)


def read_model(path: str | Path) -> LoadedModel:
    """Read a `.tmodel` and the files it names (relative to it), checking sizes."""
    path = Path(path)
    source = str(path)
    manifest = read_manifest(path)
    arch = manifest.arch
    program_bytes = _read_bytes(path.parent / manifest.prog.file_name, source, "prog.file_name")
    if len(program_bytes) != manifest.prog.size:
        raise LaminaError(f"{source}: field 'prog.size' says {manifest.prog.size} bytes but "
                          f"{manifest.prog.file_name} has {len(program_bytes)}")
    if manifest.prog.instructions and manifest.prog.size % manifest.prog.instructions:
        raise LaminaError(f"{source}: field 'prog.instructions': {manifest.prog.instructions} instructions "
                          f"do not divide {manifest.prog.size} bytes")
    images = []
    for i, consts in enumerate(manifest.consts):
        data = _read_bytes(path.parent / consts.file_name, source, f"consts[{i}].file_name")
        vector_bytes = arch.array_size * arch.data_type.storage.itemsize
        if len(data) != consts.size * vector_bytes:
            raise LaminaError(f"{source}: field 'consts[{i}].size' says {consts.size} vectors "
                              f"({consts.size * vector_bytes} bytes) but {consts.file_name} has {len(data)} bytes")
        images.append(np.frombuffer(data, dtype=arch.data_type.storage).reshape(consts.size, arch.array_size))
    host_modules = {}
    for i, step in enumerate(manifest.plan):
        if isinstance(step, HostStep) and step.file_name not in host_modules:
            data = _read_bytes(path.parent / step.file_name, source, f"plan[{i}].file_name")
            try:
                host_modules[step.file_name] = data.decode("utf-8")
            except UnicodeDecodeError:
                raise LaminaError(f"{source}: field 'plan[{i}].file_name': "
                                  f"{step.file_name} is not UTF-8 text") from None
    return LoadedModel(path, manifest, program_bytes, tuple(images), host_modules)
