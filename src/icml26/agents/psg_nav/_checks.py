"""A paired bootstrap over pooled episodes: the issue's pass rule for PSG-Nav's arm comparisons.

Each seed stores one 0/1 outcome per episode for every arm; the episodes of all seeds are pooled
in (seed, episode) pairs (arms meet the same house, goal and detections) and resampled with
replacement. Superiority: the 95% percentile interval of the mean paired difference lies above 0
(or below 0 for ``better='lower'``). Non-inferiority: its lower end (upper end for ``lower``) is
better than ``-margin``. numpy only, so the package ``__init__`` can declare it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from icml26.core.checks import Check
from icml26.core.paper import Metrics, Verdict


@dataclass(frozen=True, repr=False)
class PairedBootstrap(Check):
    method: str
    control: str
    better: Literal["higher", "lower"] = "higher"
    mode: Literal["superior", "noninferior"] = "superior"
    margin: float = 0.0
    n_boot: int = 4000
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def rule(self) -> str:
        name, cname = self.label or self.method, self.control_label or self.control
        if self.mode == "superior":
            side = "above 0" if self.better == "higher" else "below 0"
            return (f"{name} {self.better} than {cname}: the 95% paired-bootstrap interval of the mean per-episode "
                    f"difference ({name} - {cname}, episodes pooled over seeds) lies {side}")
        bound = f"> -{self.margin:g}" if self.better == "higher" else f"< +{self.margin:g}"
        return (f"{name} not worse than {cname} by more than {self.margin:g}: the 95% paired-bootstrap interval of the "
                f"mean per-episode difference ({name} - {cname}, pooled over seeds) has its "
                f"{'lower' if self.better == 'higher' else 'upper'} end {bound}")

    def _pairs(self, ms: Sequence[Metrics]) -> tuple[np.ndarray, np.ndarray]:
        a = np.concatenate([np.asarray(m[self.method], float).ravel() for m in ms])
        b = np.concatenate([np.asarray(m[self.control], float).ravel() for m in ms])
        if a.shape != b.shape:
            raise ValueError(f"{self.method} and {self.control} have different numbers of episodes")
        return a, b

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        a, b = self._pairs(ms)
        d = a - b
        name, cname = self.label or self.method, self.control_label or self.control
        rng = np.random.default_rng(0)
        boot = d[rng.integers(0, d.size, size=(self.n_boot, d.size))].mean(axis=1) if d.size else np.array([np.nan])
        lo, hi = (float(np.quantile(boot, 0.025)), float(np.quantile(boot, 0.975))) if d.size else (np.nan, np.nan)
        mean = float(d.mean()) if d.size else float("nan")
        if self.mode == "superior":
            ok = lo > 0 if self.better == "higher" else hi < 0
        else:
            ok = lo > -self.margin if self.better == "higher" else hi < self.margin
        status = "reproduced" if ok else "not-reproduced"
        return Verdict(status, f"{name} {a.mean():.3f} vs {cname} {b.mean():.3f}",
                       f"rule: {self.rule()}; difference {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] over {d.size} paired "
                       f"episodes from {len(ms)} seeds", value=mean, ci=(lo, hi), control=f"{cname}: {b.mean():.3f}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = []
        for m in copy.deepcopy(list(ms)):
            n = len(m[self.method])
            good, bad = (1.0, 0.0) if self.better == "higher" else (0.0, 1.0)
            m[self.method], m[self.control] = [bad] * n, [good] * n
            out.append(m)
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = []
        for m in copy.deepcopy(list(ms)):
            m[self.method] = copy.deepcopy(m[self.control])
            out.append(m)
        return out


def paired_bootstrap(method: str, control: str, *, better: Literal["higher", "lower"] = "higher",
                     mode: Literal["superior", "noninferior"] = "superior", margin: float = 0.0,
                     label: str = "", control_label: str = "") -> PairedBootstrap:
    """Per-episode paired bootstrap of ``method - control`` (see module docstring)."""
    if better not in ("higher", "lower") or mode not in ("superior", "noninferior") or margin < 0:
        raise ValueError(f"bad paired_bootstrap arguments: better={better!r}, mode={mode!r}, margin={margin!r}")
    return PairedBootstrap(method, control, better, mode, float(margin), 4000, label, control_label)
