"""Small-scale reproduction of SusDiet (arXiv:2608.24274), Sec. 6 (Tables 2-4, 6).

One seed = one generated world (``setting.make_world``): recipes built from ingredients with
four indicators, users with hidden heterogeneous tolerances, sequential rated picks with
the last ``n_test`` held out. Parts of :func:`run`:

1. ``_encoder``: the MoE indicator encoder trained on Eq. 5 (gate: held-out R^2).
2. ``_susdiet``: the preference model trained on Eq. 12 together with five sets of
   constraint parameters: the written form on s_hat (the paper's; the claims' primary
   variant), the hinge on s_hat (where lambda changes rankings), the hinge with one global
   lambda (a claim-3 control), and the written form and hinge on z_r (Eq. 8 as printed).
   Since the recipe features are fixed, the penalty never reaches y_hat: ranking by y_hat
   alone IS the beta2 = 0 control (preference-only), measured from the same run. In the same
   vmapped loop, from the same initialisation and on the same batches, one more preference
   model per GRAPE-style green-loss weight (``grape_weights``; claim 2's second control,
   ``_grape``). ``_threshold_controls``: claim 3's level-matched controls (the users' mean
   lambda_u as one global lambda; a per-user history quantile shifted to the same level).
3. ``_global_rerank``: the preference scores re-ranked by one global alpha times the
   uniform sum of s_hat, over a grid of alphas (claim 2's first control, claim 1's naive
   alternative). Controls are read at the method's NDCG along their Pareto front
   (``matched_violation``).
4. ``_peers``: cornac BPR and ItemKNN on the same training interactions.
5. ``_oracle``: the exact constrained top-K on the true utilities (HiGHS) for a subset of
   users, and the unconstrained true-utility top-K.
6. ``_identity``: the written form's top-K with learned, zero and random lambda_u.

Metrics per arm: NDCG@10 and Recall@10 on the held-out picks, mean raw indicators of the
top-10 (nutrition higher is better; environment, cost, welfare lower), the hidden-tolerance
violation rate (fraction of recommended (recipe, dimension) pairs above the user's tau),
true utility of the top-10, item coverage IC@10.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import decide

DIMS = ("nutrition", "environment", "cost", "welfare")
HIGHER = (True, False, False, False)
K = 10
VARIANTS = {  # name -> (representation, form, global lambda)
    "written_s": ("s_hat", "written", False),
    "hinge_s": ("s_hat", "hinge", False),
    "hinge_s_global": ("s_hat", "hinge", True),
    "written_z": ("z", "written", False),
    "hinge_z": ("z", "hinge", False),
}
ALPHA_GRID = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2)


def _world(profile: Profile, seed: int):
    from icml26.decision.susdiet.setting import make_world

    return make_world(n_ingredients=int(profile["n_ingredients"]), n_recipes=int(profile["n_recipes"]),
                      n_users=int(profile["n_users"]), n_inter=int(profile["n_inter"]),
                      n_test=int(profile["n_test"]), tol_strength=float(profile["tol_strength"]),
                      n_pool=int(profile["n_pool"]), seed=seed)


def _encoder(world, profile: Profile, seed: int) -> dict:
    from icml26.decision.susdiet.method import fit_recipe_encoder
    from icml26.nn.mlp import loss_drop

    enc = fit_recipe_encoder(world.tokens, world.grams, world.s, n_ingredients=world.n_ingredients,
                             d=int(profile["d"]), steps=int(profile["enc_steps"]), batch=int(profile["enc_batch"]),
                             extra=(world.pool_tokens, world.pool_grams, world.pool_s), seed=seed)
    out = {f"encoder/r2/{d}": float(r) for d, r in zip(DIMS, enc["r2"])}
    out["encoder/r2_mean"] = float(np.mean(enc["r2"]))
    out["encoder/loss_drop"] = float(loss_drop(enc["history"], window=20))
    return {"metrics": out, "s_hat": enc["s_hat"], "z": enc["z"]}


def _arm(name: str, scores: np.ndarray, world, exclude: np.ndarray) -> dict:
    from icml26.decision.susdiet.method import ndcg_at_k, recall_at_k, topk, violation_rate

    top = topk(scores, exclude, K)
    out = {f"{name}/ndcg10": float(ndcg_at_k(top, world.test_items).mean()),
           f"{name}/recall10": float(recall_at_k(top, world.test_items).mean()),
           f"{name}/violation": float(violation_rate(top, world.s, world.tau).mean()),
           f"{name}/utility": float(np.take_along_axis(world.utility, top, 1).mean()),
           f"{name}/coverage10": float(np.unique(top).size / world.n_recipes)}
    raw = world.raw[top].mean((0, 1))
    out |= {f"{name}/{d}": float(v) for d, v in zip(DIMS, raw)}
    return out


def _histories(world, profile: Profile):
    import torch

    from icml26.decision.susdiet.method import user_histories

    return torch.as_tensor(user_histories(world.train_seq, int(profile["hist_len"])))


def _train(world, sus: dict, profile: Profile, seed: int, variants: dict, green_weights=(0.0,)) -> dict:
    from icml26.decision.susdiet.method import train_susdiet

    return train_susdiet(world, sus, d=int(profile["d"]), hist_len=int(profile["hist_len"]),
                         steps=int(profile["steps"]), batch=int(profile["batch"]), lr=float(profile["lr"]),
                         beta1=float(profile["beta1"]), beta2=float(profile["beta2"]), beta3=float(profile["beta3"]),
                         green_weights=list(green_weights), variants=variants, seed=seed)


def _susdiet(world, sus: dict, profile: Profile, seed: int, exclude: np.ndarray) -> dict:
    from scipy.stats import spearmanr

    from icml26.decision.susdiet.method import decision_score
    from icml26.nn.mlp import loss_drop

    ws = [float(w) for w in profile["grape_weights"]]
    fit = _train(world, sus, profile, seed, VARIANTS, green_weights=[0.0] + ws)
    hists = _histories(world, profile)
    y_hat = fit["model"].score_all(hists).numpy().astype(float)
    out = _arm("pref", y_hat, world, exclude)
    out |= _grape([m.score_all(hists).numpy().astype(float) for m in fit["models"][1:]], ws, world, exclude)
    rnd = np.random.default_rng([seed, 7]).standard_normal(y_hat.shape)
    out |= _arm("random", rnd, world, exclude)
    out["train/rating_loss_drop"] = float(loss_drop(fit["history"]["rating"], window=20))
    out["train/pref_over_random_ndcg"] = out["pref/ndcg10"] / max(out["random/ndcg10"], 1e-9)
    for name, (rep, form, glob) in VARIANTS.items():
        alpha, lam = fit["constraints"][name]
        out |= _arm(name, decision_score(y_hat, alpha, lam, sus[rep], form), world, exclude)
        out[f"{name}/alpha_mean"] = float(alpha.mean())
        out[f"{name}/alpha_sd_users"] = float(alpha.std(0).mean())
        out[f"{name}/lambda_mean"] = float(lam.mean())
        out[f"{name}/lambda_sd_users"] = float(lam.std(0).mean()) if not glob else 0.0
        lm = fit["history"][f"lambda_mean/{name}"]
        out[f"{name}/lambda_drift"] = float(np.mean(lm[-20:]) - np.mean(lm[:20]))
        if rep == "s_hat":
            rho = [0.0 if glob else float(spearmanr(lam[:, n], world.tau[:, n])[0]) for n in range(len(DIMS))]
            out |= {f"{name}/spearman_lambda_tau/{d}": r for d, r in zip(DIMS, rho)}
            out[f"{name}/spearman_lambda_tau"] = float(np.mean(rho))
    out |= _threshold_controls(y_hat, fit["constraints"]["hinge_s"], sus["s_hat"], world, exclude)
    out.update(_identity(y_hat, fit["constraints"]["written_s"], sus["s_hat"], exclude, seed))
    out["_y_hat"] = y_hat
    return out


def _identity(y_hat: np.ndarray, params, s_hat: np.ndarray, exclude: np.ndarray, seed: int) -> dict:
    """The written form's top-K with the learned lambda_u, lambda = 0 and a random lambda: identical lists."""
    from icml26.decision.susdiet.method import decision_score, topk

    alpha, lam = params
    ref = topk(decision_score(y_hat, alpha, lam, s_hat, "written"), exclude, K)
    rng = np.random.default_rng([seed, 11])
    same = []
    for other in (np.zeros_like(lam), 5.0 * rng.standard_normal(lam.shape)):
        t = topk(decision_score(y_hat, alpha, other, s_hat, "written"), exclude, K)
        same.append(float((t == ref).all(1).mean()))
    hinge_same = float((topk(decision_score(y_hat, alpha, np.zeros_like(lam), s_hat, "hinge"), exclude, K)
                        == topk(decision_score(y_hat, alpha, lam + 1.0, s_hat, "hinge"), exclude, K)).all(1).mean())
    return {"identity/written_same_topk_lambda0": same[0], "identity/written_same_topk_random": same[1],
            "identity/written_same_topk": min(same), "identity/hinge_same_topk_shifted": hinge_same}


