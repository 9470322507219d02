"""MAP (arXiv:2512.04123): the printed findings with honest intervals, and an illustrative reliability table.

Parts of :func:`run`:

* :func:`interval_part`: for each finding whose denominator the text states (70 % and 85 % of
  20 interview cases), Wilson and Clopper-Pearson 95 % intervals; for every finding and every
  stated denominator (306, 86, 20), whether the printed percentage can be k/n (GRIM) and, where
  it can, the Wilson lower bound at that n (does a "most" reading clear 50 %?).
* :func:`agreement_part`: statsmodels' intervals against ``scipy.stats.binomtest`` on a grid.
* :func:`reliability_part` (illustrative, no verdict): p^k and checkpointed success, closed
  form beside Monte Carlo runs drawn with the seed (the only seed-dependent numbers).

The paper's headline claims are about practitioners we cannot survey: each is
``not-checkable``; its check shows what the interval says about the "most" reading.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict

from .findings import FINDINGS, STATED_DENOMINATORS
from .method import chain_success, grim_counts, proportion_interval
from .setting import simulate_chain


def interval_part() -> dict:
    out: dict = {}
    for f in FINDINGS:
        out[f"{f.key}/percent"] = float(f.percent)
        if f.n is not None:
            k = int(round(f.percent * f.n / 100))
            for meth, tag in (("wilson", "wilson"), ("beta", "cp")):
                lo, hi = proportion_interval(k, f.n, method=meth)
                out[f"{f.key}/{tag}_lo"], out[f"{f.key}/{tag}_hi"] = lo, hi
        for d in STATED_DENOMINATORS:
            ks = grim_counts(f.percent, d)
            out[f"{f.key}/grim@{d}"] = float(bool(ks))
            out[f"{f.key}/lo@{d}"] = proportion_interval(ks[0], d)[0] if ks else float("nan")
    return out


def agreement_part(ns=(5, 20, 86, 306)) -> dict:
    from scipy.stats import binomtest

    diff = 0.0
    for n in ns:
        for k in range(n + 1):
            for meth, sp in (("wilson", "wilson"), ("beta", "exact")):
                a = proportion_interval(k, n, method=meth)
                b = binomtest(k, n).proportion_ci(0.95, method=sp)
                diff = max(diff, abs(a[0] - b.low), abs(a[1] - b.high))
    return {"interval_max_diff": diff}


def reliability_part(ks, ps, h: int, c: float, draws: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, 2512])
    out: dict = {"reliability/k": [float(k) for k in ks]}
    zmax = 0.0
    for p in ps:
        for tag, hh, cc in (("none", None, 0.0), (f"h{h}", h, c)):
            closed = [chain_success(p, k, h=hh, c=cc) for k in ks]
            mc = [simulate_chain(p, k, h=hh, c=cc, draws=draws, seed=rng) for k in ks]
            se = [max(np.sqrt(q * (1 - q) / draws), 1e-12) for q in closed]
            zmax = max(zmax, max(abs(a - b) / s for a, b, s in zip(mc, closed, se)))
            out[f"reliability/closed/p{p}/{tag}"] = closed
            out[f"reliability/mc/p{p}/{tag}"] = mc
    out["reliability/max_z"] = zmax
    return out


def run(profile: Profile, seed: int) -> dict:
    return {**interval_part(), **agreement_part(),
            **reliability_part(profile["ks"], profile["ps"], profile["h"], profile["c"], profile["draws"], seed)}


# ----------------------------------------------------------------------------- hand-written check
def check_reliability_top_challenge(ms: list[dict]) -> Verdict:
    return Verdict("not-checkable", "no number: a ranking of challenges by practitioners",
                   "a qualitative finding of the interviews and survey (reliability ranked first); there is no "
                   "denominator or vote count to put an interval on, and no raw data")


def contradict_reliability_top_challenge(ms: list[dict]) -> list[dict]:
    return [dict(m) for m in ms]


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = ms[0]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5))
    ys = []
    for i, f in enumerate(FINDINGS):
        ys.append(f.key)
        ax.plot(f.percent, i, "ko")
        for j, d in enumerate(STATED_DENOMINATORS):
            if m.get(f"{f.key}/grim@{d}", 0.0) < 1:
                continue
            k = grim_counts(f.percent, d)[0]
            lo, hi = proportion_interval(k, d)
            ax.plot([100 * lo, 100 * hi], [i + 0.15 * (j - 1)] * 2, color=f"C{j}",
                    label=f"Wilson 95% at n={d}" if i == 0 or f.key == "off_the_shelf" else None)
    ax.axvline(50, color="grey", ls=":")
    ax.set_yticks(range(len(ys)), ys)
    ax.set_xlabel("printed percentage (%) with Wilson intervals at each GRIM-consistent denominator")
    ax.set_title("MAP findings: which n can give each number")
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7)
    k = m["reliability/k"]
    for key in m:
        if key.startswith("reliability/closed/"):
            bx.plot(k, m[key], label=key.split("/", 2)[2])
            bx.plot(k, m[key.replace("closed", "mc")], "k.", ms=3)
    bx.set_xscale("log")
    bx.set_xlabel("steps per task k")
    bx.set_ylabel("P(task correct) (lines: closed form, dots: Monte Carlo)")
    bx.set_title("illustrative: compounding step reliability (no verdict)")
    bx.legend(fontsize=7)
    fig.tight_layout()
    return fig
