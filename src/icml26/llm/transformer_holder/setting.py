"""Bounded alpha-Hölder targets and noisy regression data for the Transformer-Hölder study.

* :func:`cusp_target`: f(x) = sum_j a_j ||x - c_j||^alpha on [0,1]^{d0}. Each term is alpha-Hölder
  with constant 1 (t -> t^alpha is subadditive and the norm is 1-Lipschitz), so f's Hölder
  constant is at most H = sum_j |a_j| (returned), and the cusps at c_j are where grid
  interpolation errs most -- the sup-error estimates include those points.
* :func:`weierstrass`: W(x) = sum_{k<K} 2^{-k alpha} cos(2^k pi x), rough at every scale down to
  2^{-K}; used for regression, where a target with only a few kinks would let local averages
  beat the Hölder-class rate.
* :func:`regression_data`: y = f(x) + N(0, sigma^2) with x uniform on [0,1]^{d0}.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from icml26.core.validate import as_rng, check_int, check_positive


def cusp_target(d0: int, alpha: float, centers: np.ndarray, weights: np.ndarray
                ) -> tuple[Callable[[np.ndarray], np.ndarray], float]:
    """(f, H): f(x) = sum_j w_j ||x - c_j||^alpha, x: (m, d0) -> (m,); H = sum_j |w_j| bounds its Hölder constant."""
    c = np.asarray(centers, dtype=float).reshape(-1, d0)
    w = np.asarray(weights, dtype=float).reshape(-1)
    if c.shape[0] != w.shape[0]:
        raise ValueError("centers and weights must have the same number of terms")

    def f(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float).reshape(-1, d0)
        r = np.linalg.norm(x[:, None, :] - c[None, :, :], axis=-1)
        return (r ** alpha) @ w

    return f, float(np.abs(w).sum())


def random_cusp_target(d0: int, alpha: float, terms: int = 6, *, seed: int | np.random.Generator = 0):
    """A cusp target with ``terms`` random centres in (0,1)^{d0} and weights in +-[0.5, 1]; returns (f, H, centres)."""
    rng = as_rng("seed", seed)
    terms = check_int("terms", terms, minimum=1)
    centers = rng.uniform(0.05, 0.95, size=(terms, d0))
    weights = rng.uniform(0.5, 1.0, size=terms) * rng.choice([-1.0, 1.0], size=terms)
    f, H = cusp_target(d0, alpha, centers, weights)
    return f, H, centers


def weierstrass(alpha: float, terms: int = 12) -> Callable[[np.ndarray], np.ndarray]:
    """W(x) = sum_{k<terms} 2^{-k alpha} cos(2^k pi x) on [0,1] (x: (m,) or (m, 1))."""
    a = check_positive("alpha", alpha)
    K = check_int("terms", terms, minimum=1)
    amp = 2.0 ** (-a * np.arange(K))
    freq = np.pi * 2.0 ** np.arange(K)

    def f(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float).reshape(-1)
        return np.cos(x[:, None] * freq) @ amp

    return f


def regression_data(f: Callable[[np.ndarray], np.ndarray], n: int, *, d0: int = 1, sigma: float = 0.5,
                    seed: int | np.random.Generator = 0) -> tuple[np.ndarray, np.ndarray]:
    """(x, y): x uniform on [0,1]^{d0}, shape (n, d0); y = f(x) + N(0, sigma^2), shape (n,)."""
    rng = as_rng("seed", seed)
    n = check_int("n", n, minimum=1)
    x = rng.random((n, check_int("d0", d0, minimum=1)))
    return x, f(x) + check_positive("sigma", sigma, strict=False) * rng.normal(size=n)


def thirds_cusp_target(d0: int, alpha: float, *, seed: int | np.random.Generator = 0):
    """A cusp at c = (1/3, ...) or (2/3, ...) plus a small smooth wave; returns (f, H, cusp points).

    On dyadic grids (N = 2^j cells per axis) frac(c N) alternates between 1/3 and 2/3, and the
    interpolation error of ||x - c||^alpha is symmetric under that swap, so its sup error is
    exactly e h^alpha: the construction's rate shows without the luck of where random cusps
    fall. The smooth part b sin(2 pi x_1 + phi), |b| <= 0.05, has Hölder constant at most
    2 |b| pi^alpha, added to H.
    """
    rng = as_rng("seed", seed)
    d0 = check_int("d0", d0, minimum=1, maximum=2)
    a = check_positive("alpha", alpha)
    c = np.full((1, d0), rng.choice([1 / 3, 2 / 3]))
    w = rng.uniform(0.5, 1.0) * rng.choice([-1.0, 1.0])
    b, phi = rng.uniform(-0.05, 0.05), rng.uniform(0, 2 * np.pi)
    cusp, H = cusp_target(d0, a, c, np.array([w]))

    def f(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float).reshape(-1, d0)
        return cusp(x) + b * np.sin(2 * np.pi * x[:, 0] + phi)

    return f, H + 2 * abs(b) * np.pi ** a, c