def _global_rerank(y_hat: np.ndarray, s_hat: np.ndarray, world, exclude: np.ndarray) -> dict:
    total = s_hat.sum(1)[None, :]
    curve = {k: [] for k in ("ndcg10", "violation", *DIMS)}
    for a in ALPHA_GRID:
        m = _arm("g", y_hat - a * total, world, exclude)
        for k in curve:
            curve[k].append(m[f"g/{k}"])
    return {"global_rerank/alpha": list(ALPHA_GRID)} | {f"global_rerank/{k}": v for k, v in curve.items()}


def _grape(scores: list, weights: list, world, exclude: np.ndarray) -> dict:
    """The GRAPE-style models (one per green-loss weight, trained beside the main model): their (NDCG,
    violation, indicator) curve; the largest weight is also reported as the named ``grape`` arm."""
    out, curve = {}, {k: [] for k in ("ndcg10", "violation", *DIMS)}
    for i, y in enumerate(scores):
        m = _arm("grape", y, world, exclude)
        for k in curve:
            curve[k].append(m[f"grape/{k}"])
        if i == len(scores) - 1:
            out |= m
    out |= {"grape/weights": list(weights), "grape/ndcg10_curve": curve["ndcg10"],
            "grape/violation_curve": curve["violation"]}
    out |= {f"grape/{d}_curve": curve[d] for d in DIMS}
    return out


