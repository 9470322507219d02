"""The skew-noise cause-effect benchmark of SkewD (arXiv:2511.14441, Sec. 5): pair generator.

The paper's AN-s / LS-s benchmarks follow the bivariate generator of bQCD (Tagasovska et
al. 2020) with the noise law replaced by a skewed one; the authors' R script
(``skewDGP/generate_skewed_LSNMs.R``, "pure noise" variant) draws, for one pair of n points:

    x   = sqrt(U(1, 2)) eps,                    eps ~ N(0, 1)            (the cause)
    f   = c b (x + a) / (1 + |b (x + a)|),      a ~ U(-2, 2), |b| ~ U(0.5, 2) with random sign,
                                                c = 1 + Exp(rate 4)      (sigmoid mechanism)
    N   ~ SN(0, 1, shape)  or  AGN: (1 - exp(-kappa z)) / kappa, z ~ N(0, 1)
    AN-s:  y = f + 0.2 N          LS-s:  y = f + (f - min f) 0.2 N

and stores the two columns in random order with the ground truth. Skew levels of the paper:
skew-normal shape -2 (medium, skewness -0.45) and 20 (strong, 0.985); AGN kappa 0.15 (medium),
-0.31 (strong) and -0.5 (extreme, skewness 1.75). We add the symmetric case (shape 0) as the
reference for "no cost under symmetric noise". This module is our numpy re-implementation
(we checked it against the R script line by line; the R random streams are not reproduced).
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int

#: configuration name -> (noise model, noise law, shape). SN shapes: medium -2 (skewness -0.45),
#: strong 20 (0.985); asymmetric generalised normal (AGN): medium kappa = 0.15 (skewness -0.46),
#: strong -0.31 (0.985), extreme -0.5 (1.75). The five skewed LS-s sets are the paper's "pure LS-s".
CONFIGS: dict[str, tuple[str, str, float]] = {
    "LS_sym": ("LS", "SN", 0.0),
    "LS_med": ("LS", "SN", -2.0),
    "LS_AGN_med": ("LS", "AGN", 0.15),
    "LS_strong": ("LS", "SN", 20.0),
    "LS_AGN_strong": ("LS", "AGN", -0.31),
    "LS_extreme": ("LS", "AGN", -0.5),
    "AN_strong": ("AN", "SN", 20.0),
}

#: the authors' per-configuration accuracies (their repository's result CSVs, n = 1000, 100 pairs):
#: shown beside ours in the report, never used to decide a claim.
PAPER_ACCURACY: dict[str, dict[str, float]] = {
    "LS_med": {"skewd_it": 0.88, "skewd_ll": 1.00, "loci_it": 0.66, "loci_ll": 1.00, "cam": 0.88,
               "igci_g": 1.00, "igci_u": 0.28, "resit": 0.31},
    "LS_AGN_med": {"skewd_it": 0.84, "skewd_ll": 1.00, "loci_it": 0.78, "loci_ll": 1.00, "cam": 0.77,
                   "igci_g": 1.00, "igci_u": 0.33, "resit": 0.07},
    "LS_strong": {"skewd_it": 0.73, "skewd_ll": 1.00, "loci_it": 0.56, "loci_ll": 0.98, "cam": 0.83,
                  "igci_g": 0.99, "igci_u": 0.50, "resit": 0.48},
    "LS_AGN_strong": {"skewd_it": 0.92, "skewd_ll": 1.00, "loci_it": 0.82, "loci_ll": 0.94, "cam": 0.57,
                      "igci_g": 1.00, "igci_u": 0.57, "resit": 0.38},
    "LS_extreme": {"skewd_it": 0.92, "skewd_ll": 1.00, "loci_it": 0.75, "loci_ll": 0.66, "cam": 0.33,
                   "igci_g": 1.00, "igci_u": 0.88, "resit": 0.34},
    "AN_strong": {"skewd_it": 0.95, "skewd_ll": 1.00, "loci_it": 1.00, "loci_ll": 1.00, "cam": 1.00,
                  "igci_g": 1.00, "igci_u": 0.36, "resit": 1.00},
}


def sample_pair(n: int, noise: str, shape: float, rng, law: str = "SN") -> tuple[np.ndarray, np.ndarray]:
    """One cause-effect pair from the paper's AN-s / LS-s generator ("pure" noise variant).

    n: number of points (>= 2); noise: "AN" (additive) or "LS" (location-scale); law "SN":
    skew-normal noise with shape ``shape``; "AGN": asymmetric generalised normal
    (1 - exp(-shape z))/shape, z ~ N(0, 1), shape != 0; rng: a numpy Generator or a seed.
    Returns (cause, effect), both (n,), unstandardised.
    """
    from scipy.stats import skewnorm

    n = check_int("n", n, minimum=2)
    if not isinstance(noise, str) or noise not in ("AN", "LS"):
        raise ValueError(f"noise must be 'AN' or 'LS', got {noise!r}")
    if not isinstance(law, str) or law not in ("SN", "AGN"):
        raise ValueError(f"law must be 'SN' or 'AGN', got {law!r}")
    if isinstance(shape, bool) or not isinstance(shape, (int, float, np.integer, np.floating)):
        raise TypeError(f"shape must be a number, got {type(shape).__name__}")
    shape = float(shape)
    if not np.isfinite(shape):
        raise ValueError(f"shape must be finite, got {shape}")
    if law == "AGN" and shape == 0:
        raise ValueError("shape must be != 0 for the AGN law")
    rng = as_rng("rng", rng)

    x = np.sqrt(rng.uniform(1.0, 2.0, n)) * rng.standard_normal(n)
    a = rng.uniform(-2.0, 2.0)
    b = rng.uniform(0.5, 2.0) * (1.0 if rng.random() < 0.5 else -1.0)
    c = rng.exponential(1.0 / 4.0) + 1.0
    f = c * (b * (x + a)) / (1.0 + np.abs(b * (x + a)))
    if law == "AGN":
        e = (1.0 - np.exp(-shape * rng.standard_normal(n))) / shape
    else:
        e = skewnorm.rvs(shape, size=n, random_state=rng) if shape != 0 else rng.standard_normal(n)
    y = f + 0.2 * e if noise == "AN" else f + (f - f.min()) * 0.2 * e
    return x, y


def standardise(v) -> np.ndarray:
    """(v - mean) / std of a non-constant finite vector, as the paper does before fitting."""
    v = as_array("v", v, ndim=1)
    s = v.std()
    if not s > 0 or not np.isfinite(s):
        raise ValueError("v must not be constant (and its spread must be finite)")
    return (v - v.mean()) / s
