r"""First-passage times of a single-boundary drift-diffusion model with time-varying drift.

Paper: "Approximating Drift-Diffusion Models for User Decisions under Nudging and External
Information" (ICML 2026, poster 61350). Only the abstract was available to us: it states a closed-form
approximation of the first-passage-time (FPT) distribution of a single-boundary DDM with
time-dependent drift, valid for high thresholds, used to choose the time of an external signal that
maximises the probability of a response. The formula below is our own derivation of such an
approximation; the paper's expression may differ.

Model
-----
    X_0 = 0,   dX_t = mu(t) dt + sigma dW_t,   T = inf{t > 0 : X_t >= a},  a > 0.

With M(t) = int_0^t mu(s) ds, X_t = M(t) + sigma W_t, so T is the first time the driftless process
sigma W_t meets the moving barrier b(t) = a - M(t).

Derivation of the approximation (tangent / first-order Durbin)
--------------------------------------------------------------
Let p(t) = phi(b(t) / (sigma sqrt t)) / (sigma sqrt t) be the density of sigma W_t at the barrier.
Durbin (1971) shows that for a smooth barrier with b(0) > 0 the FPT density solves

    f(t) = (b(t)/t - b'(t)) p(t)
           - int_0^t f(s) [ (b(t) - b(s))/(t - s) - b'(t) ] p(t | s) ds,                       (1)

where p(t | s) is the density of sigma W_t at b(t) given sigma W_s = b(s). For a straight barrier
(constant drift) the bracket vanishes, and the first term is the exact inverse-Gaussian density

    f_IG(t) = a / (sigma sqrt(2 pi t^3)) exp(-(a - mu t)^2 / (2 sigma^2 t)).                   (2)

Dropping the integral in (1) for a general drift gives the closed form we use,

    f_hat(t) = [a - M(t) + t mu(t)] / (sigma sqrt(2 pi t^3)) exp(-(a - M(t))^2 / (2 sigma^2 t)),   (3)

i.e. at each t the inverse-Gaussian density of the straight line tangent to b at t (hence "tangent
approximation"). The neglected term only involves paths that reached the barrier at an earlier time
s < t and come back to it at t, weighted by the barrier's departure from its tangent,
(b(t) - b(s))/(t - s) - b'(t) = O(sup |b''| (t - s)) = O(sup |mu'| (t - s)) plus, for a drift jump of
size Delta at the signal time tau, a term of size Delta for s < tau < t. Why it vanishes for high
thresholds: (i) an earlier crossing at s has probability of order exp(-(a - M(s))^2/(2 sigma^2 s)),
which decays exponentially in a^2 for every s during the signal's transient; (ii) the bulk of the FPT
mass sits near t* with M(t*) = a, i.e. t* ~ a / mu0, so as a grows the crossing happens after the
signal transient (duration ~ kappa) has passed, where mu is (nearly) constant and b is (nearly)
straight, so the bracket in (1) is (nearly) zero. The relative error therefore goes to 0 as a grows
with the signal (Delta, kappa, tau) fixed, and it is largest when the total signal Delta * kappa is
comparable to a (the signal then moves the barrier by a large fraction of its height, at times when
earlier crossings are likely). (3) is exact for constant drift for every a.

The "frozen" ablation keeps the inverse-Gaussian numerator of (2) and only replaces mu t by M(t):
f_frozen(t) = a / (sigma sqrt(2 pi t^3)) exp(-(a - M(t))^2 / (2 sigma^2 t)).

Signal ("nudge") model (our parameterisation; the abstract does not give one):
    mu(t) = mu0 + Delta 1{t >= tau} exp(-(t - tau)/kappa),
    M(t)  = mu0 t + Delta kappa (1 - exp(-(t - tau)_+ / kappa)).

Optimal signal time. With this signal model M(t) is pointwise non-increasing in tau (an earlier signal
adds drift sooner), so P(T <= H) is maximised by tau = 0 for any horizon H: the timing question is only
interesting with a response window. We therefore maximise the probability of a response within a window
W after the signal, R(tau) = P(tau < T <= tau + W) = F(tau + W; tau) - F_IG(tau; mu0): a signal sent too
early finds the user far from the threshold, one sent too late finds that many users already responded.
tau* = argmax R_hat(tau) is found on a grid and refined by bounded golden-section search.

Exact reference: :func:`simulate_first_passage` samples sigma W on a time grid, adds M(t) (exact, no
Euler error in the drift) and corrects for crossings between grid points with the Brownian-bridge
probability exp(-2 (a - X_k)(a - X_{k+1}) / (sigma^2 dt)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from icml26.core.validate import as_array, as_rng, check_finite, check_int, check_positive

_SQRT_2PI = float(np.sqrt(2.0 * np.pi))


def _pos(name: str, v: float, allow_zero: bool = False) -> float:
    return check_positive(name, v, strict=not allow_zero)


def _real(name: str, v: float) -> float:
    """A finite real number (any sign)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(v).__name__} {v!r}")
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v!r}")
    return float(v)


