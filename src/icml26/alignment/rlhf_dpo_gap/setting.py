"""The finite bandits on which the RLHF / DPO dichotomy is checked (arXiv:2505.19770).

* :func:`random_instance`: a ground-truth reward ``r_star: (K,)`` with standard deviation
  drawn in ``[scale_lo, scale_hi]`` and a reference policy ``pi_ref: (K,)`` (Dirichlet(2) or
  uniform), the random instances of the Sec. 3 propositions.
* :func:`three_arm_example`: the strict-gap example built like the paper's appendix one
  (features ``(1, 0, -1)``, the middle arm bad by ``R``, uniform ``pi_ref``).
* :func:`sparse_instance`: the finite-sample setting of Sec. 4, rebuilt (the paper's exact
  construction was not recoverable): ``K`` responses with Gaussian reward features
  ``Psi: (K, d)`` and a ``k``-sparse reward ``r_star = Psi @ w_star``; the policy class is
  parameterised by ``Phi = [Psi @ Q, N]`` with ``Q`` a random rotation and ``N`` extra features
  the reward does not use: the reward is in both classes, but it is sparse only in the reward
  model's coordinates (in the policy's, ``theta_star = (Q^T w_star, 0)`` is dense), and the policy
  class is larger than the reward class (with ``extra = K - d`` it holds every policy).
* :func:`sample_comparisons`: ``n`` Bradley-Terry comparisons of pairs drawn from ``pi_ref``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from icml26.core.validate import as_rng, check_int, check_positive

__all__ = ["random_instance", "three_arm_example", "sparse_instance", "sample_comparisons"]


def random_instance(rng, K: int, scale_lo: float = 1.0, scale_hi: float = 2.0,
                    ref: str = "dirichlet") -> tuple[np.ndarray, np.ndarray]:
    """``(r_star (K,), pi_ref (K,))``: a Gaussian reward rescaled to std in ``[scale_lo, scale_hi]``."""
    rng = as_rng("rng", rng)
    K = check_int("K", K, minimum=2)
    lo, hi = check_positive("scale_lo", scale_lo), check_positive("scale_hi", scale_hi)
    if hi < lo:
        raise ValueError(f"scale_hi must be >= scale_lo, got {scale_hi} < {scale_lo}")
    if ref not in ("dirichlet", "uniform"):
        raise ValueError(f"ref must be 'dirichlet' or 'uniform', got {ref!r}")
    r = rng.normal(size=K)
    r = r / max(np.std(r), 1e-9) * rng.uniform(lo, hi)
    pi_ref = rng.dirichlet(2.0 * np.ones(K)) if ref == "dirichlet" else np.ones(K) / K
    return r, pi_ref


def three_arm_example(R: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(r_star (3,), psi (3, 1), pi_ref (3,))`` with ``r_star = (0, -R, 0)``, ``psi = (1, 0, -1)``.

    With the log-linear policy class on ``psi`` the two good arms sit at opposite ends of
    the single feature, so the class cannot lower the middle arm alone.
    """
    R = check_positive("R", R)
    return np.array([0.0, -R, 0.0]), np.array([[1.0], [0.0], [-1.0]]), np.ones(3) / 3


def sparse_instance(rng, K: int, d: int, k: int, extra: int = 0) -> dict:
    """Sec. 4 rebuilt: ``{"Psi" (K, d), "Phi" (K, d + extra), "Q" (d, d), "w_star" (d,), "r_star" (K,)}``.

    ``w_star`` has ``k`` entries of +-1; ``Q`` is a Haar-random rotation and ``Phi = [Psi @ Q, N]``
    with ``N: (K, extra)`` Gaussian features the reward does not use (``extra = K - d`` makes the
    policy class every policy over the ``K`` responses, as a full-capacity policy model).
    """
    rng = as_rng("rng", rng)
    K, d = check_int("K", K, minimum=2), check_int("d", d, minimum=1)
    k = check_int("k", k, minimum=1, maximum=d)
    extra = check_int("extra", extra, minimum=0)
    Psi = rng.normal(size=(K, d))
    w = np.zeros(d)
    w[rng.choice(d, k, replace=False)] = rng.choice([-1.0, 1.0], k)
    A = rng.normal(size=(d, d))
    Q, Rm = np.linalg.qr(A)
    Q = Q * np.sign(np.diag(Rm))  # Haar measure
    Phi = Psi @ Q
    if extra:
        Phi = np.hstack([Phi, rng.normal(size=(K, extra))])
    return {"Psi": Psi, "Phi": Phi, "Q": Q, "w_star": w, "r_star": Psi @ w}


def sample_comparisons(rng, r_star, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a (n,), b (n,), y (n,))``: pairs uniform over responses, ``y = 1`` when ``a`` is preferred."""
    rng = as_rng("rng", rng)
    r = np.asarray(r_star, dtype=float)
    n = check_int("n", n, minimum=1)
    K = r.size
    a, b = rng.integers(K, size=n), rng.integers(K, size=n)
    y = (rng.random(n) < expit(r[a] - r[b])).astype(int)
    return a, b, y
