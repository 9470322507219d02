"""Small-scale reproduction of Box Thirding (arXiv:2602.18186), Sec. 5-style experiment.

Setting. The paper evaluates on the New Yorker Cartoon Caption Contest (thousands of
captions per contest, crowd ratings) under high-noise, moderate-noise and deterministic
rewards. Those ratings are not shipped here, so each repetition draws a synthetic
many-armed instance with the same shape: ``N`` arm means ``mu_i ~ Beta(a, b)`` (default
Beta(1, 8): most captions poor, a thin tail of good ones) and three reward regimes:

* ``bernoulli``     (moderate noise): reward ~ Bernoulli(mu_i);
* ``gaussian``      (high noise):     reward ~ Normal(mu_i, sd), sd = 0.5;
* ``deterministic`` (no noise):       reward = mu_i.

B3 (t0 = 1, r = r0) runs once per repetition up to the largest budget and is read at
every budget checkpoint (anytime). Baselines at each budget ``T``: Successive Halving
told ``T`` in advance on a random subset of ``n(T)`` arms (largest ``n`` with
``n ceil(log2 n) <= T``), uniform sampling on a random subset of the same size, and
the doubling-trick SH (budgets 128, 256, ...) read at the same checkpoints, and the
anytime Bracketing SH of Zhao et al. (ICML 2023; brackets of 2, 4, ... random arms each
running doubling-trick SH, see ``method.BracketingSHBatch``), also run once and read at
every checkpoint. BSH draws its brackets and rewards from its own generator (seeded from
the seed), so adding it leaves every other method's numbers unchanged.
Metric: simple regret ``max_i mu_i - mu_rec``, averaged over the repetitions of a seed;
claims are decided over seeds.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import bootstrap_ci, decide, fmt_ci, fmt_p, paired_test, series_of
from icml26.decision.b3.method import (
    R0,
    BoxThirdingBatch,
    bracketing_successive_halving_batch,
    doubling_successive_halving_batch,
    fit_subset_size,
    successive_halving_batch,
    uniform_sampling_batch,
)

REGIMES = ("bernoulli", "gaussian", "deterministic")
METHODS = ("b3", "sh", "doubling", "uniform", "bsh")
LABELS = {"b3": "B3 (anytime)", "sh": "SH (T known)", "doubling": "doubling SH (anytime)",
          "bsh": "bracketing SH (anytime)",
          "uniform": "uniform (T known)", "screened": "best screened arm"}


def _pull_sum(regime: str, mu: np.ndarray, rng: np.random.Generator, sd: float):
    rows = np.arange(mu.shape[0])

    def pull_sum(arms: np.ndarray, n: int) -> np.ndarray:
        m = mu[rows.reshape((-1,) + (1,) * (arms.ndim - 1)), arms]
        if regime == "bernoulli":
            return rng.binomial(n, m).astype(float)
        if regime == "gaussian":
            return n * m + sd * np.sqrt(n) * rng.standard_normal(m.shape)
        return n * m

    return pull_sum


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    n_arms = int(profile["n_arms"])
    reps = int(profile["reps"])
    budgets = [int(b) for b in profile["budgets"]]
    a, b = profile.get("beta_a", 1.0), profile.get("beta_b", 8.0)
    sd = float(profile.get("gauss_sd", 0.5))
    eps = float(profile.get("eps", 0.05))
    rows = np.arange(reps)
    bsh_rng = np.random.default_rng([int(seed), 2023])  # BSH's own stream: others stay as before
    out: dict = {"budgets": budgets, "n_arms": n_arms, "sh_subset": [fit_subset_size(n_arms, t) for t in budgets]}
    for regime in REGIMES:
        mu = rng.beta(a, b, size=(reps, n_arms))
        best = mu.max(axis=1)
        pull_sum = _pull_sum(regime, mu, rng, sd)
        recs: dict[str, list[np.ndarray]] = {m: [] for m in METHODS}
        screened_regret, hit, c0, used = [], [], [], []
        b3 = BoxThirdingBatch(n_arms, reps, t0=int(profile.get("t0", 1)),
                              ratio=float(profile.get("ratio", R0)), seed=rng)
        for t in budgets:  # one anytime run, read at every checkpoint
            b3.run(pull_sum, t)
            rec = b3.recommend()
            recs["b3"].append(rec)
            scr = b3.screened()
            mu_scr = np.take_along_axis(mu, scr, 1)
            best_scr = scr[rows, np.argmax(mu_scr, axis=1)]
            screened_regret.append(float((best - mu[rows, best_scr]).mean()))
            hit.append(float((mu[rows, rec] == mu[rows, best_scr]).mean()))
            c0.append(b3.n_screened)
            used.append(b3.pulls_used)
            recs["sh"].append(successive_halving_batch(pull_sum, n_arms, t, reps, seed=rng))
            recs["uniform"].append(uniform_sampling_batch(pull_sum, n_arms, t, reps, seed=rng))
        dbl = doubling_successive_halving_batch(pull_sum, n_arms, budgets, reps,
                                                first_budget=int(profile.get("first_budget", 128)), seed=rng)
        recs["doubling"] = [dbl[:, k] for k in range(len(budgets))]
        bsh = bracketing_successive_halving_batch(_pull_sum(regime, mu, bsh_rng, sd), n_arms, budgets, reps,
                                                  seed=bsh_rng)
        recs["bsh"] = [bsh[:, k] for k in range(len(budgets))]
        for m in METHODS:
            reg = [best - mu[rows, r] for r in recs[m]]
            out[f"{regime}/{m}/regret"] = [float(r.mean()) for r in reg]
            out[f"{regime}/{m}/eps_good"] = [float((r <= eps).mean()) for r in reg]
        out[f"{regime}/screened/regret"] = screened_regret
        out[f"{regime}/b3/hit_best_screened"] = hit
        out[f"{regime}/b3/c0"] = [float(c) for c in c0]
        out[f"{regime}/b3/pulls_used"] = [float(u) for u in used]
    return out


# --------------------------------------------------------------------------- claims
def _budgets(ms: list[dict]) -> list[int]:
    return [int(x) for x in ms[0]["budgets"]]


def _ratio_ci(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Bootstrap CI over seeds of mean(a)/mean(b) (seeds resampled jointly)."""
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(a), size=(2000, len(a)))
    r = a[idx].mean(1) / np.maximum(b[idx].mean(1), 1e-12)
    return float(np.quantile(r, 0.025)), float(np.quantile(r, 0.975))


