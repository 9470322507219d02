"""Statistics that claim checks use, so every verdict states its test the same way.

All functions take per-seed (or per-repetition) numbers and return plain floats/tuples.
Typical checks::

    a = seeds_of(ms, "regret_b3"); b = seeds_of(ms, "regret_sh")
    p = paired_test(a, b, alternative="less")          # a < b ?
    lo, hi = bootstrap_ci(a - b)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

Alternative = Literal["less", "greater", "two-sided"]


def seeds_of(metrics: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    """Collect scalar metric ``key`` across seeds as a float array (missing keys raise KeyError)."""
    out = []
    for i, m in enumerate(metrics):
        if key not in m:
            raise KeyError(f"metric {key!r} missing from seed #{i}; have {sorted(m)[:20]}")
        out.append(float(m[key]))
    return np.asarray(out, dtype=float)


def series_of(metrics: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    """Stack a list-valued metric across seeds: shape (n_seeds, len)."""
    return np.asarray([np.asarray(m[key], dtype=float) for m in metrics], dtype=float)


def mean_ci(x: Sequence[float] | np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and a Student-t confidence interval: (mean, lo, hi). One value gives lo = hi = mean."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    m = float(x.mean())
    if x.size < 2 or np.all(x == x[0]):
        return m, m, m
    half = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return m, m - half, m + half


def bootstrap_ci(x: Sequence[float] | np.ndarray, stat: Callable[[np.ndarray], float] = np.mean,
                 level: float = 0.95, n_boot: int = 2000, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of ``stat`` (vectorised resampling, deterministic given ``seed``)."""
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return float("nan"), float("nan")
    if x.size == 1:
        return float(x[0]), float(x[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n_boot, x.size))
    samples = x[idx]
    if stat is np.mean:
        boot = samples.mean(axis=1)
    else:
        boot = np.apply_along_axis(stat, 1, samples)
    a = (1 - level) / 2
    return float(np.quantile(boot, a)), float(np.quantile(boot, 1 - a))


def paired_test(a: Sequence[float], b: Sequence[float], alternative: Alternative = "less",
                method: Literal["wilcoxon", "t", "sign"] = "wilcoxon") -> float:
    """p-value for the paired hypothesis ``a < b`` (``less``), ``a > b`` or two-sided.

    Wilcoxon signed-rank by default (exact for small n); ``t`` is the paired t-test;
    ``sign`` the binomial sign test. Ties (a == b everywhere) give p = 1.
    """
    from scipy import stats

    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired_test needs two 1-D arrays of equal length, got {a.shape} and {b.shape}")
    d = a - b
    d = d[np.isfinite(d)]
    if d.size == 0 or np.all(d == 0):
        return 1.0
    if method == "sign":
        return sign_test(d, alternative)
    if method == "t":
        if d.size < 2 or np.all(d == d[0]):
            # no spread: decide by the sign of the constant difference
            sgn = np.sign(d[0])
            if alternative == "two-sided":
                return 0.0 if sgn != 0 else 1.0
            want = -1 if alternative == "less" else 1
            return 0.0 if sgn == want else 1.0
        return float(stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue)
    return float(stats.wilcoxon(d, alternative=alternative, zero_method="wilcox").pvalue)


def sign_test(d: Sequence[float], alternative: Alternative = "less") -> float:
    """Binomial sign test on differences ``d`` (zeros dropped); ``less`` tests median(d) < 0."""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    d = d[np.isfinite(d) & (d != 0)]
    if d.size == 0:
        return 1.0
    k = int((d < 0).sum())
    alt = {"less": "greater", "greater": "less", "two-sided": "two-sided"}[alternative]
    return float(stats.binomtest(k, d.size, 0.5, alternative=alt).pvalue)


def one_sample_test(x: Sequence[float], mu: float = 0.0, alternative: Alternative = "greater",
                    method: Literal["wilcoxon", "t"] = "t") -> float:
    """p-value for mean(x) > mu (``greater``), < mu (``less``) or != mu."""
    x = np.asarray(x, dtype=float)
    return paired_test(x, np.full_like(x, mu), alternative=alternative, method=method)


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Least-squares slope of log(y) on log(x) and its standard error."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2:
        raise ValueError("loglog_slope needs at least two positive points")
    res = stats.linregress(np.log(x[ok]), np.log(y[ok]))
    return float(res.slope), float(res.stderr)


def fmt_ci(m: float, lo: float, hi: float, digits: int = 3) -> str:
    """``0.123 [0.100, 0.150]`` formatting used across reports."""
    return f"{m:.{digits}g} [{lo:.{digits}g}, {hi:.{digits}g}]"


def fmt_p(p: float) -> str:
    return "p<1e-4" if p < 1e-4 else f"p={p:.3g}"


def decide(passed: bool, partly: bool = False) -> str:
    """Map a pre-registered pass/partial condition to a status string."""
    if passed:
        return "reproduced"
    return "partly" if partly else "not-reproduced"
