"""RLHF, DPO and online DPO solved exactly on a finite bandit (arXiv:2505.19770, Sec. 2-3).

The setting of the paper (Sec. 2): one prompt, a finite response set ``Y = {0..K-1}``, a
ground-truth reward ``r_star`` (shape ``(K,)``), a reference policy ``pi_ref`` (``(K,)``)
and the KL-regularised value

    V_r(pi) = E_{y~pi}[r(y)] - beta * KL(pi || pi_ref),      pi_star ∝ pi_ref * exp(r_star / beta).

Preferences follow Bradley-Terry: ``P(a ≻ b) = sigmoid(r_star[a] - r_star[b])``. A pair
distribution ``mu`` is a ``(K, K)`` matrix of probabilities of showing the ordered pair
``(a, b)``; the *population* (exact-optimisation, infinite-data) logistic loss of a
score vector ``s`` is

    L_mu(s) = - sum_{a,b} mu[a,b] * ( P[a,b] log sigmoid(s_a - s_b) + P[b,a] log sigmoid(s_b - s_a) ).

Model classes (all linear in features, which covers the paper's examples):

* reward class ``F = { r_w = Psi @ w }`` with ``Psi: (K, d_r)``; ``Psi = I_K`` is the
  tabular (realizable) class;
* policy class ``Pi = { pi_theta ∝ pi_ref * exp(Phi @ theta / beta) }`` with ``Phi: (K, d_p)``;
  ``Phi = I_K`` is the tabular class that contains ``pi_star``. The implicit (DPO) reward
  is ``h_theta = beta log(pi_theta / pi_ref) = Phi @ theta - beta log Z(theta)``.

Learners (Sec. 3):

* two-stage RLHF: ``r_RLHF = argmin_{r in F} L_mu(r)`` then ``pi_RLHF = argmax_{pi in Pi} V_{r_RLHF}(pi)``;
* DPO: ``pi_DPO = argmin_{theta} L_mu(h_theta)`` (the normaliser cancels in differences,
  so this is convex in ``theta``);
* online DPO: pairs are re-drawn from the current policy through a sampler
  ``mu_theta`` (held fixed inside each gradient step) and the DPO loss is descended;
  its solution is a fixed point ``grad_theta L_{mu_theta}(h_theta) = 0``. The paper uses
  the PILAF sampler (Feng et al., arXiv:2502.04270). PILAF labels either a pair drawn from
  ``pi_theta ⊗ pi_theta`` or a pair ``(y_a ~ pi_plus, y_b ~ pi_minus)`` with
  ``pi_plus ∝ pi_theta exp(h_theta) ∝ pi_theta^{1+beta} pi_ref^{-beta}`` (extrapolated past
  ``pi_theta``, away from ``pi_ref``) and ``pi_minus ∝ pi_theta exp(-h_theta) ∝
  pi_theta^{1-beta} pi_ref^{beta}`` (interpolated towards ``pi_ref``). The two pair sources
  are mixed as ``mu ∝ pi ⊗ pi + (pi e^{h}) ⊗ (pi e^{-h})``, i.e. with probabilities
  ``1 / (1 + Z+ Z-)`` and ``Z+ Z- / (1 + Z+ Z-)`` where ``Z± = E_pi e^{±h}``: the only mix of
  the two sources under which the expected DPO gradient equals ``-c grad_theta
  V_{r_star}(pi_theta)`` to first order in ``r_star - h_theta`` (the gradient property PILAF
  is built on; symmetrised over the order of the pair these are the weights
  ``pi(a) pi(b) / sigmoid'(h_a - h_b)``). ``"pilaf-half"`` is the same two sources mixed
  half and half with normalised ``pi_plus``, ``pi_minus`` (equal to ``"pilaf"`` when
  ``Z+ Z- = 1``); ``"on-policy"`` is ``pi ⊗ pi``, the control. What we could read of PILAF itself
  (its Table 1, through a stored summary of its HTML page) names the two pair sources (first
  response from pi_plus or pi_theta, second from pi_minus or pi_theta) but not the probability of
  each; its Section 4 text and official code were not found in the stored sources (searched again
  for issue 16), so the 1 : Z+ Z- mix stays derived, not read. That first-order property is
  why online DPO can beat both RLHF and DPO when both classes are mis-specified.

Value maximisation inside a log-linear class is not concave in ``theta``; it is solved
with L-BFGS from several starts (analytic gradient ``grad V = Cov_pi(Phi, r - h) / beta``).
The logistic (Bradley-Terry) fits are convex and solved by the shared Newton solver of ``alignment._preferences``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp

from icml26.alignment._preferences import fit_linear_bradley_terry
from icml26.core.validate import as_array, as_vector, check_int, check_positive

__all__ = [
    "bt_preference_matrix", "value", "optimal_policy", "log_linear_policy", "implicit_reward",
    "population_bt_loss", "fit_reward_mle", "best_policy_in_class", "rlhf", "dpo",
    "pair_distribution", "online_dpo", "reference_pairs", "fit_bt_from_samples",
]


# ----------------------------------------------------------------------------- validation
def _vec(name: str, x, k: int | None = None) -> np.ndarray:
    """A finite, non-empty 1-D float array (TypeError for strings and other non-arrays)."""
    return as_vector(name, as_array(name, x, ndim=1), k)


def _prob(name: str, p, k: int | None = None) -> np.ndarray:
    p = _vec(name, p, k)
    if np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-8:
        raise ValueError(f"{name} must be a strictly positive probability vector (sums to 1)")
    return p


def _feat(name: str, m, k: int) -> np.ndarray:
    m = as_array(name, m, ndim=2)
    if m.shape[0] != k or m.shape[1] == 0:
        raise ValueError(f"{name} must have shape (K={k}, d) with d >= 1, got {m.shape}")
    return m


def _beta(beta: float) -> float:
    return check_positive("beta", beta)


def _pairs(name: str, mu, k: int) -> np.ndarray:
    mu = as_array(name, mu, ndim=2)
    if mu.shape != (k, k):
        raise ValueError(f"{name} must have shape ({k}, {k}), got {mu.shape}")
    if not np.all(np.isfinite(mu)) or np.any(mu < 0) or mu.sum() <= 0:
        raise ValueError(f"{name} must be a non-negative finite matrix with positive mass")
    return mu / mu.sum()


# ----------------------------------------------------------------------------- basics
def bt_preference_matrix(r_star) -> np.ndarray:
    """``P[a, b] = sigmoid(r_star[a] - r_star[b])``, shape ``(K, K)`` (Bradley-Terry)."""
    r = _vec("r_star", r_star)
    return expit(r[:, None] - r[None, :])


def value(pi, r_star, pi_ref, beta: float) -> float:
    """``V(pi) = E_pi r_star - beta KL(pi || pi_ref)`` (Sec. 2); ``pi`` may have zeros."""
    r = _vec("r_star", r_star)
    pi = _vec("pi", pi, r.size)
    if np.any(pi < 0) or abs(pi.sum() - 1.0) > 1e-8:
        raise ValueError("pi must be a probability vector")
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    beta = _beta(beta)
    nz = pi > 0
    kl = float(np.sum(pi[nz] * (np.log(pi[nz]) - np.log(pi_ref[nz]))))
    return float(pi @ r) - beta * kl


def optimal_policy(r, pi_ref, beta: float) -> np.ndarray:
    """Closed-form maximiser of ``V_r``: ``pi ∝ pi_ref exp(r / beta)``."""
    r = _vec("r", r)
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    z = np.log(pi_ref) + r / _beta(beta)
    return np.exp(z - logsumexp(z))


def log_linear_policy(theta, Phi, pi_ref, beta: float) -> np.ndarray:
    """``pi_theta ∝ pi_ref exp(Phi @ theta / beta)``; ``Phi: (K, d)``, ``theta: (d,)``."""
    pi_ref = _prob("pi_ref", pi_ref)
    Phi = _feat("Phi", Phi, pi_ref.size)
    theta = _vec("theta", theta, Phi.shape[1])
    z = np.log(pi_ref) + Phi @ theta / _beta(beta)
    return np.exp(z - logsumexp(z))


def implicit_reward(pi, pi_ref, beta: float) -> np.ndarray:
    """DPO's implicit reward ``h = beta log(pi / pi_ref)`` (defined up to a constant)."""
    pi_ref = _prob("pi_ref", pi_ref)
    pi = _prob("pi", pi, pi_ref.size)
    return _beta(beta) * (np.log(pi) - np.log(pi_ref))


