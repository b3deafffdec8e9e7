"""The CPU path's on-disk cache of compiled models (`lamina/runtime/cpu_object_cache.py`).

A model compiled once is loaded by the next compile from the shared library
in the cache directory (here a temporary one), gives the interpreter's
outputs, and a corrupt entry is reported in one line and compiled again.
"""

from __future__ import annotations

import os

import pytest
from onnx import helper

from importer_models import imported, make_model, randn
from lamina.runtime import cpu_executor, cpu_object_cache, graph_interpreter

from test_cpu_path import assert_close

pytestmark = pytest.mark.skipif(cpu_object_cache.linker() is None, reason="no linker (ld or cc) on PATH")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(cpu_object_cache, "MIN_COMPILE_SECONDS", 0.0)  # the small model below is worth caching
    cpu_executor.forget_compiled_models()
    yield tmp_path
    cpu_executor.forget_compiled_models()


def _model():
    x, w = randn(1, 4, 9, 9), randn(8, 4, 3, 3)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["y"], name="relu")]
    module, context = imported(make_model(nodes, {"x": x}, ["y"], {"w": w}))
    return module, context, {"x": x}


def test_a_model_compiled_quickly_is_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, str(tmp_path))
    monkeypatch.setattr(cpu_object_cache, "MIN_COMPILE_SECONDS", 1e9)
    cpu_executor.forget_compiled_models()
    module, _context, _feeds = _model()
    cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    cpu_executor.forget_compiled_models()
    assert not _entries(tmp_path)


def _entries(directory):
    return sorted(directory.glob(f"*{cpu_object_cache.SUFFIX}"))


def test_a_second_compile_loads_the_cached_model(cache):
    module, _context, feeds = _model()
    first = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert len(_entries(cache)) == 1
    cpu_executor.forget_compiled_models()
    second = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    assert isinstance(second.engine, cpu_object_cache.SharedObjectEngine)
    reference = graph_interpreter.run(module, feeds)
    assert_close(first.run(feeds), reference)
    assert_close(second.run(feeds), reference)


def test_a_corrupt_entry_is_one_line_and_compiled_again(cache, capsys):
    module, _context, feeds = _model()
    cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    (entry,) = _entries(cache)
    entry.write_bytes(b"not a shared library")
    cpu_executor.forget_compiled_models()
    compiled = cpu_executor.compile_model(module, cpu_executor.cpu_pipeline(1))
    error = capsys.readouterr().err.strip()
    assert error.startswith("lamina: corrupt CPU cache entry") and "\n" not in error
    assert not isinstance(compiled.engine, cpu_object_cache.SharedObjectEngine)
    assert_close(compiled.run(feeds), graph_interpreter.run(module, feeds))
    assert entry.read_bytes()[:4] == b"\x7fELF"  # written again


@pytest.mark.parametrize("setting", ["off", "0", ""])
def test_the_variable_turns_the_cache_off(monkeypatch, tmp_path, setting):
    monkeypatch.setenv(cpu_object_cache.CACHE_VARIABLE, setting)
    assert cpu_object_cache.directory() is None
    monkeypatch.delenv(cpu_object_cache.CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cpu_object_cache.directory() == tmp_path / "lamina" / "cpu"


def test_trim_skips_files_another_process_removed(cache, monkeypatch):
    """A file listed by the glob may be gone by the time it is measured (another process trimmed it)."""
    for name in ("a", "b"):
        (cache / f"{name}{cpu_object_cache.SUFFIX}").write_bytes(b"x" * 10)
    listed = cpu_object_cache.Path.glob
    monkeypatch.setattr(cpu_object_cache.Path, "glob",
                        lambda self, pattern: [self / f"vanished{cpu_object_cache.SUFFIX}", *listed(self, pattern)])
    monkeypatch.setattr(cpu_object_cache, "LIMIT_BYTES", 10)
    cpu_object_cache._trim(cache)
    assert len(list(cache.iterdir())) == 1  # the least recently used of the two removed, the vanished one skipped


def test_trim_removes_scratch_directories_a_killed_compile_left(cache):
    stale, fresh = cache / f"{cpu_object_cache.SCRATCH_PREFIX}stale", cache / f"{cpu_object_cache.SCRATCH_PREFIX}fresh"
    for directory in (stale, fresh):
        directory.mkdir()
        (directory / "code.ll").write_text("")
    old = stale.stat().st_mtime - cpu_object_cache.STALE_SCRATCH_SECONDS - 60
    os.utime(stale, (old, old))
    cpu_object_cache._trim(cache)
    assert not stale.exists() and fresh.is_dir()  # a compile may still be working in the fresh one


def test_the_suite_caches_in_a_temporary_directory_not_the_developers(tmp_path_factory):
    """conftest.py points LAMINA_CPU_CACHE at the session's temporary directory."""
    assert cpu_object_cache.directory().is_relative_to(tmp_path_factory.getbasetemp())
