"""A seed-count comparison check: the method beats a control by a margin in a fraction of seeds.

The issue pre-specifies FedVPA-GP's pass rules as "above the control by >= m in >= 4/5 seeds",
a count over seeds rather than the paired test of ``icml26.core.checks.beats``; this is that
rule as a declarative check (contradiction: method and control swapped; control substitution:
the control's numbers in the method's place). Imports numpy only.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.core.checks import Check
from icml26.core.paper import Metrics, Verdict


@dataclass(frozen=True, repr=False)
class SeedsBeat(Check):
    method: str
    control: str
    margin: float = 0.05
    frac: float = 0.8
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def rule(self) -> str:
        return (f"{self.label or self.method} - {self.control_label or self.control} >= {self.margin:g} in "
                f">= {self.frac:.0%} of seeds; partly if the mean difference is > 0")

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        a = np.array([float(m[self.method]) for m in ms])
        b = np.array([float(m[self.control]) for m in ms])
        d = a - b
        ok = d >= self.margin - 1e-12
        frac = float(ok.mean())
        status = "reproduced" if frac >= self.frac else ("partly" if np.nanmean(d) > 0 else "not-reproduced")
        name, cname = self.label or self.method, self.control_label or self.control
        return Verdict(status, f"{name} {np.nanmean(a):.3f} vs {cname} {np.nanmean(b):.3f}",
                       f"rule: {self.rule()}; met in {int(ok.sum())}/{ok.size} seeds; differences "
                       + ", ".join(f"{x:+.3f}" for x in d), value=float(np.nanmean(d)),
                       control=f"{cname}: {np.nanmean(b):.3f}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = copy.deepcopy(list(ms))
        for m in out:
            m[self.method], m[self.control] = m[self.control], m[self.method]
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = copy.deepcopy(list(ms))
        for m in out:
            m[self.method] = m[self.control]
        return out


def seeds_beat(method: str, control: str, *, margin: float = 0.05, frac: float = 0.8, label: str = "",
               control_label: str = "") -> SeedsBeat:
    return SeedsBeat(method, control, margin, frac, label, control_label)