def reference_pairs(pi_ref) -> np.ndarray:
    """The offline pair distribution ``mu = pi_ref ⊗ pi_ref`` used throughout."""
    p = _prob("pi_ref", pi_ref)
    return np.outer(p, p)


# ----------------------------------------------------------------------------- losses
def population_bt_loss(s, mu, r_star) -> float:
    """Exact population logistic (BT / DPO) loss ``L_mu(s)`` of score vector ``s: (K,)``."""
    r = _vec("r_star", r_star)
    s = _vec("s", s, r.size)
    mu = _pairs("mu", mu, r.size)
    P = bt_preference_matrix(r)
    D = s[:, None] - s[None, :]
    return float(-np.sum(mu * (P * log_expit(D) + P.T * log_expit(-D))))


def _bt_loss_and_grad(coef, X, mu, P, ridge=0.0):
    """Loss and gradient in the linear parameter ``coef`` of scores ``s = X @ coef``."""
    s = X @ coef
    D = s[:, None] - s[None, :]
    loss = -np.sum(mu * (P * log_expit(D) + P.T * log_expit(-D)))
    # d loss / d D[a,b] = mu[a,b] (sigmoid(D) - P[a,b]) (P + P.T = 1)
    G = mu * (expit(D) - P)
    g_s = G.sum(axis=1) - G.sum(axis=0)
    grad = X.T @ g_s
    if ridge:
        loss += 0.5 * ridge * coef @ coef
        grad = grad + ridge * coef
    return loss, grad


