"""The CPU path's on-disk cache of compiled models: the JIT's object code, linked into a shared library.

Compiling ResNet-50 for the CPU costs seconds of lowering and LLVM
(docs/cpu-path.md); a model compiled once loads again in milliseconds. The
ExecutionEngine dumps the object it compiled (position-independent), the
system linker (`ld`, else `cc`) makes it a shared library linked against
MLIR's runtime libraries, and the next process `dlopen`s it instead of
compiling. Entries are keyed by the graph module's bytecode, the pipeline,
the LLVM opt level, Lamina's own source (a changed pass compiles anew) and
the host CPU (the code uses its vector extensions).

`LAMINA_CPU_CACHE` is the directory (default `$XDG_CACHE_HOME/lamina/cpu`,
else `~/.cache/lamina/cpu`); `off` (or `0`, or empty) disables the cache.
Without a linker on PATH nothing is cached, nor is a model that compiled in
under `MIN_COMPILE_SECONDS` of CPU time (the test suite's thousands of
one-op models would each cost a link and a file). A corrupt entry is reported in
one line on stderr, removed and compiled again. The directory is kept under
`LIMIT_BYTES`, the least recently used entries removed first; scratch
directories (`SCRATCH_PREFIX`) a killed compile left behind are removed once
older than `STALE_SCRATCH_SECONDS`. A directory that cannot be written is
reported in one line and the model compiled without it.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mlir import ir

import lamina

CACHE_VARIABLE = "LAMINA_CPU_CACHE"
DISABLED = frozenset({"", "0", "off", "no", "false"})
LIMIT_BYTES = 4 << 30
MIN_COMPILE_SECONDS = 1.0
SUFFIX = ".so"
SCRATCH_PREFIX = "lamina-cpu-"  # working directories inside the cache directory
STALE_SCRATCH_SECONDS = 3600  # no compile takes this long: an older scratch directory's compile was killed
# memref.copy of non-contiguous views calls into MLIR's C runner utils; parallel loops into
# MLIR's async runtime (its thread pool).
RUNTIME_LIBRARIES = [str(Path(ir.__file__).parent / "lib" / name)
                     for name in ("libmlir_c_runner_utils.so", "libmlir_async_runtime.so")]


def directory() -> Path | None:
    """Where compiled models are cached, or None when caching is off."""
    text = os.environ.get(CACHE_VARIABLE)
    if text is not None:
        return None if text.strip().lower() in DISABLED else Path(text).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lamina" / "cpu"


@functools.cache
def linker() -> list[str] | None:
    """The command that links a shared library (`ld -shared`, else `cc -shared`), or None without one."""
    for name in ("ld", "cc"):
        path = shutil.which(name)
        if path is not None:
            return [path, "-shared"]
    return None


@functools.cache
def _environment_fingerprint() -> bytes:
    """What else decides the compiled code: Lamina's source and the host CPU's model and features."""
    digest = hashlib.sha256()
    package = Path(lamina.__file__).parent
    for source in sorted(package.rglob("*.py")):
        digest.update(str(source.relative_to(package)).encode() + source.read_bytes())
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        digest.update("".join(line for line in lines if line.startswith(("model name", "flags"))).encode())
    except OSError:  # not Linux: the machine's name stands in
        digest.update(os.uname().machine.encode() if hasattr(os, "uname") else b"")
    return digest.digest()


def key(bytecode: bytes, pipeline: str, opt_level: int) -> str:
    return hashlib.sha256(_environment_fingerprint() + bytecode + f"{pipeline} O{opt_level}".encode()).hexdigest()


class SharedObjectEngine:
    """A compiled model in a shared library: `invoke` takes ExecutionEngine.invoke's arguments (pointers to
    pointers to memref descriptors) and calls the model's C interface (`_mlir_ciface_<function>`) with them."""

    def __init__(self, library: ctypes.CDLL, function: str):
        self.library = library
        self.entry = getattr(library, f"_mlir_ciface_{function}")  # AttributeError when missing
        self.entry.restype = None

    def invoke(self, function: str, *arguments) -> None:
        self.entry(*(ctypes.cast(argument.contents, ctypes.c_void_p) for argument in arguments))


