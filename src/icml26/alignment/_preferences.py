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

Losses on sequence log-probabilities (``pi_*`` under the policy, ``ref_*`` under the reference):
``dpo_loss = -log sigmoid(beta (dc - dr))`` with ``d = pi - ref``; ``ipo_loss = (dc/|c| - dr/|r| - 1/(2 beta))^2``
(length-normalised as in TRL); ``simpo_loss = -log sigmoid(beta (pi_c/|c| - pi_r/|r|) - gamma)``;
``reward_model_loss = -log sigmoid(r_c - r_r)``. DPO and IPO equal TRL's ``DPOTrainer`` losses (tested).

Policy. :func:`kl_optimal_policy`: ``pi*(y) = pi_ref(y) exp(r(y)/beta) / Z``, the maximiser of
``E_pi[r] - beta KL(pi || pi_ref)`` over a finite response set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive


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
