"""Declarative claim checks: each decides a :class:`Verdict` and derives its own contradiction.

A check is data (which metric, which control, which test, which threshold), so a claim
needs no hand-written ``check_*``/``contradict_*`` pair, and the common tests can feed
every check metrics that contradict it and metrics in which the method is replaced by its
control::

    from icml26.core import checks as C

    C.beats("b3/regret", "uniform/regret", better="lower", at=-1)       # method vs control
    C.close("delta_measured", to="delta_theory", tol=0.05, rel=True)    # a number vs a target
    C.threshold("hit_rate", at_least=0.9)                               # a number vs a bound
    C.slope("n", "rmse", within=(-0.6, -0.4))                            # a log-log rate
    C.beats(...).gated(C.gate("loss_ratio", at_least=2, why="training loss fell 2x"))
    C.all_of(C.beats(...), C.beats(...))

Metric keys name a scalar per seed, or a series per seed with ``at`` picking an index
(``at="each"`` requires the condition at every index). Tests over seeds are one-sided and
paired; a test that cannot reach ``alpha`` with the seeds at hand (a sign or Wilcoxon test
over n seeds cannot go below 0.5**n) gives ``not-checkable (too few seeds)``, never
``not-reproduced``. A failed training gate gives ``not-checkable`` with its reason.

This module imports only numpy at import time (scipy lazily, through :mod:`icml26.core.stats`),
so paper ``__init__`` files can declare their checks without slowing ``icml26 list``.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from icml26.core.paper import Metrics, Verdict

Better = Literal["lower", "higher"]
Test = Literal["wilcoxon", "sign", "t"]
At = int | str | None


# ----------------------------------------------------------------------------- helpers

FLOAT_TOL = 5e-7  # slack on bounds, above float32 rounding: an accuracy gain of 18/600 is stored as 0.02999997
REL_TOL_CAP = 1e-2  # the slack never exceeds 1% of a non-zero bound


def _tol(bound: float) -> float:
    """Slack for comparing a stored metric with a bound (metrics are often float32 counts).

    ``FLOAT_TOL`` (scaled by the bound above 1) absorbs float32 rounding of differences of O(1)
    quantities. For a small non-zero bound it is capped at ``REL_TOL_CAP`` of the bound, so that a bound
    such as ``<= 1e-8`` (a gradient norm) or ``>= 1e-9`` ("strictly positive") keeps its meaning instead
    of admitting values up to 5e-7 away. A bound of exactly 0 keeps the absolute slack.
    """
    b = abs(float(bound))
    if b == 0.0:
        return FLOAT_TOL
    return min(FLOAT_TOL * max(1.0, b), REL_TOL_CAP * b)


def _values(ms: Sequence[Metrics], key: str, at: At) -> np.ndarray:
    """(n_seeds,) for a scalar or ``at`` index, (n_seeds, len) for ``at='each'``."""
    rows = []
    for i, m in enumerate(ms):
        if key not in m:
            raise KeyError(f"metric {key!r} missing from seed #{i}; have {sorted(m)[:30]}")
        v = m[key]
        if at is None:
            if isinstance(v, (list, tuple)):
                raise ValueError(f"metric {key!r} is a series; give at=<index> or at='each'")
            rows.append(float(v) if v is not None else float("nan"))
        elif at == "each":
            rows.append(np.asarray(v, dtype=float))
        else:
            rows.append(float(np.asarray(v, dtype=float)[int(at)]))
    return np.asarray(rows, dtype=float)


def _set(m: Metrics, key: str, at: At, value: Any) -> None:
    if at is None or at == "each":
        m[key] = value
    else:
        series = list(m[key])
        series[int(at)] = float(value)
        m[key] = series


def _fmt(x: float, digits: int = 3) -> str:
    if x is None or not math.isfinite(x):
        return str(x)
    return f"{x:.{digits}g}"


def min_attainable_p(n: int, test: Test) -> float:
    """Smallest one-sided p-value ``test`` can give over ``n`` paired seeds."""
    if n < 1:
        return 1.0
    if test in ("sign", "wilcoxon"):
        return 0.5 ** n
    return 0.0 if n >= 2 else 1.0


def _p_greater(d: np.ndarray, test: Test) -> float:
    """One-sided p-value for median/mean(d) > 0."""
    from icml26.core.stats import paired_test

    return paired_test(d, np.zeros_like(d), alternative="greater", method=test)


def _at_text(at: At) -> str:
    if at is None:
        return ""
    if at == "each":
        return " at every point"
    return " at the last point" if at == -1 else f" at index {at}"


# ----------------------------------------------------------------------------- base classes
class Check:
    """A declarative check: ``check(ms) -> Verdict``, plus ``contradict`` and ``on_control``."""

    comparative: bool = False

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:  # pragma: no cover - abstract
        raise NotImplementedError

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics] | None:
        """Metrics with the method's numbers replaced by the control's (``None``: not comparative)."""
        return None

    def rule(self) -> str:  # pragma: no cover - abstract
        """The pre-registered rule, in words."""
        raise NotImplementedError

    def gated(self, *gates: Gate) -> Gated:
        """Decide only if every gate passes; otherwise ``not-checkable`` with the gate's reason."""
        return Gated(self, tuple(gates))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.rule()}>"


