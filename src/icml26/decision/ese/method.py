"""Equilibrium State Estimation (ESE) for forecasting many interacting systems at once.

Xu, Song, Gao, Liu, "Once-for-All: Scalable Simultaneous Forecasting via Equilibrium
State Estimation", ICML 2026, arXiv:2606.13285 (Sec. 3: proportion reconstruction,
equilibrium state estimator, Algorithm 1; predictor).

The n systems with positive states ``s_{i,t}`` are rewritten as shares of their total::

    MS_t = sum_i s_{i,t},        gamma_{i,t} = s_{i,t} / MS_t          (proportion reconstruction)

The *equilibrium state* ES_t (a point of the simplex) is estimated from the systems'
attributes ``alpha_{i,k,t}`` (k = 1..m)::

    alpha'_{i,k,t} = (alpha_{i,k,t} - mean_i alpha_{.,k,t}) / (U_k - L_k)
    gamma_{i,tau} - 1/n  ~  (1/m) sum_k psi_k alpha'_{i,k,tau} + Gaussian noise   (MLE = least squares)
    ES^[0]_{i,t} = 1/n + (1/m) sum_k psi_k alpha'_{i,k,t}

and refined against recent history, ``ES <- ES + lambda * L`` with damping lambda = 0.5,
until the observed shares and the equilibrium implied by the attributes are cointegrated
(Engle-Granger test rejects "no cointegration" at level ``alpha``). One forecast for all
systems then follows from one forecast of the total::

    s_hat_{t+h} = theta_{t+h} MS_t ES_t = MS_hat_{t+h} ES_t

where ``theta`` comes from a linear AR model of the total (``ar_total_forecast``), or any
single-series model forecasts ``MS_hat`` (plug-in use, "base + ESE").

What the sources we could read do not pin down, and what we use instead (each is a
documented choice of this implementation, not of the paper):

* the correction vector ``L`` of Algorithm 1: ``L = mean of the last r shares - ES``
  (then clipped at 0 and renormalised onto the simplex); by default r = 1, i.e. the refined
  equilibrium is ``gamma_t + (1 - lambda)^j (ES^[0] - gamma_t)``, so the forecast depends on
  the gap between the current state and the attribute equilibrium, as the abstract says
  ("forecasts based on the difference between the current state and the estimated
  equilibrium"); r = p (the whole-window mean) is the other natural reading;
* the cointegration test: Engle-Granger with the cointegrating vector fixed to (1, -1),
  i.e. a Dickey-Fuller test without constant on ``gamma_{i,tau} - ES_{i,tau}``, where the
  implied equilibrium path ``ES_{i,tau} = ES_i + (1/m) sum_k psi_k (alpha'_{i,k,tau} -
  alpha'_{i,k,t})`` follows the attributes through the window; the n per-system p-values
  are aggregated by their median;
* the total model: AR(q) with intercept on the level of ``MS``, fitted by least squares
  (the conditional Gaussian MLE).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import check_finite


def _check_finite(name: str, x: np.ndarray) -> None:
    check_finite(name, x, nonempty=True)


def proportions(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Proportion reconstruction.

    S: (T, n) positive system states. Returns ``MS`` (T,) the totals and ``gamma`` (T, n)
    the shares (rows sum to one).
    """
    S = np.asarray(S, dtype=float)
    if S.ndim != 2:
        raise ValueError(f"S must have shape (T, n), got {S.shape}")
    _check_finite("S", S)
    if np.any(S <= 0):
        raise ValueError("S must be strictly positive (ESE works with shares of a total)")
    MS = S.sum(axis=1)
    return MS, S / MS[:, None]


