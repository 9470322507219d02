"""The simulated world of the ddm-drift reproduction: watch sessions from two processes.

:func:`simulate_sessions` draws users, videos and signals and lets the drift-diffusion model with
a time-varying drift decide when each user stops watching (censored at the video length): the data
are well specified for the DDM, so that comparison is a sanity check of the estimator.
:func:`simulate_hazard_sessions` draws the same users, videos and signals but stops by a
proportional-hazards process (Weibull baseline, decaying hazard bump after the signal) that no
compared model matches exactly. :func:`xauc` is the field's pairwise ordering metric.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive


def simulate_sessions(n: int, d: int, rng: np.random.Generator, a: float, delta: float, kappa: float,
                      w: np.ndarray, b: float, dt: float) -> dict:
    """Watch sessions from the exact DDM: features x ~ N(0, I_d), video length L ~ U(10, 30), a signal
    at tau ~ U(0, L) in half of the sessions; watch time y = min(T, L), event = T <= L."""
    from icml26.decision.ddm_drift.method import NudgeDrift, simulate_first_passage_paths

    n, d = check_int("n", n, minimum=1), check_int("d", d, minimum=1)
    rng = as_rng("rng", rng)
    a, kappa, dt = check_positive("a", a), check_positive("kappa", kappa), check_positive("dt", dt)
    delta, b = _finite("delta", delta), _finite("b", b)
    w = as_array("w", w, ndim=1)
    if w.shape != (d,):
        raise ValueError(f"w must have shape ({d},), got {w.shape}")
    X = rng.standard_normal((n, d))
    L = rng.uniform(10.0, 30.0, n)
    tau = np.where(rng.random(n) < 0.5, rng.uniform(0.0, 1.0, n) * L, np.inf)
    mu_base = X @ w + b
    K = int(np.ceil(30.0 / dt))
    t = dt * np.arange(1, K + 1)
    Mt = np.stack([NudgeDrift(mu_base[i], delta, tau[i], kappa).M(t) for i in range(n)])
    T = simulate_first_passage_paths(Mt, a, 1.0, dt, seed=int(rng.integers(2**31)))
    y = np.minimum(T, L)
    return {"X": X, "L": L, "tau": tau, "y": y, "event": (T <= L).astype(float)}


def simulate_hazard_sessions(n: int, d: int, rng: np.random.Generator, shape: float, scale: float,
                             v: np.ndarray, bump: float, kappa: float, dt: float) -> dict:
    """Watch sessions from a proportional-hazards process that is not a DDM: the same features, video
    lengths and signals as :func:`simulate_sessions`, stopping hazard

        h_i(t) = (k / s_i) (t / s_i)^(k - 1) * (1 + bump * 1{t >= tau_i} exp(-(t - tau_i) / kappa)),

    with Weibull shape k = ``shape`` and scale s_i = ``scale`` * exp(x_i . v); T_i is where the
    cumulative hazard (on a grid of step ``dt``) first exceeds an Exp(1) draw. y = min(T, L)."""
    n, d = check_int("n", n, minimum=1), check_int("d", d, minimum=1)
    rng = as_rng("rng", rng)
    shape, scale, kappa, dt = (check_positive("shape", shape), check_positive("scale", scale),
                               check_positive("kappa", kappa), check_positive("dt", dt))
    bump = check_positive("bump", bump, strict=False)
    v = as_array("v", v, ndim=1)
    if v.shape != (d,):
        raise ValueError(f"v must have shape ({d},), got {v.shape}")
    X = rng.standard_normal((n, d))
    L = rng.uniform(10.0, 30.0, n)
    tau = np.where(rng.random(n) < 0.5, rng.uniform(0.0, 1.0, n) * L, np.inf)
    s = scale * np.exp(X @ v)
    t = dt * np.arange(1, int(np.ceil(30.0 / dt)) + 1)
    base = (shape / s[:, None]) * (t[None, :] / s[:, None]) ** (shape - 1.0)
    lag = t[None, :] - tau[:, None]
    boost = 1.0 + bump * np.where(lag >= 0, np.exp(-np.clip(lag, 0.0, None) / kappa), 0.0)
    H = np.cumsum(base * boost, axis=1) * dt
    E = rng.exponential(1.0, n)
    crossed = H >= E[:, None]
    T = np.where(crossed.any(axis=1), t[np.argmax(crossed, axis=1)], np.inf)
    y = np.minimum(T, L)
    return {"X": X, "L": L, "tau": tau, "y": y, "event": (T <= L).astype(float)}


def xauc(y_true: np.ndarray, y_pred: np.ndarray, rng: np.random.Generator, n_pairs: int = 200_000) -> float:
    """Fraction of random pairs (with distinct true values) whose predicted order matches the true order."""
    y_true, y_pred = as_array("y_true", y_true, ndim=1), as_array("y_pred", y_pred, ndim=1)
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true and y_pred must have the same shape, got {y_true.shape} and {y_pred.shape}")
    rng = as_rng("rng", rng)
    n_pairs = check_int("n_pairs", n_pairs, minimum=1)
    i = rng.integers(0, len(y_true), n_pairs)
    j = rng.integers(0, len(y_true), n_pairs)
    keep = y_true[i] != y_true[j]
    i, j = i[keep], j[keep]
    agree = np.sign(y_true[i] - y_true[j]) * np.sign(y_pred[i] - y_pred[j])
    return float(np.mean(np.where(agree == 0, 0.5, agree > 0)))




def _finite(name: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(v).__name__} {v!r}")
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return float(v)


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test (``tests/test_every_paper.py``)."""
    from icml26.decision.ddm_drift import method as M

    t = np.linspace(0.0, 5.0, 11)
    drift = M.NudgeDrift(0.5, 1.0, 1.0, 0.5)
    dens = M.tangent_density(t, 2.0, drift)
    any_shape = {"t": {"wrong shape"}}
    return [
        (M.NudgeDrift, {"mu0": 0.5, "delta": 1.0, "tau": 1.0, "kappa": 0.5}, {"tau": {"inf"}, "delta": {"negative"}}),
        (M.inverse_gaussian_density, {"t": t, "a": 2.0, "mu": 0.5, "sigma": 1.0}, any_shape),
        (M.tangent_density, {"t": t, "a": 2.0, "drift": drift, "sigma": 1.0}, any_shape),
        (M.frozen_density, {"t": t, "a": 2.0, "drift": drift, "sigma": 1.0}, any_shape),
        (M.blind_density, {"t": t, "a": 2.0, "drift": drift, "sigma": 1.0}, any_shape),
        (M.approx_cdf, {"t_grid": t, "a": 2.0, "drift": drift, "sigma": 1.0}, {"t_grid": {"wrong shape"}}),
        (M.cdf_from_density, {"t_grid": t, "density": dens}),
        (M.window_response_probability, {"W": 2.0, "a": 4.0, "mu0": 0.5, "delta": 1.0, "kappa": 0.5,
                                         "taus": np.array([0.0, 2.0]), "sigma": 1.0, "dt": 0.05}),
        (M.optimal_signal_time, {"W": 2.0, "a": 4.0, "mu0": 0.5, "delta": 1.0, "kappa": 0.5, "tau_max": 6.0,
                                 "sigma": 1.0, "n_tau": 5, "dt": 0.05}),
        (M.simulate_first_passage, {"M": drift.M, "a": 2.0, "sigma": 1.0, "n_paths": 50, "dt": 0.05,
                                    "horizon": 5.0, "seed": 0, "chunk": 50}),
        (M.simulate_first_passage_paths, {"Mt": np.tile(drift.M(0.05 * np.arange(1, 101)), (20, 1)), "a": 2.0,
                                          "sigma": 1.0, "dt": 0.05, "seed": 0}),
        (M.ks_distance, {"samples": np.array([0.5, 1.0, np.inf]), "t_grid": t, "F_grid": np.linspace(0, 1, 11)}),
        (simulate_sessions, {"n": 5, "d": 2, "rng": 0, "a": 2.0, "delta": 0.4, "kappa": 2.0,
                             "w": np.array([0.1, -0.1]), "b": 0.3, "dt": 0.1}, {"delta": {"negative"}, "b": {"negative"}}),
        (simulate_hazard_sessions, {"n": 5, "d": 2, "rng": 0, "shape": 1.5, "scale": 15.0,
                                    "v": np.array([0.1, -0.1]), "bump": 2.0, "kappa": 2.0, "dt": 0.1}),
        (xauc, {"y_true": np.array([1.0, 2.0, 3.0]), "y_pred": np.array([1.0, 3.0, 2.0]), "rng": 0, "n_pairs": 100}),
    ]