# ----------------------------------------------------------------------------- beats

def control_in_method(ms: Sequence[Metrics], method: str, control: str) -> list[Metrics]:
    """Copies of ``ms`` with the ``method`` metric replaced by the ``control`` metric (a check's
    ``on_control`` for a method/control pair: the control must not pass the method's check)."""
    out = copy.deepcopy(list(ms))
    for m in out:
        m[method] = copy.deepcopy(m[control])
    return out

def _worse(value: Any, better: Better) -> Any:
    """``value`` moved well into the worse direction (numbers and nested lists of numbers)."""
    if isinstance(value, (list, tuple)):
        return [_worse(v, better) for v in value]
    x = float(value)
    step = abs(x) + 1.0
    return x - step if better == "higher" else x + step


def contradict_pair(check: Check, ms: Sequence[Metrics], method: str, control: str, better: Better) -> list[Metrics]:
    """Metrics that contradict "``method`` beats ``control``": the two swapped; if the method really lost,
    so that the swap makes it win, the control's values in its place; if ties still count as wins, the
    method made clearly worse than the control."""
    swapped = copy.deepcopy(list(ms))
    for m in swapped:
        m[method], m[control] = m[control], m[method]
    if check(swapped).status != "reproduced":
        return swapped
    equal = control_in_method(ms, method, control)
    if check(equal).status != "reproduced":
        return equal
    for m in equal:
        m[method] = _worse(m[control], better)
    return equal


