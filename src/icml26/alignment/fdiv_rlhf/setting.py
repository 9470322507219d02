"""The linear dueling bandits on which both algorithms of arXiv:2605.06977 are run.

* :func:`linear_dueling_bandit`: ``N`` contexts with ``K`` responses each, features
  ``phi(x, a) ~ N(0, I_d / d)`` and a true reward parameter ``theta*`` of norm ``theta_norm``;
  rewards ``r*(x, a) = theta*^T phi(x, a)``.
* :func:`reference_policy`: the reference policy ``pi0``. ``"uniform"`` covers every response
  alike. ``"poor"`` covers the optimum poorly: in each context the ``top`` best responses
  share only ``top_mass`` of the probability, the others share the rest uniformly, so
  ``pi*(a) / pi0(a)`` is large exactly where the regularised optimum wants to go and passive
  sampling from ``pi0`` rarely compares those responses.
* :func:`concentrability`: mean over contexts of ``max_a pi*(a | x) / pi0(a | x)``, the
  coverage coefficient of the instance.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive

__all__ = ["linear_dueling_bandit", "reference_policy", "concentrability"]


def linear_dueling_bandit(rng, N: int, K: int, d: int, theta_norm: float) -> tuple[np.ndarray, np.ndarray]:
    """``(phi (N, K, d), theta_star (d,))`` with ``phi ~ N(0, I/d)`` and ``||theta_star|| = theta_norm``."""
    rng = as_rng("rng", rng)
    N, K, d = check_int("N", N, minimum=1), check_int("K", K, minimum=2), check_int("d", d, minimum=1)
    theta_norm = check_positive("theta_norm", theta_norm)
    phi = rng.normal(size=(N, K, d)) / np.sqrt(d)
    theta = rng.normal(size=d)
    theta *= theta_norm / np.linalg.norm(theta)
    return phi, theta


def reference_policy(r_star, kind: str = "uniform", top: int = 4, top_mass: float = 0.05) -> np.ndarray:
    """``pi0: (N, K)`` for rewards ``r_star: (N, K)``: ``"uniform"`` or ``"poor"`` coverage (see module doc)."""
    r = as_array("r_star", r_star, ndim=2)
    N, K = r.shape
    if kind == "uniform":
        return np.full((N, K), 1.0 / K)
    if kind != "poor":
        raise ValueError(f"kind must be 'uniform' or 'poor', got {kind!r}")
    top = check_int("top", top, minimum=1, maximum=K - 1)
    top_mass = check_positive("top_mass", top_mass)
    if top_mass >= 1.0:
        raise ValueError(f"top_mass must be < 1, got {top_mass}")
    best = np.argsort(-r, axis=1)[:, :top]
    pi0 = np.full((N, K), (1.0 - top_mass) / (K - top))
    np.put_along_axis(pi0, best, top_mass / top, axis=1)
    return pi0


def concentrability(pi_star, pi0) -> float:
    """Mean over contexts of ``max_a pi_star / pi0``; both ``(N, K)``."""
    ps, p0 = as_array("pi_star", pi_star, ndim=2), as_array("pi0", pi0, ndim=2)
    if ps.shape != p0.shape:
        raise ValueError(f"pi_star and pi0 must have the same shape, got {ps.shape} and {p0.shape}")
    if np.any(p0 <= 0):
        raise ValueError("pi0 must be strictly positive")
    return float(np.mean(np.max(ps / p0, axis=1)))