def _fit_linear_bt(X, mu, P, x0=None) -> np.ndarray:
    """Population BT fit of ``s = X @ coef``: every ordered pair ``(a, b)`` is one comparison with
    feature difference ``X[a] - X[b]``, soft label ``P[a, b]`` and weight ``mu[a, b]``."""
    # A vanishing ridge only pins the direction in which scores shift by a constant
    # (e.g. tabular features); it does not move the preferences the fit implies.
    K = X.shape[0]
    a, b = np.divmod(np.arange(K * K), K)
    return fit_linear_bradley_terry(X[a] - X[b], P[a, b], weights=mu[a, b], l2=1e-12, theta0=x0, tol=1e-13,
                                    max_iter=200)


def fit_reward_mle(Psi, mu, r_star) -> np.ndarray:
    """Stage 1 of RLHF: ``w = argmin_w L_mu(Psi @ w)`` (convex). Returns ``w: (d_r,)``."""
    r = _vec("r_star", r_star)
    Psi = _feat("Psi", Psi, r.size)
    mu = _pairs("mu", mu, r.size)
    return _fit_linear_bt(Psi, mu, bt_preference_matrix(r))


def _neg_value_and_grad(theta, Phi, r, log_ref, beta):
    z = log_ref + Phi @ theta / beta
    logZ = logsumexp(z)
    pi = np.exp(z - logZ)
    h = Phi @ theta - beta * logZ          # beta log(pi / pi_ref)
    adv = r - h
    v = pi @ adv
    phibar = pi @ Phi
    grad = (pi * (adv - v)) @ (Phi - phibar) / beta
    return -v, -grad


def best_policy_in_class(r, Phi, pi_ref, beta: float, n_starts: int = 8,
                         rng: np.random.Generator | None = None, scale: float = 3.0) -> np.ndarray:
    """``argmax_theta V_r(pi_theta)`` over the log-linear class (multi-start L-BFGS).

    Starts: ``theta = 0`` (``pi_ref``), the least-squares projection of ``r`` on ``Phi``,
    and ``n_starts - 2`` Gaussian draws of scale ``scale``. Returns ``theta: (d_p,)``.
    """
    r = _vec("r", r)
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    Phi = _feat("Phi", Phi, r.size)
    beta = _beta(beta)
    n_starts = check_int("n_starts", n_starts, minimum=1)
    scale = check_positive("scale", scale)
    rng = np.random.default_rng(0) if rng is None else rng
    d = Phi.shape[1]
    starts = [np.zeros(d)]
    if n_starts > 1:
        starts.append(np.linalg.lstsq(Phi - Phi.mean(0), r - r.mean(), rcond=None)[0])
    while len(starts) < n_starts:
        starts.append(rng.normal(0.0, scale, size=d))
    best, best_v = None, -np.inf
    log_ref = np.log(pi_ref)
    for x0 in starts:
        res = minimize(_neg_value_and_grad, x0, args=(Phi, r, log_ref, beta), jac=True,
                       method="L-BFGS-B", options={"maxiter": 5000, "gtol": 1e-12, "ftol": 1e-16})
        if -res.fun > best_v:
            best, best_v = res.x, -res.fun
    return best