HISTORY_QUANTILE = 0.8  # the naive per-user threshold: this quantile of the user's history indicators


def _threshold_controls(y_hat: np.ndarray, params, s_hat: np.ndarray, world, exclude: np.ndarray) -> dict:
    """Claim 3's controls, each with the hinge form's learned alpha_u, differing only in the threshold:

    * ``hinge_s_levelled``: one global lambda equal to the users' mean learned lambda_u (per dimension), so
      the level of the thresholds is matched and only their personalisation is removed;
    * ``hinge_s_quantile``: a naive per-user threshold, the 80th percentile of the user's training history's
      predicted indicators, shifted per dimension so that its mean over users equals the learned lambda_u's
      (level-matched as well); ``hinge_s_quantile_raw`` is the unshifted one (reported).
    """
    from scipy.stats import spearmanr

    from icml26.decision.susdiet.method import decision_score

    alpha, lam = params
    q = np.quantile(s_hat[world.train_seq], HISTORY_QUANTILE, axis=1)  # (U, N)
    thresholds = {"hinge_s_levelled": np.broadcast_to(lam.mean(0), lam.shape).copy(),
                  "hinge_s_quantile": q - q.mean(0) + lam.mean(0),
                  "hinge_s_quantile_raw": q}
    out = {}
    for name, th in thresholds.items():
        out |= _arm(name, decision_score(y_hat, alpha, th, s_hat, "hinge"), world, exclude)
    rho = [float(spearmanr(q[:, n], world.tau[:, n])[0]) for n in range(len(DIMS))]
    out["hinge_s_quantile/spearman_lambda_tau"] = float(np.mean(rho))
    return out


def _peers(world, exclude: np.ndarray, seed: int) -> dict:
    """cornac BPR and ItemKNN on the training interactions (ratings as feedback), scored on every recipe."""
    import cornac
    from cornac.data import Dataset
    from cornac.models import BPR, ItemKNN

    triples = [(str(u), str(int(r)), float(y)) for u in range(world.n_users)
               for r, y in zip(world.train_seq[u], world.train_rating[u])]
    data = Dataset.from_uir(triples, seed=seed)
    out = {}
    for name, model in (("bpr", BPR(k=32, max_iter=60, learning_rate=0.01, lambda_reg=0.01, seed=seed, verbose=False)),
                        ("itemknn", ItemKNN(k=20, similarity="cosine", verbose=False))):
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            model.fit(data)
            scores = np.full((world.n_users, world.n_recipes), -1e9)
            items = np.array([int(i) for i in data.item_ids])
            for u in range(world.n_users):
                scores[u, items] = model.score(data.uid_map[str(u)])
        out |= _arm(name, scores, world, exclude)
    del cornac
    return out


def _oracle(world, exclude: np.ndarray, n_users: int) -> dict:
    from icml26.decision.susdiet.method import constrained_topk, ndcg_at_k, violation_rate

    users = np.arange(min(n_users, world.n_users))
    top = np.stack([constrained_topk(world.utility[u], world.s, world.tau[u], K, exclude=exclude[u]) for u in users])
    out = {"oracle/ndcg10": float(ndcg_at_k(top, world.test_items[users]).mean()),
           "oracle/violation": float(violation_rate(top, world.s, world.tau[users]).mean()),
           "oracle/utility": float(np.take_along_axis(world.utility[users], top, 1).mean())}
    from icml26.decision.susdiet.method import topk

    free = topk(world.utility[users], exclude[users], K)
    out |= {"true_topk/ndcg10": float(ndcg_at_k(free, world.test_items[users]).mean()),
            "true_topk/violation": float(violation_rate(free, world.s, world.tau[users]).mean()),
            "true_topk/utility": float(np.take_along_axis(world.utility[users], free, 1).mean())}
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch

    seed_everything(seed)
    del torch
    world = _world(profile, seed)
    exclude = np.zeros((world.n_users, world.n_recipes), bool)
    np.put_along_axis(exclude, world.train_seq, True, 1)
    enc = _encoder(world, profile, seed)
    sus = {"s_hat": enc["s_hat"], "z": enc["z"]}
    out = dict(enc["metrics"])
    main = _susdiet(world, sus, profile, seed, exclude)
    y_hat = main.pop("_y_hat")
    out |= main
    out |= _global_rerank(y_hat, enc["s_hat"], world, exclude)
    if profile.get("peers", True):
        out |= _peers(world, exclude, seed)
    out |= _oracle(world, exclude, int(profile["oracle_users"]))
    out["history/violation"] = float(((world.s[world.train_seq] > world.tau[:, None, :]).mean()))
    out |= {f"history/{d}": float(v) for d, v in zip(DIMS, world.raw[world.train_seq].mean((0, 1)))}
    out |= _matched(out)
    return out


