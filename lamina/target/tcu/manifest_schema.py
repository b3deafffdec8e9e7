"""Reading a `.tmodel` manifest: every entry checked against the schema and the architecture.

The manifest comes from a file the user may not have written, so every field
is type-checked, every size is bounded by the architecture and by the
program, names are unique, and the plan's data flow is closed: each host
step reads only model inputs, Vars entries or earlier host results, and each
host-only output is written by some host step. A bad manifest is a
LaminaError naming the file and the field.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lamina import LaminaError

from .architecture import parse_architecture
from .contained_files import read_json
from .data_layout import vector_count
from .instruction_layout import InstructionLayout
from .program import MAX_SHIFT
from .manifest import (LAYOUT, AcceleratorStep, ConstsFile, ConstsStep, HostStep, ModelManifest, PlanStep,
                       ProgramFile, TensorEntry)

TENSOR_ELEMENTS = 1 << 28  # a host-only input or output (float32: 1 GiB)
MANIFEST_BYTES = 1 << 24



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
    binary_point = fields.get("binary_point", int, optional=True)
    if binary_point is not None and not 0 <= binary_point <= MAX_SHIFT:
        raise fields.error("binary_point", f"must be in [0, {MAX_SHIFT}], got {binary_point}")
    return TensorEntry(fields.get("name", str), base, fields.count("size"), tuple(shape), binary_point)


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
    check_manifest(manifest, source)
    return manifest


def check_manifest(manifest: ModelManifest, source: str) -> None:
    """Addresses in range, sizes matching shapes, plan within the program, data flow closed."""
    arch = manifest.arch
    instruction_bytes = InstructionLayout.of(arch).instruction_bytes
    if manifest.prog.size != manifest.prog.instructions * instruction_bytes:
        raise LaminaError(f"{source}: field 'prog.size': {manifest.prog.size} bytes is not "
                          f"{manifest.prog.instructions} instructions of {instruction_bytes} bytes")
    _check_tensors(manifest, source)
    _check_plan(manifest, source)


def _check_tensors(manifest: ModelManifest, source: str) -> None:
    """Each input/output/Vars entry: unique name, bounded shape, size and address within DRAM0."""
    arch = manifest.arch
    for group in ("inputs", "outputs", "vars"):
        for i, entry in enumerate(getattr(manifest, group)):
            where = f"{source}: field '{group}[{i}]' ({entry.name})"
            if any(other.name == entry.name for other in getattr(manifest, group)[:i]):
                raise LaminaError(f"{where}: the name appears twice in '{group}'")
            if int(np.prod(entry.shape, dtype=object)) > TENSOR_ELEMENTS:
                raise LaminaError(f"{where}: shape {list(entry.shape)} has more than {TENSOR_ELEMENTS} elements")
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


def _check_plan(manifest: ModelManifest, source: str) -> None:
    """Consts within DRAM1, steps within the program and consts table, host steps reading defined values."""
    arch = manifest.arch
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
    if not manifest.inputs or not manifest.outputs:
        raise LaminaError(f"{source}: field '{'inputs' if not manifest.inputs else 'outputs'}' is empty; "
                          f"a model has at least one")
    defined = {entry.name for entry in (*manifest.inputs, *manifest.vars)}
    for i, step in enumerate(manifest.plan):
        if isinstance(step, HostStep):
            for name in step.reads:
                if name not in defined:
                    raise LaminaError(f"{source}: field 'plan[{i}].reads': '{name}' is not a model input, "
                                      f"a Vars entry or an earlier host step's result")
            defined.update(step.writes)
    for i, entry in enumerate(manifest.outputs):
        if entry.base is None and entry.name not in defined:
            raise LaminaError(f"{source}: field 'outputs[{i}]' ({entry.name}): host-only output that no "
                              f"host step writes")


def read_manifest(path: str | Path) -> ModelManifest:
    """The checked manifest of a `.tmodel`, without reading the files it names."""
    source = str(path)
    value = read_json(Path(path), MANIFEST_BYTES, source)
    return parse_manifest(value, source)
