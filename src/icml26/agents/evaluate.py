"""Simulated evaluation: subjects with latent skills, noisy judges, success rates with intervals,
and the stability metric of benchmark papers.

* :class:`Subjects`: item-response model (multidimensional 2PL): subject ``s`` solves item ``i``
  with probability ``sigmoid(a_i . theta_s - b_i)``, skills ``theta`` (n_subjects, n_skills).
* :class:`NoisyJudge`: reports the true outcome, flipped with probability ``error_rate``.
* :func:`success_rates`: per-category rate with Wilson (default) or Clopper–Pearson intervals
  (``scipy.stats.binomtest``); :func:`bootstrap_ci` for a paired difference of rates.
* :func:`all_variants_pass_rate`: the share of tasks solved in every variant (SPR-style).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int


@dataclass(frozen=True)
class Subjects:
    skills: np.ndarray  # (n_subjects, n_skills)

    @staticmethod
    def draw(n_subjects: int, n_skills: int, *, spread: float = 1.0, seed: Any = 0) -> Subjects:
        n_subjects = check_int("n_subjects", n_subjects, minimum=1)
        n_skills = check_int("n_skills", n_skills, minimum=1)
        return Subjects(spread * as_rng("seed", seed).standard_normal((n_subjects, n_skills)))

    def success_prob(self, loadings: np.ndarray, difficulty: np.ndarray) -> np.ndarray:
        """(n_subjects, n_items) probabilities for item loadings (n_items, n_skills) and difficulties (n_items,)."""
        a = as_array("loadings", loadings, ndim=2)
        b = as_array("difficulty", difficulty, ndim=1)
        if a.shape[1] != self.skills.shape[1] or a.shape[0] != b.shape[0]:
            raise ValueError(f"loadings must be (n_items, {self.skills.shape[1]}) and difficulty (n_items,), got "
                             f"{a.shape} and {b.shape}")
        return 1.0 / (1.0 + np.exp(-(self.skills @ a.T - b[None, :])))

    def simulate(self, loadings: np.ndarray, difficulty: np.ndarray, *, seed: Any = 0) -> np.ndarray:
        p = self.success_prob(loadings, difficulty)
        return as_rng("seed", seed).random(p.shape) < p


@dataclass(frozen=True)
class NoisyJudge:
    error_rate: float

    def __post_init__(self) -> None:
        if isinstance(self.error_rate, bool) or not (isinstance(self.error_rate, (int, float))
                                                     and 0 <= self.error_rate <= 0.5):
            raise ValueError(f"error_rate must be in [0, 0.5], got {self.error_rate!r}")

    def judge(self, truth: np.ndarray, *, seed: Any = 0) -> np.ndarray:
        t = np.asarray(truth, dtype=bool)
        flip = as_rng("seed", seed).random(t.shape) < self.error_rate
        return t ^ flip

    def corrected_rate(self, observed_rate: float) -> float:
        """Unbiased true rate from an observed rate: (q - e) / (1 - 2e)."""
        if self.error_rate == 0.5:
            raise ValueError("a judge with error_rate 0.5 carries no information")
        return (observed_rate - self.error_rate) / (1 - 2 * self.error_rate)


def rate_ci(k: int, n: int, *, method: str = "wilson", level: float = 0.95) -> tuple[float, float, float]:
    """(rate, lo, hi) for k successes in n trials; ``method``: wilson or exact (Clopper–Pearson)."""
    from scipy.stats import binomtest

    n = check_int("n", n, minimum=1)
    k = check_int("k", k, minimum=0, maximum=n)
    if method not in ("wilson", "exact"):
        raise ValueError(f"method must be 'wilson' or 'exact', got {method!r}")
    ci = binomtest(k, n).proportion_ci(confidence_level=level, method=method)
    return k / n, float(ci.low), float(ci.high)


def success_rates(outcomes: Sequence[bool], categories: Sequence[str], *, method: str = "wilson"
                  ) -> dict[str, tuple[float, float, float, int]]:
    """Per category: (rate, lo, hi, n)."""
    o = np.asarray(outcomes, dtype=bool)
    c = np.asarray(categories, dtype=object)
    if o.shape != c.shape or o.ndim != 1 or o.size == 0:
        raise ValueError(f"outcomes and categories must be equal-length non-empty 1-D sequences, got {o.shape}, {c.shape}")
    out = {}
    for cat in sorted(set(c.tolist())):
        m = c == cat
        r, lo, hi = rate_ci(int(o[m].sum()), int(m.sum()), method=method)
        out[str(cat)] = (r, lo, hi, int(m.sum()))
    return out


def bootstrap_ci(a: Sequence[float], b: Sequence[float] | None = None, *, n_boot: int = 2000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float, float]:
    """Mean of ``a`` (or of the paired difference a - b) and its percentile bootstrap interval."""
    x = as_array("a", a, ndim=1)
    if b is not None:
        y = as_array("b", b, ndim=1)
        if y.shape != x.shape:
            raise ValueError(f"a and b must be paired (same length), got {x.shape} and {y.shape}")
        x = x - y
    rng = np.random.default_rng(seed)
    boot = x[rng.integers(0, x.size, size=(check_int("n_boot", n_boot, minimum=10), x.size))].mean(1)
    q = (1 - level) / 2
    return float(x.mean()), float(np.quantile(boot, q)), float(np.quantile(boot, 1 - q))


def all_variants_pass_rate(results: Mapping[str, Sequence[bool]]) -> float:
    """Share of tasks whose every variant passed."""
    if not results:
        raise ValueError("results is empty")
    return float(np.mean([bool(len(v)) and all(bool(x) for x in v) for v in results.values()]))
