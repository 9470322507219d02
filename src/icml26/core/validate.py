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


def check_int(name: str, x: Any, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``x`` as an ``int`` (bools, floats and strings are refused) within [minimum, maximum]."""
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(x).__name__} {x!r}")
    x = int(x)
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {x}")
    if maximum is not None and x > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {x}")
    return x


def check_positive(name: str, x: Any, *, strict: bool = True, finite: bool = True) -> float:
    """``x`` as a float that is > 0 (or >= 0 with ``strict=False``), finite unless ``finite=False``."""
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__} {x!r}")
    v = float(x)
    if np.isnan(v) or (finite and not np.isfinite(v)):
        raise ValueError(f"{name} must be a finite number, got {x!r}")
    if (v <= 0) if strict else (v < 0):
        raise ValueError(f"{name} must be {'>' if strict else '>='} 0, got {x!r}")
    return v


def as_rng(name: str, seed: Any) -> np.random.Generator:
    """A numpy Generator from a Generator, a non-negative int seed, or ``None`` (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{name} must be a numpy Generator, a non-negative int or None, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative seed, got {seed}")
    return np.random.default_rng(int(seed))


def as_array(name: str, x: Any, *, ndim: int | tuple[int, ...] | None = None, nonempty: bool = True,
             finite: bool = True, dtype: Any = float) -> Any:
    """``x`` as a float numpy array, or a torch tensor kept as a tensor, with checked ndim/size/finiteness.

    Strings, ``None`` and ragged sequences raise ``TypeError``; shape and value problems
    ``ValueError``; every message names the argument.
    """
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{name} must be array-like, got {type(x).__name__}")
    is_tensor = hasattr(x, "detach") and hasattr(x, "isfinite")
    if is_tensor:
        arr = x
        dims, size = arr.dim(), arr.numel()
    else:
        try:
            arr = np.asarray(x, dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric array, got {type(x).__name__}: {exc}") from None
        dims, size = arr.ndim, arr.size
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if dims not in allowed:
            raise ValueError(f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape "
                             f"{tuple(arr.shape)}")
    if nonempty and size == 0:
        raise ValueError(f"{name} is empty")
    if finite:
        check_finite(name, arr)
    return arr
