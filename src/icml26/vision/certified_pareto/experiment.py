"""Small-scale reproduction of "Rethinking Evaluation Paradigms in IBP-based Certified Training" (arXiv:2606.02134).

Setting kept from the paper: per certified-training method (IBP with the Shi et al.
initialisation, CROWN-IBP, SABR, MTL-IBP) a multi-objective Optuna study over the CTRAIN
search space maximises (natural accuracy, certified accuracy) on a validation split; the
non-dominated trials form the method's Pareto front, whose networks are then re-evaluated on
the test split with complete verification and compared with each method's default recipe
(CTRAIN's defaults, :mod:`.setting`, trained and certified the same way).

Replaced: MNIST / CIFAR-10 / TinyImageNet and the CNN7 by scikit-learn's 8x8 digits (pixels in
[0, 1], eps = 0.1) and a 64-64-64-10 ReLU MLP trained for a few epochs; 100 BoTorch trials by
12 multivariate-TPE trials per study (5 of them random: close to random search, a much smaller
budget than the paper's); alpha-beta-CROWN by our own complete MILP verifier
(:mod:`.verify`) on the networks of the fronts and the defaults, run after our IBP /
CROWN-IBP bounds, full CROWN and PGD attacks have decided what they can, on a fixed number of
open points per network with a node limit per solve (count-based, so deterministic; points left
undecided count as not certified and their share is reported); merged multi-seed
studies by one study per (method, seed). During HPO the validation certified accuracy uses the
bounds only. The Shi et al. IBP regulariser is not implemented. Every bound-certified test point
of every network is attacked by PGD as a soundness check.

Parts of ``run``: :func:`train_and_evaluate` (one configuration), :func:`certify_exactly` (MILP
re-certification), :func:`study_method` (HPO, front, default) and :func:`combined_front`.

Metrics per seed (accuracies in [0, 1], on the test split unless named ``val``; certified
accuracies exact up to the undecided share ``<m>_open_frac``, ``*_bound`` the bound-only values):
``<m>_default_nat``, ``<m>_default_cert``, ``<m>_front_nat`` / ``<m>_front_cert`` (lists),
``<m>_dominated`` (1 if some front point dominates the default), ``<m>_nat_gain`` (natural-accuracy
gain at matched certified accuracy; NaN if no front point reaches the default's certified
accuracy), ``<m>_front_hv`` / ``<m>_default_hv`` (hypervolume with reference (0, 0)),
``<m>_trials_*`` (all trials, bound-certified, for the figure), ``<m>_n_crown`` / ``<m>_n_attacked`` /
``<m>_n_milp`` / ``<m>_n_falsified_milp`` / ``<m>_n_unknown_milp`` / ``<m>_n_time_capped`` (what each
exact-certification stage decided, summed over the method's front and default networks; a time-capped
solve is the only machine-dependent outcome), ``unsound`` (bound-certified yet
broken points, all networks), ``n_certified_checked``, and the combined-front statistics.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import bootstrap_ci, fmt_ci, fmt_p, paired_test, sign_test
from icml26.vision.certified_pareto.method import (
    METHODS,
    TrainConfig,
    dominates,
    evaluate,
    hypervolume_2d,
    make_mlp,
    nat_gain_at_matched_cert,
    pareto_mask,
    run_study,
    train_certified,
)
from icml26.vision.certified_pareto.setting import load_data, published_config
from icml26.vision.certified_pareto.verify import exact_certify

LABELS = {"ibp": "IBP (Shi)", "crown-ibp": "CROWN-IBP", "sabr": "SABR", "mtl-ibp": "MTL-IBP"}
COLORS = {"ibp": "tab:blue", "crown-ibp": "tab:orange", "sabr": "tab:green", "mtl-ibp": "tab:red"}
#: a default whose test natural accuracy is below this is degenerate and not compared (chance is 0.1)
NON_DEGENERATE = 0.5


def train_and_evaluate(cfg: TrainConfig, data, p: Profile, init_seed: int) -> dict:
    """Train one configuration; bound-certified (val, test) accuracies, PGD soundness counts, and what the
    exact certification of the test split needs (the net, the bound-certified and broken masks)."""
    (xtr, ytr), (xv, yv), (xt, yt) = data
    eps, epochs = float(p["eps"]), int(p["epochs"])
    torch.manual_seed(init_seed)
    net = make_mlp(tuple(p.get("widths", (64, 64, 64, 10))))
    train_certified(net, xtr, ytr, cfg, eps, epochs, seed=init_seed)
    val = evaluate(net, xv, yv, eps)
    test = evaluate(net, xt, yt, eps, pgd_steps=int(p["pgd_steps"]), pgd_restarts=int(p["pgd_restarts"]),
                    seed=init_seed, return_masks=True)
    return {"val": (val["nat_acc"], val["cert_acc"]), "test": (test["nat_acc"], test["cert_acc"]),
            "unsound": test["unsound"], "n_certified": test["n_certified"], "net": net,
            "certified": test["certified"], "broken": test["broken"], "seed": init_seed}


def certify_exactly(r: dict, data, p: Profile) -> tuple[tuple[float, float], float, dict]:
    """Re-certify a trained network's test split: full CROWN and a stronger attack on the points the bounds
    and the evaluation attack left open, then MILP on the first ``milp_points`` still-open points (a fixed
    order), ``milp_node_limit`` nodes per class solve, ``milp_time_cap`` seconds only as a safety cap.
    Returns ``((nat, exact cert), share of test points left undecided, counts)``."""
    (_, _), (_, _), (xt, yt) = data
    ex = exact_certify(r["net"], xt, yt, float(p["eps"]), r["certified"], r["broken"],
                       max_points=int(p["milp_points"]), node_limit=int(p["milp_node_limit"]),
                       time_limit=float(p["milp_time_cap"]), order=np.random.default_rng(0).permutation(len(yt)),
                       attack_restarts=int(p["milp_attack_restarts"]), attack_steps=int(p["pgd_steps"]),
                       seed=r["seed"])
    counts = {k: ex[k] for k in ("n_crown", "n_attacked", "n_milp", "n_falsified_milp", "n_unknown_milp",
                                 "n_time_capped")}
    return (r["test"][0], ex["cert_acc"]), ex["open_frac"], counts


def study_method(method: str, mi: int, data, p: Profile, seed: int) -> tuple[dict, list]:
    """HPO of one method (validation objectives), its front re-evaluated on test with exact certification,
    and its default recipe trained and certified the same way."""
    base = 1000 * (seed + 1) + 100 * mi
    default = train_and_evaluate(published_config(method, int(p["epochs"]), float(p["default_lr_scale"])),
                                 data, p, base)
    evals: list[dict] = []

    def objective(cfg: TrainConfig) -> tuple[float, float]:
        r = train_and_evaluate(cfg, data, p, base + len(evals) + 1)
        evals.append(r)
        return r["val"]

    run_study(objective, method, int(p["epochs"]), int(p["n_trials"]), sampler=p.get("sampler", "tpe"),
              seed=seed * 10 + mi)
    val_pts = np.array([r["val"] for r in evals])
    on_front = np.flatnonzero(pareto_mask(val_pts))           # tuned on validation, reported on test
    exact = [certify_exactly(evals[i], data, p) for i in on_front]
    d_exact, d_open, d_counts = certify_exactly(default, data, p)
    front = np.array([e[0] for e in exact])
    bound_front = np.array([evals[i]["test"] for i in on_front])
    order = np.argsort(front[:, 0])
    front, bound_front = front[order], bound_front[order]
    dflt = np.array(d_exact)
    out = {
        f"{method}_default_nat": float(dflt[0]), f"{method}_default_cert": float(dflt[1]),
        f"{method}_default_cert_bound": float(default["test"][1]), f"{method}_default_val": list(default["val"]),
        f"{method}_front_nat": front[:, 0].tolist(), f"{method}_front_cert": front[:, 1].tolist(),
        f"{method}_front_cert_bound": bound_front[:, 1].tolist(),
        f"{method}_trials_nat": [r["test"][0] for r in evals], f"{method}_trials_cert": [r["test"][1] for r in evals],
        f"{method}_dominated": float(any(dominates(q, dflt) for q in front)),
        f"{method}_nat_gain": nat_gain_at_matched_cert(front, dflt),
        f"{method}_front_hv": hypervolume_2d(front), f"{method}_default_hv": hypervolume_2d(dflt[None, :]),
        f"{method}_front_hv_bound": hypervolume_2d(bound_front),
        f"{method}_best_cert": float(front[:, 1].max()),
        f"{method}_open_frac": float(np.mean([e[1] for e in exact] + [d_open])),
        **{f"{method}_{k}": float(sum(e[2][k] for e in exact) + d_counts[k]) for k in d_counts},
        f"{method}_unsound": float(default["unsound"] + sum(r["unsound"] for r in evals)),
        f"{method}_n_certified": float(default["n_certified"] + sum(r["n_certified"] for r in evals)),
    }
    return out, [(float(a), float(b), method) for a, b in front]


def combined_front(all_front: list, methods: list[str]) -> dict:
    """Which methods own the combined (exactly certified) test front, and its two ends."""
    pts = np.array([(a, b) for a, b, _ in all_front])
    mask = pareto_mask(pts)
    comb = [all_front[i] for i in range(len(all_front)) if mask[i]]
    top_nat = max(comb, key=lambda t: (t[0], t[1]))
    top_cert = max(comb, key=lambda t: (t[1], t[0]))
    return {"combined_front_methods": float(len({m for *_, m in comb})),
            "combined_share": {m: float(sum(o == m for *_, o in comb) / len(comb)) for m in methods},
            "top_nat_method": float(methods.index(top_nat[2])), "top_cert_method": float(methods.index(top_cert[2]))}


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    methods = list(profile["methods"])
    data = load_data(int(profile.get("split_seed", 0)))
    out: dict = {"methods": methods, "eps": float(profile["eps"]), "epochs": int(profile["epochs"]),
                 "pgd_steps": int(profile["pgd_steps"]), "pgd_restarts": int(profile["pgd_restarts"])}
    all_front: list = []
    for mi, method in enumerate(methods):
        res, pts = study_method(method, mi, data, profile, seed)
        out.update(res)
        all_front += pts
    out.update(combined_front(all_front, methods))
    out["unsound"] = float(sum(out[f"{m}_unsound"] for m in methods))
    out["n_certified_checked"] = float(sum(out[f"{m}_n_certified"] for m in methods))
    return out


# ---------------------------------------------------------------- claim checks
def _methods(ms: list[dict]) -> list[str]:
    return list(ms[0]["methods"])


def _usable(ms: list[dict]) -> tuple[list[str], list[str]]:
    """Methods whose default recipe is non-degenerate (test natural accuracy >= 0.5) in every seed, and the rest."""
    ok = [m for m in _methods(ms) if all(x[f"{m}_default_nat"] >= NON_DEGENERATE for x in ms)]
    return ok, [m for m in _methods(ms) if m not in ok]


def _open_text(ms: list[dict]) -> str:
    text = "undecided after MILP: " + ", ".join(
        f"{m} {100 * np.mean([x[f'{m}_open_frac'] for x in ms]):.1f}%" for m in _methods(ms)) + " of test points"
    if f"{_methods(ms)[0]}_n_time_capped" in ms[0]:
        capped = int(sum(x[f"{m}_n_time_capped"] for x in ms for m in _methods(ms)))
        text += (f" (count-based MILP: a fixed number of open points per network, a node limit per solve; "
                 f"{capped} solves hit the safety time cap)")
    return text


def check_undertuned(ms: list[dict]) -> Verdict:
    """Pre-registered: over the methods whose default is non-degenerate (test natural accuracy >= 0.5 in every
    seed; at least 3 of the 4 must be, else not-checkable), for >= 2/3 of them some point of the validation-tuned
    front dominates the default on test in >= 2/3 of the seeds, AND the natural-accuracy gain at matched
    certified accuracy is positive in a one-sided sign test over all (method, seed) pairs (p < 0.05; a front
    that never reaches the default's certified accuracy counts as a loss). Certified accuracies are exact
    (MILP) up to the reported undecided share. The control is the default recipe itself."""
    methods, degenerate = _usable(ms)
    rates = {m: float(np.mean([x[f"{m}_dominated"] for x in ms])) for m in methods}
    n_ok = sum(r >= 2 / 3 - 1e-9 for r in rates.values())
    need = math.ceil(2 * len(methods) / 3)
    cond1 = bool(methods) and n_ok >= need
    gains = np.array([[x[f"{m}_nat_gain"] for x in ms] for m in methods], dtype=float).reshape(len(methods), len(ms))
    signed = np.where(np.isnan(gains), -1.0, gains).ravel()
    p = sign_test(signed, alternative="greater") if signed.size else 1.0
    cond2 = p < 0.05
    mean_gain = {m: float(np.nanmean(g)) if np.isfinite(g).any() else float("nan") for m, g in zip(methods, gains)}
    overall = gains[np.isfinite(gains)]
    lo, hi = bootstrap_ci(overall) if overall.size else (float("nan"), float("nan"))
    status = "reproduced" if cond1 and cond2 else ("partly" if cond1 or cond2 else "not-reproduced")
    measured = ("front dominates default in " + ", ".join(f"{m} {rates[m]:.0%}" for m in methods)
                + " of seeds; natural-accuracy gain at matched certified accuracy: "
                + ", ".join(f"{m} {100 * mean_gain[m]:+.1f} pt" if np.isfinite(mean_gain[m])
                           else f"{m} n/a (front never reaches the default's certified accuracy)" for m in methods))
    if degenerate:
        measured += "; degenerate defaults left out: " + ", ".join(
            f"{m} (natural accuracy {np.mean([x[f'{m}_default_nat'] for x in ms]):.2f})" for m in degenerate)
    evidence = (f"{n_ok}/{len(methods)} non-degenerate methods dominated in >= 2/3 of {len(ms)} seeds (need "
                f">= {need}); sign test on {signed.size} (method, seed) gains, {int((signed > 0).sum())} positive, "
                f"{fmt_p(p)}; mean gain "
                f"{fmt_ci(100 * overall.mean() if overall.size else float('nan'), 100 * lo, 100 * hi)} pt "
                f"(bootstrap 95% CI); {_open_text(ms)}; a {len(ms[0].get(f'{methods[0]}_trials_nat', [])) if methods else 0}-trial "
                f"TPE search (5 random) is close to random search")
    evidence += ("; full profile resized on 2026-12-01 to fit the 3-minute budget (count-based MILP after full "
                 "CROWN and a stronger attack instead of a 4 s time budget per network; trials, epochs and seeds "
                 "unchanged) and re-run after the shared-MLP refactor (IBP init now drawn after the layers are "
                 "built): the verdict moved from not-reproduced (SABR 0/3 and MTL-IBP 1/3 seeds dominated, sign "
                 "test 7/12 positive, p=0.387, 23-26% of their test points undecided) to reproduced, mainly because "
                 "full CROWN now decides most of the SABR / MTL-IBP points the IBP / CROWN-IBP bounds left open, "
                 "which raises their fronts more than their defaults (the bound bias the paper describes)")
    if len(methods) < 3:
        status, evidence = "not-checkable", (f"precondition failed: only {len(methods)} of {len(_methods(ms))} "
                                             "default recipes are non-degenerate (test natural accuracy >= 0.5); "
                                             + evidence)
    control = "default recipes: " + ", ".join(
        f"{m} ({np.mean([x[f'{m}_default_nat'] for x in ms]):.2f}, {np.mean([x[f'{m}_default_cert'] for x in ms]):.2f})"
        for m in _methods(ms)) + " (natural, certified accuracy)"
    value = mean_gain.get("crown-ibp", float(np.nanmean(gains)) if overall.size else None)
    return Verdict(status, measured, evidence, value=None if value is None or not np.isfinite(value) else value,
                   control=control)


def contradict_undertuned(ms: list[dict]) -> list[dict]:
    out = []
    for x in ms:
        y = dict(x)
        for m in x["methods"]:
            y[f"{m}_dominated"] = 0.0
            y[f"{m}_nat_gain"] = -abs(float(np.nan_to_num(x[f"{m}_nat_gain"], nan=0.05))) - 0.01
        out.append(y)
    return out


def control_undertuned(ms: list[dict]) -> list[dict]:
    """The front replaced by the default itself: it does not dominate itself and gains nothing."""
    out = []
    for x in ms:
        y = dict(x)
        for m in x["methods"]:
            y[f"{m}_front_nat"], y[f"{m}_front_cert"] = [x[f"{m}_default_nat"]], [x[f"{m}_default_cert"]]
            y[f"{m}_dominated"], y[f"{m}_nat_gain"], y[f"{m}_front_hv"] = 0.0, 0.0, x[f"{m}_default_hv"]
        out.append(y)
    return out


def check_front_hv(ms: list[dict]) -> Verdict:
    """Pre-registered: the test hypervolume (exact certification) of every non-degenerate method's
    validation-tuned front exceeds that of its default recipe, for every such method and seed (partly at
    >= 2/3 of the pairs); Wilcoxon signed-rank reported; not-checkable if fewer than 3 defaults are
    non-degenerate."""
    methods, degenerate = _usable(ms)
    f = np.array([[x[f"{m}_front_hv"] for x in ms] for m in methods]).ravel()
    d = np.array([[x[f"{m}_default_hv"] for x in ms] for m in methods]).ravel()
    wins = int((f > d).sum())
    p = paired_test(f, d, alternative="greater") if f.size >= 2 else 1.0
    status = "reproduced" if f.size and wins == f.size else (
        "partly" if f.size and wins >= 2 * f.size / 3 else "not-reproduced")
    per = ", ".join(f"{m} {np.mean([x[f'{m}_front_hv'] for x in ms]):.3f} (bound-certified "
                    f"{np.mean([x[f'{m}_front_hv_bound'] for x in ms]):.3f})" for m in methods)
    evidence = (f"front > default in {wins}/{f.size} (method, seed) pairs (need all); one-sided Wilcoxon "
                f"signed-rank {fmt_p(p)}; reference point (0, 0); {_open_text(ms)}"
                + (f"; degenerate defaults left out: {', '.join(degenerate)}" if degenerate else ""))
    if len(methods) < 3:
        status, evidence = "not-checkable", "precondition failed: fewer than 3 non-degenerate defaults; " + evidence
    control = "default hypervolume: " + ", ".join(
        f"{m} {np.mean([x[f'{m}_default_hv'] for x in ms]):.3f}" for m in _methods(ms))
    return Verdict(status, f"front hypervolume (mean over seeds): {per}", evidence,
                   value=float(np.mean(f - d)) if f.size else None, control=control)


def contradict_front_hv(ms: list[dict]) -> list[dict]:
    out = []
    for x in ms:
        y = dict(x)
        for m in x["methods"]:
            lo, hi = sorted((x[f"{m}_front_hv"], x[f"{m}_default_hv"]))
            y[f"{m}_front_hv"], y[f"{m}_default_hv"] = lo, hi + 1e-3
        out.append(y)
    return out


def control_front_hv(ms: list[dict]) -> list[dict]:
    return [dict(x, **{f"{m}_front_hv": x[f"{m}_default_hv"] for m in x["methods"]}) for x in ms]


def check_complementarity(ms: list[dict]) -> Verdict:
    """Pre-registered: no single method dominates the whole trade-off, i.e. the combined test front of
    all methods holds points of >= 2 methods in >= 2/3 of the seeds; the paper's specific pattern (SABR
    owns the highest-natural-accuracy end, MTL-IBP the highest-certified end) must also hold in more than
    half of the seeds for 'reproduced'; 'partly' if only the first part holds. Decided only if the MILP left
    <= 5% of every method's test points undecided (gate added after the first full run)."""
    methods = _methods(ms)
    multi = np.array([x["combined_front_methods"] >= 2 for x in ms])
    nat_top = [methods[int(x["top_nat_method"])] for x in ms]
    cert_top = [methods[int(x["top_cert_method"])] for x in ms]
    if "sabr" in methods and "mtl-ibp" in methods:
        pattern = np.array([a == "sabr" and b == "mtl-ibp" for a, b in zip(nat_top, cert_top)])
    else:
        pattern = np.zeros(len(ms), bool)
    cond1 = multi.mean() >= 2 / 3 - 1e-9
    cond2 = pattern.mean() > 0.5
    status = "reproduced" if cond1 and cond2 else ("partly" if cond1 else "not-reproduced")
    share = {m: float(np.mean([x["combined_share"][m] for x in ms])) for m in methods}
    measured = (f"combined front mixes >= 2 methods in {int(multi.sum())}/{len(ms)} seeds; share of combined "
                "front: " + ", ".join(f"{m} {share[m]:.0%}" for m in methods)
                + f"; highest-natural end: {', '.join(nat_top)}; highest-certified end: {', '.join(cert_top)}")
    evidence = (f"counts over {len(ms)} seeds: mixed front {multi.mean():.0%} (need >= 67%), SABR-high-natural "
                f"& MTL-IBP-high-certified pattern {pattern.mean():.0%} (need > 50%); fronts certified exactly "
                f"(MILP); {_open_text(ms)}")
    # Added after the first full run (disclosed in the report): comparing methods needs certification that
    # does not favour one of them; if the MILP left more than 5% of any method's test points undecided, the
    # bounds' known bias against SABR / MTL-IBP networks decides the comparison, so it is not decided here.
    worst_open = max(float(np.mean([x[f"{m}_open_frac"] for x in ms])) for m in methods)
    if worst_open > 0.05:
        status = "not-checkable"
        evidence = (f"precondition failed: complete verification left up to {100 * worst_open:.0f}% of a method's "
                    f"test points undecided (need <= 5%), so incomplete bounds decide which method owns the front "
                    f"(added after the first full run); " + evidence)
    return Verdict(status, measured, evidence, value=float(multi.mean()))


