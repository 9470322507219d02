"""Determinism helpers for experiments: one seed drives python, numpy and torch."""

from __future__ import annotations

import os
import random

import numpy as np


def seed_everything(seed: int) -> np.random.Generator:
    """Seed ``random``, numpy's legacy global state and torch (if installed); return a fresh Generator."""
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed) % (2**32))
    import sys

    if "torch" in sys.modules:  # seed torch only where the experiment uses it (import it first)
        sys.modules["torch"].manual_seed(int(seed))
    return np.random.default_rng(int(seed))


def set_threads(n: int) -> None:
    """Limit BLAS/OpenMP/torch threads in this process (the runner calls it per worker)."""
    n = max(1, int(n))
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[var] = str(n)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(n)
    except ImportError:
        pass
    import sys

    if "torch" in sys.modules:
        import torch

        torch.set_num_threads(n)