def _times(t, name: str = "t") -> np.ndarray:
    t = as_array(name, t)
    if np.any(t < 0):
        raise ValueError(f"{name} must contain finite, non-negative times")
    return t


@dataclass(frozen=True)
class NudgeDrift:
    """mu(t) = mu0 + Delta 1{t >= tau} exp(-(t - tau)/kappa) and its integral M(t).

    ``delta = 0`` gives a constant drift. ``tau`` may be ``inf`` (no signal).
    """

    mu0: float
    delta: float = 0.0
    tau: float = np.inf
    kappa: float = 1.0

    def __post_init__(self) -> None:
        _real("mu0", self.mu0)
        _real("delta", self.delta)
        if isinstance(self.tau, bool) or not isinstance(self.tau, (int, float, np.integer, np.floating)):
            raise TypeError(f"tau must be a number >= 0 (or inf), got {type(self.tau).__name__} {self.tau!r}")
        if not (self.tau >= 0):
            raise ValueError(f"tau must be >= 0 (or inf), got {self.tau!r}")
        _pos("kappa", self.kappa)

    def mu(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        lag = t - self.tau
        on = lag >= 0
        return self.mu0 + self.delta * np.where(on, np.exp(-np.where(on, lag, 0.0) / self.kappa), 0.0)

    def M(self, t) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        lag = np.clip(t - self.tau, 0.0, None) if np.isfinite(self.tau) else np.zeros_like(t)
        return self.mu0 * t + self.delta * self.kappa * (1.0 - np.exp(-lag / self.kappa))


def inverse_gaussian_density(t, a: float, mu: float, sigma: float = 1.0) -> np.ndarray:
    """Exact FPT density (2) for constant drift ``mu``; t: any shape, 0 at t = 0."""
    t = _times(t)
    a, sigma, mu = _pos("a", a), _pos("sigma", sigma), _real("mu", mu)
    out = np.zeros_like(t)
    p = t > 0
    tp = t[p]
    out[p] = a / (sigma * _SQRT_2PI * tp**1.5) * np.exp(-(a - mu * tp) ** 2 / (2 * sigma**2 * tp))
    return out


def _check_drift(drift) -> None:
    if not isinstance(drift, NudgeDrift):
        raise TypeError(f"drift must be a NudgeDrift, got {type(drift).__name__}")


def blind_density(t, a: float, drift: NudgeDrift, sigma: float = 1.0) -> np.ndarray:
    """Signal-blind control: the exact inverse-Gaussian density of the base drift mu0, ignoring the
    signal altogether (what a constant-drift DDM would predict). t: any shape."""
    _check_drift(drift)
    return inverse_gaussian_density(t, a, drift.mu0, sigma)


def tangent_density(t, a: float, drift: NudgeDrift, sigma: float = 1.0) -> np.ndarray:
    """Closed-form approximation (3) of the FPT density; negative values (possible when the signal
    moves the barrier by more than a) are clipped to 0. t: any shape."""
    t = _times(t)
    a, sigma = _pos("a", a), _pos("sigma", sigma)
    _check_drift(drift)
    out = np.zeros_like(t)
    p = t > 0
    tp = t[p]
    b = a - drift.M(tp)
    num = b + tp * drift.mu(tp)
    out[p] = np.clip(num, 0.0, None) / (sigma * _SQRT_2PI * tp**1.5) * np.exp(-b**2 / (2 * sigma**2 * tp))
    return out


def frozen_density(t, a: float, drift: NudgeDrift, sigma: float = 1.0) -> np.ndarray:
    """Ablation (time-averaged drift): the inverse-Gaussian density at t with the constant drift
    replaced by the average drift M(t)/t up to t, i.e. numerator a with mu t replaced by M(t). t: any shape."""
    t = _times(t)
    a, sigma = _pos("a", a), _pos("sigma", sigma)
    _check_drift(drift)
    out = np.zeros_like(t)
    p = t > 0
    tp = t[p]
    b = a - drift.M(tp)
    out[p] = a / (sigma * _SQRT_2PI * tp**1.5) * np.exp(-b**2 / (2 * sigma**2 * tp))
    return out


def cdf_from_density(t_grid, density) -> np.ndarray:
    """Cumulative trapezoid of ``density`` on the increasing grid ``t_grid`` (both (G,) or (..., G)),
    starting at 0 and clipped to [0, 1]."""
    t_grid = as_array("t_grid", t_grid)
    density = as_array("density", density)
    if t_grid.ndim == 0 or density.ndim == 0 or t_grid.shape[-1] != density.shape[-1]:
        raise ValueError(f"t_grid and density disagree on the last axis: {t_grid.shape} vs {density.shape}")
    if t_grid.shape[-1] < 2 or np.any(np.diff(t_grid, axis=-1) <= 0):
        raise ValueError("t_grid must be strictly increasing with at least two points")
    inc = 0.5 * (density[..., 1:] + density[..., :-1]) * np.diff(t_grid, axis=-1)
    F = np.concatenate([np.zeros(inc.shape[:-1] + (1,)), np.cumsum(inc, axis=-1)], axis=-1)
    return np.clip(F, 0.0, 1.0)


def approx_cdf(t_grid, a: float, drift: NudgeDrift, sigma: float = 1.0, kind: str = "tangent") -> np.ndarray:
    """F_hat on ``t_grid`` (increasing, starting at or near 0) for ``kind`` in {"tangent", "frozen",
    "blind"} (our closed form (3), the time-averaged-drift control, the signal-blind control)."""
    dens = {"tangent": tangent_density, "frozen": frozen_density, "blind": blind_density}
    if kind not in dens:
        raise ValueError(f"kind must be 'tangent', 'frozen' or 'blind', got {kind!r}")
    t_grid = _times(t_grid, "t_grid")
    return cdf_from_density(t_grid, dens[kind](t_grid, a, drift, sigma))


def window_response_probability(W: float, a: float, mu0: float, delta: float, kappa: float, taus,
                                sigma: float = 1.0, dt: float = 0.005, kind: str = "tangent") -> np.ndarray:
    """R_hat(tau) = F_hat(tau + W; tau) - F_hat(tau; tau) = P_hat(tau < T <= tau + W): the probability
    that the user responds within a window W after a signal sent at tau, under the approximation
    ``kind`` (see :func:`approx_cdf`). taus: (K,) -> (K,)."""
    W, dt, a, sigma = _pos("W", W), _pos("dt", dt), _pos("a", a), _pos("sigma", sigma)
    mu0, delta, kappa = _real("mu0", mu0), _real("delta", delta), _pos("kappa", kappa)
    taus = np.atleast_1d(as_array("taus", taus, ndim=(0, 1)))
    if np.any(taus < 0):
        raise ValueError("taus must be finite and >= 0")
    out = np.empty(taus.size)
    for k, tau in enumerate(taus):
        n = max(int(np.ceil((tau + W) / dt)) + 1, 10)
        t = np.linspace(0.0, tau + W, n)
        F = approx_cdf(t, a, NudgeDrift(mu0, delta, float(tau), kappa), sigma, kind=kind)
        out[k] = F[-1] - np.interp(tau, t, F)
    return out


def optimal_signal_time(W: float, a: float, mu0: float, delta: float, kappa: float, tau_max: float,
                        sigma: float = 1.0, n_tau: int = 41, dt: float = 0.005,
                        kind: str = "tangent") -> tuple[float, float]:
    """tau* = argmax over [0, tau_max] of the approximate window response probability R_hat(tau):
    grid of ``n_tau`` points, then bounded golden-section (Brent) search between the neighbours of the
    best grid point. ``kind`` picks the approximation ("tangent" is ours; "frozen" and "blind" are the
    controls). Returns (tau*, R_hat(tau*))."""
    from scipy.optimize import minimize_scalar

    tau_max = _pos("tau_max", tau_max)
    n_tau = check_int("n_tau", n_tau, minimum=3)
    taus = np.linspace(0.0, tau_max, n_tau)
    vals = window_response_probability(W, a, mu0, delta, kappa, taus, sigma, dt, kind)
    k = int(np.argmax(vals))
    lo, hi = taus[max(k - 1, 0)], taus[min(k + 1, len(taus) - 1)]
    res = minimize_scalar(lambda s: -window_response_probability(W, a, mu0, delta, kappa, [s], sigma, dt,
                                                                 kind)[0],
                          bounds=(lo, hi), method="bounded", options={"xatol": 1e-3})
    if -res.fun >= vals[k]:
        return float(res.x), float(-res.fun)
    return float(taus[k]), float(vals[k])


def simulate_first_passage(M: Callable[[np.ndarray], np.ndarray], a: float, sigma: float, n_paths: int,
                           dt: float, horizon: float, seed: int = 0, chunk: int = 2000) -> np.ndarray:
    """Monte-Carlo FPTs of X_t = M(t) + sigma W_t through a, with Brownian-bridge crossing correction.

    M: vectorised cumulative drift t -> M(t). Returns (n_paths,) crossing times, ``inf`` when the path
    has not crossed by ``horizon``. A bridge crossing inside a step is placed uniformly in the step.
    The same ``seed`` gives the same Brownian paths for every M (common random numbers).
    """
    a, sigma, dt, horizon = _pos("a", a), _pos("sigma", sigma), _pos("dt", dt), _pos("horizon", horizon)
    n_paths = check_int("n_paths", n_paths, minimum=1)
    chunk = check_int("chunk", chunk, minimum=1)
    as_rng("seed", seed)
    if not callable(M):
        raise TypeError(f"M must be a callable t -> M(t), got {type(M).__name__}")
    n_steps = int(np.ceil(horizon / dt))
    t = dt * np.arange(1, n_steps + 1)
    Mt = np.asarray(M(t), dtype=float)
    if Mt.shape != t.shape or not np.all(np.isfinite(Mt)):
        raise ValueError("M must map a (K,) time array to a finite (K,) array")
    return _bridge_simulation(lambda rows: Mt[None, :], int(n_paths), n_steps, a, sigma, dt, seed, chunk)


def simulate_first_passage_paths(Mt: np.ndarray, a: float, sigma: float, dt: float, seed: int = 0,
                                 chunk: int = 2000) -> np.ndarray:
    """As :func:`simulate_first_passage` with one drift per path: ``Mt`` (n_paths, K) holds M_i at
    times dt, 2 dt, ..., K dt. Returns (n_paths,) crossing times (``inf`` if none by K dt)."""
    Mt = as_array("Mt", Mt, ndim=2)
    if Mt.shape[0] < 1 or Mt.shape[1] < 1:
        raise ValueError(f"Mt must be a finite (n_paths, K) array, got shape {Mt.shape}")
    a, sigma, dt = _pos("a", a), _pos("sigma", sigma), _pos("dt", dt)
    chunk = check_int("chunk", chunk, minimum=1)
    as_rng("seed", seed)
    return _bridge_simulation(lambda rows: Mt[rows], Mt.shape[0], Mt.shape[1], a, sigma, dt, seed, chunk)


def simulate_first_passage_many(Ms, a: float, sigma: float, n_paths: int, dt: float, horizon: float,
                                seed: int = 0, chunk: int = 2000) -> np.ndarray:
    """:func:`simulate_first_passage` for several cumulative drifts on one set of Brownian paths: row j
    equals ``simulate_first_passage(Ms[j], ..., seed=seed, chunk=chunk)`` exactly (the random draws of a
    chunk are made once and reused for every drift). Ms: sequence of J callables -> (J, n_paths)."""
    a, sigma, dt, horizon = _pos("a", a), _pos("sigma", sigma), _pos("dt", dt), _pos("horizon", horizon)
    n_paths = check_int("n_paths", n_paths, minimum=1)
    chunk = check_int("chunk", chunk, minimum=1)
    as_rng("seed", seed)
    Ms = list(Ms) if not callable(Ms) else [Ms]
    if not Ms or not all(callable(M) for M in Ms):
        raise ValueError("Ms must be a non-empty sequence of callables t -> M(t)")
    n_steps = int(np.ceil(horizon / dt))
    t = dt * np.arange(1, n_steps + 1)
    rows = []
    for M in Ms:
        Mt = np.asarray(M(t), dtype=float)
        if Mt.shape != t.shape or not np.all(np.isfinite(Mt)):
            raise ValueError("each M must map a (K,) time array to a finite (K,) array")
        rows.append(lambda r, Mt=Mt: Mt[None, :])
    return _bridge_simulation_many(rows, n_paths, n_steps, a, sigma, dt, seed, chunk)


def _bridge_simulation(M_rows, n_paths, n_steps, a, sigma, dt, seed, chunk):
    return _bridge_simulation_many([M_rows], n_paths, n_steps, a, sigma, dt, seed, chunk)[0]


def _bridge_simulation_many(M_rows_list, n_paths, n_steps, a, sigma, dt, seed, chunk):
    rng = np.random.default_rng(seed)
    out = np.full((len(M_rows_list), n_paths), np.inf)
    s2dt = np.float32(2.0 / (sigma**2 * dt))
    for start in range(0, n_paths, int(chunk)):
        m = min(int(chunk), n_paths - start)
        # the draws of a chunk, in the order the one-drift version made them: normals, uniforms, offsets
        W = np.cumsum(rng.standard_normal((m, n_steps), dtype=np.float32), axis=1)
        W *= np.float32(sigma * np.sqrt(dt))
        u = rng.random((m, n_steps), dtype=np.float32)
        frac = rng.random(m)
        for j, M_rows in enumerate(M_rows_list):
            gap_after = np.float32(a) - (W + M_rows(slice(start, start + m)).astype(np.float32))
            gap_before = np.empty_like(gap_after)
            gap_before[:, 0] = a
            gap_before[:, 1:] = gap_after[:, :-1]
            with np.errstate(over="ignore"):
                p_bridge = np.exp(-s2dt * np.clip(gap_before, 0, None) * np.clip(gap_after, 0, None))
            crossed = (gap_after <= 0) | (u < p_bridge)
            anyc = crossed.any(axis=1)
            k = np.argmax(crossed, axis=1)
            out[j, start:start + m] = np.where(anyc, (k + frac) * dt, np.inf)
    return out


def ks_distance(samples: np.ndarray, t_grid, F_grid) -> float:
    """sup_t |F_grid(t) - F_emp(t)| over the grid points (and just before them), where F_emp is the
    empirical CDF of ``samples`` (``inf`` = not crossed by the horizon)."""
    s = as_array("samples", samples, ndim=1, finite=False)
    if np.any(np.isnan(s)):
        raise ValueError("samples contains NaN (use inf for paths that never crossed)")
    s = np.sort(s)
    t_grid = as_array("t_grid", t_grid, ndim=1)
    F_grid = as_array("F_grid", F_grid, ndim=1)
    if t_grid.shape != F_grid.shape:
        raise ValueError("t_grid and F_grid must have the same shape")
    emp_right = np.searchsorted(s, t_grid, side="right") / s.size
    emp_left = np.searchsorted(s, t_grid, side="left") / s.size
    return float(max(np.max(np.abs(F_grid - emp_right)), np.max(np.abs(F_grid - emp_left))))


# --------------------------------------------------------------------------- watch-time model (MLE)
@dataclass
class WatchTimeDDM:
    """Per-session DDM for watch time fitted by maximum likelihood with the tangent density (3).

    Session i: drift mu_i(t) = b + w . x_i + Delta 1{t >= tau_i} exp(-(t - tau_i)/kappa), threshold a,
    sigma = 1 (fixes the scale). The user stops watching when X hits a; watching is censored at the
    video length L_i. Fitted attributes: w (d,), b, a, delta, kappa.
    """

    w: np.ndarray | None = None
    b: float = 0.0
    a: float = 1.0
    delta: float = 0.0
    kappa: float = 1.0
    n_grid: int = 120

    def _torch_terms(self, params, X, tau, L, y, event):
        import torch

        d = X.shape[1]
        w, b = params[:d], params[d]
        a, delta, kappa = torch.exp(params[d + 1]), params[d + 2], torch.exp(params[d + 3])
        mu_base = X @ w + b                                                # (n,)
        g = torch.linspace(0.0, 1.0, self.n_grid, dtype=X.dtype)[1:]       # (G-1,)
        tg = L[:, None] * g[None, :]                                       # (n, G-1) grid on (0, L_i]
        t_all = torch.cat([tg, y[:, None]], dim=1)                          # last column: observed time

        def dens(t):
            lag = t - tau[:, None]
            on = (lag >= 0).to(t.dtype)
            e = torch.exp(-torch.clamp(lag, min=0.0) / kappa) * on
            M = mu_base[:, None] * t + delta * kappa * (1.0 - torch.exp(-torch.clamp(lag, min=0.0) / kappa)) * on
            mu = mu_base[:, None] + delta * e
            bnd = a - M
            num = torch.clamp(bnd + t * mu, min=1e-12)
            return num / (2.5066282746310002 * t**1.5) * torch.exp(-bnd**2 / (2.0 * t))

        f = dens(t_all)
        f_grid, f_obs = f[:, :-1], f[:, -1]
        dtg = L / (self.n_grid - 1)
        F_L = torch.clamp(dtg * (f_grid.sum(1) - 0.5 * f_grid[:, -1]), 0.0, 1.0 - 1e-9)
        F_cum = torch.clamp(torch.cumsum(f_grid, 1) * dtg[:, None] - 0.5 * dtg[:, None] * f_grid, 0.0, 1.0)
        return f_obs, F_L, F_cum, tg

    def nll(self, X, tau, L, y, event, params=None):
        """Mean negative log-likelihood per session: event -> -log f_hat(y), censored -> -log(1 - F_hat(L))."""
        import torch

        if params is None:
            params = self._params()
        f_obs, F_L, _, _ = self._torch_terms(params, *self._tensors(X, tau, L, y, event))
        ev = torch.as_tensor(np.asarray(event, dtype=float))
        ll = ev * torch.log(torch.clamp(f_obs, min=1e-300)) + (1 - ev) * torch.log1p(-F_L)
        return -ll.mean()

    @staticmethod
    def _tensors(X, tau, L, y, event):
        import torch

        X = torch.as_tensor(np.asarray(X, dtype=float))
        tau = torch.as_tensor(np.where(np.isfinite(tau), tau, 1e9).astype(float))
        return (X, tau, torch.as_tensor(np.asarray(L, dtype=float)),
                torch.as_tensor(np.clip(np.asarray(y, dtype=float), 1e-6, None)), event)

    def _params(self):
        import torch

        return torch.as_tensor(np.concatenate([self.w, [self.b, np.log(self.a), self.delta, np.log(self.kappa)]]))

    def fit(self, X, tau, L, y, event, max_iter: int = 200) -> "WatchTimeDDM":
        """X: (n, d) features; tau: (n,) signal times (inf = none); L: (n,) video lengths; y: (n,)
        observed watch time min(T, L); event: (n,) 1 if the user stopped before the end.

        Sets ``train_nll_start_`` and ``train_nll_`` (mean training NLL at the start and at the end of
        the L-BFGS fit), the evidence that the fit moved."""
        import torch

        X = as_array("X", X, ndim=2)
        n = X.shape[0]
        tau = as_array("tau", tau, ndim=1, finite=False)
        if np.any(np.isnan(tau)) or np.any(tau < 0):
            raise ValueError("tau must hold signal times >= 0 (inf = no signal), without NaN")
        L, y, event = as_array("L", L, ndim=1), as_array("y", y, ndim=1), as_array("event", event, ndim=1)
        for name, v in (("tau", tau), ("L", L), ("y", y), ("event", event)):
            if v.shape != (n,):
                raise ValueError(f"{name} must have shape ({n},), got {v.shape}")
        if np.any(L <= 0):
            raise ValueError("L must be positive")
        if np.any(y < 0):
            raise ValueError("y must be non-negative")
        if not np.all((event == 0) | (event == 1)):
            raise ValueError("event must hold 0 (censored) or 1 (stopped)")
        max_iter = check_int("max_iter", max_iter, minimum=1)
        d = X.shape[1]
        ev = np.asarray(event, dtype=float)
        # start: inverse-Gaussian moment guess from the uncensored sessions
        y_ev = np.asarray(y)[ev > 0]
        m = float(np.mean(y_ev)) if y_ev.size else float(np.mean(L))
        a0 = 2.0
        p = torch.tensor(np.concatenate([np.zeros(d), [a0 / m, np.log(a0), 0.0, 0.0]]), requires_grad=True)
        tens = self._tensors(X, tau, L, y, event)
        evt = torch.as_tensor(ev)
        opt = torch.optim.LBFGS([p], lr=1.0, max_iter=int(max_iter), line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = _mean_nll(p, tens, evt, self)
            loss.backward()
            return loss

        with torch.no_grad():
            self.train_nll_start_ = float(_mean_nll(p, tens, evt, self))
        opt.step(closure)
        with torch.no_grad():
            self.train_nll_ = float(_mean_nll(p, tens, evt, self))
        q = p.detach().numpy()
        self.w, self.b = q[:d].copy(), float(q[d])
        self.a, self.delta, self.kappa = float(np.exp(q[d + 1])), float(q[d + 2]), float(np.exp(q[d + 3]))
        return self

    def predict_restricted_mean(self, X, tau, L) -> np.ndarray:
        """E_hat[min(T, L_i)] = int_0^{L_i} (1 - F_hat(t)) dt for each session: (n,)."""
        import torch

        n = np.shape(L)[0]
        with torch.no_grad():
            _, _, F_cum, tg = self._torch_terms(self._params(), *self._tensors(X, tau, L, np.ones(n), np.ones(n)))
        S = (1.0 - F_cum).numpy()
        dtg = np.asarray(L, dtype=float) / (self.n_grid - 1)
        return dtg * (S.sum(1) + 0.5 * (1.0 - S[:, -1]))


def _mean_nll(p, tens, evt, model: WatchTimeDDM):
    """Mean training negative log-likelihood of ``model`` at parameters ``p`` (torch scalar)."""
    import torch

    f_obs, F_L, _, _ = model._torch_terms(p, *tens)
    return -(evt * torch.log(torch.clamp(f_obs, min=1e-300)) + (1 - evt) * torch.log1p(-F_L)).mean()