def check_matches_sh(ms: list[dict]) -> Verdict:
    """Pre-registered: mean B3 regret <= 1.5 x mean SH(T known) regret at every budget (bernoulli)."""
    ts = _budgets(ms)
    b3, sh = series_of(ms, "bernoulli/b3/regret"), series_of(ms, "bernoulli/sh/regret")
    ratios = b3.mean(0) / np.maximum(sh.mean(0), 1e-12)
    ok = ratios <= 1.5
    c0 = series_of(ms, "bernoulli/b3/c0").mean(0)
    n_sh = ms[0]["sh_subset"]
    parts = []
    for k, t in enumerate(ts):
        lo, hi = _ratio_ci(b3[:, k], sh[:, k])
        parts.append(f"T={t}: {b3[:, k].mean():.3f} vs {sh[:, k].mean():.3f} (ratio {ratios[k]:.2f} [{lo:.2f}, {hi:.2f}]; arms screened B3 {c0[k]:.0f}, SH {n_sh[k]:.0f})")
    return Verdict(
        decide(bool(ok.all()), partly=bool(ok.mean() >= 0.5)),
        "simple regret B3 vs SH with T known (bernoulli): " + "; ".join(parts),
        f"condition: ratio of seed-mean regrets <= 1.5 at every budget; met at {int(ok.sum())}/{len(ts)} "
        f"budgets; {len(ms)} seeds, 95% bootstrap CI of the ratio over seeds",
        value=float(ratios.max()), ci=None)


def control_matches_sh(ms: list[dict]) -> list[dict]:
    """The control (doubling-trick SH) in B3's place."""
    return [_swap(dict(m), "bernoulli", "doubling") | {"bernoulli/b3/regret": m["bernoulli/doubling/regret"]}
            for m in ms]