# --------------------------------------------------------------------------- matching at equal NDCG
def pareto_front(curve_ndcg, curve_violation) -> np.ndarray:
    """Indices of the control's non-dominated points (no other point has NDCG >= and violations <=, one of
    them strictly), sorted by NDCG: the best trade-off the control reaches. Noise makes a control's curve
    non-monotone (a small alpha or green weight can raise NDCG); dropping dominated points reads the control
    at its best."""
    x, y = np.asarray(curve_ndcg, float), np.asarray(curve_violation, float)
    keep = [i for i in range(x.size)
            if not np.any((x >= x[i]) & (y <= y[i]) & ((x > x[i]) | (y < y[i])))]
    keep = np.asarray(keep, dtype=int)
    return keep[np.argsort(x[keep], kind="stable")]


def matched_violation(ndcg: float, curve_ndcg, curve_violation, values=None) -> tuple[float, bool]:
    """The control's violation rate (or ``values``, another quantity measured at the same points) at the
    method's NDCG, by linear interpolation along the control's Pareto front (:func:`pareto_front`); beyond
    the front's ends, the nearest end. ``inside``: the method's NDCG lies within the range of all the
    control's points (revised after review of the first full run: the front replaces interpolation through
    every point, which zig-zags where the curve is non-monotone)."""
    x, y = np.asarray(curve_ndcg, float), np.asarray(curve_violation, float)
    inside = bool(x.min() <= ndcg <= x.max())
    keep = pareto_front(x, y)
    target = y if values is None else np.asarray(values, float)
    return float(np.interp(ndcg, x[keep], target[keep])), inside


def _matched(m: dict) -> dict:
    """Each control read off its own curve at the method's NDCG: violations (claim 2) and, for global
    re-ranking, the top-10 indicator means (claim 1's naive alternative)."""
    out = {}
    for name in ("written_s", "hinge_s"):
        nd = m[f"{name}/ndcg10"]
        v, ok = matched_violation(nd, m["global_rerank/ndcg10"], m["global_rerank/violation"])
        out[f"{name}/matched_global_violation"], out[f"{name}/matched_global_inside"] = v, float(ok)
        for d in DIMS:
            out[f"{name}/matched_global/{d}"] = matched_violation(nd, m["global_rerank/ndcg10"],
                                                                  m["global_rerank/violation"],
                                                                  m[f"global_rerank/{d}"])[0]
        g_nd = [m["pref/ndcg10"]] + list(m["grape/ndcg10_curve"])
        g_vi = [m["pref/violation"]] + list(m["grape/violation_curve"])
        v, ok = matched_violation(nd, g_nd, g_vi)
        out[f"{name}/matched_grape_violation"], out[f"{name}/matched_grape_inside"] = v, float(ok)
    return out


# --------------------------------------------------------------------------- claims
#: training gates for the learned components (issue 26: the indicator R^2 is a gate only)
GATES = (("encoder/r2_mean", 0.9, "the indicator encoder's held-out R^2 (mean of 4) >= 0.9"),
         ("train/pref_over_random_ndcg", 2.0, "the preference model's NDCG@10 >= 2x a random ranking's"))


def _gated(v: Verdict, ms: list[dict]) -> Verdict:
    """A hand-written check's verdict, made not-checkable when a training gate fails in any seed."""
    from icml26.core import checks as C

    return C.apply_gates(v, ms, [C.gate(key, at_least=bound, why=why) for key, bound, why in GATES])


def _better_count(m: dict, method: str, control: str) -> int:
    n = 0
    for d, hi in zip(DIMS, HIGHER):
        a, b = m[f"{method}/{d}"], m[f"{control}/{d}"]
        n += int(a > b) if hi else int(a < b)
    return n


def _seed_frac(ok: list[bool]) -> str:
    return f"{sum(ok)}/{len(ok)} seeds"


#: the smallest practical improvement, fixed before the revised full run: the method's violation rate must be
#: at least this fraction below the control's (relative), beyond noise (one-sided Wilcoxon over seeds)
MARGIN = 0.05
ALPHA = 0.05
MIN_FRAC = 0.8  # a count rule passes in >= 80% of seeds


