"""Claim-only code of the SGMD reproduction (never run by ``run``, so editing it re-runs nothing).

Added by the review after the full run: the gate that SGMD's generator trained at all, and the
stronger-motion check (the pre-registered W1 and jerk parts) gated on it.
"""

from __future__ import annotations

from dataclasses import dataclass

from icml26.core import checks as C


@dataclass(frozen=True)
class BelowStart(C.Gate):
    """A gate on a ratio: ``key / start`` strictly below ``at_most`` in ``frac`` of seeds."""

    start: str = "start_sw2"

    def evaluate(self, ms):
        import numpy as np

        v = np.array([float(m[self.key]) / float(m[self.start]) for m in ms], dtype=float)
        ok = np.isfinite(v) & (v < self.at_most)
        passed = float(ok.mean()) >= self.frac
        return passed, (f"gate '{self.why}' ({self.key} / {self.start} < {self.at_most:g} in >= {self.frac:.0%} "
                        f"of seeds): met in {int(ok.sum())}/{len(v)} seeds (ratios "
                        + ", ".join(f"{x:.2f}" for x in v) + ")")


SGMD_TRAINED = BelowStart(
    "sgmd/end_sw2", at_most=1.0, frac=0.6,
    why=("SGMD's generator improved on its start (end SW2 at its best learning rate below the common start SW2) "
         "in >= 60% of seeds; added after the full run by review"))

PREFIT_GATE = C.gate("prefit/excess_drop", at_least=5, why="fake pre-fit excess DSM error fell >= 5x")

MOTION = C.all_of(
    C.beats_in_seeds("sgmd/speed_w1", "dmd5/speed_w1", better="lower", frac=0.8, margin=1e-6,
                     label="SGMD speed W1 (strictly)", control_label="DMD2(5) speed W1"),
    C.threshold("sgmd/jerk_rel_err", at_most=0.1, frac=0.8, label="SGMD |jerk / teacher jerk - 1|"),
).gated(PREFIT_GATE, SGMD_TRAINED)
