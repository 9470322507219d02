"""The sign estimator and its RLHF (Bradley-Terry) baseline, for linear reward models.

Aouad, El Gadarri, Farias, "The Sign Estimator: LLM Alignment in the Face of Choice
Heterogeneity", arXiv:2510.23965.

Setting. Comparison ``i`` shows alternatives with feature difference ``delta_x_i`` to a
random user with taste ``beta_i``; the label is ``y_i = 1{beta_i^T delta_x_i + eps_i > 0}``.
The target is the population-average taste ``beta_bar = E[beta_i]``, identified only up to
a positive scale, so estimators return a unit vector ``theta``. Write ``s_i = 2 y_i - 1``.

RLHF / Bradley-Terry (the baseline). Cross-entropy of a single logit model,

    theta_BT = argmin_theta  sum_i log(1 + exp(-s_i theta^T delta_x_i)),

reported as ``theta_BT / ||theta_BT||``. Under heterogeneity this model is mis-specified and
its direction is in general not that of ``beta_bar`` (inconsistent).

Sign estimator (the paper's method). Replace cross-entropy by the binary-classification
(0-1) loss,

    theta_hat in argmin_{||theta|| = 1}  (1/n) sum_i 1{ s_i theta^T delta_x_i < 0 }.

If for every pair the random utility gap ``(beta_i - beta_bar)^T delta_x + eps`` is
symmetric about 0, then ``P(y = 1 | delta_x) > 1/2  <=>  beta_bar^T delta_x > 0``: the Bayes
classifier is ``sign(beta_bar^T delta_x)`` and the 0-1 minimiser is ordinally consistent,
with an ``O~(n^{-1/3})`` direction error for linear utilities (maximum-score-type rate).

Optimisation. The 0-1 objective is piecewise constant, so, as the paper does, we minimise a
smooth proxy inside a gradient pipeline: the sigmoid ramp

    L_tau(theta) = (1/n) sum_i sigmoid(-s_i theta^T delta_x_i / (tau * c)),   ||theta|| = 1,

(``c`` = RMS of ``||delta_x_i|| / sqrt(d)``, which makes ``tau`` scale-free), which tends to
the 0-1 loss as ``tau -> 0``. ``theta = w / ||w||`` is optimised with L-BFGS over ``w``; ``tau``
is annealed along a schedule with warm starts from the BT solution, random starts search
the sharpest proxy, and the end point with the smallest *exact* empirical 0-1 loss is returned (the
estimator's definition; the proxy is only the search device). The paper does not fix the
proxy; this ramp, its schedule and the multi-start are our choices.

Panel baseline. :func:`em_mixture_logit` fits a K-type mixture of logits by EM using user
ids (what the paper calls panel-data heuristics) and returns the direction of the fitted
population mean ``sum_k pi_k beta_k``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from icml26.core.validate import as_array, as_rng, check_int, check_positive

__all__ = ["bradley_terry", "sign_estimator", "sign_loss", "zero_one_loss", "angle_deg",
           "disagreement", "em_mixture_logit"]

DEFAULT_TAUS: tuple[float, ...] = (0.5, 0.2, 0.05)


# ----------------------------------------------------------------------------- validation
def _check_x(delta_x) -> np.ndarray:
    x = as_array("delta_x", delta_x, ndim=2)
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"delta_x is empty: shape {x.shape}")
    with np.errstate(over="ignore"):
        if not np.isfinite(np.sum(x * x)):
            raise ValueError("delta_x is too large in magnitude (its squares overflow float64); rescale it")
    return x


def _check_xy(delta_x, y) -> tuple[np.ndarray, np.ndarray]:
    x = _check_x(delta_x)
    yy = as_array("y", y, ndim=1, finite=False)
    if yy.shape[0] != x.shape[0]:
        raise ValueError(f"y must be a 1-D array of length n={x.shape[0]}, got shape {yy.shape}")
    if not np.all(np.isfinite(yy)):
        raise ValueError("y contains NaN or inf")
    if not np.all((yy == 0) | (yy == 1)):
        bad = np.unique(yy[(yy != 0) & (yy != 1)])[:5]
        raise ValueError(f"y must contain only 0 and 1, found {bad.tolist()}")
    return x, yy


def _check_theta(theta, d: int, name: str = "theta") -> np.ndarray:
    t = as_array(name, theta, ndim=1, finite=False)
    if t.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},), got {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{name} contains NaN or inf")
    nrm = np.linalg.norm(t)
    if nrm == 0:
        raise ValueError(f"{name} is the zero vector")
    return t / nrm


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


# ----------------------------------------------------------------------------- metrics
def angle_deg(a, b) -> float:
    """Angle in degrees between two non-zero vectors of the same length."""
    a = as_array("a", a, ndim=1)
    b = as_array("b", b, ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"a and b must be 1-D arrays of equal length, got {a.shape} and {b.shape}")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or not np.isfinite(na):
        raise ValueError("a must be finite and non-zero")
    if nb == 0 or not np.isfinite(nb):
        raise ValueError("b must be finite and non-zero")
    return float(np.degrees(np.arccos(np.clip(a @ b / (na * nb), -1.0, 1.0))))


def disagreement(theta, beta_bar, delta_x) -> float:
    """Share of pairs ``delta_x (m, d)`` that ``theta`` and ``beta_bar`` order differently."""
    x = _check_x(delta_x)  # NaN pairs used to be counted as agreements (issue 14)
    t = _check_theta(theta, x.shape[1])
    b = _check_theta(beta_bar, x.shape[1], "beta_bar")
    return float(np.mean(np.sign(x @ t) != np.sign(x @ b)))


def zero_one_loss(theta, delta_x, y) -> float:
    """Empirical 0-1 loss ``(1/n) sum_i 1{s_i theta^T delta_x_i < 0}`` (ties count 1/2)."""
    x, yy = _check_xy(delta_x, y)
    m = (2 * yy - 1) * (x @ _check_theta(theta, x.shape[1]))
    return float(np.mean((m < 0) + 0.5 * (m == 0)))


def _margin_scale(x: np.ndarray) -> float:
    c = float(np.sqrt(np.mean(np.sum(x * x, axis=1)) / x.shape[1]))
    return c if c > 0 else 1.0


def sign_loss(theta, delta_x, y, tau: float = 0.05) -> float:
    """Smoothed 0-1 (sigmoid ramp) loss ``L_tau`` of a direction (see module docstring).

    ``theta (d,)`` is normalised first, so only its direction matters.
    """
    x, yy = _check_xy(delta_x, y)
    tau = check_positive("tau", tau)
    t = _check_theta(theta, x.shape[1])
    m = (2 * yy - 1) * (x @ t) / (tau * _margin_scale(x))
    return float(np.mean(expit(-m)))


# ----------------------------------------------------------------------------- BT baseline
def bradley_terry(delta_x, y, *, l2: float = 0.0, normalize: bool = True,
                  max_iter: int = 1000, tol: float = 1e-10) -> np.ndarray:
    """RLHF reward fit: Bradley-Terry / logistic MLE without intercept.

    Minimises ``(1/n) sum_i log(1 + exp(-s_i theta^T delta_x_i)) + (l2 / 2) ||theta||^2``
    with L-BFGS. On separable data with ``l2 = 0`` the MLE does not exist; the iterate then
    grows until ``max_iter`` and only its direction is meaningful.

    Args:
        delta_x: ``(n, d)`` feature differences; y: ``(n,)`` labels in {0, 1}.
        l2: ridge strength (>= 0). normalize: return the unit direction (default) or the
            raw coefficient vector.

    Returns:
        ``theta (d,)``.
    """
    x, yy = _check_xy(delta_x, y)
    l2 = check_positive("l2", l2, strict=False)
    max_iter = check_int("max_iter", max_iter, minimum=1)
    tol = check_positive("tol", tol)
    sx = (2 * yy - 1)[:, None] * x
    n = x.shape[0]

    def f(theta):
        m = sx @ theta
        loss = -np.sum(log_expit(m)) / n + 0.5 * l2 * theta @ theta
        grad = -(sx.T @ expit(-m)) / n + l2 * theta
        return loss, grad

    res = minimize(f, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": int(max_iter), "ftol": tol, "gtol": tol})
    theta = res.x
    if not normalize:
        return theta
    if np.linalg.norm(theta) == 0:
        raise ValueError("Bradley-Terry fit returned the zero vector: the labels y carry no signal about "
                         "delta_x (e.g. all pairs tied or perfectly balanced)")
    return _unit(theta)


# ----------------------------------------------------------------------------- sign estimator
def _ramp_objective(w: np.ndarray, sx: np.ndarray, tau_c: float) -> tuple[float, np.ndarray]:
    """Proxy ``mean sigmoid(-sx @ w/||w|| / tau_c)`` and its gradient in ``w`` (scale-free in w).

    ``sx (n, d)`` holds the signed differences ``s_i delta_x_i``.
    """
    r = np.linalg.norm(w)
    t = w / r
    p = expit(-(sx @ t) / tau_c)
    g_t = -(sx.T @ (p * (1 - p))) / (sx.shape[0] * tau_c)     # d loss / d t
    return float(np.mean(p)), (g_t - t * (t @ g_t)) / r         # chain rule through t = w/||w||


def _ramp_fit(sx: np.ndarray, w0: np.ndarray, tau_c: float, max_iter: int) -> np.ndarray:
    """L-BFGS on the proxy from ``w0``; returns the unit end point."""
    res = minimize(_ramp_objective, w0, args=(sx, tau_c), jac=True, method="L-BFGS-B",
                   options={"maxiter": max_iter, "gtol": 1e-12})
    return _unit(res.x)


def sign_estimator(delta_x, y, *, seed: int | np.random.Generator | None = None,
                   taus: tuple[float, ...] = DEFAULT_TAUS, n_starts: int = 4,
                   init_bt: bool = True, max_iter: int = 200,
                   return_info: bool = False):
    """Sign estimator: the unit ``theta`` minimising the empirical 0-1 loss (arXiv:2510.23965).

    Search: from the BT direction (if ``init_bt``) minimise the sigmoid-ramp proxy ``L_tau``
    with L-BFGS along the annealing schedule ``taus`` (warm-started); from each of
    ``n_starts`` uniform random unit vectors drawn from ``seed`` minimise the sharpest proxy
    ``L_{taus[-1]}`` directly; keep the end point with the smallest exact 0-1 loss (ties
    broken by the last proxy value).

    Args:
        delta_x: ``(n, d)`` feature differences ``x_a - x_b``.
        y: ``(n,)`` labels in {0, 1} (1 = ``a`` preferred).
        seed: seed or Generator for the random starts.
        taus: positive, annealing schedule of proxy temperatures (relative to the margin scale).
        n_starts: number of random starts (>= 0; at least one start in total).
        init_bt: also start from the Bradley-Terry direction.
        max_iter: L-BFGS iterations per temperature.
        return_info: also return a dict with the 0-1 loss of every start.

    Returns:
        ``theta (d,)`` unit vector (and the info dict if ``return_info``).
    """
    x, yy = _check_xy(delta_x, y)
    taus = tuple(float(t) for t in np.atleast_1d(np.asarray(taus, dtype=float)))
    if len(taus) == 0 or not all(np.isfinite(t) and t > 0 for t in taus):
        raise ValueError(f"taus must be a non-empty sequence of positive numbers, got {taus!r}")
    n_starts = check_int("n_starts", n_starts, minimum=0)
    if n_starts == 0 and not init_bt:
        raise ValueError("n_starts=0 with init_bt=False leaves no start")
    max_iter = check_int("max_iter", max_iter, minimum=1)
    rng = as_rng("seed", seed)
    d = x.shape[1]
    sx = (2 * yy - 1)[:, None] * x
    c = _margin_scale(x)

    starts = []
    if init_bt:
        starts.append(bradley_terry(x, yy, max_iter=200, tol=1e-8))
    starts += [_unit(v) for v in rng.standard_normal((int(n_starts), d))]

    best, best_key, losses = None, None, []
    for i, w in enumerate(starts):
        # the BT start follows the whole annealing path; random starts search the sharpest
        # proxy directly (annealing from a wide tau would pull them all into one basin)
        path = taus if (init_bt and i == 0) else taus[-1:]
        for tau in path:
            w = _ramp_fit(sx, w, tau * c, int(max_iter))
        m = sx @ w
        err = float(np.mean((m < 0) + 0.5 * (m == 0)))
        key = (err, float(np.mean(expit(-m / (taus[-1] * c)))))
        losses.append(err)
        if best_key is None or key < best_key:
            best, best_key = w, key
    if return_info:
        return best, {"zero_one_per_start": losses, "zero_one": best_key[0]}
    return best


# ----------------------------------------------------------------------------- panel baseline
def em_mixture_logit(delta_x, y, user_ids, *, n_types: int = 2, n_iter: int = 50,
                     seed: int | np.random.Generator | None = None, l2: float = 1e-4,
                     return_params: bool = False):
    """EM for a finite mixture of logits with panel data (user ids); the paper's panel baseline.

    Model: user ``u`` has type ``k`` with probability ``pi_k`` and then every comparison of
    ``u`` is a logit with taste ``beta_k``. E-step: posterior type of each user from the
    product of its comparisons' likelihoods; M-step: ``pi`` = mean posterior, each
    ``beta_k`` = weighted logistic MLE (small ridge ``l2`` keeps it finite). Initialised from
    BT plus Gaussian perturbations drawn from ``seed``.

    Returns:
        the unit direction of ``sum_k pi_k beta_k`` (and ``(pi, betas)`` if ``return_params``).
    """
    x, yy = _check_xy(delta_x, y)
    u = np.asarray(user_ids)
    if u.shape != yy.shape:
        raise ValueError(f"user_ids must have shape {yy.shape}, got {u.shape}")
    if not np.issubdtype(u.dtype, np.integer):
        if not np.all(np.isfinite(u.astype(float))) or np.any(u.astype(float) != np.round(u.astype(float))):
            raise ValueError("user_ids must be integers")
    _, u = np.unique(u, return_inverse=True)
    n_types = check_int("n_types", n_types, minimum=1)
    n_iter = check_int("n_iter", n_iter, minimum=1)
    l2 = check_positive("l2", l2, strict=False)
    rng = as_rng("seed", seed)
    n, d = x.shape
    n_u = int(u.max()) + 1
    sx = (2 * yy - 1)[:, None] * x
    b0 = bradley_terry(x, yy, l2=l2, normalize=False, max_iter=200, tol=1e-8)
    scale = max(float(np.linalg.norm(b0)), 1.0)
    betas = b0 + scale * rng.standard_normal((n_types, d))
    pi = np.full(n_types, 1.0 / n_types)
    for _ in range(int(n_iter)):
        # E-step: log-likelihood of each user's comparisons under each type
        ll = log_expit(sx @ betas.T)                                   # (n, K)
        lu = np.zeros((n_u, n_types))
        np.add.at(lu, u, ll)
        lu += np.log(np.maximum(pi, 1e-300))
        lu -= lu.max(axis=1, keepdims=True)
        r = np.exp(lu)
        r /= r.sum(axis=1, keepdims=True)                              # (n_users, K)
        pi = r.mean(axis=0)
        wpair = r[u]                                                   # (n, K)
        for k in range(n_types):
            wk = wpair[:, k]
            sw = wk.sum()
            if sw <= 1e-12:
                continue

            def f(b, wk=wk, sw=sw):
                m = sx @ b
                loss = -np.sum(wk * log_expit(m)) / sw + 0.5 * l2 * b @ b
                grad = -(sx.T @ (wk * expit(-m))) / sw + l2 * b
                return loss, grad

            betas[k] = minimize(f, betas[k], jac=True, method="L-BFGS-B",
                                options={"maxiter": 50}).x
    mean = pi @ betas
    if np.linalg.norm(mean) == 0:
        raise ValueError("EM mixture returned a zero mean taste")
    if return_params:
        return _unit(mean), (pi, betas)
    return _unit(mean)


def EXAMPLES() -> list:
    """Public functions with valid arguments, for the common bad-input test."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 3))
    y = (x @ np.array([1.0, 0.5, 0.0]) + rng.logistic(size=60) > 0).astype(float)
    theta = np.array([1.0, 0.2, -0.1])
    users = np.repeat(np.arange(12), 5)
    return [
        (angle_deg, {"a": theta, "b": np.array([0.5, 1.0, 0.0])}),
        (disagreement, {"theta": theta, "beta_bar": np.array([1.0, 0.5, 0.0]), "delta_x": x}),
        (zero_one_loss, {"theta": theta, "delta_x": x, "y": y}),
        (sign_loss, {"theta": theta, "delta_x": x, "y": y, "tau": 0.1}),
        (bradley_terry, {"delta_x": x, "y": y, "l2": 0.01, "max_iter": 50, "tol": 1e-8}),
        (sign_estimator, {"delta_x": x, "y": y, "seed": 0, "n_starts": 1, "max_iter": 20}),
        (em_mixture_logit, {"delta_x": x, "y": y, "user_ids": users, "n_types": 2, "n_iter": 3, "seed": 0,
                            "l2": 1e-3}),
    ]
