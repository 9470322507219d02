"""Multi-State Importance Sampling (MSIS) overlap estimator (arXiv:2603.14515, Sec. 3).

Penalty-based variational Monte Carlo finds ``Ns`` states at once by minimising

    L = sum_s E_s + sum_{i,j} alpha_ij S_ij^2,

where ``E_s`` is the mean local energy of state ``s`` and ``S_ij`` the normalised overlap of
states ``i`` and ``j``. The wave functions ``psi_s`` are unnormalised, ``c_s = int psi_s^2``.
Both estimators below build ``S`` from the ratio matrix

    R_ij = <psi_i | psi_j> / c_i = E_{x ~ psi_i^2 / c_i}[ psi_j(x) / psi_i(x) ],
    S_ij = sign(R_ij) sqrt(max(R_ij R_ji, 0))              (symmetrised overlap).

* **Per-state estimator** (the prior practice): ``R_ij`` is the mean of ``psi_j / psi_i`` over
  the ``N`` samples of state ``i``'s own chain only.
* **MSIS**: the ``Ns x N`` samples of all chains are pooled. Pooled, they are draws from the
  mixture ``q(x) = (1/Ns) sum_k psi_k(x)^2 / c_k``; each state ``i`` reweights them with
  ``W_i(x) ∝ psi_i(x)^2 / Q(x)``, ``Q(x) = sum_k psi_k(x)^2 / c_k``, and ``R_ij`` becomes the
  self-normalised importance-sampling mean of ``psi_j / psi_i``:

    R_ij = sum_x psi_i(x) psi_j(x) / Q(x)  /  sum_x psi_i(x)^2 / Q(x).

  The normaliser ratios ``c_k / c_0`` are unknown; they are estimated from the same pooled
  samples by the bridge-sampling (Meng & Wong 1996) balance equations, solved as a linear
  system repeated a fixed number of times (10 in the authors' code), with ``c_0`` fixed,
  a small ridge, and an optional clip of the change per call (a factor 2 when warm-started
  across optimisation steps).

Input layout used throughout: ``log_abs_psi[s, n, k] = log|psi_k(x_{s,n})|`` and
``sign[s, n, k] = sign(psi_k(x_{s,n}))`` for sample ``n`` of chain ``s`` (drawn from
``psi_s^2``) and state ``k``: shape ``(Ns, N, Ns)``. Evaluating every state on every sample
is what the paper's Excited Pfaffians make cheap (one shared network, state-specific heads).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from icml26.core.validate import as_array, check_int, check_positive


def _check_samples(log_abs_psi: np.ndarray, sign: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    lp = as_array("log_abs_psi", log_abs_psi, finite=False)
    if lp.ndim != 3 or lp.shape[0] != lp.shape[2]:
        raise ValueError(f"log_abs_psi must have shape (Ns, N, Ns) (chain, sample, state), got {lp.shape}")
    if lp.shape[0] < 1 or lp.shape[1] < 1:
        raise ValueError(f"log_abs_psi must hold at least one state and one sample, got {lp.shape}")
    if not np.all(np.isfinite(lp)):
        raise ValueError("log_abs_psi contains NaN or inf (a wave function is zero or non-finite at a sample)")
    if sign is None:
        sg = np.ones_like(lp)
    else:
        sg = as_array("sign", sign, finite=False)
        if sg.shape != lp.shape:
            raise ValueError(f"sign must have the shape of log_abs_psi {lp.shape}, got {sg.shape}")
        if not np.all(np.isin(sg, (-1.0, 1.0))):
            raise ValueError("sign must hold only -1 and +1")
    return lp, sg


def overlap_from_ratio(R: np.ndarray) -> np.ndarray:
    """Symmetrised overlap ``S_ij = sign(R_ij) sqrt(max(R_ij R_ji, 0))`` from ratios ``R: (Ns, Ns)``."""
    R = as_array("R", R, finite=False)
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise ValueError(f"R must be a square (Ns, Ns) matrix, got shape {R.shape}")
    if not np.all(np.isfinite(R)):
        raise ValueError("R contains NaN or inf")
    return np.sign(R) * np.sqrt(np.clip(R * R.T, 0.0, None))


def per_state_ratio(log_abs_psi: np.ndarray, sign: np.ndarray | None = None) -> np.ndarray:
    """Per-state estimator ``R_ij = mean_n psi_j(x_{i,n}) / psi_i(x_{i,n})`` (own samples only).

    Args: ``log_abs_psi, sign: (Ns, N, Ns)``. Returns ``R: (Ns, Ns)`` with unit diagonal.
    """
    lp, sg = _check_samples(log_abs_psi, sign)
    own_lp = np.diagonal(lp, axis1=0, axis2=2).T  # (Ns, N): log|psi_i(x_{i,n})|
    own_sg = np.diagonal(sg, axis1=0, axis2=2).T
    ratio = sg * own_sg[:, :, None] * np.exp(lp - own_lp[:, :, None])  # (Ns, N, Ns)
    return ratio.mean(axis=1)


def _log_mixture(lp: np.ndarray, log_c: np.ndarray) -> np.ndarray:
    """``log Q(x) = log sum_k psi_k(x)^2 / c_k`` for pooled samples ``lp: (M, Ns)``."""
    return logsumexp(2.0 * lp - log_c[None, :], axis=1)


def normalizer_ratios(log_abs_psi: np.ndarray, log_c_init: np.ndarray | None = None,
                      iterations: int = 10, ridge: float = 1e-8,
                      max_update_factor: float | None = None) -> np.ndarray:
    """Estimate ``log(c_k / c_0)`` from the samples of all chains (bridge-sampling balance).

    With ``r_k = 1 / c_k`` and ``Q_r = sum_j r_j psi_j^2``, the exact ratios satisfy for each
    state ``a``: ``r_a sum_{b != a} E_b[psi_a^2 / Q_r] = sum_{d != a} r_d E_a[psi_d^2 / Q_r]``
    (probability flowing out of ``a`` balances the flow into it). Fixing ``r_0`` turns this
    into an ``(Ns-1)``-dimensional linear system, re-solved ``iterations`` times with ``Q_r``
    from the previous solution; ``ridge`` is added to its diagonal. The system is solved for
    multiplicative corrections of the current ``r`` so that it stays well scaled.

    Args:
        log_abs_psi: ``(Ns, N, Ns)`` samples as in the module docstring.
        log_c_init: ``(Ns,)`` starting ``log c_k`` (up to a constant); zeros by default.
        iterations: number of linear solves (>= 1).
        ridge: Tikhonov term for the linear solves (>= 0).
        max_update_factor: if given (> 1), ``c_k / c_0`` may change by at most this factor
            relative to ``log_c_init`` (the authors clip to 2 when warm-starting every step).

    Returns:
        ``(Ns,)`` array ``log(c_k / c_0)`` (first entry 0).
    """
    lp, _ = _check_samples(log_abs_psi)
    ns, n, _ = lp.shape
    iterations = check_int("iterations", iterations, minimum=1)
    ridge = check_positive("ridge", ridge, strict=False)
    if max_update_factor is not None and not check_positive("max_update_factor", max_update_factor) > 1:
        raise ValueError(f"max_update_factor must be > 1 or None, got {max_update_factor!r}")
    if log_c_init is None:
        log_c0 = np.zeros(ns)
    else:
        log_c0 = as_array("log_c_init", log_c_init, finite=False)
        if log_c0.shape != (ns,) or not np.all(np.isfinite(log_c0)):
            raise ValueError(f"log_c_init must be a finite array of shape ({ns},), got {log_c0.shape}")
    log_c0 = log_c0 - log_c0[0]
    if ns == 1:
        return np.zeros(1)
    log_c = log_c0.copy()
    eye = np.eye(ns, dtype=bool)
    for _ in range(iterations):
        # M[b, d] = E_{x ~ chain b}[psi_d^2 / (c_d Q)], with Q = sum_j psi_j^2 / c_j: every entry in [0, 1]
        log_q = _log_mixture(lp.reshape(ns * n, ns), log_c).reshape(ns, n)
        log_m = logsumexp(2.0 * lp - log_c[None, None, :] - log_q[:, :, None], axis=1) - np.log(n)
        M = np.exp(log_m)
        B = -M
        B[eye] = M.sum(axis=0) - np.diag(M)
        # unknowns: rho_d = r_d^new / r_d^old (rho_0 = 1), with r = 1/c
        rho_tail = np.linalg.solve(B[1:, 1:] + ridge * np.eye(ns - 1), -B[1:, 0])
        rho_tail = np.maximum(rho_tail, np.finfo(float).tiny)
        log_c = log_c - np.concatenate([[0.0], np.log(rho_tail)])
    if max_update_factor is not None:
        lim = np.log(max_update_factor)
        log_c = log_c0 + np.clip(log_c - log_c0, -lim, lim)
    return log_c - log_c[0]


def msis_ratio(log_abs_psi: np.ndarray, sign: np.ndarray | None = None,
               log_c: np.ndarray | None = None, **ratio_kwargs) -> np.ndarray:
    """MSIS estimate of ``R_ij = <psi_i|psi_j> / c_i`` from the pooled samples of all chains.

    ``R_ij = sum_x psi_i psi_j / Q  /  sum_x psi_i^2 / Q`` over all ``Ns * N`` pooled samples,
    ``Q = sum_k psi_k^2 / c_k``. If ``log_c`` (``(Ns,)``, ``log c_k`` up to a constant) is not
    given it is estimated with :func:`normalizer_ratios` (``ratio_kwargs`` are passed on).
    Each chain must contribute the same number of samples ``N`` so that the pool is a draw
    from the equal-weight mixture. Returns ``R: (Ns, Ns)`` with unit diagonal.
    """
    lp, sg = _check_samples(log_abs_psi, sign)
    ns, n, _ = lp.shape
    if log_c is None:
        log_c = normalizer_ratios(lp, **ratio_kwargs)
    else:
        log_c = as_array("log_c", log_c, finite=False)
        if log_c.shape != (ns,) or not np.all(np.isfinite(log_c)):
            raise ValueError(f"log_c must be a finite array of shape ({ns},), got {log_c.shape}")
    pooled = lp.reshape(ns * n, ns)
    log_q = _log_mixture(pooled, log_c)
    # a_i(x) = psi_i(x) / sqrt(Q(x)); |a_i|^2 <= c_i, so this never overflows
    a = sg.reshape(ns * n, ns) * np.exp(pooled - 0.5 * log_q[:, None])
    num = a.T @ a  # (Ns, Ns): sum_x psi_i psi_j / Q
    return num / np.diag(num)[:, None]


def overlap_penalty(S: np.ndarray, alpha: np.ndarray) -> float:
    """Penalty ``sum_{i,j} alpha_ij S_ij^2`` of the VMC objective (``alpha`` lower-triangular:
    only the higher state of a pair is pushed away). ``S, alpha: (Ns, Ns)``."""
    S = as_array("S", S, ndim=2)
    alpha = as_array("alpha", alpha, ndim=2)
    if S.shape[0] != S.shape[1]:
        raise ValueError(f"S must be a square (Ns, Ns) matrix, got {S.shape}")
    if alpha.shape != S.shape:
        raise ValueError(f"alpha must have the shape of S {S.shape}, got {alpha.shape}")
    return float(np.sum(alpha * S ** 2))


def triangular_alpha(n_states: int, penalty_scale: float = 4.0) -> np.ndarray:
    """Constant penalty weights ``alpha_ij = penalty_scale`` for ``i > j`` and 0 otherwise."""
    n_states = check_int("n_states", n_states, minimum=1)
    penalty_scale = check_positive("penalty_scale", penalty_scale)
    return penalty_scale * np.tril(np.ones((n_states, n_states)), k=-1)
