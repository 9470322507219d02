"""A non-inferiority check (light: numpy and icml26.core.checks only), for claims of the form
"the method is at least as good as the control, up to ``tol``"."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from icml26.core import checks as C
from icml26.core.paper import Metrics, Verdict


@dataclass(frozen=True, repr=False)
class NonInferior(C.Check):
    """Seed-mean of (method - control) >= -tol (higher is better); partly if >= -partly_tol."""

    method: str
    control: str
    tol: float = 0.01
    partly_tol: float = 0.03
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def __post_init__(self) -> None:
        if not (0 <= self.tol <= self.partly_tol):
            raise ValueError(f"need 0 <= tol <= partly_tol, got {self.tol!r}, {self.partly_tol!r}")

    def rule(self) -> str:
        return (f"seed-mean of {self.label or self.method} - {self.control_label or self.control} >= -{self.tol:g} "
                f"(not worse by more than {self.tol:g}); partly if >= -{self.partly_tol:g}")

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        from icml26.core.stats import bootstrap_ci

        a = np.array([float(m[self.method]) for m in ms])
        b = np.array([float(m[self.control]) for m in ms])
        d = a - b
        mean = float(np.nanmean(d))
        lo, hi = bootstrap_ci(d)
        tol = C._tol(self.tol)
        status = ("reproduced" if mean >= -self.tol - tol else
                  "partly" if mean >= -self.partly_tol - tol else "not-reproduced")
        name, cname = self.label or self.method, self.control_label or self.control
        return Verdict(status, f"{name} {np.nanmean(a):.3f} vs {cname} {np.nanmean(b):.3f}",
                       f"rule: {self.rule()}; difference {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] (95% bootstrap CI), "
                       f"per seed " + ", ".join(f"{x:+.3f}" for x in d) + f"; {len(ms)} seeds",
                       value=mean, ci=(lo, hi), control=f"{cname}: {np.nanmean(b):.3f}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = copy.deepcopy(list(ms))
        for m in out:
            m[self.method] = float(m[self.control]) - 10 * self.partly_tol - 1.0
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = copy.deepcopy(list(ms))
        for m in out:
            m[self.method] = copy.deepcopy(m[self.control])
        return out


def non_inferior(method: str, control: str, *, tol: float = 0.01, partly_tol: float = 0.03, label: str = "",
                 control_label: str = "") -> NonInferior:
    """The method's seed-mean is not below the control's by more than ``tol``."""
    return NonInferior(method, control, tol, partly_tol, label, control_label)