# ----------------------------------------------------------------------------- learners
def rlhf(r_star, Psi, Phi, pi_ref, beta: float, mu=None, n_starts: int = 8,
         rng: np.random.Generator | None = None) -> dict:
    """Two-stage RLHF under exact optimisation (Sec. 3).

    Returns ``{"w", "r_hat" (K,), "theta" or None, "pi" (K,)}``. ``Phi=None`` means the
    unrestricted policy class, solved in closed form ``pi ∝ pi_ref exp(r_hat / beta)``.
    """
    r = _vec("r_star", r_star)
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    beta = _beta(beta)
    n_starts = check_int("n_starts", n_starts, minimum=1)
    mu = reference_pairs(pi_ref) if mu is None else mu
    w = fit_reward_mle(Psi, mu, r)
    r_hat = np.asarray(Psi, float) @ w
    if Phi is None:
        return {"w": w, "r_hat": r_hat, "theta": None, "pi": optimal_policy(r_hat, pi_ref, beta)}
    theta = best_policy_in_class(r_hat, Phi, pi_ref, beta, n_starts=n_starts, rng=rng)
    return {"w": w, "r_hat": r_hat, "theta": theta, "pi": log_linear_policy(theta, Phi, pi_ref, beta)}


def dpo(r_star, Phi, pi_ref, beta: float, mu=None) -> dict:
    """Offline DPO under exact optimisation: ``theta = argmin L_mu(h_theta)`` (convex).

    Since ``h_theta[a] - h_theta[b] = (Phi[a] - Phi[b]) @ theta``, this is the logistic fit
    of the implicit reward. Returns ``{"theta" (d_p,), "pi" (K,)}``.
    """
    r = _vec("r_star", r_star)
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    Phi = _feat("Phi", Phi, r.size)
    beta = _beta(beta)
    mu = reference_pairs(pi_ref) if mu is None else _pairs("mu", mu, r.size)
    theta = _fit_linear_bt(Phi, mu, bt_preference_matrix(r))
    return {"theta": theta, "pi": log_linear_policy(theta, Phi, pi_ref, beta)}


SAMPLERS = ("pilaf", "pilaf-half", "first-order", "on-policy")


def pair_distribution(pi, h, sampler: str = "pilaf") -> np.ndarray:
    """Ordered pair distribution ``mu[a, b]`` (shape ``(K, K)``, sums to 1) drawn from the current policy.

    ``pi: (K,)`` current policy, ``h: (K,)`` its implicit reward ``beta log(pi/pi_ref)`` (any
    constant shift gives the same ``mu``).

    * ``"pilaf"``: ``(pi ⊗ pi + Z+ Z- pi_plus ⊗ pi_minus) / (1 + Z+ Z-)`` with
      ``pi_plus = pi e^{h} / Z+``, ``pi_minus = pi e^{-h} / Z-`` (PILAF, arXiv:2502.04270);
    * ``"pilaf-half"``: ``1/2 pi ⊗ pi + 1/2 pi_plus ⊗ pi_minus``;
    * ``"first-order"``: ``∝ pi(a) pi(b) / sigmoid'(h_a - h_b)``, the symmetrised form of ``"pilaf"``
      (same DPO loss and gradient);
    * ``"on-policy"``: ``pi ⊗ pi``.
    """
    pi = _vec("pi", pi)
    if np.any(pi <= 0) or abs(pi.sum() - 1) > 1e-8:
        raise ValueError("pi must be a strictly positive probability vector")
    h = _vec("h", h, pi.size)
    _check_sampler(sampler)
    return _pairs_unchecked(pi, h, sampler)


