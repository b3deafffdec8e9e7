"""Matrix products that keep OpenBLAS on one thread.

OpenBLAS multiplies M x K by K x N on one thread while M * K * N <= 2**18 (its SMP threshold); above
that it wakes its threads for every call. On a busy machine they cost far more CPU than they save: a loop of
64 x 16 x 1024 products took 40x the CPU of 16 x 16 x 1024 ones (load 15). NumPy calls BLAS once per item of
a stacked product, so products stacked in items below the threshold run on one thread without a Python loop.
"""

from __future__ import annotations

ONE_THREAD_VOLUME = 1 << 18


def one_thread_rows(terms: int, columns: int) -> int:
    """How many rows of `terms` terms into `columns` columns one product may have and stay on one thread."""
    return max(1, ONE_THREAD_VOLUME // (terms * columns))