def contradict_complementarity(ms: list[dict]) -> list[dict]:
    out = []
    for x in ms:
        y = dict(x)
        y["combined_front_methods"] = 1.0
        y["top_nat_method"] = y["top_cert_method"] = 0.0
        out.append(y)
    return out


def check_sound(ms: list[dict]) -> Verdict:
    """Pre-registered (deterministic): no test point certified by our IBP / CROWN-IBP bounds is broken by the
    PGD attack, over every network trained in every seed, and at least one point is certified. (The MILP
    verifier only runs on points the attack did not break.)"""
    bad = int(sum(x["unsound"] for x in ms))
    n = int(sum(x["n_certified_checked"] for x in ms))
    status = "reproduced" if bad == 0 and n > 0 else "not-reproduced"
    return Verdict(status, f"{bad} certified test points broken by PGD out of {n} certified",
                   f"{int(ms[0].get('pgd_steps', 50))}-step PGD (margin loss, step 2.5 eps / steps, "
                   f"{int(ms[0].get('pgd_restarts', 1))} runs, the first from x, the others from random starts) "
                   f"on every certified test point of every trained network, {len(ms)} seeds; any break is a "
                   f"bound bug", value=float(bad))


def contradict_sound(ms: list[dict]) -> list[dict]:
    return [dict(x, unsound=float(x["unsound"]) + 1.0) for x in ms]