def load(entry_key: str, function: str) -> SharedObjectEngine | None:
    """The cached model `entry_key`, or None when it is not cached (or corrupt: then it is removed)."""
    root = directory()
    if root is None:
        return None
    path = root / f"{entry_key}{SUFFIX}"
    if not path.is_file():
        return None
    try:
        engine = SharedObjectEngine(ctypes.CDLL(str(path)), function)
    except (OSError, AttributeError) as error:
        print(f"lamina: corrupt CPU cache entry {path} ({str(error).splitlines()[0]}); compiling again",
              file=sys.stderr)
        path.unlink(missing_ok=True)
        return None
    os.utime(path)  # most recently used
    return engine


def store(entry_key: str, engine, compile_seconds: float) -> None:
    """Link the ExecutionEngine's compiled object into the cache as `entry_key` (nothing without a cache or a
    linker, or when compiling took under MIN_COMPILE_SECONDS)."""
    root = directory()
    if root is None or linker() is None or compile_seconds < MIN_COMPILE_SECONDS:
        return
    try:
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX, dir=root) as scratch:
            obj, library = Path(scratch) / "model.o", Path(scratch) / f"model{SUFFIX}"
            engine.dump_to_object_file(str(obj))
            link([obj], library)
            keep(entry_key, library, compile_seconds)
    except (OSError, subprocess.CalledProcessError) as error:
        warn_unwritable(root, error)


def warn_unwritable(root: Path, error: Exception) -> None:
    """One line on stderr: the cache directory `root` could not be written (the model still compiles)."""
    lines = str(error).splitlines()
    print(f"lamina: could not write the CPU cache entry in {root} ({lines[0] if lines else type(error).__name__})",
          file=sys.stderr)


def keep(entry_key: str, library: Path, compile_seconds: float) -> None:
    """Move the linked `library` into the cache as `entry_key` (renamed: a concurrent reader never sees half a
    file), unless caching is off or compiling took under MIN_COMPILE_SECONDS."""
    root = directory()
    if root is None or compile_seconds < MIN_COMPILE_SECONDS:
        return
    try:
        root.mkdir(parents=True, exist_ok=True)
        os.replace(library, root / f"{entry_key}{SUFFIX}")
    except OSError as error:  # an unusable directory, or the library is in the system's temp directory
        warn_unwritable(root, error)
        return
    _trim(root)


def link(objects: list[Path], library: Path) -> None:
    """Link `objects` into the shared library `library` against MLIR's runtime libraries (C runner utils, async
    runtime), found at run time through an rpath. Raises CalledProcessError when the linker fails."""
    command = linker()
    search = sorted({str(Path(p).parent) for p in RUNTIME_LIBRARIES})
    rpaths = (f"-rpath={d}" if command[0].endswith("ld") else f"-Wl,-rpath,{d}" for d in search)
    subprocess.run([*command, "-o", str(library), *map(str, objects), *RUNTIME_LIBRARIES, *rpaths],
                   check=True, capture_output=True)


def _trim(root: Path) -> None:
    """Remove scratch directories older than STALE_SCRATCH_SECONDS, then the least recently used entries until
    the cache holds at most LIMIT_BYTES. Files another process removes meanwhile are skipped."""
    now = time.time()
    for path, status in _statuses(root.glob(f"{SCRATCH_PREFIX}*")):
        if now - status.st_mtime > STALE_SCRATCH_SECONDS:
            shutil.rmtree(path, ignore_errors=True)
    entries = sorted(_statuses(root.glob(f"*{SUFFIX}")), key=lambda entry: entry[1].st_mtime)
    total = sum(status.st_size for _, status in entries)
    for path, status in entries:
        if total <= LIMIT_BYTES:
            break
        total -= status.st_size
        path.unlink(missing_ok=True)


def _statuses(paths) -> list[tuple[Path, os.stat_result]]:
    """Each path with its stat, without the paths that vanished since they were listed."""
    found = []
    for path in paths:
        try:
            found.append((path, path.stat()))
        except FileNotFoundError:
            continue
    return found
