"""Input checks shared by the methods: each raises ``ValueError`` naming the argument."""

from __future__ import annotations

from typing import Any

import numpy as np


def check_finite(name: str, x: Any, *, nonempty: bool = False) -> None:
    """Raise if array or tensor ``x`` holds NaN or +-inf (or, with ``nonempty``, no element at all)."""
    if hasattr(x, "detach") and hasattr(x, "isfinite"):  # torch tensor, without importing torch
        size, ok = x.numel(), bool(x.isfinite().all())
    else:
        arr = np.asarray(x)
        size, ok = arr.size, bool(np.all(np.isfinite(arr)))
    if nonempty and size == 0:
        raise ValueError(f"{name} is empty")
    if not ok:
        raise ValueError(f"{name} contains NaN or inf")


def as_vector(name: str, x: Any, length: int | None = None) -> np.ndarray:
    """``x`` as a finite, non-empty 1-D float array (of ``length`` elements if given)."""
    v = np.asarray(x, dtype=float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {v.shape}")
    if length is not None and v.size != length:
        raise ValueError(f"{name} must have length {length}, got {v.size}")
    check_finite(name, v)
    return v
