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
    r = np.asarray(r, dtype=float)
    pi0 = np.asarray(pi0, dtype=float)
    if r.ndim < 1 or r.shape[-1] < 2:
        raise ValueError(f"r must have shape (..., K) with K >= 2, got {r.shape}")
    if pi0.shape != r.shape:
        try:
            pi0 = np.broadcast_to(pi0, r.shape)
        except ValueError:
            raise ValueError(f"pi0 shape {pi0.shape} does not broadcast to r shape {r.shape}") from None
    if not (np.all(np.isfinite(r)) and np.all(np.isfinite(pi0))):
        raise ValueError("r and pi0 must be finite")
    if np.any(pi0 <= 0) or not np.allclose(pi0.sum(axis=-1), 1.0):
        raise ValueError("pi0 must be strictly positive and sum to one over the last axis")
    if not (np.isfinite(eta) and eta > 0):
        raise ValueError(f"eta must be a positive finite number, got {eta}")
    return r, pi0


def optimal_policy(r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence,
                   n_iter: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Closed-form maximiser of ``J_f`` and its normaliser.

    ``r: (..., K)`` rewards, ``pi0: (..., K)`` (or broadcastable) reference policy.
    Returns ``(pi, lam)`` with ``pi: (..., K)`` and ``lam: (...)``. ``lambda`` is found by
    bisection on the monotone map ``lam -> sum_a pi0 h(eta (r - lam))`` inside the bracket
    ``[min r - f'(1)/eta, max r - f'(1)/eta]`` (``h(f'(1)) = 1``); reverse KL uses the
    log-sum-exp closed form.
    """
    r, pi0 = _check_policy_inputs(r, pi0, eta)
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")
    return _solve(r, pi0, eta, div, n_iter)


def _solve(r: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence, n_iter: int = 64
           ) -> tuple[np.ndarray, np.ndarray]:
    """Bisection for ``lambda`` without input checks (inner loop of the online algorithms)."""
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
    for _ in range(n_iter):
        mid = 0.5 * (lo + hi)
        mass = np.sum(pi0 * div.h(er - eta * mid[..., None]), axis=-1)
        big = mass > 1.0
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
    lam = hi  # mass(hi) <= 1, finite
    pi = pi0 * div.h(er - eta * lam[..., None])
    pi = pi / pi.sum(axis=-1, keepdims=True)  # removes the last ~1e-16 of bisection error
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
    pi = np.asarray(pi, dtype=float)
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
    phi = np.asarray(phi, dtype=float)
    if phi.ndim < 2:
        raise ValueError(f"phi must have shape (..., K, d), got {phi.shape}")
    d = phi.shape[-1]
    Sigma_inv = np.asarray(Sigma_inv, dtype=float)
    if Sigma_inv.shape != (d, d):
        raise ValueError(f"Sigma_inv must be ({d}, {d}), got {Sigma_inv.shape}")
    if beta < 0 or not np.isfinite(beta):
        raise ValueError(f"beta must be a finite non-negative number, got {beta}")
    pi0 = np.broadcast_to(np.asarray(pi0, dtype=float), phi.shape[:-1])
    ref = np.einsum("...k,...kd->...d", pi0, phi)
    dphi = phi - ref[..., None, :]
    q = np.einsum("...kd,de,...ke->...k", dphi, Sigma_inv, dphi)
    return beta * np.sqrt(np.maximum(q, 0.0))


def optimistic_reward(phi: np.ndarray, theta_hat: np.ndarray, pi0: np.ndarray, Sigma_inv: np.ndarray,
                      beta: float) -> np.ndarray:
    """``r_tilde = phi theta_hat + bonus``; ``phi: (..., K, d)`` -> ``(..., K)``."""
    theta_hat = np.asarray(theta_hat, dtype=float)
    return np.asarray(phi) @ theta_hat + exploration_bonus(phi, pi0, Sigma_inv, beta)


def fit_linear_bt(dphi: np.ndarray, y: np.ndarray, lam: float = 1.0, theta0: np.ndarray | None = None,
                  n_newton: int = 25, tol: float = 1e-10) -> np.ndarray:
    """Regularised BT (logistic) MLE for a linear reward.

    Minimises ``sum_i -log sigma(s_i theta^T dphi_i) + lam / 2 ||theta||^2`` with ``s_i = 2 y_i - 1``
    by Newton's method (warm start ``theta0``). ``dphi: (n, d)`` feature differences
    ``phi(x, a1) - phi(x, a2)``, ``y: (n,)`` with 1 when ``a1`` was preferred.
    """
    dphi = np.asarray(dphi, dtype=float)
    y = np.asarray(y, dtype=float)
    if dphi.ndim != 2 or y.shape != (dphi.shape[0],):
        raise ValueError(f"dphi must be (n, d) and y (n,), got {dphi.shape} and {y.shape}")
    if not (np.all(np.isfinite(dphi)) and np.all(np.isin(y, (0.0, 1.0)))):
        raise ValueError("dphi must be finite and y must contain only 0/1 labels")
    if lam <= 0:
        raise ValueError(f"lam must be > 0, got {lam}")
    d = dphi.shape[1]
    theta = np.zeros(d) if theta0 is None else np.asarray(theta0, dtype=float).copy()
    for _ in range(n_newton):
        z = dphi @ theta
        p = 0.5 * (1.0 + np.tanh(0.5 * z))
        g = dphi.T @ (p - y) + lam * theta
        H = (dphi * (p * (1 - p))[:, None]).T @ dphi + lam * np.eye(d)
        step = np.linalg.solve(H, g)
        theta -= step
        if np.max(np.abs(step)) < tol:
            break
    return theta


def suboptimality(r_hat: np.ndarray, r_star: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence) -> float:
    """Mean over contexts of ``J_f(pi*) - J_f(pi_{r_hat})`` under the true reward ``r_star: (n, K)``."""
    pi_star, _ = optimal_policy(r_star, pi0, eta, div)
    pi_hat, _ = optimal_policy(r_hat, pi0, eta, div)
    return float(np.mean(objective(pi_star, r_star, pi0, eta, div) - objective(pi_hat, r_star, pi0, eta, div)))


# --------------------------------------------------------------------------- the online loop
SAMPLERS = ("optimism", "sensitivity", "uniform")


def online_rlhf(phi: np.ndarray, theta_star: np.ndarray, pi0: np.ndarray, eta: float, div: FDivergence,
                T: int, rng: np.random.Generator, samplers: tuple[str, ...] = SAMPLERS,
                beta: float = 1.0, lam: float = 1.0, refit_every: int = 10,
                checkpoints: tuple[int, ...] = (), n_iter: int = 40) -> dict[str, dict[str, np.ndarray]]:
    """Run Algorithm 1 (``"optimism"``), Algorithm 2 (``"sensitivity"``) and the uniform baseline
    (``"uniform"``: both responses from ``pi0``) in lockstep on one linear dueling bandit.

    ``phi: (N, K, d)`` features of ``K`` responses for ``N`` contexts (drawn uniformly each
    round, the same sequence for every sampler), ``theta_star: (d,)``, ``pi0: (N, K)``.
    Each round: ``theta_hat`` (ridge ``lam`` logistic MLE, refitted every ``refit_every``
    rounds and at every round of the first 20), the first response from the sampler's policy
    ``pi_t`` (``pi_{r_tilde}`` for optimism with bonus scale ``beta``, ``pi_{r_hat}`` for
    sensitivity, ``pi0`` for uniform), the second from ``pi0`` (optimism, uniform) or from
    :func:`sensitivity_sampler` (sensitivity), a BT preference from ``theta_star``.

    Returns, per sampler, ``regret: (T,)`` the per-round regret ``J_f(pi*; x_t) - J_f(pi_t; x_t)``
    and ``subopt: (len(checkpoints),)`` the suboptimality of the output policy
    ``pi_{r_hat_t}`` averaged over all ``N`` contexts after ``t`` rounds.
    """
    phi = np.asarray(phi, dtype=float)
    if phi.ndim != 3:
        raise ValueError(f"phi must be (N, K, d), got {phi.shape}")
    N, K, d = phi.shape
    theta_star = np.asarray(theta_star, dtype=float)
    if theta_star.shape != (d,):
        raise ValueError(f"theta_star must have shape ({d},), got {theta_star.shape}")
    r_star = phi @ theta_star
    _check_policy_inputs(r_star, pi0, eta)
    pi0 = np.broadcast_to(np.asarray(pi0, dtype=float), (N, K))
    if T < 1 or refit_every < 1 or lam <= 0 or beta < 0:
        raise ValueError("need T >= 1, refit_every >= 1, lam > 0 and beta >= 0")
    bad = [s for s in samplers if s not in SAMPLERS]
    if bad:
        raise ValueError(f"unknown samplers {bad}; choose from {SAMPLERS}")
    if any(not 1 <= c <= T for c in checkpoints):
        raise ValueError(f"checkpoints must lie in [1, {T}]")
    pi_star, _ = _solve(r_star, pi0, eta, div)
    J_star = objective(pi_star, r_star, pi0, eta, div)

    S = len(samplers)
    theta = np.zeros((S, d))
    Sinv = np.repeat(np.eye(d)[None] / lam, S, axis=0)
    dphis = np.zeros((S, T, d))
    ys = np.zeros((S, T))
    regret = np.zeros((S, T))
    subopt = np.zeros((S, len(checkpoints)))
    ck = {c: i for i, c in enumerate(checkpoints)}
    xs = rng.integers(N, size=T)
    cdf0 = np.cumsum(pi0, axis=1)

    def draw(p: np.ndarray) -> int:
        return int(min(np.searchsorted(np.cumsum(p), rng.random() * p.sum()), K - 1))

    for t in range(T):
        x = xs[t]
        f_x, p0 = phi[x], pi0[x]
        r_hat = theta @ f_x.T  # (S, K)
        rows = r_hat.copy()
        for k, s in enumerate(samplers):
            if s == "optimism":
                rows[k] = r_hat[k] + exploration_bonus(f_x, p0, Sinv[k], beta)
        pis, lams = _solve(rows, np.broadcast_to(p0, rows.shape), eta, div, n_iter)
        for k, s in enumerate(samplers):
            if s == "uniform":
                pi_t = p0
                a1 = int(min(np.searchsorted(cdf0[x], rng.random()), K - 1))
            else:
                pi_t = pis[k]
                a1 = draw(pi_t)
            if s == "sensitivity":
                w = p0 * div.hprime(eta * (r_hat[k] - lams[k]))
                w = np.where(np.isfinite(w), w, 0.0)
                a2 = draw(w) if w.sum() > 0 else draw(p0)
            else:
                a2 = int(min(np.searchsorted(cdf0[x], rng.random()), K - 1))
            regret[k, t] = J_star[x] - float(objective(pi_t[None], r_star[x][None], p0[None], eta, div)[0])
            dp = f_x[a1] - f_x[a2]
            p_pref = 1.0 / (1.0 + np.exp(-(r_star[x, a1] - r_star[x, a2])))
            ys[k, t] = float(rng.random() < p_pref)
            dphis[k, t] = dp
            u = Sinv[k] @ dp
            Sinv[k] -= np.outer(u, u) / (1.0 + dp @ u)  # Sherman-Morrison update of Sigma^{-1}
            if t < 20 or (t + 1) % refit_every == 0:
                theta[k] = fit_linear_bt(dphis[k, : t + 1], ys[k, : t + 1], lam=lam, theta0=theta[k],
                                         n_newton=8 if t >= 20 else 25)
        if (t + 1) in ck:
            j = ck[t + 1]
            for k in range(S):
                r_hat_all = phi @ theta[k]
                pi_hat, _ = _solve(r_hat_all, pi0, eta, div)
                subopt[k, j] = float(np.mean(J_star - objective(pi_hat, r_star, pi0, eta, div)))
    return {s: {"regret": regret[k], "subopt": subopt[k]} for k, s in enumerate(samplers)}