@dataclass(frozen=True, repr=False)
class Beats(Check):
    method: str
    control: str
    better: Better = "lower"
    at: At = None
    margin: float = 0.0
    rel_margin: bool = False
    test: Test = "wilcoxon"
    alpha: float = 0.05
    need: float = 1.0  # with at='each': fraction of points that must pass
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def __post_init__(self) -> None:
        if self.better not in ("lower", "higher"):
            raise ValueError(f"better must be 'lower' or 'higher', got {self.better!r}")
        if self.test not in ("wilcoxon", "sign", "t"):
            raise ValueError(f"test must be wilcoxon, sign or t, got {self.test!r}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha!r}")
        if not 0 < self.need <= 1:
            raise ValueError(f"need must lie in (0, 1], got {self.need!r}")
        if self.margin < 0 or not math.isfinite(self.margin):
            raise ValueError(f"margin must be finite and >= 0, got {self.margin!r}")

    @property
    def _names(self) -> tuple[str, str]:
        return self.label or self.method, self.control_label or self.control

    def rule(self) -> str:
        m = f" by more than {self.margin:g}{' (relative)' if self.rel_margin else ''}" if self.margin else ""
        extra = f" at >= {self.need:.0%} of points" if self.at == "each" and self.need < 1 else ""
        pt = ("partly if significantly better but not by the margin" if self.margin else
              "a mean improvement that does not reach the level is not-reproduced")
        each = "; partly if at least half of the points pass" if self.at == "each" else ""
        return (f"{self._names[0]} {self.better} than {self._names[1]}{m}{_at_text(self.at)}{extra}: mean paired "
                f"improvement > margin and one-sided {self.test} p < {self.alpha:g} over seeds; {pt}{each}")

    def _improvement(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = (b - a) if self.better == "lower" else (a - b)
        if self.rel_margin:
            d = d / np.maximum(np.abs(b), 1e-12)
        return d - self.margin

    def _one(self, a: np.ndarray, b: np.ndarray) -> tuple[str, float, float]:
        """(status, mean improvement beyond the margin, p) at one point.

        reproduced: the improvement beyond the margin is significant; partly: the method is
        significantly better than the control but not by the margin; otherwise not-reproduced
        (a mean improvement that the test cannot tell from noise is not evidence).
        """
        d = self._improvement(a, b)
        ok = np.isfinite(d)
        d = d[ok]
        if d.size == 0:
            return "not-checkable", float("nan"), 1.0
        mean = float(d.mean())
        p = _p_greater(d, self.test) if mean > 0 else 1.0
        if mean > 0 and p < self.alpha:
            return "reproduced", mean, p
        if self.margin > 0:
            raw = (d + self.margin)
            p_raw = _p_greater(raw, self.test) if raw.mean() > 0 else 1.0
            if p_raw < self.alpha:
                return "partly", mean, p
        return "not-reproduced", mean, p

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        from icml26.core.stats import bootstrap_ci, fmt_p

        ms = list(ms)
        a, b = _values(ms, self.method, self.at), _values(ms, self.control, self.at)
        n = len(ms)
        name, cname = self._names
        floor = min_attainable_p(n, self.test)
        if a.ndim == 1:
            status, mean, p = self._one(a, b)
            d = self._improvement(a, b) + self.margin
            lo, hi = bootstrap_ci(d)
            measured = f"{name} {_fmt(np.nanmean(a))} vs {cname} {_fmt(np.nanmean(b))}" + _at_text(self.at)
            control = f"{cname}: {_fmt(np.nanmean(b))}"
            evidence = (f"rule: {self.rule()}; improvement {_fmt(float(np.nanmean(d)))} [{_fmt(lo)}, {_fmt(hi)}] "
                        f"(95% bootstrap CI), {fmt_p(p)}, {n} seeds")
            value, ci = float(np.nanmean(d)), (lo, hi)
        else:
            per = [self._one(a[:, k], b[:, k]) for k in range(a.shape[1])]
            ok = np.array([s == "reproduced" for s, _, _ in per])
            better = np.array([s in ("reproduced", "partly") for s, _, _ in per])
            frac = float(ok.mean())
            status = "reproduced" if frac >= self.need else ("partly" if better.mean() >= 0.5 else "not-reproduced")
            pts = "; ".join(f"[{k}] {_fmt(np.nanmean(a[:, k]))} vs {_fmt(np.nanmean(b[:, k]))} ({fmt_p(p)})"
                            for k, (_, _, p) in enumerate(per))
            measured = f"{name} vs {cname}: {pts}"
            control = f"{cname}: " + ", ".join(_fmt(np.nanmean(b[:, k])) for k in range(b.shape[1]))
            evidence = (f"rule: {self.rule()}; passes at {int(ok.sum())}/{ok.size} points, improves at "
                        f"{int(better.sum())}/{better.size}; {n} seeds")
            value, ci = frac, None
        if floor >= self.alpha and status in ("reproduced", "partly", "not-reproduced"):
            evidence = (f"too few seeds: {n} seeds cannot reach p < {self.alpha:g} with a one-sided {self.test} "
                        f"test (smallest attainable p = {floor:.3g}); " + evidence)
            status = "not-checkable"
        return Verdict(status, measured, evidence, value=value, ci=ci, control=control)

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return contradict_pair(self, ms, self.method, self.control, self.better)

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return control_in_method(ms, self.method, self.control)


def beats(method: str, control: str, *, better: Better = "lower", at: At = None, margin: float = 0.0,
          rel_margin: bool = False, test: Test = "wilcoxon", alpha: float = 0.05, need: float = 1.0,
          label: str = "", control_label: str = "") -> Beats:
    """The method's metric is better than the control's, paired over seeds.

    ``better`` says which direction is better; ``margin`` is the improvement required
    (absolute, or relative to the control with ``rel_margin``); ``test`` the one-sided
    paired test over seeds at level ``alpha``; ``at`` an index into series metrics, or
    ``"each"`` with ``need`` the fraction of points that must pass.
    """
    return Beats(method, control, better, at, margin, rel_margin, test, alpha, need, label, control_label)


# ----------------------------------------------------------------------------- beats in a count of seeds
@dataclass(frozen=True, repr=False)
class BeatsInSeeds(Check):
    """The count rule many pre-registrations use: method - control >= margin in >= ``frac`` of the seeds
    (with ``margin=0``: strictly better, so a tie is not a win)."""

    method: str
    control: str
    margin: float = 0.0
    frac: float = 0.8
    better: Better = "higher"
    label: str = ""
    control_label: str = ""
    comparative: bool = True
    ties: bool = False  # with margin 0, count a tie as a win (a "no worse than" rule)

    def __post_init__(self) -> None:
        if self.better not in ("lower", "higher"):
            raise ValueError(f"better must be 'lower' or 'higher', got {self.better!r}")
        if not 0 < self.frac <= 1:
            raise ValueError(f"frac must lie in (0, 1], got {self.frac!r}")
        if self.margin < 0 or not math.isfinite(self.margin):
            raise ValueError(f"margin must be finite and >= 0, got {self.margin!r}")

    def rule(self) -> str:
        by = f"by >= {self.margin:g}" if (self.margin or self.ties) else "strictly"
        return (f"{self.label or self.method} {self.better} than {self.control_label or self.control} {by} "
                f"in >= {self.frac:.0%} of seeds; partly if in at least half of them")

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        a, b = _values(ms, self.method, None), _values(ms, self.control, None)
        d = (a - b) if self.better == "higher" else (b - a)
        # margin 0 means "strictly better": a tie is not a win (else the control would pass on its own numbers)
        strict = self.margin == 0 and not self.ties
        ok = np.isfinite(d) & ((d > 0) if strict else (d >= self.margin - _tol(self.margin)))
        frac = float(ok.mean())
        status = "reproduced" if frac >= self.frac else ("partly" if frac >= 0.5 else "not-reproduced")
        name, cname = self.label or self.method, self.control_label or self.control
        return Verdict(status, f"{name} {_fmt(float(np.nanmean(a)))} vs {cname} {_fmt(float(np.nanmean(b)))}",
                       f"rule: {self.rule()}; met in {int(ok.sum())}/{ok.size} seeds; differences "
                       + ", ".join(f"{x:+.3f}" for x in d), value=float(np.nanmean(d)),
                       control=f"{cname}: {_fmt(float(np.nanmean(b)))}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return contradict_pair(self, ms, self.method, self.control, self.better)

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return control_in_method(ms, self.method, self.control)


def beats_in_seeds(method: str, control: str, *, margin: float = 0.0, frac: float = 0.8, better: Better = "higher",
                   label: str = "", control_label: str = "") -> BeatsInSeeds:
    """``method`` beats ``control`` by ``margin`` in at least ``frac`` of the seeds (a count rule, e.g. 4/5)."""
    return BeatsInSeeds(method, control, margin, frac, better, label, control_label)


# ----------------------------------------------------------------------------- close
@dataclass(frozen=True, repr=False)
class Close(Check):
    key: str
    to: float | str
    tol: float
    rel: bool = False
    at: At = None
    agg: Literal["max", "mean"] = "max"
    partly_tol: float | None = None
    label: str = ""

    def __post_init__(self) -> None:
        if not (self.tol >= 0 and math.isfinite(self.tol)):
            raise ValueError(f"tol must be finite and >= 0, got {self.tol!r}")
        if self.agg not in ("max", "mean"):
            raise ValueError(f"agg must be 'max' or 'mean', got {self.agg!r}")

    def rule(self) -> str:
        kind = "relative" if self.rel else "absolute"
        target = f"{self.to!r}" if isinstance(self.to, str) else f"{self.to:g}"
        pt = f"; partly within {self.partly_tol:g}" if self.partly_tol is not None else ""
        return f"{self.agg} over seeds of the {kind} error of {self.label or self.key} to {target} <= {self.tol:g}{pt}"

    def _target(self, ms: Sequence[Metrics]) -> np.ndarray:
        if isinstance(self.to, str):
            return _values(ms, self.to, self.at)
        return np.full(len(ms) if self.at != "each" else _values(ms, self.key, self.at).shape,
                       float(self.to))

    def _err(self, ms: Sequence[Metrics]) -> np.ndarray:
        v, t = _values(ms, self.key, self.at), self._target(ms)
        e = np.abs(v - t)
        return e / np.maximum(np.abs(t), 1e-300) if self.rel else e

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        e = self._err(ms)
        e = np.where(np.isfinite(e), e, np.inf)
        stat = float(e.max() if self.agg == "max" else e.mean())
        v = _values(ms, self.key, self.at)
        t = self._target(ms)
        status = "reproduced" if stat <= self.tol else (
            "partly" if self.partly_tol is not None and stat <= self.partly_tol else "not-reproduced")
        return Verdict(status, f"{self.label or self.key} {_fmt(float(np.nanmean(v)))} vs target "
                               f"{_fmt(float(np.nanmean(t)))}; {self.agg} error {stat:.3g}",
                       f"rule: {self.rule()}; {len(ms)} seeds", value=stat)

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        out = []
        t = self._target(ms)
        bump = 10 * max(self.tol, self.partly_tol or 0.0) + 1.0
        for i, m in enumerate(copy.deepcopy(list(ms))):
            ti = t[i]
            new = ti * (1 + bump) + bump if self.rel else ti + bump
            _set(m, self.key, self.at, new.tolist() if isinstance(new, np.ndarray) else float(new))
            out.append(m)
        return out


def close(key: str, to: float | str, tol: float, *, rel: bool = False, at: At = None,
          agg: Literal["max", "mean"] = "max", partly_tol: float | None = None, label: str = "") -> Close:
    """``key`` is within ``tol`` of ``to`` (a number or another metric key), max (or mean) over seeds."""
    return Close(key, to, tol, rel, at, agg, partly_tol, label)


# ----------------------------------------------------------------------------- threshold
@dataclass(frozen=True, repr=False)
class Threshold(Check):
    key: str
    at_least: float | None = None
    at_most: float | None = None
    frac: float = 1.0
    partly_frac: float | None = None
    on: Literal["seeds", "mean"] = "seeds"
    at: At = None
    label: str = ""
    control_value: float | None = None

    def __post_init__(self) -> None:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least and at_most")
        if not 0 < self.frac <= 1:
            raise ValueError(f"frac must lie in (0, 1], got {self.frac!r}")
        if self.on not in ("seeds", "mean"):
            raise ValueError(f"on must be 'seeds' or 'mean', got {self.on!r}")

    @property
    def _bound(self) -> float:
        return float(self.at_least if self.at_least is not None else self.at_most)  # type: ignore[arg-type]

    def _ok(self, x: np.ndarray) -> np.ndarray:
        t = _tol(self._bound)
        return (x >= self._bound - t) if self.at_least is not None else (x <= self._bound + t)

    def rule(self) -> str:
        op = ">=" if self.at_least is not None else "<="
        name = self.label or self.key
        if self.on == "mean":
            return f"seed-mean of {name}{_at_text(self.at)} {op} {self._bound:g}"
        pf = f" (partly: {self.partly_frac:.0%})" if self.partly_frac is not None else ""
        return f"{name}{_at_text(self.at)} {op} {self._bound:g} in >= {self.frac:.0%} of seeds{pf}"

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        v = _values(ms, self.key, self.at)
        if v.ndim == 2:
            v = v.reshape(len(ms), -1).min(axis=1) if self.at_least is not None else v.reshape(len(ms), -1).max(axis=1)
        name = self.label or self.key
        if self.on == "mean":
            mean = float(np.nanmean(v))
            ok = bool(self._ok(np.array([mean]))[0])
            return Verdict("reproduced" if ok else "not-reproduced", f"{name} {_fmt(mean)} (seed mean)",
                           f"rule: {self.rule()}; {len(ms)} seeds", value=mean)
        good = self._ok(np.where(np.isfinite(v), v, np.nan)) & np.isfinite(v)
        frac = float(good.mean())
        status = "reproduced" if frac >= self.frac else (
            "partly" if self.partly_frac is not None and frac >= self.partly_frac else "not-reproduced")
        return Verdict(status, f"{name} {_fmt(float(np.nanmean(v)))} (seed mean; range {_fmt(float(np.nanmin(v)))}"
                               f" to {_fmt(float(np.nanmax(v)))})",
                       f"rule: {self.rule()}; met in {int(good.sum())}/{good.size} seeds", value=float(np.nanmean(v)))

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics] | None:
        """With ``control_value`` set (a paired difference or its CI bound, which is 0 for the control
        against itself): the metric set to that value; otherwise ``None`` (the part is not comparative)."""
        if self.control_value is None:
            return None
        out = copy.deepcopy(list(ms))
        for m in out:
            if self.at == "each":
                _set(m, self.key, None, [float(self.control_value)] * len(m[self.key]))
            else:
                _set(m, self.key, self.at, float(self.control_value))
        return out

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        b = self._bound
        bad = b - (abs(b) + 1.0) if self.at_least is not None else b + (abs(b) + 1.0)
        out = []
        for m in copy.deepcopy(list(ms)):
            if self.at == "each":
                _set(m, self.key, None, [bad] * len(m[self.key]))
            else:
                _set(m, self.key, self.at, bad)
            out.append(m)
        return out


def threshold(key: str, *, at_least: float | None = None, at_most: float | None = None, frac: float = 1.0,
              partly_frac: float | None = None, on: Literal["seeds", "mean"] = "seeds", at: At = None,
              label: str = "", control_value: float | None = None) -> Threshold:
    """``key`` is at least (or at most) a bound in ``frac`` of the seeds (or on the seed mean).

    ``control_value``: the value ``key`` takes when the control is put in the method's place, for a
    metric that is itself a paired comparison with the control (a difference, its CI bound: 0 for the
    control against itself), so that the control substitution of an ``all_of`` covers this part too.
    """
    if control_value is not None and not math.isfinite(float(control_value)):
        raise ValueError(f"control_value must be finite, got {control_value!r}")
    return Threshold(key, at_least, at_most, frac, partly_frac, on, at, label, control_value)


# ----------------------------------------------------------------------------- slope
@dataclass(frozen=True, repr=False)
class Slope(Check):
    x: str
    y: str
    within: tuple[float, float]
    log: bool = True
    partly_within: tuple[float, float] | None = None
    label: str = ""

    def __post_init__(self) -> None:
        lo, hi = self.within
        if not lo <= hi:
            raise ValueError(f"within must be (lo, hi) with lo <= hi, got {self.within!r}")

    def rule(self) -> str:
        kind = "log-log slope" if self.log else "slope"
        pw = f" (partly: {list(self.partly_within)})" if self.partly_within else ""
        return f"mean over seeds of the {kind} of {self.y} on {self.x} in [{self.within[0]:g}, {self.within[1]:g}]{pw}"

    def _slopes(self, ms: Sequence[Metrics]) -> np.ndarray:
        out = []
        for m in ms:
            x, y = np.asarray(m[self.x], float), np.asarray(m[self.y], float)
            ok = np.isfinite(x) & np.isfinite(y)
            if self.log:
                ok &= (x > 0) & (y > 0)
                x, y = np.log(x[ok]), np.log(y[ok])
            else:
                x, y = x[ok], y[ok]
            out.append(float(np.polyfit(x, y, 1)[0]) if x.size >= 2 else float("nan"))
        return np.asarray(out)

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        from icml26.core.stats import bootstrap_ci

        s = self._slopes(ms)
        mean = float(np.nanmean(s))
        lo, hi = bootstrap_ci(s)
        inside = lambda w: w is not None and w[0] <= mean <= w[1]  # noqa: E731
        status = "reproduced" if inside(self.within) else ("partly" if inside(self.partly_within) else "not-reproduced")
        return Verdict(status, f"{self.label or 'slope'} {mean:.3f} [{lo:.3f}, {hi:.3f}]",
                       f"rule: {self.rule()}; 95% bootstrap CI over {len(ms)} seeds", value=mean, ci=(lo, hi))

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        far = max(abs(self.within[0]), abs(self.within[1]), *(abs(w) for w in (self.partly_within or ()))) + 2.0
        out = []
        for m in copy.deepcopy(list(ms)):
            x = np.asarray(m[self.x], float)
            m[self.y] = (np.abs(x) ** far + 1e-9).tolist() if self.log else (far * x).tolist()
            out.append(m)
        return out


def slope(x: str, y: str, *, within: tuple[float, float], log: bool = True,
          partly_within: tuple[float, float] | None = None, label: str = "") -> Slope:
    """The (log-log) least-squares slope of series ``y`` on series ``x``, averaged over seeds, lies in ``within``."""
    return Slope(x, y, tuple(within), log, tuple(partly_within) if partly_within else None, label)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- gates and combinations
@dataclass(frozen=True)
class Gate:
    """A precondition (e.g. training worked): ``key`` at least/at most a bound in ``frac`` of seeds."""

    key: str
    at_least: float | None = None
    at_most: float | None = None
    frac: float = 1.0
    why: str = ""
    at: At = None

    def __post_init__(self) -> None:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("a gate needs exactly one of at_least and at_most")
        if not self.why:
            raise ValueError("a gate must say what it guards (why='training loss fell 2x')")

    def evaluate(self, ms: Sequence[Metrics]) -> tuple[bool, str]:
        v = _values(ms, self.key, self.at)
        if v.ndim == 2:
            v = v.min(axis=1) if self.at_least is not None else v.max(axis=1)
        ok = ((v >= self.at_least - _tol(self.at_least)) if self.at_least is not None
              else (v <= self.at_most + _tol(self.at_most)))
        ok &= np.isfinite(v)
        op = f">= {self.at_least:g}" if self.at_least is not None else f"<= {self.at_most:g}"
        passed = float(ok.mean()) >= self.frac
        return passed, (f"gate '{self.why}' ({self.key} {op} in >= {self.frac:.0%} of seeds): met in "
                        f"{int(ok.sum())}/{ok.size}, mean {_fmt(float(np.nanmean(v)))}")


def gate(key: str, *, at_least: float | None = None, at_most: float | None = None, frac: float = 1.0,
         why: str, at: At = None) -> Gate:
    """A training (or precondition) gate for :meth:`Check.gated`."""
    return Gate(key, at_least, at_most, frac, why, at)


def apply_gates(v: Verdict, ms: Sequence[Metrics], gates: Sequence[Gate]) -> Verdict:
    """``v`` made ``not-checkable`` (keeping what it would have said) when any gate fails on ``ms``;
    otherwise ``v`` with the gates' evidence appended. For hand-written checks; ``.gated`` uses it too."""
    texts, failed = [], []
    for g in gates:
        ok, text = g.evaluate(ms)
        texts.append(text)
        if not ok:
            failed.append(text)
    if failed:
        return replace(v, status="not-checkable",
                       evidence="precondition failed, so the claim is not decided: " + "; ".join(failed)
                                + f". (On these numbers the check would say {v.status}.) {v.evidence}")
    return replace(v, evidence=v.evidence + "; " + "; ".join(texts))


@dataclass(frozen=True, repr=False)
class Gated(Check):
    inner: Check
    gates: tuple[Gate, ...]

    @property
    def comparative(self) -> bool:  # type: ignore[override]
        return self.inner.comparative

    def rule(self) -> str:
        return self.inner.rule() + "; decided only if " + " and ".join(g.why for g in self.gates)

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        return apply_gates(self.inner(ms), ms, self.gates)

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return self.inner.contradict(ms)

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics] | None:
        return self.inner.on_control(ms)


