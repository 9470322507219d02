"""The simulated food world for SusDiet (arXiv:2608.24274): ingredients, recipes, users with hidden tolerances.

The paper's SusDiet dataset (149k recipes with GPT-derived indicators, 180k users from
HUMMUS / Food.com) is not available here, so a generator keeps its structure:

* **Ingredients** belong to taste clusters; a share of them are animal products. Each has
  per-gram indicators: a nutrition score (higher is better), CO2e, price and an
  animal-welfare cost (zero for plants). Animal ingredients have higher CO2e and welfare cost.
* **Recipes** have a region (cuisine) that biases which clusters they draw 4-8 ingredients
  from, and a gram quantity per ingredient. Recipe indicators are mass-weighted
  combinations of ingredient indicators (Appendix B.4), here per 100 g of recipe (mass-weighted
  means), so that a mean-pooled encoder (the paper's masked mean pooling) can represent them.
* **Normalised indicators** ``s_r`` (Appendix A.1.5): nutrition is negated so that every
  dimension reads "lower is more sustainable", then a signed log, clipping at the 1% / 99%
  quantiles and z-scoring. Tolerances live on this scale.
* **Users** have a taste vector over clusters, a region affinity and a hidden tolerance
  vector ``tau_u`` (one bound per dimension, heterogeneous across users) with a strength
  ``gamma_u``. True utility: ``U(u, r) = taste_u . comp_r + region + quality_r
  - gamma_u * sum_n relu(s_r^n - tau_u^n)``: recipes above the tolerance are liked a
  little less, which is all a recommender can learn the tolerance from.
* **Interactions**: each user picks ``n_inter`` distinct recipes in sequence with
  probability proportional to ``exp(U / temperature)`` and rates them 1-5 (utility plus
  noise, cut at fixed quantiles). The last ``n_test`` picks are held out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from icml26.core.validate import as_array, check_int, check_positive

DIMENSIONS = ("nutrition", "environment", "cost", "welfare")
HIGHER_IS_BETTER = (True, False, False, False)


@dataclass(frozen=True)
class World:
    """One generated world. Shapes: R recipes, L ingredient slots, I ingredients, U users, N = 4 dimensions."""

    tokens: np.ndarray        # (R, L) int, ingredient index + 1 (0 = padding)
    grams: np.ndarray         # (R, L) float, grams (0 at padding)
    region: np.ndarray        # (R,) int
    comp: np.ndarray          # (R, C) mass share per taste cluster
    raw: np.ndarray           # (R, N) raw indicators (nutrition higher better; others lower better)
    s: np.ndarray             # (R, N) normalised indicators, lower = more sustainable
    taste: np.ndarray         # (U, C)
    tau: np.ndarray           # (U, N) hidden tolerances on the normalised scale
    gamma: np.ndarray         # (U,)
    utility: np.ndarray       # (U, R) true utility
    train_seq: np.ndarray     # (U, T_train) recipe indices in chronological order
    train_rating: np.ndarray  # (U, T_train) ratings 1..5
    test_items: np.ndarray    # (U, T_test)
    n_ingredients: int
    n_regions: int
    pool_tokens: np.ndarray   # (P, L) extra recipes from the same generator, for the indicator encoder only
    pool_grams: np.ndarray    # (P, L)
    pool_s: np.ndarray        # (P, N)

    @property
    def n_recipes(self) -> int:
        return self.tokens.shape[0]

    @property
    def n_users(self) -> int:
        return self.taste.shape[0]


def normalise_indicators(raw: np.ndarray, fit_rows: np.ndarray | None = None,
                         higher_is_better: tuple[bool, ...] = HIGHER_IS_BETTER) -> np.ndarray:
    """Appendix A.1.5: negate higher-is-better dimensions, signed log, clip at 1%/99% quantiles, z-score.

    ``raw``: (R, N). Statistics come from ``fit_rows`` (training recipes; default all rows).
    Returns (R, N) with lower = more sustainable.
    """
    raw = as_array("raw", raw, ndim=2)
    if raw.shape[1] != len(higher_is_better):
        raise ValueError(f"raw must have {len(higher_is_better)} columns, got shape {raw.shape}")
    x = raw * np.where(np.asarray(higher_is_better), -1.0, 1.0)
    x = np.sign(x) * np.log1p(np.abs(x))
    rows = np.arange(x.shape[0]) if fit_rows is None else np.asarray(fit_rows)
    lo, hi = np.quantile(x[rows], 0.01, axis=0), np.quantile(x[rows], 0.99, axis=0)
    x = np.clip(x, lo, hi)
    mu, sd = x[rows].mean(0), x[rows].std(0)
    return (x - mu) / np.maximum(sd, 1e-9)


def make_world(n_ingredients: int = 60, n_recipes: int = 400, n_users: int = 250, n_inter: int = 23,
               n_test: int = 3, n_clusters: int = 6, n_regions: int = 5, max_len: int = 8,
               tol_strength: float = 0.75, temperature: float = 0.5, n_pool: int = 0, seed: int = 0) -> World:
    """Generate a world (see the module docstring). ``tol_strength`` scales ``gamma_u`` (the tolerance's pull);
    ``n_pool`` extra recipes (not in the catalog) are generated for training the indicator encoder."""
    n_ingredients = check_int("n_ingredients", n_ingredients, minimum=8)
    n_recipes = check_int("n_recipes", n_recipes, minimum=20)
    n_users = check_int("n_users", n_users, minimum=2)
    n_inter = check_int("n_inter", n_inter, minimum=3)
    n_test = check_int("n_test", n_test, minimum=1, maximum=n_inter - 2)
    n_clusters = check_int("n_clusters", n_clusters, minimum=2)
    n_regions = check_int("n_regions", n_regions, minimum=1)
    max_len = check_int("max_len", max_len, minimum=4)
    tol_strength = check_positive("tol_strength", tol_strength, strict=False)
    temperature = check_positive("temperature", temperature)
    seed = check_int("seed", seed, minimum=0)
    n_pool = check_int("n_pool", n_pool, minimum=0)
    if n_inter >= n_recipes:
        raise ValueError(f"n_inter must be < n_recipes, got {n_inter} >= {n_recipes}")
    rng = np.random.default_rng([seed, 2608])
    # ingredients: cluster, animal flag, per-gram indicators
    cluster = rng.integers(0, n_clusters, n_ingredients)
    animal = rng.random(n_ingredients) < 0.3
    nutri = rng.beta(2, 2, n_ingredients) * 60 + 10 - 10 * animal * rng.random(n_ingredients)
    co2 = rng.lognormal(0.0, 0.6, n_ingredients) * np.where(animal, 6.0, 1.0)  # kg CO2e / kg
    price = rng.lognormal(0.0, 0.5, n_ingredients) * np.where(animal, 2.0, 1.0)  # per kg
    welfare = np.where(animal, rng.lognormal(1.0, 0.6, n_ingredients), 0.0)  # per kg
    # recipes
    n_all = n_recipes + n_pool  # catalog first; the pool is drawn after it
    region = rng.integers(0, n_regions, n_recipes)
    region_pref = rng.dirichlet(np.full(n_clusters, 0.6), n_regions)
    region = np.concatenate([region, np.random.default_rng([seed, 2609]).integers(0, n_regions, n_pool)])
    tokens = np.zeros((n_all, max_len), dtype=np.int64)
    grams = np.zeros((n_all, max_len))
    pool_rng = np.random.default_rng([seed, 2610])
    for r in range(n_all):
        if r == n_recipes:
            rng, catalog_rng = pool_rng, rng  # the pool has its own stream: the catalog does not depend on n_pool
        k = int(rng.integers(4, max_len + 1))
        p = region_pref[region[r]][cluster] + 0.02
        ing = rng.choice(n_ingredients, size=k, replace=False, p=p / p.sum())
        tokens[r, :k] = ing + 1
        grams[r, :k] = rng.lognormal(np.log(80.0), 0.7, k)
    mass = grams.sum(1)
    idx = np.maximum(tokens - 1, 0)
    valid = tokens > 0
    per100 = 100.0 * grams * valid / mass[:, None]  # grams of each ingredient in 100 g of the recipe
    raw = np.stack([(per100 * nutri[idx]).sum(1) / 100.0,
                    (per100 * co2[idx]).sum(1) / 1000.0 * 10,
                    (per100 * price[idx]).sum(1) / 1000.0 * 10,
                    (per100 * welfare[idx]).sum(1) / 1000.0 * 10], axis=1)
    rng = catalog_rng if n_pool else rng
    s_all = normalise_indicators(raw, fit_rows=np.arange(n_recipes))
    pool_tokens, pool_grams, pool_s = tokens[n_recipes:], grams[n_recipes:], s_all[n_recipes:]
    tokens, grams, region, raw, s = tokens[:n_recipes], grams[:n_recipes], region[:n_recipes], raw[:n_recipes], s_all[:n_recipes]
    mass, idx, valid = mass[:n_recipes], idx[:n_recipes], valid[:n_recipes]
    comp = np.zeros((n_recipes, n_clusters))
    for c in range(n_clusters):
        comp[:, c] = (grams * (cluster[idx] == c) * valid).sum(1) / mass
    quality = rng.normal(0, 0.3, n_recipes)
    # users: taste, region affinity, hidden heterogeneous tolerances
    taste = rng.normal(0, 1.5, (n_users, n_clusters))
    reg_aff = rng.normal(0, 0.5, (n_users, n_regions))
    tau = rng.normal(0.6, 0.7, (n_users, len(DIMENSIONS)))
    gamma = tol_strength * rng.lognormal(0.0, 0.3, n_users)
    base = taste @ comp.T + reg_aff[:, region] + quality[None, :]
    over = np.maximum(s[None, :, :] - tau[:, None, :], 0.0).sum(-1)
    utility = base - gamma[:, None] * over
    # sequential choices (without replacement) and ratings
    seq = np.zeros((n_users, n_inter), dtype=np.int64)
    for u in range(n_users):
        logits = utility[u] / temperature
        g = rng.gumbel(size=n_recipes)
        seq[u] = np.argsort(-(logits + g))[:n_inter]  # Gumbel top-k = sequential sampling without replacement
        seq[u] = rng.permutation(seq[u])
    picked = np.take_along_axis(utility, seq, 1)
    noisy = picked + rng.normal(0, 0.5, picked.shape)
    cuts = np.quantile(noisy, [0.05, 0.15, 0.4, 0.7])
    rating = 1 + np.searchsorted(cuts, noisy)
    t_train = n_inter - n_test
    return World(tokens=tokens, grams=grams, region=region, comp=comp, raw=raw, s=s, taste=taste, tau=tau,
                 gamma=gamma, utility=utility, train_seq=seq[:, :t_train], train_rating=rating[:, :t_train].astype(float),
                 test_items=seq[:, t_train:], n_ingredients=n_ingredients, n_regions=n_regions,
                 pool_tokens=pool_tokens, pool_grams=pool_grams, pool_s=pool_s)
