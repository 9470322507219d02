"""Review R1 (commit e7910b4): as-accurate-deviation can be "partly" with the method equal to its control.

The deviation forecast is anchored at the last share (kappa = 0 gives exactly the ``naive`` control), and the
last share alone is already within 5% of the best per-system model in most cells (the previous full run: naive /
best <= 1.05 in every cell of 3 of 6 seeds). ``all_of(..., partly="any")`` then turns the threshold part's
"partly" into a "partly" verdict for a claim whose statement is that "the equilibrium is what makes it so", even
when ESE (deviation) is numerically the last-share control and loses (ties) to both controls.
Fixed before the claim's full run: both deviation claims need every part (``partly="none"``).
"""

import numpy as np
import pytest


def _metrics(seed: int, ratio_ok: bool) -> dict:
    rng = np.random.default_rng(seed)
    best = 0.06 + 0.002 * rng.random(6)
    naive = best * (1.02 if ratio_ok else np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.08]))
    return {"rmse/ese_dev": naive.tolist(), "rmse/naive": naive.tolist(), "rmse/meanrev": naive.tolist(),
            "frac/ese_dev_within_5pct": float(np.mean(naive / best <= 1.05))}


def test_the_last_share_itself_is_not_partly_the_deviation_claim():
    from icml26.decision.ese import PAPER

    claim = next(c for c in PAPER.claims if c.id == "as-accurate-deviation")
    ms = [_metrics(s, ratio_ok=s < 3) for s in range(6)]  # ESE (deviation) is the control, in every cell
    assert claim.check(ms).status == "not-reproduced"