def normalise_attributes(A: np.ndarray, lower: np.ndarray | None = None,
                         upper: np.ndarray | None = None) -> np.ndarray:
    """Centre attributes across systems and scale by their range.

    A: (..., n, m) attributes (any leading time axes). ``lower``/``upper``: (m,) theoretical
    bounds L_k, U_k; when omitted the empirical min/max over all of ``A`` is used. An attribute
    whose range is zero is mapped to 0. Returns alpha' with the shape of ``A``.
    """
    A = np.asarray(A, dtype=float)
    if A.ndim < 2:
        raise ValueError(f"A must have shape (..., n, m), got {A.shape}")
    _check_finite("A", A)
    m = A.shape[-1]
    axes = tuple(range(A.ndim - 1))
    L = A.min(axis=axes) if lower is None else np.asarray(lower, dtype=float)
    U = A.max(axis=axes) if upper is None else np.asarray(upper, dtype=float)
    if L.shape != (m,) or U.shape != (m,):
        raise ValueError(f"lower/upper must have shape ({m},), got {L.shape} and {U.shape}")
    if np.any(U < L):
        raise ValueError("upper must be >= lower for every attribute")
    rng = U - L
    centred = A - A.mean(axis=-2, keepdims=True)
    safe = np.where(rng > 0, rng, 1.0)
    return np.where(rng > 0, centred / safe, 0.0)


def fit_influence(gamma: np.ndarray, A_norm: np.ndarray) -> np.ndarray:
    """MLE (least squares under Gaussian errors) of the attribute influences psi.

    gamma: (p, n) shares over the window; A_norm: (p, n, m) normalised attributes.
    Model: ``gamma_{i,tau} - 1/n = (1/m) sum_k psi_k alpha'_{i,k,tau} + eps``. Returns psi (m,).
    """
    gamma = np.asarray(gamma, dtype=float)
    A_norm = np.asarray(A_norm, dtype=float)
    if gamma.ndim != 2 or A_norm.ndim != 3 or A_norm.shape[:2] != gamma.shape:
        raise ValueError(f"gamma must be (p, n) and A_norm (p, n, m); got {gamma.shape}, {A_norm.shape}")
    _check_finite("gamma", gamma)
    _check_finite("A_norm", A_norm)
    p, n, m = A_norm.shape
    X = A_norm.reshape(p * n, m) / m
    y = (gamma - 1.0 / n).reshape(p * n)
    psi, *_ = np.linalg.lstsq(X, y, rcond=None)
    return psi