def _check_sampler(sampler: str) -> None:
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")


def _pairs_unchecked(pi, h, sampler):
    if sampler == "on-policy":
        return np.outer(pi, pi)
    h = h - 0.5 * (h.max() + h.min())                   # the shift cancels in every sampler
    if sampler == "pilaf":
        m = np.outer(pi, pi) + np.outer(pi * np.exp(h), pi * np.exp(-h))
        return m / m.sum()
    if sampler == "pilaf-half":
        lp = np.log(pi)
        plus = np.exp(lp + h - logsumexp(lp + h))
        minus = np.exp(lp - h - logsumexp(lp - h))
        return 0.5 * np.outer(pi, pi) + 0.5 * np.outer(plus, minus)
    D = h[:, None] - h[None, :]                         # "first-order"
    m = np.outer(pi, pi) / (expit(D) * expit(-D))
    return m / m.sum()


def _online_grad(theta, Phi, log_ref, beta, P, sampler):
    h = Phi @ theta                                     # implicit reward up to a constant
    z = log_ref + h / beta
    pi = np.exp(z - logsumexp(z))
    return _bt_loss_and_grad(theta, Phi, _pairs_unchecked(pi, h, sampler), P)[1]


def online_dpo(r_star, Phi, pi_ref, beta: float, sampler: str = "pilaf", lr: float = 0.5,
               steps: int = 4000, theta0=None, tol: float = 1e-10, polish: bool = True) -> dict:
    """Online DPO under exact (population) gradients.

    Each step draws the pair distribution from the current policy (``sampler``, held
    fixed inside the step: no gradient flows through the sampler) and takes a gradient
    step ``theta <- theta - lr * grad_theta L_{mu_theta}(h_theta)``. Starts at
    ``theta0`` (default ``0``, i.e. ``pi_ref``) and stops when the gradient norm is below
    ``tol``. With ``polish`` the last iterate is refined by a root finder on the same
    fixed-point equation (kept only if it lowers the gradient norm), so that the result is
    the online-DPO solution to machine precision rather than a truncated iteration.
    Returns ``{"theta", "pi", "grad_norm", "steps"}``.
    """
    r = _vec("r_star", r_star)
    pi_ref = _prob("pi_ref", pi_ref, r.size)
    Phi = _feat("Phi", Phi, r.size)
    beta = _beta(beta)
    lr = check_positive("lr", lr)
    steps = check_int("steps", steps, minimum=1)
    tol = check_positive("tol", tol)
    _check_sampler(sampler)
    P = bt_preference_matrix(r)
    log_ref = np.log(pi_ref)
    theta = np.zeros(Phi.shape[1]) if theta0 is None else _vec("theta0", theta0, Phi.shape[1]).copy()
    gnorm, t = np.inf, 0
    for t in range(1, steps + 1):
        g = _online_grad(theta, Phi, log_ref, beta, P, sampler)
        gnorm = float(np.linalg.norm(g))
        if gnorm < tol:
            break
        theta = theta - lr * g
    if polish and gnorm >= tol:
        from scipy.optimize import root

        sol = root(_online_grad, theta, args=(Phi, log_ref, beta, P, sampler), method="lm", tol=1e-14)
        g2 = float(np.linalg.norm(_online_grad(sol.x, Phi, log_ref, beta, P, sampler)))
        if np.all(np.isfinite(sol.x)) and g2 < gnorm:
            theta, gnorm = sol.x, g2
    return {"theta": theta, "pi": log_linear_policy(theta, Phi, pi_ref, beta),
            "grad_norm": gnorm, "steps": t}



