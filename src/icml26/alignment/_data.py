"""Synthetic pairwise-preference data from a heterogeneous population of users.

The shared substrate of the ``alignment`` cluster. It draws comparisons of the kind
RLHF reward models are trained on, with the population structure under control, so
that estimators of the *population-average* utility can be checked against a known
truth.

Generative model (random-coefficient linear utilities)
------------------------------------------------------
Each comparison ``i`` shows a user two alternatives with feature difference
``delta_x[i] = x_a - x_b`` (shape ``(d,)``). The user has a taste vector ``beta_u``
drawn from a population with mean ``beta_bar`` and states

    y_i = 1{ beta_u^T delta_x[i] + eps_i > 0 },

i.e. ``y = 1`` means "``a`` preferred to ``b``". ``eps_i`` is the difference of the two
alternatives' idiosyncratic noises: ``"logistic"`` (the Bradley-Terry / logit case, which
is what two i.i.d. Gumbel shocks give), ``"gumbel"`` (draws the two Gumbel shocks
explicitly; the same law), ``"normal"`` (Thurstone / probit) or ``"none"``
(deterministic choices).

Population (``heterogeneity``):

* ``"none"``: every user has ``beta_bar`` (the homogeneous BT model).
* ``"mixture"``: a finite mixture of user types ``types[k]`` with probabilities
  ``weights[k]``; ``beta_bar = sum_k weights[k] * types[k]``.
* ``"gaussian"``: Gaussian random coefficients ``beta_u ~ N(beta_bar, cov)`` (``cov`` a
  ``(d, d)`` matrix or a length-``d`` vector of standard deviations).

Feature design (``design``):

* ``"isotropic"``: ``delta_x ~ N(0, I_d)``;
* ``"correlated"``: isotropic, then column ``j`` gets column ``i`` added for every pair
  ``(i, j)`` in ``couple`` (correlates a heterogeneous direction with the signal);
* an array ``A`` of shape ``(d, d)``: ``delta_x = z @ A.T`` with ``z ~ N(0, I_d)``.

Users: by default each comparison is labelled by a fresh user (an infinite population,
no user ids: the RLHF setting). With ``n_users`` a finite panel of users is drawn once
and each comparison is assigned to a uniformly random panel member; ``user_ids`` then
identify them (the panel-data setting that EM mixture baselines need).

Presets used by the sign-estimator reproduction (arXiv:2510.23965) are given by
:func:`preset`: ``"two"`` (two symmetric user types) and ``"gauss"`` (Gaussian tastes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from icml26.core.validate import as_vector

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