@dataclass(frozen=True, repr=False)
class AllOf(Check):
    parts: tuple[Check, ...] = field(default_factory=tuple)
    partly: Literal["any", "none"] = "any"

    @property
    def comparative(self) -> bool:  # type: ignore[override]
        return any(p.comparative for p in self.parts)

    def rule(self) -> str:
        return "all of: " + " | ".join(p.rule() for p in self.parts)

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        vs = [p(ms) for p in self.parts]
        st = [v.status for v in vs]
        if all(s == "reproduced" for s in st):
            status = "reproduced"
        elif all(s == "not-checkable" for s in st):
            status = "not-checkable"
        elif self.partly == "any" and any(s in ("reproduced", "partly") for s in st):
            status = "partly"
        elif any(s == "not-checkable" for s in st) and not any(s == "not-reproduced" for s in st):
            status = "not-checkable"
        else:
            status = "not-reproduced"
        return Verdict(status, "; ".join(v.measured for v in vs),
                       " | ".join(f"[{v.status}] {v.evidence}" for v in vs),
                       value=vs[0].value, ci=vs[0].ci,
                       control="; ".join(v.control for v in vs if v.control))

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        # every part's contradiction in turn; when two parts write the same metric, a later one can
        # undo an earlier one, so fall back to the first part's contradiction alone (which already
        # keeps the conjunction from being reproduced)
        out = list(ms)
        for p in self.parts:
            out = p.contradict(out)
        if any(p(out).status == "reproduced" for p in self.parts):
            return self.parts[0].contradict(ms)
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics] | None:
        out, any_ = list(ms), False
        for p in self.parts:
            sub = p.on_control(out)
            if sub is not None:
                out, any_ = sub, True
        return out if any_ else None