def paired_margin(ours, control, *, margin: float = MARGIN, alpha: float = ALPHA) -> dict:
    """One-sided paired test that ``ours`` (violation rates, lower is better) is below ``control`` by more
    than ``margin`` relative to the control: d_i = (control_i - ours_i) / control_i - margin, Wilcoxon
    signed-rank H1: median d > 0. ``status``: reproduced (significant beyond the margin), partly
    (significantly lower but not by the margin), not-reproduced, or not-checkable (too few seeds)."""
    from icml26.core import checks as C
    from icml26.core.stats import paired_test

    ours, control = np.asarray(ours, float), np.asarray(control, float)
    rel = (control - ours) / np.maximum(np.abs(control), 1e-12)
    out = {"n": int(rel.size), "rel": rel, "mean_rel": float(rel.mean()) if rel.size else float("nan")}
    few = C.too_few_seeds(int(rel.size), "wilcoxon", alpha)
    d = rel - margin
    out["p"] = paired_test(d, np.zeros_like(d), alternative="greater") if rel.size and d.mean() > 0 else 1.0
    out["p_raw"] = paired_test(rel, np.zeros_like(rel), alternative="greater") if rel.size and rel.mean() > 0 else 1.0
    if few:
        out["status"], out["why"] = "not-checkable", few
    elif out["p"] < alpha:
        out["status"], out["why"] = "reproduced", ""
    elif out["p_raw"] < alpha:
        out["status"], out["why"] = "partly", "significantly lower but not by the margin"
    else:
        out["status"], out["why"] = "not-reproduced", ""
    return out


def _paired_text(label: str, t: dict) -> str:
    return (f"vs {label}: relative reduction {t['mean_rel']:+.1%} (per seed " + ", ".join(f"{x:+.1%}" for x in t["rel"])
            + f"), Wilcoxon p = {t['p']:.3g} beyond the {MARGIN:.0%} margin (p = {t['p_raw']:.3g} without), "
            f"{t['n']} seeds: {t['status']}" + (f" ({t['why']})" if t["why"] else ""))


def _combine(statuses: list[str]) -> str:
    """All reproduced -> reproduced; any not-checkable -> at most partly (not-checkable if none decided);
    else partly if at least one is reproduced or partly, not-reproduced otherwise."""
    decided = [s for s in statuses if s != "not-checkable"]
    if not decided:
        return "not-checkable"
    if all(s == "reproduced" for s in statuses):
        return "reproduced"
    if any(s in ("reproduced", "partly") for s in decided):
        return "partly"
    return "not-reproduced"


def check_more_sustainable(ms: list[dict]) -> Verdict:
    return _gated(_check_more_sustainable(ms), ms)


def _check_more_sustainable(ms: list[dict]) -> Verdict:
    """Pre-registered (issue 26): the written form on s_hat vs the beta2 = 0 control (ranking by y_hat alone,
    same run): a seed passes if NDCG@10 >= 0.9 x the control's and the top-10 indicator means are better
    (nutrition up; environment, cost, welfare down) on >= 3 of 4, in >= 80% of seeds.

    Revised after review of the first full run (before the re-run): global re-ranking (y_hat minus one alpha
    times the uniform sum of s_hat), read off its alpha grid at our NDCG, is added as the naive alternative.
    Reproduced only if, besides the rule above, our top-10 is better than global re-ranking's at matched NDCG
    on >= 3 of 4 indicators in >= 80% of seeds (a seed whose NDCG lies outside the grid's NDCG range does not
    count). Partly if the rule above holds but the control passes equally (not beaten), or the rule holds in
    >= half the seeds; the hinge and z_r variants are reported beside it."""
    ok, beat, parts = [], [], []
    for m in ms:
        nd_ok = m["written_s/ndcg10"] >= 0.9 * m["pref/ndcg10"]
        ok.append(bool(nd_ok and _better_count(m, "written_s", "pref") >= 3))
        inside = bool(m["written_s/matched_global_inside"])
        beat.append(inside and _better_count(m, "written_s", "written_s/matched_global") >= 3)
    frac, fbeat = sum(ok) / len(ms), sum(beat) / len(ms)
    if frac >= MIN_FRAC:
        status = "reproduced" if fbeat >= MIN_FRAC else "partly"
    else:
        status = "partly" if frac >= 0.5 else "not-reproduced"
    mean = lambda k: float(np.mean([m[k] for m in ms]))  # noqa: E731
    for name in ("written_s", "hinge_s", "written_z", "hinge_z"):
        passes = sum(m[f"{name}/ndcg10"] >= 0.9 * m["pref/ndcg10"] and _better_count(m, name, "pref") >= 3 for m in ms)
        parts.append(f"{name}: NDCG {mean(name + '/ndcg10'):.4f}, " + ", ".join(
            f"{d} {mean(f'{name}/{d}'):.3f}" for d in DIMS) + f" (passes {passes}/{len(ms)})")
    ctl = (f"preference-only (beta2 = 0): NDCG {mean('pref/ndcg10'):.4f}, " + ", ".join(
        f"{d} {mean(f'pref/{d}'):.3f}" for d in DIMS) + "; global re-ranking at our NDCG: " + ", ".join(
        f"{d} {mean(f'written_s/matched_global/{d}'):.3f}" for d in DIMS))
    return Verdict(status, "; ".join(parts),
                   f"rule: NDCG@10 >= 0.9x preference-only and >= 3/4 indicators better, in >= 80% of seeds (written "
                   f"form on s_hat decides), and (added after review of the first full run) >= 3/4 indicators better "
                   f"than global re-ranking at matched NDCG in >= 80% of seeds; first part met in {_seed_frac(ok)}, "
                   f"beats global re-ranking in {_seed_frac(beat)} (NDCG inside its range in "
                   f"{int(sum(m['written_s/matched_global_inside'] for m in ms))}/{len(ms)}); history means: "
                   + ", ".join(f"{d} {mean(f'history/{d}'):.3f}" for d in DIMS),
                   value=frac, control=ctl)


