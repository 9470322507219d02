"""Preference substrate shared by the alignment papers: populations, feedback, Bradley–Terry /
Plackett–Luce fits, preference-optimisation losses and the KL-regularised optimal policy.

Populations. A response (item) ``i`` has features ``x_i``; a user ``u`` has a utility vector
``theta_u`` and utility ``u(i) = theta_u . x_i``. :func:`population` draws homogeneous users, a
finite mixture of types, or a continuous heterogeneous population.

Feedback. :func:`pairwise_comparisons` (BT: P(i > j) = sigmoid(u(i) - u(j))),
:func:`plackett_luce_rankings`, and :func:`implicit_feedback` (a click needs exposure,
which decays with the display position, and attraction sigmoid(u)).

Fits. :func:`fit_bradley_terry` (maximum likelihood with an optional ridge, by L-BFGS; scores
are centred) and :func:`fit_plackett_luce`; both agree with ``choix`` (tested).
:func:`fit_linear_bradley_terry`: BT with a linear utility of item features (Newton's method; soft
labels and pair weights allowed), equal to scikit-learn's ridge logistic regression without
intercept (tested).

Losses on sequence log-probabilities (``pi_*`` under the policy, ``ref_*`` under the reference):
``dpo_loss = -log sigmoid(beta (dc - dr))`` with ``d = pi - ref``; ``ipo_loss = (dc/|c| - dr/|r| - 1/(2 beta))^2``
(length-normalised as in TRL); ``simpo_loss = -log sigmoid(beta (pi_c/|c| - pi_r/|r|) - gamma)``;
``reward_model_loss = -log sigmoid(r_c - r_r)``. DPO and IPO equal TRL's ``DPOTrainer`` losses (tested).

Linear-utility comparisons from a heterogeneous population. :func:`sample_preferences` draws
``y = 1{beta_u . delta_x + eps > 0}`` with random-coefficient tastes ``beta_u`` (homogeneous, a
finite mixture of types, or Gaussian), a chosen feature design and noise law, optionally from a
finite user panel; :func:`preset` names the populations of the sign-estimator reproduction. The
details are in the section comment below.

Policy. :func:`kl_optimal_policy`: ``pi*(y) = pi_ref(y) exp(r(y)/beta) / Z``, the maximiser of
``E_pi[r] - beta KL(pi || pi_ref)`` over a finite response set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from icml26.core.validate import as_array, as_rng, as_vector, check_int, check_positive


# ----------------------------------------------------------------------------- populations
@dataclass(frozen=True)
class Population:
    """Items (n_items, d) and users (n_users, d) with weights; utilities = users @ items.T."""

    items: np.ndarray
    users: np.ndarray
    weights: np.ndarray

    def utilities(self) -> np.ndarray:
        return self.users @ self.items.T

    def mean_utility(self) -> np.ndarray:
        """The population-average utility of each item (weights applied)."""
        return self.weights @ self.utilities()


def population(n_items: int, d: int, *, kind: str = "homogeneous", n_types: int = 2, n_users: int = 200,
               spread: float = 1.0, seed: Any = 0) -> Population:
    """Draw items ~ N(0, I_d) and users: one type (``homogeneous``), ``n_types`` types with random
    shares (``mixture``), or ``n_users`` users around a common mean (``heterogeneous``)."""
    n_items = check_int("n_items", n_items, minimum=2)
    d = check_int("d", d, minimum=1)
    spread = check_positive("spread", spread, strict=False)
    rng = as_rng("seed", seed)
    items = rng.standard_normal((n_items, d))
    if kind == "homogeneous":
        users, w = rng.standard_normal((1, d)), np.ones(1)
    elif kind == "mixture":
        n_types = check_int("n_types", n_types, minimum=2)
        users = rng.standard_normal((n_types, d)) * spread
        w = rng.dirichlet(np.ones(n_types))
    elif kind == "heterogeneous":
        n_users = check_int("n_users", n_users, minimum=2)
        users = rng.standard_normal((1, d)) + spread * rng.standard_normal((n_users, d))
        w = np.full(n_users, 1.0 / n_users)
    else:
        raise ValueError(f"kind must be homogeneous, mixture or heterogeneous, got {kind!r}")
    return Population(items, users, w)


# ----------------------------------------------------------------------------- feedback
def pairwise_comparisons(pop: Population, n: int, *, seed: Any = 0, pairs: np.ndarray | None = None
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` comparisons: (i, j, y) with y = 1 if the sampled user prefers i. Users are drawn by
    weight; pairs uniformly among distinct items unless ``pairs`` (m, 2) gives the candidates."""
    n = check_int("n", n, minimum=1)
    rng = as_rng("seed", seed)
    util = pop.utilities()
    users = rng.choice(len(pop.weights), size=n, p=pop.weights)
    if pairs is None:
        i = rng.integers(0, util.shape[1], size=n)
        j = (i + rng.integers(1, util.shape[1], size=n)) % util.shape[1]
    else:
        pairs = np.asarray(pairs, dtype=int)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or len(pairs) == 0:
            raise ValueError(f"pairs must be an (m, 2) integer array, got shape {pairs.shape}")
        k = rng.integers(0, len(pairs), size=n)
        i, j = pairs[k, 0], pairs[k, 1]
    p = 1.0 / (1.0 + np.exp(-(util[users, i] - util[users, j])))
    y = (rng.random(n) < p).astype(float)
    return i, j, y