# ---------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    methods = _methods(ms)
    fig = Figure(figsize=(4 * (len(methods) + 1), 4))
    axes = fig.subplots(1, len(methods) + 1, sharex=True, sharey=True)
    x = ms[0]
    for ax, m in zip(axes, methods):
        ax.scatter(100 * np.array(x[f"{m}_trials_nat"]), 100 * np.array(x[f"{m}_trials_cert"]), s=12,
                   color="0.7", label="HPO trials (test, bound-certified)")
        for i, y in enumerate(ms):
            ax.step(100 * np.array(y[f"{m}_front_nat"]), 100 * np.array(y[f"{m}_front_cert"]), where="pre", marker="o", ms=3,
                    color=COLORS[m], alpha=1.0 if i == 0 else 0.35, label="front (tuned on val)" if i == 0 else None)
            ax.scatter([100 * y[f"{m}_default_nat"]], [100 * y[f"{m}_default_cert"]], marker="*", s=90,
                       color="k", label="published config" if i == 0 else None, zorder=3)
        ax.set_title(LABELS[m])
        ax.set_xlabel("natural accuracy (%)")
    axes[0].set_ylabel(f"certified accuracy at eps={x['eps']} (%)")
    axes[0].legend(fontsize=7, loc="lower left")
    ax = axes[-1]
    for m in methods:
        ax.step(100 * np.array(x[f"{m}_front_nat"]), 100 * np.array(x[f"{m}_front_cert"]), where="pre", marker="o", ms=3,
                color=COLORS[m], label=LABELS[m])
    ax.set_title("fronts, seed 0")
    ax.set_xlabel("natural accuracy (%)")
    ax.legend(fontsize=7, loc="lower left")
    fig.suptitle("Pareto fronts of certified training on 8x8 digits (MLP)")
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    """Public calls with good arguments, for the common bad-input test."""
    from icml26.vision.certified_pareto import method as M
    from icml26.vision.certified_pareto import setting as S
    from icml26.vision.certified_pareto import verify as V

    torch.manual_seed(0)
    net = M.make_mlp((4, 5, 3))
    front = np.array([[0.9, 0.2], [0.7, 0.5]])
    return [
        (M.hypervolume_2d, {"points": front}, {"points": {"empty"}}),
        (M.pareto_mask, {"points": front}, {"points": {"empty"}}),
        (M.nat_gain_at_matched_cert, {"front": front, "point": np.array([0.6, 0.3])}),
        (M.smoothed_eps, {"step": 2.5, "warm_up": 1.0, "ramp_up": 3.0, "eps_max": 0.1}),
        (S.published_config, {"method": "sabr", "epochs": 10, "lr_scale": 10.0}),
        (V.milp_verify, {"model": net, "x": torch.full((4,), 0.5), "y": 1, "eps": 0.05, "time_limit": 1.0}),
    ]
