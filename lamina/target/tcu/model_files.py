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

import numpy as np

from lamina import LaminaError

from .architecture import Architecture
from .contained_files import read_contained
from .manifest import (LAYOUT, AcceleratorStep, ConstsFile, ConstsStep, HostStep, ModelManifest, PlanStep,
                       ProgramFile, TensorEntry)
from .manifest_schema import check_manifest, parse_manifest, read_manifest

__all__ = ["LAYOUT", "AcceleratorStep", "ConstsFile", "ConstsStep", "HostStep", "LoadedModel", "ModelManifest",
           "ModelPaths", "PlanStep", "ProgramFile", "TensorEntry", "parse_manifest", "read_manifest",
           "read_model", "write_model_files"]

HOST_MODULE_BYTES = 1 << 28  # a host graph module's text: large constants are elided into the .tdata


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
    check_manifest(manifest, f"{name}.tmodel")
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


def read_model(path: str | Path) -> LoadedModel:
    """Read a `.tmodel` and the files it names (relative to it), checking sizes."""
    path = Path(path)
    source = str(path)
    manifest = read_manifest(path)
    arch = manifest.arch
    program_bytes = read_contained(path.parent, manifest.prog.file_name, source, "prog.file_name",
                                   manifest.prog.size)
    if len(program_bytes) != manifest.prog.size:
        raise LaminaError(f"{source}: field 'prog.size' says {manifest.prog.size} bytes but "
                          f"{manifest.prog.file_name} has {len(program_bytes)}")
    images = []
    for i, consts in enumerate(manifest.consts):
        vector_bytes = arch.array_size * arch.data_type.storage.itemsize
        data = read_contained(path.parent, consts.file_name, source, f"consts[{i}].file_name",
                              consts.size * vector_bytes)
        if len(data) != consts.size * vector_bytes:
            raise LaminaError(f"{source}: field 'consts[{i}].size' says {consts.size} vectors "
                              f"({consts.size * vector_bytes} bytes) but {consts.file_name} has {len(data)} bytes")
        images.append(np.frombuffer(data, dtype=arch.data_type.storage).reshape(consts.size, arch.array_size))
    host_modules = {}
    for i, step in enumerate(manifest.plan):
        if isinstance(step, HostStep) and step.file_name not in host_modules:
            data = read_contained(path.parent, step.file_name, source, f"plan[{i}].file_name",
                                  HOST_MODULE_BYTES)
            try:
                host_modules[step.file_name] = data.decode("utf-8")
            except UnicodeDecodeError:
                raise LaminaError(f"{source}: field 'plan[{i}].file_name': "
                                  f"{step.file_name} is not UTF-8 text") from None
    return LoadedModel(path, manifest, program_bytes, tuple(images), host_modules)
