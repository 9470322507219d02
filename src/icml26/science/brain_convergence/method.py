"""The brain-alignment pipeline of "Alignment between Brains and AI" (arXiv:2507.01966), on stand-in data.

Per (model, layer, region): an alignment score; per model: the maximum over layers; across
models: Pearson correlation of alignment with task performance (permutation p); over training
checkpoints: bidirectional Granger tests. The paper's alignment metric and Granger settings
are not stated in what we could read, so we decide with RSA and report the others:

* :func:`rdm`: representational dissimilarity matrix, 1 - Pearson correlation between the
  stimulus patterns (``rsatoolbox.rdm.calc_rdm`` with method 'correlation'), upper triangle.
* :func:`rsa`: Spearman correlation of two RDM vectors; :func:`partial_rsa`: the same after
  regressing (ranks of) a covariate RDM -- the pure category RDM -- out of both.
* :func:`noise_ceiling`: ``rsatoolbox.inference.boot_noise_ceiling`` over repeated noisy
  measurements of a region (lower, upper); scores are divided by the upper ceiling.
* :func:`linear_cka` (Kornblith et al. 2019) and :func:`encoding_r2` (cross-validated ridge,
  scikit-learn ``RidgeCV``): the other two metrics, reported.
* :func:`permutation_pearson`, :func:`partial_pearson`: across-model statistics.
* :func:`granger_p`: p-value that the past of x improves the prediction of y beyond y's past
  (``statsmodels`` grangercausalitytests, ssr F-test), after ADF tests and differencing of
  non-stationary series, with the lag chosen by AIC (``VAR.select_order``) up to ``maxlag``.
"""

from __future__ import annotations

import warnings

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int


def _patterns(name: str, x) -> np.ndarray:
    a = as_array(name, x, ndim=2)
    if a.shape[0] < 3:
        raise ValueError(f"{name} needs at least 3 stimuli (rows), got {a.shape[0]}")
    return np.asarray(a, dtype=float)


def rdm(patterns) -> np.ndarray:
    """Upper-triangle vector of the 1 - Pearson RDM of ``patterns`` (stimuli, features), via rsatoolbox."""
    import rsatoolbox

    x = _patterns("patterns", patterns)
    x = x + 1e-9 * np.arange(x.shape[1])[None, :]  # a constant pattern has no correlation; keep it defined
    ds = rsatoolbox.data.Dataset(x)
    return np.asarray(rsatoolbox.rdm.calc_rdm(ds, method="correlation").dissimilarities[0], dtype=float)


def rdm_fast(patterns) -> np.ndarray:
    """The same RDM vector as :func:`rdm`, in numpy (for long checkpoint series; tested equal)."""
    x = _patterns("patterns", patterns)
    x = x + 1e-9 * np.arange(x.shape[1])[None, :]
    x = x - x.mean(axis=1, keepdims=True)
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-300)
    d = 1 - x @ x.T
    return d[np.triu_indices(len(d), k=1)]