def plackett_luce_rankings(scores: np.ndarray, n: int, *, size: int | None = None, seed: Any = 0) -> list[list[int]]:
    """``n`` rankings (best first) of ``size`` random items drawn from Plackett–Luce with ``scores``
    (Gumbel-max: sort of score + Gumbel noise)."""
    s = as_array("scores", scores, ndim=1)
    n = check_int("n", n, minimum=1)
    size = len(s) if size is None else check_int("size", size, minimum=2, maximum=len(s))
    rng = as_rng("seed", seed)
    out = []
    for _ in range(n):
        items = rng.choice(len(s), size=size, replace=False)
        g = s[items] + rng.gumbel(size=size)
        out.append([int(x) for x in items[np.argsort(-g)]])
    return out


def implicit_feedback(utility: np.ndarray, n_sessions: int, *, slate: int = 5, decay: float = 0.7, seed: Any = 0
                      ) -> dict[str, np.ndarray]:
    """Clicks on random slates: item at position k is examined with probability decay**k and clicked
    with probability sigmoid(utility) if examined. Returns shown (s, slate), clicked, examined."""
    u = as_array("utility", utility, ndim=1)
    n_sessions = check_int("n_sessions", n_sessions, minimum=1)
    slate = check_int("slate", slate, minimum=1, maximum=len(u))
    if not (isinstance(decay, (int, float)) and 0 < decay <= 1):
        raise ValueError(f"decay must be in (0, 1], got {decay!r}")
    rng = as_rng("seed", seed)
    shown = np.stack([rng.choice(len(u), size=slate, replace=False) for _ in range(n_sessions)])
    examined = rng.random(shown.shape) < decay ** np.arange(slate)[None, :]
    clicked = examined & (rng.random(shown.shape) < 1 / (1 + np.exp(-u[shown])))
    return {"shown": shown, "examined": examined, "clicked": clicked}


