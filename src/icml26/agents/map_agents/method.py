"""What can be computed honestly about a survey's printed percentages (MAP, arXiv:2512.04123).

* :func:`proportion_interval`: Wilson or Clopper-Pearson interval of k/n through
  ``statsmodels.stats.proportion.proportion_confint`` (tested against ``scipy.stats.binomtest``).
  The interval covers binomial sampling noise only, not self-selection of respondents.
* :func:`grim_counts` / :func:`grim_consistent`: the granularity (GRIM) check. A percentage
  printed to ``decimals`` places can come from k/n only if |100 k/n - p| <= half a unit of the
  last printed digit; 68 % is k/86 for no integer k (58/86 = 67.4 %, 59/86 = 68.6 %) but is
  207/306 to 209/306 (67.6 % to 68.3 %).
* :func:`majority_reading`: for a "most" reading, whether the interval's lower bound clears 50 %.
* :func:`chain_success` (illustrative, not a paper claim): the probability that a k-step
  task with independent per-step success p ends correct, p^k, and with a human checkpoint
  after every h steps that catches (and repairs) an erroneous segment with probability c:
  prod over segments of [p^len + (1 - p^len) c]. :func:`simulate_chain` in ``setting`` is its
  Monte Carlo twin.
"""

from __future__ import annotations

import math

import numpy as np

from icml26.core.validate import check_int, check_positive

METHODS = ("wilson", "beta")  # statsmodels' names: beta = Clopper-Pearson


def _prob(name: str, x: object, *, open_low: bool = False) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {type(x).__name__} {x!r}")
    v = float(x)
    if not math.isfinite(v) or not (0 < v <= 1 if open_low else 0 <= v <= 1):
        raise ValueError(f"{name} must be a probability in {'(0, 1]' if open_low else '[0, 1]'}, got {x!r}")
    return v


def proportion_interval(k: int, n: int, *, method: str = "wilson", level: float = 0.95) -> tuple[float, float]:
    """Two-sided ``level`` interval for a proportion k/n (``method``: 'wilson' or 'beta' = Clopper-Pearson)."""
    from statsmodels.stats.proportion import proportion_confint

    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=0, maximum=n)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    level = _prob("level", level, open_low=True)
    if level >= 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    lo, hi = proportion_confint(k, n, alpha=1 - level, method=method)
    return float(lo), float(hi)


def grim_counts(percent: float, n: int, *, decimals: int = 0) -> list[int]:
    """Every count k in 0..n whose 100 k / n rounds (either way at a tie) to ``percent`` at ``decimals`` places."""
    p = check_positive("percent", percent, strict=False)
    if p > 100:
        raise ValueError(f"percent must lie in [0, 100], got {percent!r}")
    n = check_int("n", n, minimum=1)
    decimals = check_int("decimals", decimals, minimum=0, maximum=6)
    half = 0.5 * 10.0 ** (-decimals) + 1e-9
    k = np.arange(n + 1)
    return [int(x) for x in k[np.abs(100.0 * k / n - p) <= half]]


def grim_consistent(percent: float, n: int, *, decimals: int = 0) -> bool:
    """Whether a percentage printed to ``decimals`` places can be k/n for some integer k."""
    return bool(grim_counts(percent, n, decimals=decimals))


def majority_reading(k: int, n: int, *, method: str = "wilson", level: float = 0.95) -> dict[str, float | bool]:
    """Point estimate, interval and whether its lower bound clears one half (a defensible "most")."""
    lo, hi = proportion_interval(k, n, method=method, level=level)
    return {"rate": k / n, "lo": lo, "hi": hi, "clears_half": bool(lo > 0.5)}


def chain_success(p: float, k: int, *, h: int | None = None, c: float = 0.0) -> float:
    """P(a k-step task ends correct): p^k, or with checkpoints every ``h`` steps catching errors w.p. ``c``.

    Segments have ``h`` steps (the last one the remainder); a segment is right if all its
    steps are (p^len) or if its error is caught and repaired at the checkpoint closing it
    ((1 - p^len) c). Segments are independent, so the task succeeds with the product.
    """
    p = _prob("p", p)
    k = check_int("k", k, minimum=1)
    c = _prob("c", c)
    if h is None:
        return p ** k
    h = check_int("h", h, minimum=1)
    full, rest = divmod(k, h)
    seg = lambda m: p ** m + (1 - p ** m) * c  # noqa: E731
    return seg(h) ** full * (seg(rest) if rest else 1.0)


def EXAMPLES():
    """(public function, good keyword arguments) pairs for the common bad-input test."""
    return [
        (proportion_interval, {"k": 14, "n": 20, "level": 0.95}),
        (grim_counts, {"percent": 68.0, "n": 306, "decimals": 0}),
        (majority_reading, {"k": 14, "n": 20, "level": 0.95}),
        (chain_success, {"p": 0.95, "k": 10, "h": 5, "c": 0.9}),
    ]
