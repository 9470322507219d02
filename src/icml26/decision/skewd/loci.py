"""LOCI: cause-effect inference with a heteroscedastic Gaussian location-scale noise model.

Immer, Schultheiss, Vogt, Schoelkopf, Buehlmann & Marx, "On the Identifiability and Estimation of
Causal Location-Scale Noise Models", ICML 2023. The strongest Gaussian-LSNM baseline of the SkewD
paper (its tables' LOCI-IT / LOCI-LL rows). Written here from the paper's description (the authors'
code was read to understand the estimator, not copied); this is the paper's convex spline
estimator, not its neural-network one.

Model for the direction x -> y: y = f(x) + g(x) N, N ~ N(0, 1), written in the natural
parameters of the Gaussian,

    eta_1(x) = Phi(x) w_1,      eta_2(x) = -Psi(x) w_2,   Psi >= 0 elementwise, w_2 >= 0,
    mean = -eta_1 / (2 eta_2),  variance = -1 / (2 eta_2),

with Phi = Psi the degree-5 B-spline basis on 25 uniform knots over the range of the (standardised)
cause (B-splines are non-negative, so Psi = |Phi| = Phi). Writing p = -eta_2 = Psi w_2 > 0, the
negative log-likelihood of one point,

    0.5 log(2 pi) - 0.5 log(2 p) + p y^2 - eta_1 y + eta_1^2 / (4 p),

is jointly convex in (eta_1, p) (a quadratic-over-linear term plus -log), hence in (w_1, w_2):
the maximum-likelihood fit (a ridge of precision ``delta`` = 1e-5 on both weight vectors, as in
the paper's estimator) is a convex problem with a unique optimum. For fixed w_2 the optimal w_1 is
a weighted least-squares solve, (Phi^T diag(1/(2p)) Phi + delta I) w_1 = Phi^T y; we minimise the
joint problem with a log-barrier interior-point Newton method (analytic gradient and Hessian, 58
weights at the default basis). The authors alternate the closed-form w_1 step with projected
L-BFGS steps on w_2; both reach the same convex optimum.

Decision (both of the paper's scores): LOCI-M / LL compares the mean conditional log-likelihoods,
loglik(y | x) - loglik(x | y) (> 0: x -> y); LOCI-H / IT compares HSIC between the putative cause and
the standardised residual (y - mean) / sd, HSIC(y, r_{x|y}) - HSIC(x, r_{y|x}) (> 0: x -> y), with the
Gaussian-kernel median-heuristic HSIC of :func:`icml26.decision.skewd.method.hsic` (the same
statistic as the authors'). Inputs are expected standardised, as in both papers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.decision.skewd.method import _check_pair, _count, _gram, _pair_grams, _positive, spline_design

_LOG_2PI_HALF = float(0.5 * np.log(2.0 * np.pi))
_EPS = 1e-7  # floor on p = -eta_2 (the variance stays below 1 / (2 eps))


def loci_features(x: np.ndarray, n_knots: int = 25, degree: int = 5):
    """B-spline features (n, n_knots + degree - 1) on uniform knots over the range of ``x`` and the fitted
    ``SplineTransformer`` (constant extrapolation, the sklearn default the LOCI estimator uses): SkewD's
    :func:`~icml26.decision.skewd.method.spline_design` with LOCI's extrapolation."""
    B, tr = spline_design(x, n_knots, degree, extrapolation="constant")
    return np.abs(B), tr  # B-splines are >= 0; abs only clears rounding below 0