def all_of(*parts: Check, partly: Literal["any", "none"] = "any") -> AllOf:
    """Reproduced if every part is; partly if some part is reproduced or partly (``partly='any'``)."""
    if not parts:
        raise ValueError("all_of needs at least one check")
    return AllOf(tuple(parts), partly)


# ----------------------------------------------------------------------------- numbers reported beside a verdict
@dataclass(frozen=True, repr=False)
class Beside(Check):
    """``inner`` decides; the seed means of ``keys`` ((label, metric key) pairs) are appended to its
    evidence as numbers reported beside the verdict that decide nothing (a second scorer, a secondary
    measurement), with their per-seed values. ``what`` names them. ``requires``: a metric key that
    must be non-zero in every row for those numbers to exist (say, an optional extra was
    installed); when a row lacks it or holds 0, the evidence says ``<what>: skipped (<missing>)``
    (a NaN there counts as present). A key missing or NaN in some rows shows ``nan`` for those
    seeds and averages the others; a key missing in every row is left out.
    The verdict's status, value and control, and the contradiction and control substitution, are
    ``inner``'s."""

    inner: Check
    keys: tuple[tuple[str, str], ...]
    what: str = ""
    requires: str | None = None
    missing: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.inner, Check):
            raise TypeError(f"inner must be a Check, got {type(self.inner).__name__}")
        if not isinstance(self.keys, tuple) or not self.keys:
            raise ValueError("keys must be a non-empty tuple of (label, metric key) pairs")
        for pair in self.keys:
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(x, str) and x for x in pair)):
                raise ValueError(f"keys must hold (label, metric key) pairs of non-empty strings, got {pair!r}")
        for name in ("what", "missing"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"{name} must be a string, got {type(getattr(self, name)).__name__}")
        if self.requires is not None and not (isinstance(self.requires, str) and self.requires):
            raise ValueError(f"requires must be a metric key or None, got {self.requires!r}")

    @property
    def comparative(self) -> bool:  # type: ignore[override]
        return self.inner.comparative

    def rule(self) -> str:
        return self.inner.rule() + f"; reported beside it, not deciding: {self.what}"

    def note(self, ms: Sequence[Metrics]) -> str:
        """The text appended to the evidence ("" without rows)."""
        if not ms:
            return ""
        if self.requires is not None and any(float(m.get(self.requires, 0.0)) == 0.0 for m in ms):
            return f"{self.what}: skipped ({self.missing})"
        parts = []
        for name, key in self.keys:
            v = np.array([float(m.get(key, np.nan)) for m in ms], dtype=float)
            if np.all(np.isnan(v)):
                continue
            parts.append(f"{name} {np.nanmean(v):.3g} (per seed {'/'.join(f'{x:.3g}' for x in v)})")
        return f"{self.what} (not deciding): " + ("; ".join(parts) if parts else "no values")

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        v = self.inner(ms)
        n = self.note(ms)
        return replace(v, evidence=v.evidence + ("; " + n if n else ""))

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return self.inner.contradict(ms)

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics] | None:
        return self.inner.on_control(ms)


