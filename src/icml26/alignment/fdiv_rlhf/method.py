"""Online RLHF with a general f-divergence regulariser (Wu, Shi, Yang, Shen; arXiv:2605.06977).

Setting (a KL-style regularised contextual dueling bandit, Section 2 of the paper). For a
context ``x`` with ``K`` candidate responses, reward ``r(x, .)`` and reference policy
``pi0(. | x)`` the objective is

    J_f(pi; x) = sum_a pi(a) r(x, a) - (1 / eta) * D_f(pi || pi0),
    D_f(pi || pi0) = sum_a pi0(a) f(pi(a) / pi0(a)),            f convex, f(1) = 0.

Its maximiser has the closed form (KKT; ``h = (f')^{-1}``, clipped at 0 where ``f'`` is
bounded below, e.g. chi-squared)

    pi_r(a | x) = pi0(a | x) * h(eta * (r(x, a) - lambda_r(x))),

with the normaliser ``lambda_r(x)`` the unique root of ``sum_a pi_r(a | x) = 1``
(:func:`optimal_policy`; vectorised bisection). Preferences follow Bradley-Terry,
``P(a1 > a2 | x) = sigma(r*(x, a1) - r*(x, a2))``, with linear rewards
``r_theta(x, a) = theta^T phi(x, a)``.

Two ways of choosing the compared responses (the paper's "two tales of sampling"):

* **Algorithm 1, optimism** (:func:`optimistic_reward`): fit ``theta_hat`` by regularised
  logistic MLE on past comparisons, form ``r_tilde = r_hat + b`` with the elliptical bonus
  ``b_t(x, a) = beta * || phi(x, a) - E_{pi0} phi(x, .) ||_{Sigma_t^{-1}}``,
  ``Sigma_t = lam I + sum_s dphi_s dphi_s^T``, play ``a1 ~ pi_{r_tilde}`` and take the second
  response from ``pi0``.
* **Algorithm 2, sensitivity ("derivative as uncertainty")** (:func:`sensitivity_sampler`):
  no bonus; play ``a1 ~ pi_{r_hat}`` and draw ``a2`` from
  ``pi_tilde(a) ∝ pi0(a) h'(eta (r_hat(a) - lambda))``, proportional to how strongly the
  optimal policy reacts to a change of ``r(a)``. For reverse KL ``h' = h`` so this is
  on-policy (greedy) sampling; for chi-squared ``h'`` is constant on the support, so it is
  ``pi0`` restricted to the support of ``pi_{r_hat}``.

The output policy after ``t`` rounds is ``pi_{r_hat_t}``; its suboptimality is
``J_f(pi*) - J_f(pi_{r_hat_t})`` averaged over contexts. The paper proves ``O(log T)``
regret and ``O(1/T)`` suboptimality for both algorithms across the f-class. The exact
bonus constant and the precise form of Algorithm 2's sampler are our reconstruction.

Divergences and TRL (``trl.DPOConfig(f_divergence_type=...)``, the f-DPO options):

==================  ===========================================  ===============================================
``divergence(...)``  ``f(u)``                                     TRL ``f_divergence_type``
==================  ===========================================  ===============================================
``"reverse_kl"``     ``u log u``                                  ``"reverse_kl"`` (the default; plain DPO)
``"forward_kl"``     ``-log u``                                   ``"alpha_divergence"`` with
                                                                  ``f_alpha_divergence_coef=1.0`` (TRL's default
                                                                  coefficient; ``f'`` differs by a constant)
``"alpha"``          ``(u^{1-a} - (1-a) u - a) / (a (a - 1))``    ``"alpha_divergence"``, ``f_alpha_divergence_coef=a``
``"js"``             ``u log u - (u + 1) log((u + 1) / 2)``       ``"js_divergence"``
``"chi2"``           ``(u - 1)^2``                                none: its optimum can put zero mass on responses,
                                                                  which the DPO reparameterisation excludes
==================  ===========================================  ===============================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from icml26.alignment._preferences import fit_linear_bradley_terry
from icml26.core.validate import as_array, as_rng, as_vector, check_int, check_positive

__all__ = [
    "FDivergence",
    "divergence",
    "exploration_bonus",
    "fit_linear_bt",
    "objective",
    "online_rlhf",
    "optimal_policy",
    "optimistic_reward",
    "sensitivity_sampler",
    "suboptimality",
]


@dataclass(frozen=True)
class FDivergence:
    """A generator ``f`` with its derivative, ``h = (f')^{-1}`` and ``h'``.

    ``v_max``: supremum of the domain of ``h`` (``h -> inf`` there); ``clipped``: whether
    ``h`` is clipped at 0 (``f'`` bounded below, e.g. chi-squared). ``trl`` names the TRL
    ``DPOConfig`` setting that uses the same divergence (``None`` if TRL has none).
    """

    name: str
    f: Callable[[np.ndarray], np.ndarray]
    fprime: Callable[[np.ndarray], np.ndarray]
    h: Callable[[np.ndarray], np.ndarray]
    hprime: Callable[[np.ndarray], np.ndarray]
    v_max: float
    clipped: bool
    trl: str | None


def _xlogx(u: np.ndarray) -> np.ndarray:
    u = np.asarray(u, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(u > 0, u * np.log(np.where(u > 0, u, 1.0)), 0.0)


def _safe(fun: Callable[[np.ndarray], np.ndarray], v_max: float) -> Callable[[np.ndarray], np.ndarray]:
    def g(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=float)
        inside = v < v_max
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            out = fun(np.where(inside, v, v_max - 1.0))
        return np.where(inside, out, np.inf)

    return g


def divergence(name: str, alpha: float | None = None) -> FDivergence:
    """The f-divergence called ``name``: ``reverse_kl``, ``forward_kl``, ``chi2``, ``js``, ``alpha``.

    ``alpha`` (only for ``"alpha"``) must lie in (0, 1): ``alpha -> 0`` approaches reverse KL
    and ``alpha -> 1`` forward KL (the f-DPO / TRL convention).
    """
    if name == "reverse_kl":
        return FDivergence(name, _xlogx, lambda u: np.log(u) + 1.0, lambda v: np.exp(np.minimum(v, 700.0) - 1.0),
                           lambda v: np.exp(np.minimum(v, 700.0) - 1.0), np.inf, False, "reverse_kl")
    if name == "forward_kl":
        h = _safe(lambda v: -1.0 / v, 0.0)
        hp = _safe(lambda v: 1.0 / v**2, 0.0)
        return FDivergence(name, lambda u: -np.log(u), lambda u: -1.0 / u, h, hp, 0.0, False,
                           "alpha_divergence (f_alpha_divergence_coef=1.0)")
    if name == "chi2":
        return FDivergence(name, lambda u: (u - 1.0) ** 2, lambda u: 2.0 * (u - 1.0),
                           lambda v: np.maximum(0.0, 1.0 + 0.5 * np.asarray(v, dtype=float)),
                           lambda v: np.where(np.asarray(v, dtype=float) > -2.0, 0.5, 0.0), np.inf, True, None)
    if name == "js":
        h = _safe(lambda v: np.exp(v) / (2.0 - np.exp(v)), np.log(2.0))
        hp = _safe(lambda v: 2.0 * np.exp(v) / (2.0 - np.exp(v)) ** 2, np.log(2.0))
        return FDivergence(name, lambda u: _xlogx(u) - _xlogx(u + 1.0) + (u + 1.0) * np.log(2.0),
                           lambda u: np.log(2.0 * u / (u + 1.0)), h, hp, float(np.log(2.0)), False,
                           "js_divergence")
    if name == "alpha":
        if alpha is not None:
            alpha = check_positive("alpha", alpha)
        if alpha is None or not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must lie in (0, 1) for the alpha-divergence, got {alpha}")
        a = float(alpha)
        h = _safe(lambda v: (1.0 - a * v) ** (-1.0 / a), 1.0 / a)
        hp = _safe(lambda v: (1.0 - a * v) ** (-1.0 / a - 1.0), 1.0 / a)
        return FDivergence(f"alpha{a:g}", lambda u: (u ** (1.0 - a) - (1.0 - a) * u - a) / (a * (a - 1.0)),
                           lambda u: (1.0 - u ** (-a)) / a, h, hp, 1.0 / a, False,
                           f"alpha_divergence (f_alpha_divergence_coef={a:g})")
    raise ValueError(f"unknown divergence {name!r}; choose reverse_kl, forward_kl, chi2, js or alpha")


def _check_policy_inputs(r: np.ndarray, pi0: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
    r = as_array("r", r)
    pi0 = as_array("pi0", pi0)
    eta = check_positive("eta", eta)
    if r.ndim < 1 or r.shape[-1] < 2:
        raise ValueError(f"r must have shape (..., K) with K >= 2, got {r.shape}")
    if pi0.shape != r.shape:
        try:
            pi0 = np.broadcast_to(pi0, r.shape)
        except ValueError:
            raise ValueError(f"pi0 shape {pi0.shape} does not broadcast to r shape {r.shape}") from None
    if np.any(pi0 <= 0) or not np.allclose(pi0.sum(axis=-1), 1.0):
        raise ValueError("pi0 must be strictly positive and sum to one over the last axis")
    return r, pi0


def optimal_policy(r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence,
                   n_iter: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form maximiser of ``J_f`` and its normaliser.

    ``r: (..., K)`` rewards, ``pi0: (..., K)`` (or broadcastable) reference policy.
    Returns ``(pi, lam)`` with ``pi: (..., K)`` and ``lam: (...)``. ``lambda`` is found by
    safeguarded Newton (bisection when a Newton step leaves the bracket) on the monotone
    map ``lam -> sum_a pi0 h(eta (r - lam))`` inside the bracket
    ``[min r - f'(1)/eta, max r - f'(1)/eta]`` (``h(f'(1)) = 1``); reverse KL uses the
    log-sum-exp closed form.
    """
    r, pi0 = _check_policy_inputs(r, pi0, eta)
    n_iter = check_int("n_iter", n_iter, minimum=1)
    return _solve(r, pi0, eta, div, n_iter)


def _solve(r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence, n_iter: int = 64
           ) -> tuple[np.ndarray, np.ndarray]:
    """Root finding for ``lambda`` without input checks (inner loop of the online algorithms)."""
    if div.name == "reverse_kl":
        z = np.log(pi0) + eta * r
        m = z.max(axis=-1, keepdims=True)
        lse = m[..., 0] + np.log(np.exp(z - m).sum(axis=-1))
        return np.exp(z - lse[..., None]), (lse - 1.0) / eta
    if div.name == "chi2":
        return _solve_chi2(r, pi0, eta)
    c = float(div.fprime(np.array(1.0)))
    lo = r.min(axis=-1) - c / eta  # every h >= 1: mass >= 1
    hi = r.max(axis=-1) - c / eta  # every h <= 1: mass <= 1
    er = eta * r
    lam = 0.5 * (lo + hi)
    # Safeguarded Newton on the decreasing map lam -> mass(lam) - 1 (derivative -eta sum pi0 h'):
    # a Newton step is taken when it stays inside the bracket, a bisection step otherwise.
    for _ in range(n_iter):
        v = er - eta * lam[..., None]
        with np.errstate(invalid="ignore", over="ignore"):
            gap = np.sum(pi0 * div.h(v), axis=-1) - 1.0
            slope = -eta * np.sum(pi0 * div.hprime(v), axis=-1)
            big = gap > 0.0
            lo = np.where(big, lam, lo)
            hi = np.where(big, hi, lam)
            newton = lam - gap / slope
        done = np.isfinite(gap) & (np.abs(gap) < 1e-14)
        if np.all(done):
            break
        inside = np.isfinite(newton) & (newton >= lo) & (newton <= hi)
        lam = np.where(done, lam, np.where(inside, newton, 0.5 * (lo + hi)))
    pi = pi0 * div.h(er - eta * lam[..., None])
    if not np.all(np.isfinite(pi)):  # not converged inside the domain of h: fall back to hi (mass <= 1)
        lam = np.where(np.all(np.isfinite(pi), axis=-1), lam, hi)
        pi = pi0 * div.h(er - eta * lam[..., None])
    pi = pi / pi.sum(axis=-1, keepdims=True)  # removes the last ~1e-16 of root-finding error
    return pi, lam


def _solve_chi2(r: np.ndarray, pi0: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray]:
    """Exact water-filling for chi-squared: ``pi = pi0 (1 + eta (r - lam) / 2)_+``.

    With responses sorted by reward, a support of the top ``k`` gives
    ``lam_k = (sum_{i<=k} pi0_i (1 + eta r_i / 2) - 1) / (eta / 2 sum_{i<=k} pi0_i)``; the right
    ``k`` is the largest one whose ``k``-th response still gets positive mass.
    """
    order = np.argsort(-r, axis=-1)
    rs = np.take_along_axis(r, order, axis=-1)
    ps = np.take_along_axis(pi0, order, axis=-1)
    A = np.cumsum(ps * (1.0 + 0.5 * eta * rs), axis=-1)
    B = np.cumsum(ps, axis=-1) * 0.5 * eta
    lam_k = (A - 1.0) / B
    valid = 1.0 + 0.5 * eta * (rs - lam_k) > 0
    k = valid.shape[-1] - 1 - np.argmax(valid[..., ::-1], axis=-1)  # last valid support size
    lam = np.take_along_axis(lam_k, k[..., None], axis=-1)[..., 0]
    pi = pi0 * np.maximum(0.0, 1.0 + 0.5 * eta * (r - lam[..., None]))
    return pi / pi.sum(axis=-1, keepdims=True), lam


def objective(pi: np.ndarray, r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence) -> np.ndarray:
    """``J_f(pi) = <pi, r> - D_f(pi || pi0) / eta`` per context; shapes ``(..., K)`` -> ``(...)``."""
    r, pi0 = _check_policy_inputs(r, pi0, eta)
    pi = as_array("pi", pi)
    if pi.shape != r.shape or np.any(pi < -1e-12):
        raise ValueError(f"pi must be a non-negative array of shape {r.shape}")
    u = np.maximum(pi, 0.0) / pi0
    with np.errstate(divide="ignore", invalid="ignore"):
        fu = div.f(u)
    return np.sum(pi * r, axis=-1) - np.sum(pi0 * fu, axis=-1) / eta


def sensitivity_sampler(r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence) -> np.ndarray:
    """Algorithm 2's second-response distribution ``pi_tilde ∝ pi0 h'(eta (r - lambda_r))``.

    ``r, pi0: (..., K)``; returns ``(..., K)``. Where every ``h'`` vanishes (cannot happen for
    strictly convex smooth ``f``) it falls back to ``pi0``.
    """
    r, pi0 = _check_policy_inputs(r, pi0, eta)
    _, lam = optimal_policy(r, pi0, eta, div)
    w = pi0 * div.hprime(eta * (r - lam[..., None]))
    w = np.where(np.isfinite(w), w, 0.0)
    tot = w.sum(axis=-1, keepdims=True)
    return np.where(tot > 0, w / np.where(tot > 0, tot, 1.0), pi0)


def exploration_bonus(phi: np.ndarray, pi0: np.ndarray, Sigma_inv: np.ndarray, beta: float) -> np.ndarray:
    """Algorithm 1's bonus ``beta * || phi(x, a) - E_{pi0} phi(x, .) ||_{Sigma^{-1}}``.

    ``phi: (..., K, d)``, ``pi0: (..., K)``, ``Sigma_inv: (d, d)``; returns ``(..., K)``.
    Only reward differences are identified from preferences, so the bonus measures the
    uncertainty of ``r(x, a) - E_{pi0} r(x, .)``.
    """
    phi = as_array("phi", phi)
    if phi.ndim < 2:
        raise ValueError(f"phi must have shape (..., K, d), got {phi.shape}")
    d = phi.shape[-1]
    Sigma_inv = as_array("Sigma_inv", Sigma_inv, ndim=2)
    if Sigma_inv.shape != (d, d):
        raise ValueError(f"Sigma_inv must be ({d}, {d}) to match the last axis of phi, got {Sigma_inv.shape}")
    beta = check_positive("beta", beta, strict=False)
    pi0 = as_array("pi0", pi0)
    try:
        pi0 = np.broadcast_to(pi0, phi.shape[:-1])
    except ValueError:
        raise ValueError(f"pi0 shape {pi0.shape} does not broadcast to {phi.shape[:-1]}") from None
    ref = np.einsum("...k,...kd->...d", pi0, phi)
    dphi = phi - ref[..., None, :]
    q = np.einsum("...kd,de,...ke->...k", dphi, Sigma_inv, dphi)
    return beta * np.sqrt(np.maximum(q, 0.0))


def optimistic_reward(phi: np.ndarray, theta_hat: np.ndarray, pi0: np.ndarray, Sigma_inv: np.ndarray,
                      beta: float) -> np.ndarray:
    """``r_tilde = phi theta_hat + bonus``; ``phi: (..., K, d)`` -> ``(..., K)``."""
    b = exploration_bonus(phi, pi0, Sigma_inv, beta)
    theta_hat = as_vector("theta_hat", as_array("theta_hat", theta_hat, ndim=1), np.shape(phi)[-1])
    return np.asarray(phi) @ theta_hat + b


def fit_linear_bt(dphi: np.ndarray, y: np.ndarray, lam: float = 1.0, theta0: np.ndarray | None = None,
                  n_newton: int = 25, tol: float = 1e-10) -> np.ndarray:
    """Regularised BT (logistic) MLE for a linear reward (the shared ``fit_linear_bradley_terry``).

    Minimises ``sum_i -log sigma(s_i theta^T dphi_i) + lam / 2 ||theta||^2`` with ``s_i = 2 y_i - 1``
    by Newton's method (warm start ``theta0``). ``dphi: (n, d)`` feature differences
    ``phi(x, a1) - phi(x, a2)``, ``y: (n,)`` with 1 when ``a1`` was preferred.
    """
    dphi = as_array("dphi", dphi, ndim=2)
    y = as_array("y", y, ndim=1)
    if y.shape != (dphi.shape[0],):
        raise ValueError(f"dphi must be (n, d) and y (n,), got {dphi.shape} and {y.shape}")
    if not np.all(np.isin(y, (0.0, 1.0))):
        raise ValueError("y must contain only 0/1 labels")
    lam = check_positive("lam", lam)
    n_newton = check_int("n_newton", n_newton, minimum=1)
    tol = check_positive("tol", tol)
    d = dphi.shape[1]
    theta0 = None if theta0 is None else as_vector("theta0", theta0, d)
    return fit_linear_bradley_terry(dphi, y, l2=lam, theta0=theta0, tol=tol, max_iter=n_newton)


def suboptimality(r_hat: np.ndarray, r_star: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence) -> float:
    """Mean over contexts of ``J_f(pi*) - J_f(pi_{r_hat})`` under the true reward ``r_star: (n, K)``."""
    r_hat, r_star = as_array("r_hat", r_hat, ndim=2), as_array("r_star", r_star, ndim=2)
    if r_hat.shape != r_star.shape:
        raise ValueError(f"r_hat must have the shape of r_star {r_star.shape}, got {r_hat.shape}")
    pi_star, _ = optimal_policy(r_star, pi0, eta, div)
    pi_hat, _ = optimal_policy(r_hat, pi0, eta, div)
    return float(np.mean(objective(pi_star, r_star, pi0, eta, div) - objective(pi_hat, r_star, pi0, eta, div)))


# --------------------------------------------------------------------------- the online loop
#: How each sampler picks the two compared responses (first, second).
#: ``optimism`` and ``sensitivity`` are the paper's Algorithms 1 and 2; the others are controls:
#: ``passive`` is Algorithm 1 with the bonus switched off (beta = 0), i.e. Algorithm 2 with its
#: second response from ``pi0`` instead of the sensitivity sampler; ``greedy`` draws both
#: responses from the current plug-in policy; ``uniform`` never leaves ``pi0``.
SAMPLERS = ("optimism", "sensitivity", "passive", "greedy", "uniform")


def _objective_rows(pi: np.ndarray, r: np.ndarray, p0: np.ndarray, eta: float, div: FDivergence) -> np.ndarray:
    u = np.maximum(pi, 0.0) / p0
    with np.errstate(divide="ignore", invalid="ignore"):
        fu = div.f(u)
    return np.sum(pi * r, axis=-1) - np.sum(p0 * fu, axis=-1) / eta


def _draw_rows(P: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One index per row of the (unnormalised) weights ``P: (S, K)`` by inverse CDF with uniforms ``u: (S,)``."""
    c = np.cumsum(P, axis=1)
    return np.minimum((c < (u * c[:, -1])[:, None]).sum(axis=1), P.shape[1] - 1)


def online_rlhf(phi: np.ndarray, theta_star: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence,
                T: int, rng: np.random.Generator, samplers: tuple[str, ...] = SAMPLERS,
                beta: float = 1.0, lam: float = 1.0, refit_every: int = 10,
                checkpoints: tuple[int, ...] = (), n_iter: int = 40) -> dict[str, dict[str, np.ndarray]]:
    """Run Algorithm 1 (``"optimism"``), Algorithm 2 (``"sensitivity"``) and the controls
    (``"passive"``, ``"greedy"``, ``"uniform"``; see :data:`SAMPLERS`) in lockstep on one linear
    dueling bandit.

    ``phi: (N, K, d)`` features of ``K`` responses for ``N`` contexts (drawn uniformly each
    round, the same sequence for every sampler), ``theta_star: (d,)``, ``pi0: (N, K)``.
    Each round: ``theta_hat`` (ridge ``lam`` logistic MLE, refitted every ``refit_every``
    rounds and at every round of the first 20), the first response from the sampler's policy
    ``pi_t`` (``pi_{r_tilde}`` for optimism with bonus scale ``beta``, ``pi_{r_hat}`` for
    sensitivity, passive and greedy, ``pi0`` for uniform), the second from ``pi0`` (optimism,
    passive, uniform), from :func:`sensitivity_sampler` (sensitivity) or from ``pi_{r_hat}``
    (greedy), and a BT preference from ``theta_star``.

    Returns, per sampler, ``regret: (T,)`` the per-round regret ``J_f(pi*; x_t) - J_f(pi_t; x_t)``
    and ``subopt: (len(checkpoints),)`` the suboptimality of the output policy
    ``pi_{r_hat_t}`` averaged over all ``N`` contexts after ``t`` rounds.
    """
    phi = as_array("phi", phi, ndim=3)
    N, K, d = phi.shape
    theta_star = as_vector("theta_star", as_array("theta_star", theta_star, ndim=1), d)
    eta = check_positive("eta", eta)
    T = check_int("T", T, minimum=1)
    rng = as_rng("rng", rng)
    beta = check_positive("beta", beta, strict=False)
    lam = check_positive("lam", lam)
    refit_every = check_int("refit_every", refit_every, minimum=1)
    n_iter = check_int("n_iter", n_iter, minimum=1)
    r_star = phi @ theta_star
    pi0 = as_array("pi0", pi0, ndim=(1, 2))
    _check_policy_inputs(r_star, pi0, eta)
    pi0 = np.broadcast_to(pi0, (N, K))
    bad = [s for s in samplers if s not in SAMPLERS]
    if bad:
        raise ValueError(f"unknown samplers {bad}; choose from {SAMPLERS}")
    if any(not 1 <= c <= T for c in checkpoints):
        raise ValueError(f"checkpoints must lie in [1, {T}]")
    pi_star, _ = _solve(r_star, pi0, eta, div)
    J_star = _objective_rows(pi_star, r_star, pi0, eta, div)

    samplers = tuple(samplers)
    S = len(samplers)
    opt = np.array([s == "optimism" for s in samplers])
    uni = np.array([s == "uniform" for s in samplers])
    sens = np.array([s == "sensitivity" for s in samplers])
    greedy = np.array([s == "greedy" for s in samplers])
    theta = np.zeros((S, d))
    Sinv = np.repeat(np.eye(d)[None] / lam, S, axis=0)
    dphis = np.zeros((S, T, d))
    ys = np.zeros((S, T))
    regret = np.zeros((S, T))
    subopt = np.zeros((S, len(checkpoints)))
    ck = {c: i for i, c in enumerate(checkpoints)}
    xs = rng.integers(N, size=T)
    rows_idx = np.arange(S)

    for t in range(T):
        x = xs[t]
        f_x, p0 = phi[x], pi0[x]
        p0s = np.broadcast_to(p0, (S, K))
        r_hat = theta @ f_x.T  # (S, K)
        rows = r_hat.copy()
        for k in np.flatnonzero(opt):
            rows[k] = r_hat[k] + exploration_bonus(f_x, p0, Sinv[k], beta)
        pis, lams = _solve(rows, p0s, eta, div, n_iter)
        pis = np.where(uni[:, None], p0s, pis)
        second = np.where(greedy[:, None], pis, p0s)
        if sens.any():
            w = p0s * div.hprime(eta * (r_hat - lams[:, None]))
            w = np.where(np.isfinite(w), w, 0.0)
            ok = sens & (w.sum(axis=1) > 0)
            second = np.where(ok[:, None], w, second)
        a1 = _draw_rows(pis, rng.random(S))
        a2 = _draw_rows(second, rng.random(S))
        regret[:, t] = J_star[x] - _objective_rows(pis, r_star[x], p0s, eta, div)
        dp = f_x[a1] - f_x[a2]                                  # (S, d)
        p_pref = 1.0 / (1.0 + np.exp(-(r_star[x, a1] - r_star[x, a2])))
        ys[:, t] = (rng.random(S) < p_pref).astype(float)
        dphis[:, t] = dp
        u = np.einsum("sde,se->sd", Sinv, dp)
        Sinv -= u[:, :, None] * u[:, None, :] / (1.0 + np.einsum("sd,sd->s", dp, u))[:, None, None]  # Sherman-Morrison
        if t < 20 or (t + 1) % refit_every == 0:
            for k in rows_idx:
                theta[k] = fit_linear_bt(dphis[k, : t + 1], ys[k, : t + 1], lam=lam, theta0=theta[k],
                                         n_newton=8 if t >= 20 else 25)
        if (t + 1) in ck:
            j = ck[t + 1]
            pi_hat, _ = _solve(np.einsum("nkd,sd->snk", phi, theta), np.broadcast_to(pi0, (S, N, K)), eta, div)
            subopt[:, j] = np.mean(J_star[None] - _objective_rows(pi_hat, r_star[None], pi0[None], eta, div), axis=1)
    return {s: {"regret": regret[k], "subopt": subopt[k]} for k, s in enumerate(samplers)}


def EXAMPLES() -> list:
    """Public functions with valid arguments, for the common bad-input test."""
    rng = np.random.default_rng(0)
    K, d = 4, 3
    r = np.array([0.3, -0.5, 1.0, 0.1])
    pi0 = np.full(K, 1.0 / K)
    dv = divergence("chi2")
    phi = rng.normal(size=(K, d))
    dphi = rng.normal(size=(12, d))
    y = np.array([1.0, 0.0] * 6)
    N = 5
    phis = rng.normal(size=(N, K, d))
    return [
        (divergence, {"name": "alpha", "alpha": 0.5}),
        (optimal_policy, {"r": r, "pi0": pi0, "eta": 2.0, "div": dv, "n_iter": 20}),
        (objective, {"pi": pi0.copy(), "r": r, "pi0": pi0, "eta": 2.0, "div": dv}),
        (sensitivity_sampler, {"r": r, "pi0": pi0, "eta": 2.0, "div": dv}),
        (exploration_bonus, {"phi": phi, "pi0": pi0, "Sigma_inv": np.eye(d), "beta": 1.0}),
        (optimistic_reward, {"phi": phi, "theta_hat": np.ones(d), "pi0": pi0, "Sigma_inv": np.eye(d), "beta": 1.0}),
        (fit_linear_bt, {"dphi": dphi, "y": y, "lam": 1.0, "n_newton": 5, "tol": 1e-8}),
        (suboptimality, {"r_hat": rng.normal(size=(N, K)), "r_star": rng.normal(size=(N, K)),
                         "pi0": np.full((N, K), 1.0 / K), "eta": 2.0, "div": dv}),
        (online_rlhf, {"phi": phis, "theta_star": np.ones(d), "pi0": np.full((N, K), 1.0 / K), "eta": 2.0,
                       "div": dv, "T": 25, "rng": 0, "beta": 1.0, "lam": 1.0, "refit_every": 5, "n_iter": 10}),
    ]