def natural_nll(y: np.ndarray, eta1: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per-point Gaussian negative log-likelihood in natural parameters (eta_1, eta_2 = -p); p > 0."""
    y, eta1, p = (np.asarray(v, dtype=float) for v in (y, eta1, p))
    if not (y.shape == eta1.shape == p.shape):
        raise ValueError(f"y, eta1 and p must have one shape, got {y.shape}, {eta1.shape} and {p.shape}")
    if not np.all(p > 0):
        raise ValueError("p (= -eta_2, the precision over 2) must be > 0 everywhere")
    return _LOG_2PI_HALF - 0.5 * np.log(2.0 * p) + p * y * y - eta1 * y + eta1 * eta1 / (4.0 * p)


@dataclass
class LociFit:
    """A heteroscedastic Gaussian LSNM fit of y on x (natural-parameter spline model).

    w1, w2: weights of eta_1 and of -eta_2; loc, scale: fitted mean and sd at the data (n,);
    loglik: mean log-likelihood per point (the LL score); residuals: (y - loc) / scale;
    converged: the log-barrier Newton solver's flag.
    """

    w1: np.ndarray
    w2: np.ndarray
    loc: np.ndarray
    scale: np.ndarray
    loglik: float
    residuals: np.ndarray
    converged: bool
    n_iter: int


def _w1_given_p(Phi: np.ndarray, y: np.ndarray, p: np.ndarray, delta: float) -> np.ndarray:
    A = Phi.T @ (Phi * (0.5 / p)[:, None])
    A[np.diag_indices_from(A)] += delta
    return np.linalg.solve(A, Phi.T @ y)


def _total_nll(Phi, y, w, d, delta) -> float:
    """Penalised total NLL at the stacked weights w = (w_1, w_2); inf where p = Psi w_2 <= eps."""
    p = Phi @ w[d:]
    if np.any(p <= _EPS):
        return np.inf
    return float(natural_nll(y, Phi @ w[:d], p).sum() + 0.5 * delta * (w @ w))


def fit_loci(x, y, *, n_knots: int = 25, degree: int = 5, delta: float = 1e-5, max_iter: int = 200,
             tol: float = 1e-9) -> LociFit:
    """Maximum-likelihood (ridge ``delta``) fit of the natural-parameter Gaussian LSNM y | x.

    The constraint w_2 >= 0 is handled by a log barrier (an interior-point method): damped Newton steps
    (analytic gradient and Hessian) on nll + delta/2 |w|^2 - mu sum log w_2, the step cut to stay
    inside w_2 > 0 and then by Armijo backtracking, for mu = n 10^-2, n 10^-4, ..., n 10^-10 (the last barrier
    moves the mean NLL by at most about d 10^-10). Started from w_2 = 1 (p = 1: the B-splines sum to one)
    and the optimal w_1 for it. ``max_iter`` caps the Newton steps in all; ``tol`` is the Newton
    decrement (per point) that ends one barrier stage.
    """
    x, y = _check_pair(x, y)
    delta, tol = _positive("delta", delta), _positive("tol", tol)
    n_knots, degree = _count("n_knots", n_knots, 2), _count("degree", degree, 1)
    max_iter = _count("max_iter", max_iter, 1)
    Phi, _ = loci_features(x, n_knots, degree)
    n, d = Phi.shape
    w = np.concatenate([_w1_given_p(Phi, y, np.ones(n), delta), np.ones(d)])

    def barrier_obj(w, mu):
        f = _total_nll(Phi, y, w, d, delta)
        return f - mu * float(np.sum(np.log(w[d:]))) if np.isfinite(f) else np.inf

    it, converged = 0, False
    for mu in n * 10.0 ** -np.arange(2, 11, 2):
        stage_done = False
        while it < max_iter:
            it += 1
            e, p = Phi @ w[:d], Phi @ w[d:]
            mu_loc = e / (2.0 * p)
            g = np.concatenate([Phi.T @ (mu_loc - y), Phi.T @ (-0.5 / p + y * y - mu_loc * mu_loc)]) + delta * w
            g[d:] -= mu / w[d:]
            hee, hep, hpp = 0.5 / p, -mu_loc / p, 0.5 / p**2 + 2.0 * mu_loc * mu_loc / p
            H = np.empty((2 * d, 2 * d))
            H[:d, :d] = Phi.T @ (Phi * hee[:, None])
            H[:d, d:] = Phi.T @ (Phi * hep[:, None])
            H[d:, :d] = H[:d, d:].T
            H[d:, d:] = Phi.T @ (Phi * hpp[:, None])
            H[np.diag_indices_from(H)] += delta
            H[np.arange(d, 2 * d), np.arange(d, 2 * d)] += mu / w[d:] ** 2
            step = -np.linalg.solve(H, g)
            decrement = -float(g @ step)  # Newton decrement squared
            if decrement / n < tol:
                stage_done = True
                break
            neg = step[d:] < 0
            t = min(1.0, 0.99 * float(np.min(-w[d:][neg] / step[d:][neg]))) if neg.any() else 1.0
            f0 = barrier_obj(w, mu)
            while t > 1e-12 and barrier_obj(w + t * step, mu) > f0 - 1e-4 * t * decrement:
                t *= 0.5
            w = w + t * step
        if not stage_done:
            break
    else:
        converged = True
    w1, w2 = w[:d], w[d:]
    eta1, p = Phi @ w1, Phi @ w2
    loc, scale = eta1 / (2.0 * p), np.sqrt(0.5 / p)
    loglik = -float(natural_nll(y, eta1, p).mean())
    return LociFit(w1=w1, w2=w2, loc=loc, scale=scale, loglik=loglik, residuals=(y - loc) / scale,
                   converged=converged, n_iter=it)


@dataclass
class LociResult:
    """LOCI scores for a pair: indep_score (> 0: x -> y; LOCI-H / IT), lik_score (> 0: x -> y; LOCI-M / LL)."""

    indep_score: float
    lik_score: float
    fit_xy: LociFit
    fit_yx: LociFit


def loci(x, y, *, grams: tuple[np.ndarray, np.ndarray] | None = None, **fit_kwargs) -> LociResult:
    """Both LOCI scores for the pair (x, y) (standardise it first). ``grams``: optional centred Gram
    matrices (H K_x H, H K_y H) of the pair (:func:`icml26.decision.skewd.method.centred_grams`)."""
    x, y = _check_pair(x, y)
    fxy, fyx = fit_loci(x, y, **fit_kwargs), fit_loci(y, x, **fit_kwargs)
    gx, gy = _pair_grams(x, y, grams)
    n2 = float(x.size) ** 2
    indep = float(np.sum(gy * _gram(fyx.residuals)) - np.sum(gx * _gram(fxy.residuals))) / n2
    return LociResult(indep_score=indep, lik_score=fxy.loglik - fyx.loglik, fit_xy=fxy, fit_yx=fyx)
