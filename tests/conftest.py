"""Test-wide settings: one BLAS/torch thread per test process (CI runs two processes on two cores)."""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


def pytest_configure(config):
    from icml26.core.seeding import set_threads

    set_threads(1)