# ----------------------------------------------------------------------------- finite samples (Sec. 4)
def fit_bt_from_samples(X_diff, y, penalty: str = "l1", Cs=None, cv: int = 5) -> np.ndarray:
    """Penalised Bradley-Terry fit from sampled comparisons (no intercept).

    ``X_diff: (n, d)`` feature differences ``psi(a_i) - psi(b_i)``, ``y: (n,)`` in {0, 1}
    (1: ``a_i`` preferred). ``penalty="l1"`` is the sparse fit, ``penalty="l2"`` weight decay; in
    E4 each learner is fitted with both (RLHF on the reward features, DPO's implicit reward of a
    log-linear policy on the policy's features). l2 is rotation invariant, so on rotated features
    alone the two l2 fits coincide (unit-tested); E4's policy features also hold unused ones. The inverse
    penalty ``C`` is chosen from ``Cs`` by ``cv``-fold cross-validated log-loss
    (scikit-learn ``LogisticRegressionCV``; default grid ``C in 10^[-4, 1]``, 11 values, the
    same for both penalties). Returns the weights ``w: (d,)``.
    """
    from sklearn.linear_model import LogisticRegressionCV

    X = as_array("X_diff", X_diff, ndim=2)
    y = as_array("y", y, ndim=1)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    cv = check_int("cv", cv, minimum=2)
    if not np.all(np.isin(y, (0, 1))):
        raise ValueError("y must contain only 0/1 labels")
    if penalty not in ("l1", "l2"):
        raise ValueError(f"penalty must be 'l1' or 'l2', got {penalty!r}")
    if len(np.unique(y)) < 2:
        return np.zeros(X.shape[1])
    Cs = np.logspace(-4, 1, 11) if Cs is None else np.asarray(Cs, dtype=float)
    solver = "liblinear" if penalty == "l1" else "lbfgs"
    kw = {"l1_ratios": (1.0,) if penalty == "l1" else (0.0,), "use_legacy_attributes": False}
    try:
        model = LogisticRegressionCV(Cs=Cs, cv=cv, solver=solver, fit_intercept=False,
                                     scoring="neg_log_loss", max_iter=300, tol=1e-4, random_state=0, **kw)
    except TypeError:  # scikit-learn < 1.8 spells the penalty the old way
        model = LogisticRegressionCV(Cs=Cs, cv=cv, penalty=penalty, solver=solver,
                                     fit_intercept=False, scoring="neg_log_loss", max_iter=2000,
                                     tol=1e-4, random_state=0)
    model.fit(X, y.astype(int))
    return model.coef_.ravel().copy()


def EXAMPLES() -> list:
    """Public functions with valid arguments, for the common bad-input test."""
    rng = np.random.default_rng(0)
    K = 4
    r = np.array([0.5, -1.0, 0.2, 1.1])
    pr = np.array([0.1, 0.2, 0.3, 0.4])
    Phi = rng.normal(size=(K, 2))
    mu = np.outer(pr, pr)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    y[:3] = 1 - y[:3]
    return [
        (bt_preference_matrix, {"r_star": r}),
        (value, {"pi": pr.copy(), "r_star": r, "pi_ref": pr, "beta": 0.5}),
        (optimal_policy, {"r": r, "pi_ref": pr, "beta": 0.5}),
        (log_linear_policy, {"theta": np.array([0.3, -0.2]), "Phi": Phi, "pi_ref": pr, "beta": 0.5}),
        (implicit_reward, {"pi": pr[::-1].copy(), "pi_ref": pr, "beta": 0.5}),
        (reference_pairs, {"pi_ref": pr}),
        (population_bt_loss, {"s": r * 0.5, "mu": mu, "r_star": r}),
        (fit_reward_mle, {"Psi": Phi, "mu": mu, "r_star": r}),
        (best_policy_in_class, {"r": r, "Phi": Phi, "pi_ref": pr, "beta": 0.5, "n_starts": 2, "scale": 1.0}),
        (rlhf, {"r_star": r, "Psi": Phi, "Phi": Phi, "pi_ref": pr, "beta": 0.5, "n_starts": 2}),
        (dpo, {"r_star": r, "Phi": Phi, "pi_ref": pr, "beta": 0.5}),
        (pair_distribution, {"pi": pr, "h": r}),
        (online_dpo, {"r_star": r, "Phi": Phi, "pi_ref": pr, "beta": 0.5, "lr": 0.5, "steps": 20,
                      "tol": 1e-10}),
        (fit_bt_from_samples, {"X_diff": X, "y": y, "cv": 3}),
    ]
