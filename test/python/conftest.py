"""Suite-wide test settings.

Hypothesis runs derandomized, without its example database and without
deadlines in every test (a test's own `@settings` still sets max_examples):
the same examples on every run and every machine, so the default suite
cannot turn red by drawing a new example, nor slow down by shrinking one
found on an earlier run.
"""

from hypothesis import settings

settings.register_profile("lamina", derandomize=True, database=None, deadline=None, print_blob=True)
settings.load_profile("lamina")
