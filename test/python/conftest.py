"""Suite-wide test settings.

Hypothesis runs derandomized, without its example database and without
deadlines in every test (a test's own `@settings` still sets max_examples):
the same examples on every run and every machine, so the default suite
cannot turn red by drawing a new example, nor slow down by shrinking one
found on an earlier run.

The CPU path's compiled-model cache is a temporary directory for the whole
session (child processes inherit it), never the developer's own cache:
tests of the cache set their own directory over it.
"""

import os

import pytest
from hypothesis import settings

from lamina.runtime.cpu_object_cache import CACHE_VARIABLE

settings.register_profile("lamina", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("lamina")


@pytest.fixture(scope="session", autouse=True)
def cpu_cache_in_a_temporary_directory(tmp_path_factory):
    previous = os.environ.get(CACHE_VARIABLE)
    os.environ[CACHE_VARIABLE] = str(tmp_path_factory.mktemp("cpu-cache"))
    yield
    if previous is None:
        del os.environ[CACHE_VARIABLE]
    else:
        os.environ[CACHE_VARIABLE] = previous