def contradict_matches_sh(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["bernoulli/b3/regret"] = [2 * x + 0.01 for x in m["bernoulli/sh/regret"]]
        out.append(m)
    return out


def _beats(ms: list[dict], regime: str, other: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    b3, o = series_of(ms, f"{regime}/b3/regret"), series_of(ms, f"{regime}/{other}/regret")
    lower = b3.mean(0) < o.mean(0)
    ps = np.array([paired_test(b3[:, k], o[:, k], "less") for k in range(b3.shape[1])])
    return b3, o, lower, ps


def _beats_text(ts, b3, o, ps) -> str:
    return "; ".join(f"T={t}: {b3[:, k].mean():.3f} vs {o[:, k].mean():.3f} ({fmt_p(ps[k])})"
                     for k, t in enumerate(ts))


def _check_beats_anytime(ms: list[dict], other: str, label: str) -> Verdict:
    """B3 lower at >= 2/3 of budgets and one-sided paired Wilcoxon p < 0.05 at >= 1/3 of them
    (bernoulli regime); partly if lower at >= half of the budgets."""
    ts = _budgets(ms)
    b3, o, lower, ps = _beats(ms, "bernoulli", other)
    sig = lower & (ps < 0.05)
    passed = lower.mean() >= 2 / 3 and sig.mean() >= 1 / 3
    d = (o - b3)[:, -1]
    m_lo, m_hi = bootstrap_ci(d)
    return Verdict(
        decide(passed, partly=bool(lower.mean() >= 0.5)),
        f"simple regret B3 vs {label} (bernoulli): " + _beats_text(ts, b3, o, ps),
        f"condition: B3 lower at >= 2/3 of budgets ({int(lower.sum())}/{len(ts)}) and one-sided paired "
        f"Wilcoxon p<0.05 over {len(ms)} seeds at >= 1/3 ({int(sig.sum())}/{len(ts)}); regret gap at "
        f"T={ts[-1]}: {fmt_ci(d.mean(), m_lo, m_hi)}",
        value=float(d.mean()), ci=(m_lo, m_hi))


def check_beats_doubling_sh(ms: list[dict]) -> Verdict:
    """Pre-registered: see :func:`_check_beats_anytime`, against doubling-trick SH."""
    return _check_beats_anytime(ms, "doubling", "doubling SH")


def contradict_beats_doubling_sh(ms: list[dict]) -> list[dict]:
    return [_swap(m, "bernoulli", "doubling") for m in ms]


def check_beats_bracketing_sh(ms: list[dict]) -> Verdict:
    """Pre-registered (same test as beats-doubling-sh), against bracketing SH."""
    return _check_beats_anytime(ms, "bsh", "bracketing SH")


def contradict_beats_bracketing_sh(ms: list[dict]) -> list[dict]:
    return [_swap(m, "bernoulli", "bsh") for m in ms]


def _swap(m: dict, regime: str, other: str) -> dict:
    m = dict(m)
    m[f"{regime}/b3/regret"], m[f"{regime}/{other}/regret"] = m[f"{regime}/{other}/regret"], m[f"{regime}/b3/regret"]
    return m


def check_beats_uniform(ms: list[dict]) -> Verdict:
    """Pre-registered: B3 lower at every budget and Wilcoxon p < 0.05 at >= half of them (bernoulli)."""
    ts = _budgets(ms)
    b3, o, lower, ps = _beats(ms, "bernoulli", "uniform")
    sig = lower & (ps < 0.05)
    passed = bool(lower.all()) and sig.mean() >= 0.5
    d = (o - b3)[:, -1]
    lo, hi = bootstrap_ci(d)
    return Verdict(
        decide(passed, partly=bool(lower.mean() >= 0.5)),
        "simple regret B3 vs uniform sampling (bernoulli): " + _beats_text(ts, b3, o, ps),
        f"condition: B3 lower at every budget ({int(lower.sum())}/{len(ts)}) and one-sided paired Wilcoxon "
        f"p<0.05 over {len(ms)} seeds at >= half of them ({int(sig.sum())}/{len(ts)}); gap at T={ts[-1]}: "
        f"{fmt_ci(d.mean(), lo, hi)}",
        value=float(d.mean()), ci=(lo, hi))


def contradict_beats_uniform(ms: list[dict]) -> list[dict]:
    return [_swap(m, "bernoulli", "uniform") for m in ms]


def check_robust_regimes(ms: list[dict]) -> Verdict:
    """Pre-registered: in each regime B3 has lower regret than both anytime doubling SH and uniform
    at >= 2/3 of budgets; reproduced if all three regimes pass, partly if at least one does."""
    ts = _budgets(ms)
    passed, parts = [], []
    for regime in REGIMES:
        ok = True
        txt = []
        for other in ("doubling", "uniform"):
            b3, o, lower, ps = _beats(ms, regime, other)
            ok &= lower.mean() >= 2 / 3
            txt.append(f"{other} {int(lower.sum())}/{len(ts)} (T={ts[-1]}: {b3[:, -1].mean():.3f} vs "
                       f"{o[:, -1].mean():.3f}, {fmt_p(ps[-1])})")
        passed.append(bool(ok))
        parts.append(f"{regime}: B3 lower than " + ", ".join(txt))
    n_ok = sum(passed)
    return Verdict(
        decide(n_ok == len(REGIMES), partly=n_ok >= 1),
        "; ".join(parts),
        f"condition: per regime, B3's seed-mean regret below doubling SH and uniform at >= 2/3 of "
        f"{len(ts)} budgets; {n_ok}/{len(REGIMES)} regimes pass; {len(ms)} seeds, one-sided paired "
        "Wilcoxon p at the largest budget shown",
        value=float(n_ok))


def contradict_robust_regimes(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        for regime in REGIMES:
            m = _swap(m, regime, "doubling")
        out.append(m)
    return out


def check_deterministic_screening(ms: list[dict]) -> Verdict:
    """Pre-registered: with deterministic rewards B3 recommends the best arm it has screened
    in >= 90% of repetitions at every budget (partly: >= 50% at every budget)."""
    ts = _budgets(ms)
    hit = series_of(ms, "deterministic/b3/hit_best_screened")
    b3 = series_of(ms, "deterministic/b3/regret")
    scr = series_of(ms, "deterministic/screened/regret")
    h = hit.mean(0)
    parts = [f"T={t}: {h[k]:.2f} (regret {b3[:, k].mean():.3f} vs best screened {scr[:, k].mean():.3f})"
             for k, t in enumerate(ts)]
    lo, hi = bootstrap_ci(hit[:, 0])
    return Verdict(
        decide(bool((h >= 0.9).all()), partly=bool((h >= 0.5).all())),
        "fraction of repetitions where B3 picks the best screened arm (deterministic rewards): " + "; ".join(parts),
        f"condition: fraction >= 0.9 at every budget (partly >= 0.5); {len(ms)} seeds; smallest-budget "
        f"fraction CI over seeds {fmt_ci(h[0], lo, hi, 2)}",
        value=float(h.min()))


def contradict_deterministic_screening(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["deterministic/b3/hit_best_screened"] = [min(x, 1 - x) for x in m["deterministic/b3/hit_best_screened"]]
        out.append(m)
    return out


# --------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    ts = np.array(_budgets(ms), dtype=float)
    fig = Figure(figsize=(13, 4))
    axes = fig.subplots(1, len(REGIMES), sharey=True)
    styles = {"b3": ("C0", "-"), "sh": ("C1", "--"), "doubling": ("C2", "-."), "bsh": ("C4", (0, (5, 1, 1, 1))),
              "uniform": ("C3", ":"), "screened": ("0.5", (0, (1, 1)))}
    for ax, regime in zip(axes, REGIMES):
        keys = list(METHODS) + (["screened"] if regime == "deterministic" else [])
        for m in keys:
            y = series_of(ms, f"{regime}/{m}/regret")
            mean = y.mean(0)
            ci = np.array([bootstrap_ci(y[:, k]) for k in range(y.shape[1])])
            c, ls = styles[m]
            ax.plot(ts, mean, color=c, linestyle=ls, marker="o", ms=3, label=LABELS[m])
            ax.fill_between(ts, ci[:, 0], ci[:, 1], color=c, alpha=0.15)
        ax.set_xscale("log")
        ax.set_title(f"{regime} rewards")
        ax.set_xlabel("budget T (pulls)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("simple regret (mean reward units)")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"B3 vs baselines, N={int(ms[0]['n_arms'])} arms, Beta(1,8) means; "
                 f"{len(ms)} seeds, 95% bootstrap CI")
    fig.tight_layout()
    return fig