def beside(inner: Check, keys: Sequence[tuple[str, str]], *, what: str, requires: str | None = None,
           missing: str = "") -> Beside:
    """``inner`` decides; ``keys`` ((label, metric key) pairs) are reported beside it (see :class:`Beside`)."""
    if isinstance(keys, (str, bytes)) or not isinstance(keys, Sequence):
        raise TypeError(f"keys must be a sequence of (label, metric key) pairs, got {type(keys).__name__}")
    return Beside(inner, tuple(tuple(k) if isinstance(k, list) else k for k in keys), what, requires, missing)


_PASS_RANK = {"reproduced": 2, "partly": 1}


def part_beyond_controls(check: Check, ms: Sequence[Metrics],
                         controls: Sequence[tuple[str, Callable[[Sequence[Metrics]], list[Metrics]]]], *,
                         who: str = "the method", note: str = "") -> Verdict:
    """The house rule "a claim its control passes equally is not reproduced", part by part.

    ``check`` is an :func:`all_of` (optionally ``.gated``). Its verdict on ``ms`` stands only if, against
    each control put wholly in the method's place (``controls``: ``(label, put)`` pairs, ``put(ms)``
    returning the substituted metrics), some part reads better for the method than for that control;
    otherwise the claim is ``not-reproduced``. A verdict that is not ``reproduced``/``partly`` is
    returned as it is.
    """
    inner = check.inner if isinstance(check, Gated) else check
    if not isinstance(inner, AllOf):
        raise TypeError(f"check must be an all_of (optionally gated), got {type(inner).__name__}")
    if not controls:
        raise ValueError("controls must name at least one (label, put) pair")
    v = check(ms)
    if v.status not in _PASS_RANK:
        return v
    mine = [p(ms).status for p in inner.parts]
    found = []
    for label, put in controls:
        theirs = [p(put(ms)).status for p in inner.parts]
        found.append((label, any(_PASS_RANK.get(a, 0) > _PASS_RANK.get(b, 0) for a, b in zip(mine, theirs))))
    ok = all(f for _, f in found)
    text = (f"; partly or reproduced needs, against each control put in {who}'s place, a part {who} passes "
            "better: " + ", ".join(f"{label} {'yes' if f else 'no'}" for label, f in found) + note)
    return replace(v, status=v.status if ok else "not-reproduced", evidence=v.evidence + text)