def contradict_more_sustainable(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for d, hi in zip(DIMS, HIGHER):
            m[f"written_s/{d}"] = m[f"pref/{d}"] * (0.8 if hi else 1.2) - (0.1 if hi else -0.1)
        out.append(m)
    return out


def control_more_sustainable(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for key in ["ndcg10"] + list(DIMS):
            m[f"written_s/{key}"] = m[f"pref/{key}"]
        out.append(m)
    return out


def check_beats_preference(ms: list[dict]) -> Verdict:
    """Pre-registered (issue 26): at matched NDCG@10, the written form on s_hat has fewer hidden-tolerance
    violations than (a) global re-ranking by one alpha times the uniform sum of s_hat and (b) the GRAPE-style
    green-loss model, each read off the control's (NDCG, violation) curve at our NDCG by linear interpolation.

    Revised after review of the first full run (before the re-run): the GRAPE-style control is trained at
    several weights (``grape_weights``, with weight 0 = preference-only) so that its curve spans our NDCG;
    a seed counts for a control only where our NDCG lies inside that control's NDCG range, and a control
    matched in fewer than 80% of seeds is not checkable. Per control, the decision is a paired test over
    the matched seeds (:func:`paired_margin`: one-sided Wilcoxon, p < 0.05, relative violation reduction
    beyond a 5% margin fixed in advance; too few matched seeds -> not checkable). Reproduced if both
    controls are beaten beyond the margin; with one not checkable, at most partly (:func:`_combine`)."""
    n = len(ms)
    need = int(np.ceil(MIN_FRAC * n))
    tests, parts = {}, []
    for label, key in (("global re-ranking", "global"), ("GRAPE-style", "grape")):
        sel = [m for m in ms if m[f"written_s/matched_{key}_inside"]]
        if len(sel) < need:
            tests[key] = {"status": "not-checkable"}
            parts.append(f"{label} not checkable: our NDCG lies inside its NDCG range in only {len(sel)}/{n} seeds "
                         f"(need {need})")
            continue
        t = paired_margin([m["written_s/violation"] for m in sel], [m[f"written_s/matched_{key}_violation"] for m in sel])
        tests[key] = t
        parts.append(_paired_text(f"{label} at matched NDCG", t))
    status = _combine([tests["global"]["status"], tests["grape"]["status"]])
    # changed by review after the full run (partly -> not-reproduced): 'partly' needs a part the control
    # fails. When we beat one control (X) and not the other (Y), the other control is put in our place:
    # if Y at our NDCG beats X by the same test, beating X does not tell us from Y. Full run: we beat
    # GRAPE-style (+39.4%, p=0.0312) but not global re-ranking (-2.0%, p=1), and global re-ranking
    # beats GRAPE-style by +42.2% (p=0.0312): the same partly.
    won = {k: t["status"] in ("reproduced", "partly") for k, t in tests.items() if t["status"] != "not-checkable"}
    if status == "partly" and len(won) == 2 and sum(won.values()) == 1:
        x = next(k for k, w in won.items() if w)
        y = next(k for k, w in won.items() if not w)
        sel = [m for m in ms if m["written_s/matched_global_inside"] and m["written_s/matched_grape_inside"]]
        if len(sel) >= need:
            cross = paired_margin([m[f"written_s/matched_{y}_violation"] for m in sel],
                                  [m[f"written_s/matched_{x}_violation"] for m in sel])
            lbl = {"global": "global re-ranking", "grape": "GRAPE-style"}
            same = cross["status"] in ("reproduced", "partly")
            parts.append(f"partly needs a part the other control fails (review after the full run): "
                         + _paired_text(f"{lbl[x]}, {lbl[y]} in our place", cross)
                         + (" -- the same partly, so not-reproduced (changed by review after the full run: "
                            "partly -> not-reproduced)" if same else " -- our part is not matched"))
            if same:
                status = "not-reproduced"
    mean = lambda k: float(np.mean([m[k] for m in ms]))  # noqa: E731
    hinge = (f"hinge form: {mean('hinge_s/violation'):.3f} vs global {mean('hinge_s/matched_global_violation'):.3f}, "
             f"GRAPE {mean('hinge_s/matched_grape_violation'):.3f} at NDCG {mean('hinge_s/ndcg10'):.4f}")
    curve = np.mean([m["grape/ndcg10_curve"] for m in ms], 0)
    return _gated(Verdict(status,
                   f"violation rate, written form {mean('written_s/violation'):.4f} at NDCG {mean('written_s/ndcg10'):.4f}; "
                   f"{hinge}",
                   "rule (revised after review of the first full run): lower violations than each control at matched "
                   "NDCG (inside its NDCG range, in >= 80% of seeds), one-sided Wilcoxon over the matched seeds, relative "
                   f"reduction beyond {MARGIN:.0%}; " + "; ".join(parts) + "; GRAPE-style NDCG at weights "
                   + ", ".join(f"{w:g}: {x:.4f}" for w, x in zip(ms[0]["grape/weights"], curve))
                   + f" (preference-only {mean('pref/ndcg10'):.4f})",
                   value=float(np.mean([m["written_s/matched_global_violation"] - m["written_s/violation"] for m in ms])),
                   control=f"global re-ranking at matched NDCG {mean('written_s/matched_global_violation'):.4f}; "
                           f"GRAPE-style at matched NDCG {mean('written_s/matched_grape_violation'):.4f}"), ms)


def contradict_beats_preference(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["written_s/violation"] = max(m["written_s/matched_global_violation"], m["written_s/matched_grape_violation"]) + 0.05
        out.append(m)
    return out


def control_beats_preference(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["written_s/violation"] = m["written_s/matched_global_violation"]
        out.append(m)
    return out


THRESHOLD_CONTROLS = (("hinge_s_levelled", "one global lambda = the users' mean lambda_u (level-matched)"),
                      ("hinge_s_quantile", "per-user 80th percentile of the history's s_hat (level-matched)"),
                      ("hinge_s_global", "one global lambda trained jointly (as first registered)"))


def check_personal_thresholds(ms: list[dict]) -> Verdict:
    return _gated(_check_personal_thresholds(ms), ms)


def _check_personal_thresholds(ms: list[dict]) -> Verdict:
    """Pre-registered (issue 26), decided on the hinge form on s_hat (the form in which lambda_u changes
    rankings): fewer hidden-tolerance violations than one global lambda, and the mean over the four dimensions
    of Spearman(lambda_u^n, tau_u^n) > 0.2 in >= 80% of seeds.

    Revised after review of the first full run (before the re-run): the trained global lambda drifted to a
    different level, so two level-matched controls are added, each with the same learned alpha_u: one global
    lambda equal to the users' mean lambda_u, and a naive per-user threshold (80th percentile of the user's
    history's s_hat, shifted to the same mean level). The violation comparison against each of the three
    controls is a paired test (:func:`paired_margin`, 5% relative margin, one-sided Wilcoxon). Reproduced only
    if all three are beaten beyond the margin and the Spearman rule holds; partly if the Spearman rule holds
    and at least one control is beaten (significantly), or the controls are all beaten but Spearman fails;
    not-reproduced otherwise. The naive quantile's Spearman with tau is reported beside ours."""
    from icml26.core import checks as C

    few = C.too_few_seeds(len(ms), "wilcoxon", ALPHA)
    tests = {key: paired_margin([m["hinge_s/violation"] for m in ms], [m[f"{key}/violation"] for m in ms])
             for key, _ in THRESHOLD_CONTROLS}
    rho = [m["hinge_s/spearman_lambda_tau"] > 0.2 for m in ms]
    rho_ok = sum(rho) / len(ms) >= MIN_FRAC
    st = [t["status"] for t in tests.values()]
    if few:
        status = "not-checkable"
    elif all(s == "reproduced" for s in st) and rho_ok:
        status = "reproduced"
    elif (rho_ok and any(s in ("reproduced", "partly") for s in st)) or all(s == "reproduced" for s in st):
        status = "partly"
    else:
        status = "not-reproduced"
    mean = lambda k: float(np.mean([m[k] for m in ms]))  # noqa: E731
    return Verdict(status,
                   f"hinge, per-user lambda: violation {mean('hinge_s/violation'):.4f} at NDCG {mean('hinge_s/ndcg10'):.4f}, "
                   f"Spearman(lambda, tau) {mean('hinge_s/spearman_lambda_tau'):.3f} (" + ", ".join(
                       f"{d} {mean(f'hinge_s/spearman_lambda_tau/{d}'):.2f}" for d in DIMS) + "); naive history "
                   f"quantile's Spearman {mean('hinge_s_quantile/spearman_lambda_tau'):.3f}; written form's lambda "
                   f"(ranking-inert) Spearman {mean('written_s/spearman_lambda_tau'):.3f}, lambda drift "
                   f"{mean('written_s/lambda_drift'):+.3f}",
                   "rule (revised after review of the first full run): violations below each of three controls beyond a "
                   f"{MARGIN:.0%} relative margin (one-sided Wilcoxon over seeds) and Spearman > 0.2 in >= 80% of seeds; "
                   + "; ".join(_paired_text(label, tests[key]) for key, label in THRESHOLD_CONTROLS)
                   + f"; Spearman > 0.2 in {_seed_frac(rho)}; lambda_u: mean {mean('hinge_s/lambda_mean'):.3f}, "
                   f"spread across users (sd) {mean('hinge_s/lambda_sd_users'):.3f}, drift {mean('hinge_s/lambda_drift'):+.3f}"
                   f" (trained global lambda mean {mean('hinge_s_global/lambda_mean'):.3f}); unshifted history quantile: "
                   f"violation {mean('hinge_s_quantile_raw/violation'):.4f}" + (f"; {few}" if few else ""),
                   value=mean("hinge_s/spearman_lambda_tau"),
                   control="; ".join(f"{label}: violation {mean(f'{key}/violation'):.4f}" for key, label in THRESHOLD_CONTROLS))


def contradict_personal_thresholds(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["hinge_s/violation"] = max(m[f"{key}/violation"] for key, _ in THRESHOLD_CONTROLS) + 0.05
        m["hinge_s/spearman_lambda_tau"] = -0.1
        out.append(m)
    return out


def control_personal_thresholds(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["hinge_s/violation"] = m["hinge_s_levelled/violation"]
        m["hinge_s/spearman_lambda_tau"] = 0.0
        out.append(m)
    return out


# --------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(13, 4))
    ax1, ax2, ax3 = fig.subplots(1, 3)
    mean = lambda k: np.mean([m[k] for m in ms], 0)  # noqa: E731
    ax1.plot(mean("global_rerank/ndcg10"), mean("global_rerank/violation"), "o-", color="0.5",
             label="global re-ranking (alpha grid)")
    g_nd = np.r_[mean("pref/ndcg10"), mean("grape/ndcg10_curve")]
    g_vi = np.r_[mean("pref/violation"), mean("grape/violation_curve")]
    ax1.plot(g_nd, g_vi, "s--", color="C2", label="GRAPE-style green loss (weight 0 = preference-only)")
    arms = [("pref", "preference-only", "k"), ("written_s", "SusDiet written, s_hat", "C0"),
            ("hinge_s", "SusDiet hinge, s_hat", "C1"), ("hinge_s_global", "hinge, global lambda", "C4"),
            ("written_z", "written, z_r", "C5"), ("hinge_z", "hinge, z_r", "C6"),
            ("bpr", "cornac BPR", "C7"), ("itemknn", "cornac ItemKNN", "C8")]
    for key, label, c in arms:
        if f"{key}/ndcg10" in ms[0]:
            ax1.plot(mean(f"{key}/ndcg10"), mean(f"{key}/violation"), "*", ms=11, color=c, label=label)
    ax1.set_xlabel("NDCG@10 on held-out picks")
    ax1.set_ylabel("hidden-tolerance violation rate")
    ax1.legend(fontsize=6)
    ax1.set_title("violations vs preference accuracy")
    names = [a for a in ("pref", "written_s", "hinge_s", "written_z", "hinge_z", "grape") if f"{a}/ndcg10" in ms[0]]
    x = np.arange(len(DIMS))
    for i, a in enumerate(names):
        rel = [mean(f"{a}/{d}") / mean(f"pref/{d}") for d in DIMS]
        ax2.bar(x + i * 0.13, rel, width=0.13, label=a)
    ax2.axhline(1.0, color="k", lw=0.8)
    ax2.set_xticks(x + 0.3, DIMS)
    ax2.set_ylabel("top-10 mean / preference-only's")
    ax2.set_title("top-10 indicators (nutrition up, others down)")
    ax2.legend(fontsize=6)
    rho = [np.mean([m[f"hinge_s/spearman_lambda_tau/{d}"] for m in ms]) for d in DIMS]
    rho_w = [np.mean([m[f"written_s/spearman_lambda_tau/{d}"] for m in ms]) for d in DIMS]
    ax3.bar(x - 0.2, rho, width=0.4, label="hinge lambda_u")
    ax3.bar(x + 0.2, rho_w, width=0.4, label="written lambda_u (ranking-inert)")
    ax3.axhline(0.2, color="r", ls=":", label="pass bound 0.2")
    ax3.set_xticks(x, DIMS)
    ax3.set_ylabel("Spearman(learned lambda_u, hidden tau_u)")
    ax3.set_title("personalised thresholds")
    ax3.legend(fontsize=6)
    fig.suptitle(f"SusDiet small-scale reproduction, {len(ms)} seeds (means)")
    fig.tight_layout()
    return fig


def EXAMPLES():
    from icml26.decision.susdiet.method import EXAMPLES as method_examples
    from icml26.decision.susdiet.setting import normalise_indicators

    rng = np.random.default_rng(0)
    return method_examples() + [(normalise_indicators, {"raw": np.abs(rng.normal(size=(20, 4))) + 0.1})]
