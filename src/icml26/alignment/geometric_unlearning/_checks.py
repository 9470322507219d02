"""GU's comparison rule: "GU's retain accuracy >= the control's in >= 4/5 seeds" (the shared count rule
:func:`icml26.core.checks.beats_in_seeds` with margin 0), where a run in which every seed ties is only
``partly``: no worse than the control is not better than it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from icml26.core.checks import BeatsInSeeds


@dataclass(frozen=True, repr=False)
class NoWorseNotTied(BeatsInSeeds):
    def rule(self) -> str:
        return super().rule() + "; partly if the seed-mean difference is 0 (all tied)"

    def __call__(self, ms: Any):
        v = super().__call__(ms)
        if v.status == "reproduced" and not (v.value is not None and v.value > 1e-12):
            return replace(v, status="partly", evidence=v.evidence + "; tied on average: no worse, not better")
        return v


def no_worse(method: str, control: str, *, frac: float = 0.8, label: str = "", control_label: str = ""
             ) -> NoWorseNotTied:
    """``method >= control`` (higher is better) in ``frac`` of the seeds, and better on the seed mean."""
    return NoWorseNotTied(method, control, 0.0, frac, "higher", label, control_label)