def initial_equilibrium(A_norm_t: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """ES^[0] = 1/n + (1/m) A'_t psi.  A_norm_t: (n, m), psi: (m,). Returns (n,)."""
    A_norm_t = np.asarray(A_norm_t, dtype=float)
    psi = np.asarray(psi, dtype=float)
    if A_norm_t.ndim != 2 or psi.shape != (A_norm_t.shape[1],):
        raise ValueError(f"A_norm_t must be (n, m) and psi (m,); got {A_norm_t.shape}, {psi.shape}")
    n, m = A_norm_t.shape
    return 1.0 / n + A_norm_t @ psi / m


def _project_simplex(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0.0, None)
    s = v.sum()
    return v / s if s > 0 else np.full_like(v, 1.0 / v.size)


def df_pvalues(d: np.ndarray, lags: int = 1) -> np.ndarray:
    """Augmented Dickey-Fuller p-values without constant, one per column, vectorised.

    d: (p, n) series in columns. Regresses ``Delta d_tau`` on ``d_{tau-1}`` and ``lags``
    lagged differences (no intercept) and maps the t-statistic of the first coefficient to a
    MacKinnon p-value. Same numbers as ``statsmodels.tsa.stattools.adfuller(d[:, i],
    maxlag=lags, regression="n", autolag=None)``. Returns (n,).
    """
    d = np.asarray(d, dtype=float)
    if d.ndim != 2:
        raise ValueError(f"d must have shape (p, n), got {d.shape}")
    if lags < 0:
        raise ValueError(f"lags must be >= 0, got {lags}")
    p = d.shape[0]
    if p < lags + 5:
        raise ValueError(f"need at least {lags + 5} time points for the test, got {p}")
    dd = np.diff(d, axis=0)                                # (p-1, n)
    y = dd[lags:]                                          # (N, n)
    cols = [d[lags:-1]] + [dd[lags - j:-j] for j in range(1, lags + 1)]
    X = np.stack(cols, axis=-1).transpose(1, 0, 2)         # (n, N, k)
    yT = y.T                                               # (n, N)
    XtX = X.transpose(0, 2, 1) @ X                         # (n, k, k)
    Xty = np.einsum("nik,ni->nk", X, yT)
    k = X.shape[-1]
    XtX = XtX + 1e-12 * np.eye(k)
    beta = np.linalg.solve(XtX, Xty[..., None])[..., 0]
    resid = yT - np.einsum("nik,nk->ni", X, beta)
    dof = max(y.shape[0] - k, 1)
    s2 = (resid ** 2).sum(axis=1) / dof
    cov00 = np.linalg.inv(XtX)[:, 0, 0]
    se = np.sqrt(np.maximum(s2 * cov00, 1e-300))
    tstat = beta[:, 0] / se
    return _mackinnon_p_n(tstat)


def _mackinnon_p_n(tstat: np.ndarray) -> np.ndarray:
    """MacKinnon (1994) p-values of DF statistics without constant, N = 1, vectorised.

    Same piecewise normal-cdf-of-polynomial rule as ``statsmodels.tsa.adfvalues.mackinnonp``,
    using its coefficient tables; one call for all n systems keeps the estimator O(n).
    """
    from scipy.stats import norm
    from statsmodels.tsa import adfvalues as av

    small = np.asarray(av._tau_smallps["n"][0], dtype=float)
    large = np.asarray(av._tau_largeps["n"][0], dtype=float)
    star, lo, hi = av._tau_stars["n"][0], av._tau_mins["n"][0], av._tau_maxs["n"][0]
    t = np.asarray(tstat, dtype=float)
    poly_s = np.polynomial.polynomial.polyval(t, small)
    poly_l = np.polynomial.polynomial.polyval(t, large)
    p = norm.cdf(np.where(t <= star, poly_s, poly_l))
    return np.where(t > hi, 1.0, np.where(t < lo, 0.0, p))


@dataclass(frozen=True)
class Equilibrium:
    """Result of :func:`estimate_equilibrium`."""

    ES: np.ndarray        # (n,) equilibrium shares at the window's last time
    psi: np.ndarray       # (m,) attribute influences
    n_iter: int           # refinement steps taken
    converged: bool       # cointegration test rejected before the cap
    pvalue: float         # aggregated (median) p-value at the stop


def estimate_equilibrium(gamma: np.ndarray, A: np.ndarray, lam: float = 0.5, max_iter: int = 20,
                         alpha: float = 0.05, recent: int = 1, lags: int = 1,
                         lower: np.ndarray | None = None,
                         upper: np.ndarray | None = None) -> Equilibrium:
    """Equilibrium state estimator (Algorithm 1, with the stand-ins named in the module doc).

    gamma: (p, n) shares over the input window [t-p+1, t]; A: (p, n, m) raw attributes over
    the same window. ``lam`` is the damping (paper: 0.5), ``max_iter`` the iteration cap,
    ``alpha`` the level of the cointegration test, ``recent`` how many of the last shares the
    correction vector averages (1: the current state; p: the whole window).
    """
    gamma = np.asarray(gamma, dtype=float)
    A = np.asarray(A, dtype=float)
    if gamma.ndim != 2:
        raise ValueError(f"gamma must have shape (p, n), got {gamma.shape}")
    if A.ndim != 3 or A.shape[:2] != gamma.shape:
        raise ValueError(f"A must have shape (p, n, m) = {gamma.shape + ('m',)}, got {A.shape}")
    if not 0 < lam <= 1:
        raise ValueError(f"lam must be in (0, 1], got {lam}")
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0, got {max_iter}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    p, n = gamma.shape
    r = int(recent)
    if not 1 <= r <= p:
        raise ValueError(f"recent must be in [1, {p}], got {recent}")
    A_norm = normalise_attributes(A, lower, upper)
    psi = fit_influence(gamma, A_norm)
    m = A.shape[-1]
    drift = (A_norm - A_norm[-1]) @ psi / m            # (p, n) attribute-driven path offsets
    ES = _project_simplex(initial_equilibrium(A_norm[-1], psi))
    target = gamma[-r:].mean(axis=0)
    it = 0
    while True:
        pval = float(np.median(df_pvalues(gamma - (ES + drift), lags=lags)))
        if pval < alpha:
            return Equilibrium(ES, psi, it, True, pval)
        if it >= max_iter:
            return Equilibrium(ES, psi, it, False, pval)
        ES = _project_simplex(ES + lam * (target - ES))
        it += 1


def ar_fit(y: np.ndarray, q: int = 2) -> np.ndarray:
    """Least-squares AR(q) with intercept: ``y_t = c + sum_j phi_j y_{t-j}``. Returns [c, phi_1..phi_q]."""
    y = np.asarray(y, dtype=float)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got {y.shape}")
    _check_finite("y", y)
    if q < 1:
        raise ValueError(f"q must be >= 1, got {q}")
    if y.size < 2 * q + 2:
        raise ValueError(f"need at least {2 * q + 2} points to fit AR({q}), got {y.size}")
    X = np.column_stack([np.ones(y.size - q)] + [y[q - j:y.size - j] for j in range(1, q + 1)])
    coef, *_ = np.linalg.lstsq(X, y[q:], rcond=None)
    return coef


def ar_total_forecast(coef: np.ndarray, history: np.ndarray, h: int = 1) -> float:
    """Iterate a fitted AR model ``h`` steps ahead from ``history`` (1-D, most recent last)."""
    coef = np.asarray(coef, dtype=float)
    q = coef.size - 1
    hist = list(np.asarray(history, dtype=float)[-q:])
    if len(hist) < q:
        raise ValueError(f"history needs at least {q} points, got {len(hist)}")
    if h < 1:
        raise ValueError(f"h must be >= 1, got {h}")
    for _ in range(h):
        nxt = coef[0] + sum(coef[j] * hist[-j] for j in range(1, q + 1))
        hist.append(nxt)
    return float(hist[-1])


def ese_predict(MS_hat: float | np.ndarray, ES: np.ndarray) -> np.ndarray:
    """Predictor: ``s_hat = MS_hat * ES`` (MS_hat scalar or (k,) for k origins; ES (n,) or (k, n))."""
    ES = np.asarray(ES, dtype=float)
    MS_hat = np.asarray(MS_hat, dtype=float)
    if ES.ndim == 1:
        return MS_hat[..., None] * ES if MS_hat.ndim else MS_hat * ES
    if MS_hat.shape != ES.shape[:1]:
        raise ValueError(f"MS_hat must have shape ({ES.shape[0]},), got {MS_hat.shape}")
    return MS_hat[:, None] * ES


def ese_forecast(S: np.ndarray, A: np.ndarray, origins: np.ndarray, MS_hat: np.ndarray,
                 window: int = 50, **kwargs) -> tuple[np.ndarray, list[Equilibrium]]:
    """One-pass forecasts for all systems at each origin t (predicting time t + h).

    S: (T, n) states, A: (T, n, m) attributes, origins: (k,) indices t with t + 1 >= window,
    MS_hat: (k,) forecasts of the total for the target times (from any base model).
    Returns predictions (k, n) and the equilibrium found at each origin.
    """
    S = np.asarray(S, dtype=float)
    A = np.asarray(A, dtype=float)
    origins = np.asarray(origins, dtype=int)
    if A.shape[:2] != S.shape:
        raise ValueError(f"A must have shape {S.shape + ('m',)}, got {A.shape}")
    if np.any(origins + 1 < window) or np.any(origins >= S.shape[0]):
        raise ValueError(f"every origin needs a full window of {window} past points inside S")
    MS_hat = np.asarray(MS_hat, dtype=float)
    if MS_hat.shape != origins.shape:
        raise ValueError(f"MS_hat must have shape {origins.shape}, got {MS_hat.shape}")
    _, gamma = proportions(S)
    eqs = [estimate_equilibrium(gamma[t + 1 - window:t + 1], A[t + 1 - window:t + 1], **kwargs)
           for t in origins]
    ES = np.stack([e.ES for e in eqs])
    return ese_predict(MS_hat, ES), eqs