# ----------------------------------------------------------------------------- non-inferiority
@dataclass(frozen=True, repr=False)
class NonInferior(Check):
    method: str
    control: str
    margin: float
    better: Better = "higher"
    by: Literal["ci", "mean"] = "ci"
    partly_margin: float | None = None
    label: str = ""
    control_label: str = ""
    comparative: bool = True

    def __post_init__(self) -> None:
        if self.better not in ("lower", "higher"):
            raise ValueError(f"better must be 'lower' or 'higher', got {self.better!r}")
        if self.by not in ("ci", "mean"):
            raise ValueError(f"by must be 'ci' or 'mean', got {self.by!r}")
        if not (isinstance(self.margin, (int, float)) and self.margin >= 0):
            raise ValueError(f"margin must be a number >= 0, got {self.margin!r}")
        if self.partly_margin is not None and not self.partly_margin >= self.margin:
            raise ValueError(f"partly_margin must be >= margin, got {self.partly_margin!r} < {self.margin!r}")

    def _gain(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return a - b if self.better == "higher" else b - a

    def rule(self) -> str:
        name, cname = self.label or self.method, self.control_label or self.control
        what = ("the lower end of the 95% t interval of the paired advantage over seeds"
                if self.by == "ci" else "the seed-mean of the paired advantage")
        text = (f"{name} not worse than {cname} by more than {self.margin:g} ({self.better} is better): "
                f"{what} > -{self.margin:g}")
        if self.partly_margin is not None:
            text += f"; partly if the seed-mean advantage >= -{self.partly_margin:g}"
        return text

    def __call__(self, ms: Sequence[Metrics]) -> Verdict:
        from icml26.core.stats import mean_ci

        a, b = _values(ms, self.method, None), _values(ms, self.control, None)
        d = self._gain(a, b)
        m, lo, hi = mean_ci(d)
        name, cname = self.label or self.method, self.control_label or self.control
        tol = _tol(self.margin)
        if self.by == "ci" and len(ms) < 2:
            status = "not-checkable"
        elif (lo if self.by == "ci" else m) > -self.margin - tol:
            status = "reproduced"
        elif self.partly_margin is not None and m >= -self.partly_margin - _tol(self.partly_margin):
            status = "partly"
        else:
            status = "not-reproduced"
        return Verdict(status, f"{name} {_fmt(float(np.nanmean(a)))} vs {cname} {_fmt(float(np.nanmean(b)))}",
                       f"rule: {self.rule()}; advantage {m:+.3g} [{lo:+.3g}, {hi:+.3g}] (95% t interval), per seed "
                       + ", ".join(f"{x:+.3g}" for x in d) + f"; {len(ms)} seeds"
                       + ("" if len(ms) >= 2 or self.by != "ci" else " (one seed gives no interval)"),
                       value=m, ci=(lo, hi), control=f"{cname}: {_fmt(float(np.nanmean(b)))}")

    def contradict(self, ms: Sequence[Metrics]) -> list[Metrics]:
        worst = (self.partly_margin if self.partly_margin is not None else self.margin)
        out = []
        for i, m in enumerate(copy.deepcopy(list(ms))):
            shift = 3 * worst + 1.0 + 0.1 * i
            c = float(m[self.control])
            m[self.method] = c - shift if self.better == "higher" else c + shift
            out.append(m)
        return out

    def on_control(self, ms: Sequence[Metrics]) -> list[Metrics]:
        return control_in_method(ms, self.method, self.control)


def non_inferior(method: str, control: str, *, margin: float, better: Better = "higher",
                 by: Literal["ci", "mean"] = "ci", partly_margin: float | None = None, label: str = "",
                 control_label: str = "") -> NonInferior:
    """``method`` is not worse than ``control`` by more than ``margin``.

    ``by='ci'``: the lower end of the 95% Student-t interval of the paired advantage over seeds
    exceeds ``-margin`` (a one-seed run is not-checkable); ``by='mean'``: its seed-mean does.
    With ``partly_margin``, a seed-mean advantage within ``-partly_margin`` is ``partly``.
    A non-inferiority claim is comparative but the control passes it by construction (advantage 0);
    pair it with a superiority part (``all_of``) when the paper claims more than "no worse".
    """
    return NonInferior(method, control, float(margin), better, by,
                       None if partly_margin is None else float(partly_margin), label, control_label)


# ----------------------------------------------------------------------------- hand-written helpers
def too_few_seeds(n: int, test: Test = "sign", alpha: float = 0.05) -> str | None:
    """For hand-written checks: the reason a test over ``n`` seeds cannot decide, or ``None``."""
    floor = min_attainable_p(n, test)
    if floor >= alpha:
        return (f"too few seeds: {n} seeds cannot reach p < {alpha:g} with a one-sided {test} test "
                f"(smallest attainable p = {floor:.3g})")
    return None


CheckFn = Callable[[Sequence[Metrics]], Verdict]


# ----------------------------------------------------------------------------- paired bootstrap over items
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
        return control_in_method(ms, self.method, self.control)


def paired_bootstrap(method: str, control: str, *, better: Literal["higher", "lower"] = "higher",
                     mode: Literal["superior", "noninferior"] = "superior", margin: float = 0.0,
                     label: str = "", control_label: str = "") -> PairedBootstrap:
    """Per-item paired bootstrap of ``method - control``, items pooled over seeds.

    Each seed stores one value per item (episode, question) for both arms, in the same order; the
    (seed, item) pairs are pooled and resampled with replacement (4000 draws, fixed generator).
    ``mode='superior'``: the 95% percentile interval of the mean difference lies above 0 (below 0
    for ``better='lower'``). ``mode='noninferior'``: its lower end (upper end for ``lower``) is
    better than ``-margin``. Items are treated as independent: where a seed's items share state
    (a memory carried across episodes), report a seed-level test beside it."""
    if better not in ("higher", "lower") or mode not in ("superior", "noninferior") or margin < 0:
        raise ValueError(f"bad paired_bootstrap arguments: better={better!r}, mode={mode!r}, margin={margin!r}")
    return PairedBootstrap(method, control, better, mode, float(margin), 4000, label, control_label)
