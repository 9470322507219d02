"""A non-inferiority check for the accuracy-at-linear-cost claim (light: numpy and core.checks only).

``NonInferior(method, control, margin)``: the method's metric is no worse than the control's by
more than ``margin``: the lower end of the 95% Student-t interval of the paired difference
(method - control, over seeds) lies above ``-margin``. It derives its own contradiction and
control substitution, as the declarative checks of :mod:`icml26.core.checks` do.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.core.checks import AllOf, Check, _values
from icml26.core.paper import Metrics, Verdict


@dataclass(frozen=True, repr=False)
class NonInferior(Check):
    method: str
    control: str
    margin: float
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def rule(self) -> str:
        return (f"{self.label or self.method} not worse than {self.control_label or self.control} by more than "
                f"{self.margin:g}: lower end of the 95% t interval of the paired difference over seeds > "
                f"-{self.margin:g}")

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        from icml26.core.stats import mean_ci

        a, b = _values(ms, self.method, None), _values(ms, self.control, None)
        d = a - b
        m, lo, hi = mean_ci(d)
        name, cname = self.label or self.method, self.control_label or self.control
        if len(ms) < 2:
            status = "not-checkable"
        else:
            status = "reproduced" if lo > -self.margin else "not-reproduced"
        return Verdict(status, f"{name} {np.nanmean(a):.3g} vs {cname} {np.nanmean(b):.3g}",
                       f"rule: {self.rule()}; difference {m:+.3g} [{lo:+.3g}, {hi:+.3g}] over {len(ms)} seeds"
                       + ("" if len(ms) >= 2 else " (one seed gives no interval)"),
                       value=m, ci=(lo, hi), control=f"{cname}: {np.nanmean(b):.3g}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = []
        for i, m in enumerate(copy.deepcopy(list(ms))):
            m[self.method] = float(m[self.control]) - 3 * self.margin - 1.0 - 0.1 * i
            out.append(m)
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = []
        for m in copy.deepcopy(list(ms)):
            m[self.method] = copy.deepcopy(m[self.control])
            out.append(m)
        return out


def non_inferior(method: str, control: str, *, margin: float, label: str = "", control_label: str = "") -> NonInferior:
    """``method`` is within ``margin`` of ``control`` or better (t-interval lower bound of the difference)."""
    if not margin >= 0:
        raise ValueError(f"margin must be >= 0, got {margin!r}")
    return NonInferior(method, control, float(margin), label, control_label)


@dataclass(frozen=True, repr=False)
class AllOfFirstContradicts(AllOf):
    """``all_of`` whose contradiction is its first part's alone (the parts' contradictions, applied in
    turn, could undo each other when they write the same metric)."""

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return self.parts[0].contradict(ms)


def all_of_first_contradicts(*parts: Check) -> AllOfFirstContradicts:
    """Reproduced if every part is; partly if some part is reproduced or partly."""
    if not parts:
        raise ValueError("all_of_first_contradicts needs at least one check")
    return AllOfFirstContradicts(tuple(parts), "any")