def _rank(v: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(v)


def rsa(rdm_a, rdm_b) -> float:
    """Spearman correlation between two RDM vectors of equal length."""
    a, b = as_array("rdm_a", rdm_a, ndim=1), as_array("rdm_b", rdm_b, ndim=1)
    if a.shape != b.shape:
        raise ValueError(f"rdm_a and rdm_b must have the same length, got {a.shape} and {b.shape}")
    return float(np.corrcoef(_rank(a), _rank(b))[0, 1])


def partial_rsa(rdm_a, rdm_b, covariate) -> float:
    """Spearman partial correlation of two RDM vectors given a covariate RDM (ranks regressed out of both)."""
    a, b = as_array("rdm_a", rdm_a, ndim=1), as_array("rdm_b", rdm_b, ndim=1)
    c = as_array("covariate", covariate, ndim=1)
    if not a.shape == b.shape == c.shape:
        raise ValueError("rdm_a, rdm_b and covariate must have the same length")
    Z = np.column_stack([np.ones(len(c)), _rank(c)])
    res = lambda v: v - Z @ np.linalg.lstsq(Z, v, rcond=None)[0]  # noqa: E731
    ra, rb = res(_rank(a)), res(_rank(b))
    den = np.linalg.norm(ra) * np.linalg.norm(rb)
    return float(ra @ rb / den) if den > 0 else 0.0


def category_rdm(labels) -> np.ndarray:
    """The pure category RDM: 0 for stimulus pairs of the same label, 1 otherwise (upper triangle)."""
    y = np.asarray(labels)
    if y.ndim != 1 or y.size < 3:
        raise ValueError("labels must be a 1-D array of at least 3 stimulus labels")
    d = (y[:, None] != y[None, :]).astype(float)
    return d[np.triu_indices(len(y), k=1)]


def noise_ceiling(repeats) -> tuple[float, float]:
    """(lower, upper) Spearman noise ceiling of a region from repeated measurements ``repeats`` (reps, stimuli, units)."""
    import rsatoolbox
    from rsatoolbox.inference.noise_ceiling import boot_noise_ceiling

    r = as_array("repeats", repeats, ndim=3)
    if r.shape[0] < 2:
        raise ValueError("repeats needs at least 2 repeated measurements")
    rdms = rsatoolbox.rdm.RDMs(np.stack([rdm_fast(x) for x in r]))
    lo, hi = boot_noise_ceiling(rdms, method="spearman")
    return float(lo), float(hi)


def linear_cka(x, y) -> float:
    """Linear CKA between (stimuli, p) and (stimuli, q) patterns: ||Y^T X||_F^2 / (||X^T X||_F ||Y^T Y||_F), centred."""
    a, b = _patterns("x", x), _patterns("y", y)
    if a.shape[0] != b.shape[0]:
        raise ValueError("x and y must have the same number of stimuli (rows)")
    a, b = a - a.mean(0), b - b.mean(0)
    num = np.linalg.norm(b.T @ a) ** 2
    den = np.linalg.norm(a.T @ a) * np.linalg.norm(b.T @ b)
    return float(num / den) if den > 0 else 0.0


def encoding_r2(features, responses, *, folds: int = 3, seed: int = 0) -> float:
    """Mean cross-validated R^2 of ridge regression (RidgeCV, alphas 10^-2..10^4) from features to region responses."""
    from sklearn.linear_model import RidgeCV
    from sklearn.model_selection import KFold, cross_val_predict

    X, Y = _patterns("features", features), _patterns("responses", responses)
    if X.shape[0] != Y.shape[0]:
        raise ValueError("features and responses must have the same number of stimuli (rows)")
    folds = check_int("folds", folds, minimum=2)
    pred = cross_val_predict(RidgeCV(alphas=np.logspace(-2, 4, 7)), X, Y,
                             cv=KFold(folds, shuffle=True, random_state=seed))
    ss = ((Y - Y.mean(0)) ** 2).sum()
    return float(1 - ((Y - pred) ** 2).sum() / ss) if ss > 0 else 0.0


def permutation_pearson(x, y, *, n_perm: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Pearson r of x and y and its one-sided permutation p-value for r > 0 (add-one corrected)."""
    a, b = as_array("x", x, ndim=1), as_array("y", y, ndim=1)
    if a.shape != b.shape or a.size < 3:
        raise ValueError("x and y must be 1-D of the same length >= 3")
    n_perm = check_int("n_perm", n_perm, minimum=1)
    rng = as_rng("seed", seed)
    r = float(np.corrcoef(a, b)[0, 1]) if a.std() > 0 and b.std() > 0 else 0.0
    perm = np.array([np.corrcoef(a, rng.permutation(b))[0, 1] for _ in range(n_perm)]) if b.std() > 0 else np.zeros(n_perm)
    return r, float((1 + np.sum(np.nan_to_num(perm, nan=0.0) >= r)) / (n_perm + 1))


def partial_pearson(x, y, covariates, *, n_perm: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Pearson r of x and y after regressing ``covariates`` (n, k) out of both; permutation p for r > 0."""
    a, b = as_array("x", x, ndim=1), as_array("y", y, ndim=1)
    C = as_array("covariates", covariates, ndim=2)
    if not (a.shape[0] == b.shape[0] == C.shape[0]):
        raise ValueError("x, y and covariates must have the same number of rows")
    Z = np.column_stack([np.ones(len(a)), C])
    res = lambda v: v - Z @ np.linalg.lstsq(Z, v, rcond=None)[0]  # noqa: E731
    return permutation_pearson(res(a), res(b), n_perm=n_perm, seed=seed)


def _stationary(v: np.ndarray, max_diff: int = 2) -> np.ndarray:
    from statsmodels.tsa.stattools import adfuller

    for _ in range(max_diff):
        if np.std(v) == 0:
            return v
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                stat_p = adfuller(v, maxlag=1, autolag=None)[1]
            if stat_p < 0.05:
                return v
        except (ValueError, np.linalg.LinAlgError):
            return v
        v = np.diff(v)
    return v


def granger_p(x, y, *, maxlag: int = 2) -> float:
    """p-value that x Granger-causes y (ssr F-test), after ADF-guided differencing and an AIC lag choice."""
    from statsmodels.tsa.api import VAR
    from statsmodels.tsa.stattools import grangercausalitytests

    a, b = as_array("x", x, ndim=1), as_array("y", y, ndim=1)
    if a.shape != b.shape or a.size < 8:
        raise ValueError("x and y must be 1-D of the same length >= 8")
    maxlag = check_int("maxlag", maxlag, minimum=1)
    a, b = _stationary(a), _stationary(b)
    n = min(len(a), len(b))
    data = np.column_stack([b[-n:], a[-n:]])  # column 2 -> column 1
    if np.std(data[:, 0]) == 0 or np.std(data[:, 1]) == 0:
        return 1.0
    data = data + 1e-12 * np.random.default_rng(0).normal(size=data.shape)  # break exact collinearity
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lag = VAR(data).select_order(maxlags=maxlag).aic
        lag = int(min(max(lag, 1), maxlag))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = grangercausalitytests(data, maxlag=[lag])
        return float(res[lag][0]["ssr_ftest"][1])
    except (ValueError, np.linalg.LinAlgError):
        return 1.0


def granger_asymmetry(x, y, *, maxlag: int = 2) -> float:
    """log10 p(y -> x) - log10 p(x -> y): positive when x's past predicts y better than y's past predicts x."""
    return float(np.log10(max(granger_p(y, x, maxlag=maxlag), 1e-300)) - np.log10(max(granger_p(x, y, maxlag=maxlag),
                                                                                       1e-300)))


def EXAMPLES():
    """(public function, good keyword arguments) pairs for the common bad-input test."""
    rng = np.random.default_rng(0)
    p, q = rng.normal(size=(12, 5)), rng.normal(size=(12, 4))
    v = rng.random(66)
    t = np.cumsum(rng.normal(size=20))
    return [
        (rdm_fast, {"patterns": p}),
        (rsa, {"rdm_a": v, "rdm_b": v[::-1].copy()}),
        (linear_cka, {"x": p, "y": q}),
        (permutation_pearson, {"x": p[:, 0].copy(), "y": p[:, 1].copy(), "n_perm": 50}),
        (granger_p, {"x": t, "y": t[::-1].copy(), "maxlag": 2}),
        (_setting().captions, {"n": 5, "seed": 0}),
        (_setting().orthographic_region, {"texts": ["the red dog runs", "a cat sleeps"]}),
    ]


def _setting():
    from icml26.science.brain_convergence import setting

    return setting
