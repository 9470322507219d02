"""The simulated world of the GPM reproduction: item banks, examinees, and held-out splits.

Two banks stand in for the paper's real data (ASSISTments, Eedi, EXAM): a 1-D 2PL bank,
a ~ LogNormal(0, 0.3), b ~ N(0, 1) (where maximum Fisher information is known to be
near-optimal), and a 3-D compensatory MIRT bank, a_qk ~ LogNormal(-0.3, 0.4), c_q ~ N(0, 1).
Abilities are N(0, I) and responses are drawn from the model. As in the authors' training
code, each examinee's items are split at random into candidates (80%), from which a test may
select, and held-out items (20%), on which ACC/AUC are measured.
"""

from __future__ import annotations

import numpy as np

from icml26.core.validate import as_array, as_rng, check_int, check_positive


def make_bank(Q: int, d: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Item bank (a (Q, d), c (Q,)) in slope-intercept form."""
    Q = check_int("Q", Q, minimum=1)
    d = check_int("d", d, minimum=1)
    rng = as_rng("rng", rng)
    if d == 1:
        a = rng.lognormal(0.0, 0.3, size=(Q, 1))
        b = rng.normal(size=Q)
        return a, -a[:, 0] * b
    return rng.lognormal(-0.3, 0.4, size=(Q, d)), rng.normal(size=Q)


def simulate(a: np.ndarray, c: np.ndarray, N: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Abilities theta (N, d) ~ N(0, I) and responses Y (N, Q) drawn from the model."""
    from icml26.decision.gpm.method import prob

    a = as_array("a", a, ndim=2)
    c = as_array("c", c, ndim=1)
    N = check_int("N", N, minimum=1)
    rng = as_rng("rng", rng)
    theta = rng.normal(size=(N, a.shape[1]))
    Y = (rng.random((N, a.shape[0])) < prob(theta, a, c)).astype(float)
    return theta, Y


def split_heldout(N: int, Q: int, rng, frac: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    """Per examinee, a random ``frac`` of the items is held out. Returns (cand, held), (N, Q) 0/1 each."""
    N = check_int("N", N, minimum=1)
    Q = check_int("Q", Q, minimum=2)
    rng = as_rng("rng", rng)
    frac = check_positive("frac", frac)
    if frac >= 1:
        raise ValueError(f"frac must be < 1, got {frac}")
    k = max(1, int(round(frac * Q)))
    order = np.argsort(rng.random((N, Q)), axis=1)
    held = np.zeros((N, Q))
    np.put_along_axis(held, order[:, :k], 1.0, axis=1)
    return 1.0 - held, held


def questions_to_reach(curve, target: float) -> float:
    """Smallest test length (1-based) whose MSE is <= target; len(curve) + 1 if none."""
    curve = as_array("curve", curve, ndim=1)
    hit = np.nonzero(curve <= target)[0]
    return float(hit[0] + 1) if hit.size else float(len(curve) + 1)
