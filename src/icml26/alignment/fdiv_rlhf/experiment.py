"""Online f-regularised RLHF on a linear dueling bandit (checks of arXiv:2605.06977's bounds).

Setting (one seed = one bandit instance, see ``setting``): ``N`` fixed contexts with ``K``
responses each, features ``phi(x, a) ~ N(0, I_d / d)``, a true reward parameter ``theta*`` of
norm ``theta_norm``, regularisation strength ``1 / eta``, Bradley-Terry preferences, and two
reference policies: ``uniform`` (covers everything) and ``poor`` (the best responses of each
context share 5% of ``pi0``'s mass, so ``pi0`` covers ``pi*`` poorly). For each (reference,
divergence) run of the profile, five samplers play in lockstep on the same context sequence:

* Algorithm 1 (``optimism``): elliptical bonus of scale ``beta``, second response from ``pi0``;
* Algorithm 2 (``sensitivity``): second response from ``pi0 h'(eta (r_hat - lambda))``;
* controls: ``passive`` (Algorithm 1 with beta = 0, i.e. Algorithm 2 with the second response
  from ``pi0``: the paper's sampling devices removed), ``greedy`` (both responses from the
  plug-in policy ``pi_{r_hat}``) and ``uniform`` (both from ``pi0``: linear regret by
  construction).

Regret is computed exactly per round from the closed-form optimal policy; the output policy's
suboptimality exactly over all contexts at ``T/16, T/8, T/4, T/2, T``.

Substitution: the paper's analysis is for general reward classes and has no experiments to
match; we use a linear class (d = 6, K = 20, N = 200, ``||theta*|| = 2``, ``eta = 2``), a
constant bonus scale ``beta = 1`` in place of the theoretical ``beta_T`` and refits of the
logistic MLE every 10 rounds (every round for the first 20). The bonus and Algorithm 2's
sampler are our reconstruction from the paper's description (the stored sources describe the
bonus only as "carefully designed"; its form was not recoverable).
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, loglog_slope, paired_test

from .method import divergence, online_rlhf, optimal_policy
from .setting import concentrability, linear_dueling_bandit, reference_policy

ALGOS = ("optimism", "sensitivity")
CONTROLS = ("passive", "greedy", "uniform")
CK_FRACTIONS = (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1.0)


def _div(spec: str):
    if spec.startswith("alpha"):
        return divergence("alpha", float(spec[5:]))
    return divergence(spec)


def _one_run(phi, theta, ref: str, spec: str, p: Profile, rng: np.random.Generator, cks, grid) -> dict:
    """All samplers on one (reference policy, divergence) pair; metrics keyed ``ref/spec/...``."""
    T, eta = int(p["horizon"]), float(p["eta"])
    r_star = phi @ theta
    pi0 = reference_policy(r_star, ref, top=int(p["top"]), top_mass=float(p["top_mass"]))
    div = _div(spec)
    pi_star, _ = optimal_policy(r_star, pi0, eta, div)
    res = online_rlhf(phi, theta, pi0, eta, div, T, rng, beta=float(p["beta"]), lam=float(p["ridge"]),
                      refit_every=int(p["refit_every"]), checkpoints=cks)
    run = f"{ref}/{spec}"
    out = {f"{run}/C": concentrability(pi_star, pi0)}
    for s, v in res.items():
        R = np.cumsum(v["regret"])
        key = f"{run}/{s}"
        out[f"{key}/R_T"] = float(R[-1])
        out[f"{key}/R_T8"] = float(R[T // 8 - 1])
        out[f"{key}/ratio"] = float(R[-1] / max(R[T // 8 - 1], 1e-12))
        out[f"{key}/curve"] = R[grid - 1].tolist()
        out[f"{key}/subopt"] = v["subopt"].tolist()
    return out


def run(profile: Profile, seed: int) -> dict:
    """One bandit instance; every (reference policy, divergence) run of the profile on it."""
    rng = seed_everything(seed)
    T = int(profile["horizon"])
    phi, theta = linear_dueling_bandit(rng, int(profile["contexts"]), int(profile["actions"]), int(profile["dim"]),
                                       float(profile["theta_norm"]))
    cks = tuple(int(round(T * f)) for f in CK_FRACTIONS)
    grid = np.unique(np.linspace(1, T, 40).astype(int))
    runs = [f"{ref}/{spec}" for ref, specs in profile["runs"].items() for spec in specs]
    out: dict = {"horizon": float(T), "checkpoints": [float(c) for c in cks], "runs": runs,
                 "curve_t": grid.astype(float).tolist()}
    for i, name in enumerate(runs):
        ref, spec = name.split("/")
        out.update(_one_run(phi, theta, ref, spec, profile, np.random.default_rng([seed, i]), cks, grid))
    return out


# ----------------------------------------------------------------------------- checks
def _vals(ms: list[dict], key: str) -> np.ndarray:
    return np.asarray([float(m[key]) for m in ms])


def _log_ok(ms, run, s, need) -> tuple[bool, str]:
    r = _vals(ms, f"{run}/{s}/ratio")
    n_ok = int(np.sum(r <= 2.2))
    return n_ok >= need, f"{np.median(r):.2f} ({n_ok}/{len(r)} <= 2.2)"


def check_log_regret(ms: list[dict]) -> Verdict:
    """Pre-registered: for every run and both algorithms, R(T)/R(T/8) <= 2.2 (log growth gives
    ~1.4-2, sqrt(T) 2.8, linear 8) in at least 80% of the seeds. Control: passive sampling (the
    paper's bonus / sensitivity sampler removed). ``reproduced`` needs the algorithms to pass
    everywhere and the control not to (a rate the control shows as well cannot tell the
    paper's sampling apart). Changed by review after the full run (partly -> not-reproduced): both
    ``reproduced`` and ``partly`` now also need a run in which the control fails, the algorithm
    passes, and its ratio is below the control's in >= 80% of the seeds (paired); if the control
    passes everywhere, no such run exists and the claim is ``not-reproduced`` (it was ``partly``)."""
    need = int(np.ceil(0.8 * len(ms)))
    parts, ctl, ok_all, ok_any, ctl_all = [], [], True, False, True
    for run in ms[0]["runs"]:
        for a in ALGOS:
            ok, txt = _log_ok(ms, run, a, need)
            ok_all &= ok
            ok_any |= ok
            parts.append(f"{run}/{a}: {txt}")
        ok_c, txt_c = _log_ok(ms, run, "passive", need)
        ctl_all &= ok_c
        g = np.median(_vals(ms, f"{run}/greedy/ratio"))
        ctl.append(f"{run}: passive {txt_c}, greedy {g:.2f}, uniform {np.median(_vals(ms, f'{run}/uniform/ratio')):.2f}")
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a part the control
    # fails, and that part must tell the method from the control: the method passes a run where passive
    # sampling fails AND its ratio is below the control's in >= 80% of the seeds (paired). In the full run
    # the only such run (uniform/reverse_kl, passive 3/5 <= 2.2) has the method below passive in 2/5
    # (optimism) and 3/5 (sensitivity) seeds, passive's median 1.92 below optimism's 2.12; the method
    # fails poor/reverse_kl/sensitivity (2/5), where passive passes (4/5).
    dist = []
    for run in ms[0]["runs"]:
        if _log_ok(ms, run, "passive", need)[0]:
            continue
        rc = _vals(ms, f"{run}/passive/ratio")
        for a in ALGOS:
            ra = _vals(ms, f"{run}/{a}/ratio")
            if _log_ok(ms, run, a, need)[0] and int(np.sum(ra < rc)) >= need:
                dist.append(f"{run}/{a}")
    status = ("reproduced" if ok_all and not ctl_all and dist else
              ("partly" if ok_any and dist else "not-reproduced"))
    note = ("; the passive control passes the same rule in every run, so the rate does not single out the "
            "paper's sampling" if ok_all and ctl_all else "")
    note += ("; parts the method passes and the control fails, with the method's ratio below the control's in "
             f">= {need} seeds: {', '.join(dist) if dist else 'none'} (partly needs one; changed by review after the "
             "full run: partly -> not-reproduced)")
    return Verdict(
        status,
        measured="median R(T)/R(T/8): " + ", ".join(parts),
        evidence=(f"T={int(ms[0]['horizon'])}, n={len(ms)} seeds; each (run, algorithm) needs ratio <= 2.2 in "
                  f">= {need} seeds; reproduced only if the passive control fails somewhere{note}"),
        value=float(np.median([_vals(ms, f"{r}/{a}/ratio") for r in ms[0]["runs"] for a in ALGOS])),
        control="; ".join(ctl))


def contradict_log_regret(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for run in m["runs"]:
            for a in ALGOS:
                m[f"{run}/{a}/ratio"] = 7.5  # near-linear growth
        out.append(m)
    return out


def control_log_regret(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for run in m["runs"]:
            for a in ALGOS:
                m[f"{run}/{a}/ratio"] = m[f"{run}/passive/ratio"]
        out.append(m)
    return out


def _slope(ms, key) -> tuple[float, float]:
    curve = np.mean([m[key] for m in ms], axis=0)
    return loglog_slope(ms[0]["checkpoints"], curve)


def check_subopt_rate(ms: list[dict]) -> Verdict:
    """Pre-registered: for every run and both algorithms, the log-log slope of the seed-mean
    suboptimality of the output policy pi_{r_hat_t} against t (t = T/16 ... T) is <= -0.6 (1/T gives
    -1, 1/sqrt(T) gives -0.5). Control: uniform exploration; if its slope is <= -0.6 in every run
    as well, the rate does not single out the paper's sampling. Changed by review after the full run
    (partly -> not-reproduced): ``partly`` now needs a run in which an algorithm's slope passes and the
    control's does not; with the control passing in every run the claim is ``not-reproduced`` (it was
    ``partly``)."""
    parts, slopes, ctl, ctl_slopes = [], [], [], []
    for run in ms[0]["runs"]:
        for a in ALGOS:
            sl, se = _slope(ms, f"{run}/{a}/subopt")
            slopes.append(sl)
            parts.append(f"{run}/{a}: {sl:.2f}±{se:.2f}")
        u = _slope(ms, f"{run}/uniform/subopt")[0]
        ctl_slopes.append(u)
        ctl.append(f"{run}: uniform {u:.2f}, passive {_slope(ms, f'{run}/passive/subopt')[0]:.2f}")
    slopes, ctl_slopes = np.asarray(slopes), np.asarray(ctl_slopes)
    ok_all, ctl_all = bool(np.all(slopes <= -0.6)), bool(np.all(ctl_slopes <= -0.6))
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a run in which the
    # method's slope is <= -0.6 and the uniform-exploration control's is not; in the full run the control's
    # slope is -0.93 to -0.98 in every run (the algorithms' -0.79 to -1.22), so no part tells them apart.
    ctl_fail = [i for i, u in enumerate(ctl_slopes) if u > -0.6]
    n_alg = len(ALGOS)
    dist = [i for i in ctl_fail if np.any(slopes[i * n_alg:(i + 1) * n_alg] <= -0.6)]
    status = ("reproduced" if ok_all and not ctl_all else
              ("partly" if dist else "not-reproduced"))
    return Verdict(
        status,
        measured="slope of log suboptimality vs log t: " + ", ".join(parts),
        evidence=(f"least-squares slope (± s.e.) over {len(ms[0]['checkpoints'])} checkpoints of the mean over "
                  f"n={len(ms)} seeds; pass if all <= -0.6 and the uniform-exploration control is not "
                  f"<= -0.6 in every run (it {'is' if ctl_all else 'is not'}); partly needs a run where the "
                  f"method's slope passes and the control's does not ({len(dist)} such runs; changed by review "
                  f"after the full run: partly -> not-reproduced)"),
        value=float(np.max(slopes)), control="; ".join(ctl))


def contradict_subopt_rate(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for run in m["runs"]:
            for a in ALGOS:
                s = m[f"{run}/{a}/subopt"]
                m[f"{run}/{a}/subopt"] = [s[0] * (c / m["checkpoints"][0]) ** -0.2 for c in m["checkpoints"]]
        out.append(m)
    return out


def control_subopt_rate(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for run in m["runs"]:
            for a in ALGOS:
                m[f"{run}/{a}/subopt"] = list(m[f"{run}/uniform/subopt"])
        out.append(m)
    return out


def check_beats_uniform(ms: list[dict]) -> Verdict:
    """Identity check: uniform exploration plays pi0 != pi* in every round, so its regret grows
    linearly by construction; both algorithms' R(T) must be below it in every seed and run."""
    parts, ok_all = [], True
    for run in ms[0]["runs"]:
        for a in ALGOS:
            ra, ru = _vals(ms, f"{run}/{a}/R_T"), _vals(ms, f"{run}/uniform/R_T")
            ok_all &= bool(np.all(ra < ru))
            p = paired_test(np.log(ra), np.log(ru), alternative="less", method="t") if len(ms) > 1 else 1.0
            parts.append(f"{run}/{a}: {ra.mean():.1f} vs {ru.mean():.1f} ({fmt_p(p)})")
    return Verdict("reproduced" if ok_all else "not-reproduced",
                   measured="R(T) algorithm vs uniform: " + "; ".join(parts),
                   evidence=f"n={len(ms)} seeds; pass if lower in every seed for every run and algorithm",
                   value=float(np.mean([_vals(ms, f"{r}/{a}/R_T").mean() / _vals(ms, f"{r}/uniform/R_T").mean()
                                        for r in ms[0]["runs"] for a in ALGOS])))


def contradict_beats_uniform(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for run in m["runs"]:
            for a in ALGOS:
                m[f"{run}/{a}/R_T"], m[f"{run}/uniform/R_T"] = m[f"{run}/uniform/R_T"], m[f"{run}/{a}/R_T"]
        out.append(m)
    return out


def _explores_check():
    """The declarative comparison of explores-better, as pre-registered (built here so that the
    module's fingerprint, and hence the stored rows, do not change)."""
    from icml26.core import checks as C

    from . import _EXPLORE_RUNS

    return C.all_of(*(C.beats(f"{run}/{a}/R_T", f"{run}/passive/R_T", better="lower", test="wilcoxon",
                              label=f"{a} ({run})", control_label=f"passive ({run})")
                      for run in _EXPLORE_RUNS for a in ("optimism", "sensitivity")))


def check_explores_better(ms: list[dict]) -> Verdict:
    """Pre-registered as ``all_of`` of four paired comparisons (optimism and sensitivity vs
    passive sampling, on the two poorly covering instances): reproduced if all four pass.

    Revised after the full run (said in the evidence): the pre-registered ``all_of`` also said
    partly when any one part's mean improved without reaching the level, which gave partly to a
    run where three of four comparisons went the wrong way (more regret than passive) and the
    fourth improved by 2 regret units with p > 0.05. Partly now needs at least one comparison
    that passes its own test; otherwise not reproduced."""
    chk = _explores_check()
    whole = chk(ms)
    parts = [p(ms) for p in chk.parts]
    if whole.status in ("reproduced", "not-checkable"):
        status = whole.status
    elif any(v.status == "reproduced" for v in parts):
        status = "partly"
    else:
        status = "not-reproduced"
    n_pass = sum(v.status == "reproduced" for v in parts)
    evidence = (f"{whole.evidence}; {n_pass}/{len(parts)} comparisons pass their test. Rule revised after the "
                "full run (pre-registered all_of said partly when any part's mean improved, even with no "
                "comparison significant): partly now needs at least one passing comparison")
    return Verdict(status, whole.measured, evidence, value=whole.value, ci=whole.ci, control=whole.control)


def contradict_explores_better(ms: list[dict]) -> list[dict]:
    return _explores_check().contradict(ms)


def control_explores_better(ms: list[dict]) -> list[dict]:
    return _explores_check().on_control(ms)


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure
    from matplotlib.ticker import NullFormatter

    runs = ms[0]["runs"]
    fig = Figure(figsize=(4.2 * len(runs), 7.5))
    ax = fig.subplots(2, len(runs), squeeze=False)
    t = np.asarray(ms[0]["curve_t"])
    cks = np.asarray(ms[0]["checkpoints"])
    colours = {"optimism": "tab:blue", "sensitivity": "tab:orange", "passive": "tab:green",
               "greedy": "tab:purple", "uniform": "grey"}
    for j, run in enumerate(runs):
        for s, c in colours.items():
            ax[0, j].plot(t, np.mean([m[f"{run}/{s}/curve"] for m in ms], axis=0), color=c, label=s)
            ax[1, j].loglog(cks, np.mean([m[f"{run}/{s}/subopt"] for m in ms], axis=0), "o-", color=c, label=s)
        ax[0, j].set_xscale("log")  # log growth is a straight line here
        ax[0, j].set_yscale("log")
        ax[0, j].set_title(f"{run}: cumulative regret")
        ax[0, j].set_xlabel("round t (log scale)")
        ax[0, j].set_ylabel("R(t) (reward units, log scale)")
        ref = np.mean([m[f"{run}/optimism/subopt"][0] for m in ms]) * cks[0] / cks
        ax[1, j].loglog(cks, ref, "k:", label="1/t reference")
        ax[1, j].set_title(f"{run}: output-policy suboptimality")
        ax[1, j].set_xlabel("round t")
        ax[1, j].set_ylabel("J(pi*) - J(pi_t) (reward units)")
        ax[1, j].xaxis.set_minor_formatter(NullFormatter())
        ax[1, j].yaxis.set_minor_formatter(NullFormatter())
        ax[0, j].legend(fontsize=7)
        ax[1, j].legend(fontsize=7)
    fig.tight_layout()
    return fig