# ----------------------------------------------------------------------------- fits
def fit_bradley_terry(n_items: int, i: np.ndarray, j: np.ndarray, y: np.ndarray, *, l2: float = 0.0,
                      weights: np.ndarray | None = None, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood BT scores (centred) from comparisons (i, j, y=1 if i won), ridge ``l2``."""
    from scipy.optimize import minimize

    n_items = check_int("n_items", n_items, minimum=2)
    i, j = np.asarray(i, dtype=int), np.asarray(j, dtype=int)
    y = as_array("y", y, ndim=1)
    if not (i.shape == j.shape == y.shape) or i.ndim != 1 or i.size == 0:
        raise ValueError(f"i, j and y must be equal-length 1-D arrays, got {i.shape}, {j.shape}, {y.shape}")
    if i.min() < 0 or max(i.max(), j.max()) >= n_items or j.min() < 0:
        raise ValueError(f"item indices must lie in [0, {n_items})")
    if np.any((y < 0) | (y > 1)):
        raise ValueError("y must hold outcomes in [0, 1]")
    l2 = check_positive("l2", l2, strict=False)
    tol = check_positive("tol", tol)
    w = np.ones_like(y) if weights is None else as_array("weights", weights, ndim=1)

    def nll(s: np.ndarray) -> tuple[float, np.ndarray]:
        z = s[i] - s[j]
        ll = w * (y * -np.logaddexp(0, -z) + (1 - y) * -np.logaddexp(0, z))
        p = 1 / (1 + np.exp(-z))
        g = w * (y - p)
        grad = -(np.bincount(i, g, n_items) - np.bincount(j, g, n_items)) + 2 * l2 * s
        return float(-ll.sum() + l2 * s @ s), grad

    res = minimize(nll, np.zeros(n_items), jac=True, method="L-BFGS-B", options={"gtol": tol, "maxiter": 10000})
    s = res.x
    return s - s.mean()


def fit_linear_bradley_terry(dX: np.ndarray, y: np.ndarray, *, weights: np.ndarray | None = None, l2: float = 0.0,
                             theta0: np.ndarray | None = None, tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Bradley–Terry with a linear utility: ``P(a > b) = sigmoid(theta . (x_a - x_b))``.

    Minimises ``sum_i w_i [-y_i log sigma(z_i) - (1 - y_i) log sigma(-z_i)] + (l2 / 2) ||theta||^2``
    with ``z_i = dX_i . theta`` by Newton's method from ``theta0`` (zeros by default), stopping when
    the largest step is below ``tol``. ``dX: (n, d)`` feature differences ``x_a - x_b``; ``y: (n,)``
    outcomes in [0, 1] (1: ``a`` preferred; soft labels, e.g. a population's choice
    probabilities, are allowed); ``weights: (n,)`` non-negative (e.g. a pair distribution).
    With ``l2 < 1e-8`` each Newton step is a least-squares solve, so a direction that no
    comparison constrains (a constant shift of tabular utilities) receives no step.
    """
    dX = as_array("dX", dX, ndim=2)
    y = as_array("y", y, ndim=1)
    if y.shape != (dX.shape[0],) or y.size == 0:
        raise ValueError(f"dX must be (n, d) and y (n,) with n >= 1, got {dX.shape} and {y.shape}")
    if np.any((y < 0) | (y > 1)):
        raise ValueError("y must hold outcomes in [0, 1]")
    w = np.ones_like(y) if weights is None else as_array("weights", weights, ndim=1)
    if w.shape != y.shape or np.any(w < 0):
        raise ValueError(f"weights must be non-negative with the shape of y {y.shape}")
    l2 = check_positive("l2", l2, strict=False)
    tol = check_positive("tol", tol)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    d = dX.shape[1]
    theta = np.zeros(d) if theta0 is None else as_array("theta0", theta0, ndim=1).copy()
    if theta.shape != (d,):
        raise ValueError(f"theta0 must have length {d}, got {theta.shape}")
    for _ in range(max_iter):
        p = 0.5 * (1.0 + np.tanh(0.5 * (dX @ theta)))
        if weights is None:
            g = dX.T @ (p - y) + l2 * theta
            H = (dX * (p * (1 - p))[:, None]).T @ dX + l2 * np.eye(d)
        else:
            g = dX.T @ (w * (p - y)) + l2 * theta
            H = (dX * (w * p * (1 - p))[:, None]).T @ dX + l2 * np.eye(d)
        step = np.linalg.solve(H, g) if l2 >= 1e-8 else np.linalg.lstsq(H, g, rcond=1e-12)[0]
        theta -= step
        if np.max(np.abs(step)) < tol:
            break
    return theta


def fit_plackett_luce(n_items: int, rankings: list[list[int]], *, l2: float = 0.0, tol: float = 1e-10) -> np.ndarray:
    """Maximum-likelihood Plackett–Luce scores (centred) from rankings (best first)."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    n_items = check_int("n_items", n_items, minimum=2)
    if not rankings or any(len(r) < 2 for r in rankings):
        raise ValueError("rankings must be a non-empty list of rankings of >= 2 items")
    rs = [np.asarray(r, dtype=int) for r in rankings]
    if any(r.min() < 0 or r.max() >= n_items for r in rs):
        raise ValueError(f"rankings must index items in [0, {n_items})")

    def nll(s: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, 2 * l2 * s
        for r in rs:
            v = s[r]
            for k in range(len(r) - 1):
                tail = v[k:]
                lse = logsumexp(tail)
                total -= v[k] - lse
                p = np.exp(tail - lse)
                grad[r[k]] -= 1.0
                np.add.at(grad, r[k:], p)
        return total + l2 * float(s @ s), grad

    res = minimize(nll, np.zeros(n_items), jac=True, method="L-BFGS-B", options={"gtol": tol, "maxiter": 10000})
    return res.x - res.x.mean()


# ----------------------------------------------------------------------------- losses (torch)
def _lengths(x: Any) -> Any:
    return x.clamp(min=1.0) if hasattr(x, "clamp") else max(float(x), 1.0)


def dpo_loss(pi_c, pi_r, ref_c, ref_r, *, beta: float = 0.1):
    """Per-pair DPO loss -log sigmoid(beta ((pi_c - ref_c) - (pi_r - ref_r))) (torch tensors, shape (batch,))."""
    import torch.nn.functional as F

    beta = check_positive("beta", beta)
    return -F.logsigmoid(beta * ((pi_c - ref_c) - (pi_r - ref_r)))


def ipo_loss(pi_c, pi_r, ref_c, ref_r, len_c, len_r, *, beta: float = 0.1):
    """Per-pair IPO loss ((dc/|c| - dr/|r|) - 1/(2 beta))^2 with length-normalised log-ratios."""
    beta = check_positive("beta", beta)
    return (((pi_c - ref_c) / _lengths(len_c) - (pi_r - ref_r) / _lengths(len_r)) - 1 / (2 * beta)) ** 2


def simpo_loss(pi_c, pi_r, len_c, len_r, *, beta: float = 2.0, gamma: float = 0.5):
    """Per-pair SimPO loss -log sigmoid(beta (pi_c/|c| - pi_r/|r|) - gamma) (reference-free)."""
    import torch.nn.functional as F

    beta = check_positive("beta", beta)
    gamma = check_positive("gamma", gamma, strict=False)
    return -F.logsigmoid(beta * (pi_c / _lengths(len_c) - pi_r / _lengths(len_r)) - gamma)


def reward_model_loss(r_c, r_r, *, margin: float = 0.0):
    """Bradley–Terry reward-model loss -log sigmoid(r_c - r_r - margin)."""
    import torch.nn.functional as F

    return -F.logsigmoid(r_c - r_r - margin)


# ----------------------------------------------------------------------------- optimal policy
def kl_optimal_policy(ref_probs: np.ndarray, rewards: np.ndarray, beta: float) -> np.ndarray:
    """``pi*(y) ∝ pi_ref(y) exp(r(y) / beta)`` over the last axis (rows are prompts)."""
    p = as_array("ref_probs", ref_probs, ndim=(1, 2))
    r = as_array("rewards", rewards, ndim=(1, 2))
    if p.shape != r.shape:
        raise ValueError(f"ref_probs and rewards must have one shape, got {p.shape} and {r.shape}")
    if np.any(p < 0) or not np.allclose(p.sum(-1), 1.0, atol=1e-8):
        raise ValueError("ref_probs must be probability vectors")
    beta = check_positive("beta", beta)
    logits = np.log(np.maximum(p, 1e-300)) + r / beta
    logits = np.where(p > 0, logits, -np.inf)
    logits -= logits.max(-1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(-1, keepdims=True)


def regularised_value(pi: np.ndarray, ref_probs: np.ndarray, rewards: np.ndarray, beta: float) -> np.ndarray:
    """``E_pi[r] - beta KL(pi || pi_ref)`` per row."""
    pi, p, r = np.asarray(pi, float), np.asarray(ref_probs, float), np.asarray(rewards, float)
    kl = np.where(pi > 0, pi * (np.log(np.maximum(pi, 1e-300)) - np.log(np.maximum(p, 1e-300))), 0.0).sum(-1)
    return (pi * r).sum(-1) - beta * kl


# ----------------------------------------------------------------------------- linear-utility comparisons
# Synthetic pairwise-preference data from a heterogeneous population of users.
#
# The shared substrate of the ``alignment`` cluster. It draws comparisons of the kind
# RLHF reward models are trained on, with the population structure under control, so
# that estimators of the *population-average* utility can be checked against a known
# truth.
#
# Generative model (random-coefficient linear utilities)
# ------------------------------------------------------
# Each comparison ``i`` shows a user two alternatives with feature difference
# ``delta_x[i] = x_a - x_b`` (shape ``(d,)``). The user has a taste vector ``beta_u``
# drawn from a population with mean ``beta_bar`` and states
#
#     y_i = 1{ beta_u^T delta_x[i] + eps_i > 0 },
#
# i.e. ``y = 1`` means "``a`` preferred to ``b``". ``eps_i`` is the difference of the two
# alternatives' idiosyncratic noises: ``"logistic"`` (the Bradley-Terry / logit case, which
# is what two i.i.d. Gumbel shocks give), ``"gumbel"`` (draws the two Gumbel shocks
# explicitly; the same law), ``"normal"`` (Thurstone / probit) or ``"none"``
# (deterministic choices).
#
# Population (``heterogeneity``):
#
# * ``"none"``: every user has ``beta_bar`` (the homogeneous BT model).
# * ``"mixture"``: a finite mixture of user types ``types[k]`` with probabilities
#   ``weights[k]``; ``beta_bar = sum_k weights[k] * types[k]``.
# * ``"gaussian"``: Gaussian random coefficients ``beta_u ~ N(beta_bar, cov)`` (``cov`` a
#   ``(d, d)`` matrix or a length-``d`` vector of standard deviations).
#
# Feature design (``design``):
#
# * ``"isotropic"``: ``delta_x ~ N(0, I_d)``;
# * ``"correlated"``: isotropic, then column ``j`` gets column ``i`` added for every pair
#   ``(i, j)`` in ``couple`` (correlates a heterogeneous direction with the signal);
# * an array ``A`` of shape ``(d, d)``: ``delta_x = z @ A.T`` with ``z ~ N(0, I_d)``.
#
# Users: by default each comparison is labelled by a fresh user (an infinite population,
# no user ids: the RLHF setting). With ``n_users`` a finite panel of users is drawn once
# and each comparison is assigned to a uniformly random panel member; ``user_ids`` then
# identify them (the panel-data setting that EM mixture baselines need).
#
# Presets used by the sign-estimator reproduction (arXiv:2510.23965) are given by
# :func:`preset`: ``"two"`` (two symmetric user types) and ``"gauss"`` (Gaussian tastes).

Heterogeneity = Literal["none", "mixture", "gaussian"]
Noise = Literal["logistic", "gumbel", "normal", "none"]


@dataclass
class PreferenceData:
    """One sample of pairwise comparisons.

    Attributes:
        delta_x: ``(n, d)`` feature differences ``x_a - x_b``.
        y: ``(n,)`` labels in {0, 1}; 1 means alternative ``a`` was preferred.
        beta_bar: ``(d,)`` population-mean taste vector (the cardinal target).
        direction: ``(d,)`` ``beta_bar / ||beta_bar||``, the ordinal target.
        user_ids: ``(n,)`` panel member per comparison, or ``None`` (fresh users).
        user_betas: ``(n_users, d)`` taste vectors of the panel (or of each comparison's
            user when there is no panel, shape ``(n, d)``).
        user_types: ``(n_users,)`` or ``(n,)`` mixture component per user (``-1`` when
            the population is not a finite mixture).
    """

    delta_x: np.ndarray
    y: np.ndarray
    beta_bar: np.ndarray
    direction: np.ndarray
    user_ids: np.ndarray | None = None
    user_betas: np.ndarray | None = None
    user_types: np.ndarray | None = field(default=None)


_check_vector = as_vector


def feature_design(n: int, d: int, design: str | np.ndarray, rng: np.random.Generator,
                   couple: tuple[tuple[int, int], ...] = ((0, 2),)) -> np.ndarray:
    """Draw ``(n, d)`` feature differences from ``design`` (see the module docstring)."""
    z = rng.standard_normal((n, d))
    if isinstance(design, str):
        if design == "isotropic":
            return z
        if design == "correlated":
            for i, j in couple:
                if not (0 <= i < d and 0 <= j < d and i != j):
                    raise ValueError(f"couple entries must be distinct indices < d={d}, got {(i, j)}")
                z[:, j] = z[:, j] + z[:, i]
            return z
        raise ValueError(f"design must be 'isotropic', 'correlated' or a (d, d) array, got {design!r}")
    a = np.asarray(design, dtype=float)
    if a.shape != (d, d) or not np.all(np.isfinite(a)):
        raise ValueError(f"design matrix must be a finite ({d}, {d}) array, got shape {a.shape}")
    return z @ a.T


def _draw_betas(m: int, beta_bar: np.ndarray, heterogeneity: str, types, weights, cov,
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    d = beta_bar.size
    if heterogeneity == "none":
        return np.tile(beta_bar, (m, 1)), np.full(m, -1)
    if heterogeneity == "mixture":
        k = rng.choice(len(weights), size=m, p=weights)
        return types[k], k
    if heterogeneity == "gaussian":
        if cov.ndim == 1:
            return beta_bar + rng.standard_normal((m, d)) * cov, np.full(m, -1)
        return rng.multivariate_normal(beta_bar, cov, size=m, method="cholesky"), np.full(m, -1)
    raise ValueError(f"heterogeneity must be 'none', 'mixture' or 'gaussian', got {heterogeneity!r}")


def _draw_noise(n: int, noise: str, scale: float, rng: np.random.Generator) -> np.ndarray:
    if noise == "logistic":
        return scale * rng.logistic(size=n)
    if noise == "gumbel":  # difference of the two alternatives' Gumbel shocks: logistic in law
        return scale * (rng.gumbel(size=n) - rng.gumbel(size=n))
    if noise == "normal":
        return scale * rng.standard_normal(n)
    if noise == "none":
        return np.zeros(n)
    raise ValueError(f"noise must be 'logistic', 'gumbel', 'normal' or 'none', got {noise!r}")


def sample_preferences(n: int, *, beta_bar: np.ndarray | None = None,
                       heterogeneity: Heterogeneity = "mixture",
                       types: np.ndarray | None = None, weights: np.ndarray | None = None,
                       cov: np.ndarray | None = None,
                       design: str | np.ndarray = "isotropic",
                       couple: tuple[tuple[int, int], ...] = ((0, 2),),
                       noise: Noise = "logistic", noise_scale: float = 1.0,
                       n_users: int | None = None,
                       rng: np.random.Generator | int | None = None) -> PreferenceData:
    """Draw ``n`` comparisons from a heterogeneous population (model in the module docstring).

    Args:
        n: number of comparisons (>= 1).
        beta_bar: ``(d,)`` population-mean taste; required unless ``heterogeneity="mixture"``
            (then it is ``weights @ types``; if given it must match).
        heterogeneity: ``"none"``, ``"mixture"`` or ``"gaussian"``.
        types: ``(K, d)`` taste vector of each user type (mixture only).
        weights: ``(K,)`` type probabilities (mixture only; default uniform).
        cov: ``(d,)`` standard deviations or ``(d, d)`` covariance (gaussian only).
        design: feature design, see :func:`feature_design`.
        couple: index pairs ``(i, j)`` for the ``"correlated"`` design.
        noise: choice-noise law; ``noise_scale`` multiplies it.
        n_users: size of a finite user panel (returns ``user_ids``); ``None`` = fresh users.
        rng: a ``numpy.random.Generator`` or a seed.

    Returns:
        :class:`PreferenceData` with ``delta_x (n, d)``, ``y (n,)`` in {0, 1} and the truth.
    """
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if not np.isfinite(noise_scale) or noise_scale < 0:
        raise ValueError(f"noise_scale must be finite and >= 0, got {noise_scale!r}")

    if heterogeneity == "mixture":
        if types is None:
            raise ValueError("types (K, d) is required for heterogeneity='mixture'")
        types = np.asarray(types, dtype=float)
        if types.ndim != 2 or types.shape[0] < 1 or not np.all(np.isfinite(types)):
            raise ValueError(f"types must be a finite (K, d) array, got shape {types.shape}")
        k = types.shape[0]
        weights = np.full(k, 1.0 / k) if weights is None else _check_vector("weights", weights, k)
        if np.any(weights < 0) or not np.isclose(weights.sum(), 1.0):
            raise ValueError(f"weights must be non-negative and sum to 1, got {weights}")
        mean = weights @ types
        if beta_bar is not None and not np.allclose(_check_vector("beta_bar", beta_bar, types.shape[1]), mean):
            raise ValueError(f"beta_bar {beta_bar} differs from the mixture mean weights @ types = {mean}")
        beta_bar = mean
    else:
        if beta_bar is None:
            raise ValueError(f"beta_bar is required for heterogeneity={heterogeneity!r}")
        beta_bar = _check_vector("beta_bar", beta_bar)
        if heterogeneity == "gaussian":
            if cov is None:
                raise ValueError("cov is required for heterogeneity='gaussian'")
            cov = np.asarray(cov, dtype=float)
            d = beta_bar.size
            if cov.shape not in ((d,), (d, d)) or not np.all(np.isfinite(cov)):
                raise ValueError(f"cov must be a finite ({d},) or ({d}, {d}) array, got shape {cov.shape}")
    d = beta_bar.size
    norm = float(np.linalg.norm(beta_bar))
    if norm == 0:
        raise ValueError("beta_bar is zero: the population has no mean direction")

    delta_x = feature_design(n, d, design, rng, couple)
    if n_users is None:
        betas, kinds = _draw_betas(n, beta_bar, heterogeneity, types, weights, cov, rng)
        per_pair, user_ids = betas, None
    else:
        if not isinstance(n_users, (int, np.integer)) or n_users < 1:
            raise ValueError(f"n_users must be a positive integer or None, got {n_users!r}")
        betas, kinds = _draw_betas(int(n_users), beta_bar, heterogeneity, types, weights, cov, rng)
        user_ids = rng.integers(0, n_users, size=n)
        per_pair = betas[user_ids]
    utility_gap = np.einsum("nd,nd->n", per_pair, delta_x) + _draw_noise(n, noise, noise_scale, rng)
    y = (utility_gap > 0).astype(float)
    return PreferenceData(delta_x=delta_x, y=y, beta_bar=beta_bar, direction=beta_bar / norm,
                          user_ids=user_ids, user_betas=betas, user_types=kinds)


#: ``beta_bar`` of the sign-estimator reproduction presets.
BETA_BAR_5 = np.array([1.0, 0.5, 0.0, 0.0, 0.0])


def preset(name: str, d: int = 5) -> dict:
    """Keyword arguments for :func:`sample_preferences` for a named population.

    ``d`` (only for ``"gauss"``, default 5) embeds the population in ``d >= 3`` dimensions:
    ``beta_bar = (1, .5, 0, ..., 0)``, standard deviations 0.2 except 3 on the third
    coordinate, the same correlated design (the dimension sweep of the sign estimator).

    * ``"two"``: d = 5, ``beta_bar = (1, .5, 0, 0, 0)``; two equally likely types
      ``2 beta_bar + 3 e_3`` and ``-3 e_3`` (mean ``beta_bar``; each pair's taste deviation
      ``+-(beta_bar + 3 e_3)^T delta_x`` is symmetric about 0); correlated design
      (``delta_x_3 += delta_x_1``); logistic noise.
    * ``"two-asym"``: as ``"two"`` but types weighted 0.3 / 0.7 with the second type
      rescaled so the mean stays ``beta_bar`` (breaks the symmetry assumption).
    * ``"gauss"``: Gaussian tastes ``N(beta_bar, diag(.2, .2, 3, .2, .2)^2)``, correlated
      design, logistic noise.
    * ``"homogeneous"``: every user has ``beta_bar``; isotropic design; logistic noise.
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 3:
        raise ValueError(f"d must be an integer >= 3, got {d!r}")
    if d != 5 and name != "gauss":
        raise ValueError(f"only the 'gauss' preset takes d != 5, got {name!r} with d={d}")
    if name == "gauss" and d != 5:
        b = np.zeros(d)
        b[:2] = BETA_BAR_5[:2]
        sd = np.full(d, 0.2)
        sd[2] = 3.0
        return dict(heterogeneity="gaussian", beta_bar=b, cov=sd, design="correlated", couple=((0, 2),),
                    noise="logistic")
    e3 = np.eye(5)[2]
    b = BETA_BAR_5
    if name == "two":
        return dict(heterogeneity="mixture", types=np.stack([2 * b + 3 * e3, -3 * e3]),
                    weights=np.array([0.5, 0.5]), design="correlated", couple=((0, 2),),
                    noise="logistic")
    if name == "two-asym":
        w = np.array([0.3, 0.7])
        t1 = 2 * b + 3 * e3
        t2 = (b - w[0] * t1) / w[1]
        return dict(heterogeneity="mixture", types=np.stack([t1, t2]), weights=w,
                    design="correlated", couple=((0, 2),), noise="logistic")
    if name == "gauss":
        return dict(heterogeneity="gaussian", beta_bar=b, cov=np.array([0.2, 0.2, 3.0, 0.2, 0.2]),
                    design="correlated", couple=((0, 2),), noise="logistic")
    if name == "homogeneous":
        return dict(heterogeneity="none", beta_bar=b, design="isotropic", noise="logistic")
    raise ValueError(f"unknown preset {name!r}; choose 'two', 'two-asym', 'gauss' or 'homogeneous'")
