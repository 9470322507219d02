"""GU's comparison rule: "GU's retain accuracy >= the control's in >= 4/5 seeds" (the shared count rule
:class:`icml26.core.checks.BeatsInSeeds` with margin 0 and ties counted as wins), where a run that is not better on the seed mean
(e.g. every seed tied) is only ``partly``: no worse than the control is not better than it."""

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
            what = "tied in every seed: no worse, not better" if v.value is not None and abs(v.value) <= 1e-12 \
                else f"seed-mean difference {v.value:+.3f}: not better on average"
            return replace(v, status="partly", evidence=f"{v.evidence}; {what}")
        return v


def no_worse(method: str, control: str, *, frac: float = 0.8, label: str = "", control_label: str = ""
             ) -> NoWorseNotTied:
    """``method >= control`` (higher is better) in ``frac`` of the seeds, and better on the seed mean."""
    return NoWorseNotTied(method, control, 0.0, frac, "higher", label, control_label, ties=True)
