"""Small-scale reproduction of MTNL (ICML 2026 poster 62604): recovery, uncertainty, structure search.

One seed is one (photo, replicate) pair: photo ``images[seed % len(images)]`` with its own
random 80%-missing mask, so a test over seeds is a test over images x replicates (the
issue's "Wilcoxon over images x seeds"), and a seed's work depends on the seed alone.

* ``recovery``  (claim ``fusion-beats-single``). MTNL = gated TR + gated FCTN fused by a sum
  (R1-R3 of ``method``), against the same recipe with one structure (TR, FCTN, Tucker; each at
  the largest rank whose parameter count fits MTNL's), a fusion of two TRs (no structural
  diversity), and ``tensorly`` masked CP and Tucker (rank picked on the validation split within
  the same parameter budget). Every gated arm gets the same recipe (cosine lr, deterministic
  warm-up, then masks and prior, early stopping on the validation split) and the same tuning grid
  (Gaussian prior weight); every arm trains on the same entries; RSE on the missing entries, and
  each arm's RSE relative to mean imputation's (the recovery gate, read per arm).
* ``uncertainty`` (claim ``lightweight-uq``). MTNL's Monte-Carlo mask predictive (T masks) vs a
  missingness heuristic (distance to the nearest observed entry of the channel) and a 5-member
  deep ensemble of the same tuned model; Spearman of each std with the same errors (MTNL's
  deterministic prediction on the missing entries); each std against its own prediction's errors
  and against the ensemble mean's errors is reported too; wall-clock cost relative to one fit
  (``icml26.core.timing``).
* ``structure`` (claim ``structure-prior``). A planted tensor ring with heterogeneous bond ranks,
  half observed: the gated TR's learned effective ranks against the planted ones, and the
  ungated TR at uniform ranks: the parameters it needs to reach the gated model's RSE.
* ``regression`` (claim ``tensor-regression``). scikit-learn digits 3 vs 8 (8x8 -> 2x2x4x4), least
  squares on +-1 labels: MTNL's weight tensor against tensorly's CP and Tucker regressors within
  its parameter budget and plain ridge (the control without tensor structure); test accuracy.
* ``recovery90``/``uq90`` (third pass; claims ``fusion-beats-single-90``, ``lightweight-uq-90``). The same
  recovery and uncertainty parts on an independent 90%-missing mask of the same photo.
* ``peft`` (third pass; claim ``peft``). An MTNL weight-update adapter (``adapter``) vs peft's LoRA at about
  equal parameters, on a digits MLP pretrained on 0-4 and adapted to 5-9.
* ``mc_identity`` (claim ``mc-mean-unbiased``). The MC mean over many masks against the
  deterministic prediction (R4), in units of its Monte-Carlo standard error (about 1 if unbiased,
  growing like sqrt(T) if biased).
"""

from __future__ import annotations

import math

import numpy as np

from icml26.core import checks as C
from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.timing import measure
from icml26.science.mtnl import method as M
from icml26.science.mtnl import setting as S

ARMS = ("mtnl", "tr", "fctn", "tucker", "trtr", "cp_tl", "tucker_tl")
LABELS = {"mtnl": "MTNL (TR + FCTN, gated)", "tr": "single TR", "fctn": "single FCTN", "tucker": "single Tucker",
          "trtr": "TR + TR fusion", "cp_tl": "tensorly CP", "tucker_tl": "tensorly Tucker",
          "mean": "mean imputation"}


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import spearmanr

    r = spearmanr(a, b).statistic
    return float(r) if np.isfinite(r) else 0.0


def _fit_kwargs(p: Profile) -> dict:
    """The photo recipe shared by every gated arm (MTNL and its single / TR + TR controls)."""
    return {"steps": int(p["steps"]), "lr": float(p["lr"]), "tau": float(p["tau"]), "p": float(p["p_drop"]),
            "warmup": float(p["warmup"]), "schedule": str(p["schedule"]), "eval_every": int(p["eval_every"])}


def _budget(shape, spec) -> int:
    return M.build_mtnl(shape, spec, 0).n_params()


def _within_budget(shape, structure: str, ranks, budget: int, copies: int = 1) -> list[int]:
    ok = [r for r in ranks if copies * M.make_tn(structure, shape, r).n_params() <= budget]
    return ok or [min(ranks)]


def problem(p: Profile, seed: int, missing: float | None = None, stream: int = 0) -> dict:
    """The seed's photo, tensorized, with its observation mask split into train and validation.

    ``missing`` defaults to the profile's ``missing`` (80%); ``stream`` > 0 draws an independent mask
    (the 90% run uses stream 1, so the 80% masks are those of the second pass)."""
    images = list(p["images"])
    name = images[seed % len(images)]
    Y = S.tensorize(S.load_image(name, int(p["side"])), list(p["factors"]))
    miss = float(p["missing"]) if missing is None else float(missing)
    extra = [stream] if stream else []
    obs = S.random_mask(Y.shape, miss, seed=np.random.default_rng([seed, 1, *extra]))
    train, val = S.split_mask(obs, float(p["val_frac"]), seed=np.random.default_rng([seed, 2, *extra]))
    return {"name": name, "Y": Y, "obs": obs, "train": train, "val": val, "test": ~obs}


def _tuned_fit(Y, train, val, specs, wds, kw: dict, seed: int) -> dict:
    """Per-arm validation tuning, the same grid size for every arm: each (spec, wd) is fit with early
    stopping on ``val``; the fit with the lowest validation RSE is kept (with its wall time)."""
    best = None
    for spec in specs:
        for wd in wds:
            box: dict = {}

            def one(spec=spec, wd=wd, box=box):
                box["f"] = M.fit_mtnl(Y, train, spec, seed=seed, wd=wd, val_mask=val, **kw)

            t = measure(one, repeats=1, warmup=0).wall_min
            f = box["f"]
            x = M.predict(f)
            v = M.rse(x, Y, val)
            if best is None or v < best["val"]:
                best = {"val": v, "fit": f, "pred": x, "spec": spec, "wd": wd, "t": t}
    return best


def recovery(p: Profile, seed: int, prob: dict, pre: str = "recovery") -> tuple[dict, dict]:
    """Every arm fit on the same training entries, tuned on the same validation entries; test RSE on the missing ones.
    Keys start with ``pre`` (``recovery`` at 80% missing, ``recovery90`` at 90%)."""
    Y, train, val, test = prob["Y"], prob["train"], prob["val"], prob["test"]
    kw = _fit_kwargs(p)
    wds = [float(w) for w in p["wd_grid"]]
    spec = [tuple(s) for s in p["mtnl"]]
    budget = _budget(Y.shape, spec)
    out: dict = {f"{pre}/budget_params": budget}
    M.fit_mtnl(Y, train, spec, seed=seed, **{**kw, "steps": 2})  # warm-up: one-time costs stay out of the timing
    fits = {"mtnl": _tuned_fit(Y, train, val, [spec], wds, kw, seed)}
    preds = {"mtnl": fits["mtnl"]["pred"]}
    params = {"mtnl": budget}
    choice: dict = {}
    for arm, structure, copies in (("tr", "tr", 1), ("fctn", "fctn", 1), ("tucker", "tucker", 1), ("trtr", "tr", 2)):
        ranks = _within_budget(Y.shape, structure, list(p[f"ranks_{arm}"]), budget, copies)[-int(p["n_cand"]):]
        fits[arm] = _tuned_fit(Y, train, val, [[(structure, r)] * copies for r in ranks], wds, kw, seed)
        preds[arm] = fits[arm]["pred"]
        choice[arm] = int(fits[arm]["spec"][0][1])
        params[arm] = fits[arm]["fit"].model.n_params()
    for arm, method in (("cp_tl", "cp"), ("tucker_tl", "tucker")):
        best = None
        for r in list(p[f"ranks_{arm}"]):
            x = M.tensorly_complete(Y, train, method, r, n_iter=int(p["als_iter"]), seed=seed)
            v = M.rse(x, Y, val)
            if best is None or v < best[0]:
                best = (v, x, r)
        _, preds[arm], choice[arm] = best
        params[arm] = _tl_params(Y.shape, method, choice[arm])
    mean_rse = M.rse(np.full(Y.shape, Y[train].mean()), Y, test)
    for arm in ARMS:
        out[f"{pre}/{arm}/rse"] = M.rse(preds[arm], Y, test)
        out[f"{pre}/{arm}/train_rse"] = M.rse(preds[arm], Y, train)
        out[f"{pre}/{arm}/rse_ratio_vs_mean"] = out[f"{pre}/{arm}/rse"] / mean_rse
        out[f"{pre}/{arm}/params"] = int(params[arm])
        if arm in choice:
            out[f"{pre}/{arm}/rank"] = int(choice[arm])
        if arm in fits:
            out[f"{pre}/{arm}/wd"] = float(fits[arm]["wd"])
            out[f"{pre}/{arm}/best_step"] = int(fits[arm]["fit"].best_step)
    out[f"{pre}/mean/rse"] = mean_rse
    out[f"{pre}/rse_ratio_vs_mean"] = out[f"{pre}/mtnl/rse"] / mean_rse
    f = fits["mtnl"]["fit"]
    out[f"{pre}/mtnl/effective_ranks"] = [r for c in f.model.effective_ranks() for r in c]
    out[f"{pre}/mtnl/loss_drop"] = f.loss_history[0] / max(min(f.loss_history), 1e-12)
    return out, {"fit": f, "t_one": fits["mtnl"]["t"], "pred": preds["mtnl"], "wd": fits["mtnl"]["wd"]}


def _tl_params(shape, method: str, r: int) -> int:
    if method == "cp":
        return int(r * sum(shape))
    rk = [min(r, s) for s in shape]
    return int(math.prod(rk) + sum(s * k for s, k in zip(shape, rk)))


def uncertainty(p: Profile, seed: int, prob: dict, rec: dict, pre: str = "uq") -> dict:
    """MC-mask std vs distance heuristic vs a deep ensemble, every std scored on the same missing entries
    against the same errors: those of MTNL's deterministic prediction (the fit all three describe;
    it is also ensemble member 0). Scores against each estimate's own prediction are reported too."""
    Y, train, val, test = prob["Y"], prob["train"], prob["val"], prob["test"]
    kw = _fit_kwargs(p)
    spec = [tuple(s) for s in p["mtnl"]]
    T = int(p["T"])
    mc: dict = {}

    def mc_predict():
        mc["mean"], mc["std"] = M.predict_mc(rec["fit"], T=T, seed=seed)

    t_mc = measure(mc_predict, repeats=1, warmup=0).wall_min
    members, times = [rec["pred"]], []
    for k in range(1, int(p["n_ensemble"])):
        box: dict = {}

        def fit_member(k=k, box=box):
            box["f"] = M.fit_mtnl(Y, train, spec, seed=seed + 1000 * k, wd=rec["wd"], val_mask=val, **kw)

        times.append(measure(fit_member, repeats=1, warmup=0).wall_min)
        members.append(M.predict(box["f"]))
    ens = np.stack(members)
    ens_mean, ens_std = ens.mean(0), ens.std(0, ddof=1)
    err = np.abs(rec["pred"] - Y)[test]  # the common errors
    err_mc = np.abs(mc["mean"] - Y)[test]
    err_ens = np.abs(ens_mean - Y)[test]
    factors = list(p["factors"])
    dist = S.distance_to_observed(S.untensorize(train.astype(float), factors) > 0.5)
    dist_t = S.tensorize(dist, factors)[test]
    one_fit = float(np.median([rec["t_one"], *times]))
    out = {
        f"{pre}/mc/spearman": _spearman(mc["std"][test], err),
        f"{pre}/heuristic/spearman": _spearman(dist_t, err),
        f"{pre}/ensemble/spearman": _spearman(ens_std[test], err),
        f"{pre}/mc/spearman_own": _spearman(mc["std"][test], err_mc),
        f"{pre}/ensemble/spearman_own": _spearman(ens_std[test], err_ens),
        f"{pre}/mc/spearman_on_ens_err": _spearman(mc["std"][test], err_ens),
        f"{pre}/ensemble/spearman_on_ens_err": _spearman(ens_std[test], err_ens),
        f"{pre}/heuristic/spearman_on_ens_err": _spearman(dist_t, err_ens),
        f"{pre}/mc/rse": M.rse(mc["mean"], Y, test),
        f"{pre}/ensemble/rse": M.rse(ens_mean, Y, test),
        f"{pre}/mc/coverage2sd": float(np.mean(err <= 2 * mc["std"][test])),
        f"{pre}/ensemble/coverage2sd": float(np.mean(err <= 2 * ens_std[test])),
        f"timing/{pre}/mc_cost_ratio": (rec["t_one"] + t_mc) / one_fit,
        f"timing/{pre}/ensemble_cost_ratio": (rec["t_one"] + sum(times)) / one_fit,
    }
    out[f"{pre}/gap_vs_ensemble"] = out[f"{pre}/mc/spearman"] - out[f"{pre}/ensemble/spearman"]
    return out


def structure(p: Profile, seed: int) -> dict:
    """Planted TR: learned effective ranks, and the ungated TR's parameters at the gated model's RSE."""
    dims, ranks = list(p["planted_dims"]), list(p["planted_ranks"])
    Y, clean = S.planted_tensor_ring(dims, ranks, snr_db=float(p["planted_snr_db"]),
                                     seed=np.random.default_rng([seed, 3]))
    obs = S.random_mask(Y.shape, float(p["planted_missing"]), seed=np.random.default_rng([seed, 4]))
    kw = {"steps": int(p["planted_steps"]), "lr": float(p["planted_lr"]), "wd": float(p["planted_wd"]), "p": 0.0}
    g = M.fit_mtnl(Y, obs, [("tr", int(p["planted_rmax"]))], tau=float(p["planted_tau"]),
                   refit_steps=int(p["planted_refit_steps"]), warmup=float(p["planted_warmup"]), seed=seed, **kw)
    eff = g.model.effective_ranks()[0]
    rse_g = M.rse(M.predict(g), clean, ~obs)
    p_g = g.model.n_params(effective=True)
    ungated = []
    for r in list(p["ungated_ranks"]):
        u = M.fit_mtnl(Y, obs, [("tr", int(r))], tau=0.0, gated=False, seed=seed, **kw)
        ungated.append((int(r), M.rse(M.predict(u), clean, ~obs), u.model.n_params()))
    reach = [n for _, e, n in ungated if e <= (1 + float(p["equal_rse_tol"])) * rse_g]
    p_u = min(reach) if reach else max(n for _, _, n in ungated)
    hits = [abs(a - b) <= 1 for a, b in zip(eff, ranks)]
    # third pass: did the search phase's optimisation settle? (relative change of the training fit term
    # between the last two tenths of the search steps; the debiasing steps are excluded)
    n_s = int(p["planted_steps"])
    tenth = max(1, n_s // 10)
    h = np.asarray(g.loss_history[:n_s], dtype=float)
    prev, last = float(h[-2 * tenth:-tenth].mean()), float(h[-tenth:].mean())
    best_u = min(e for _, e, _ in ungated)
    return {
        "structure/gated/search_loss_change": abs(prev - last) / max(prev, 1e-300),
        "structure/gated/rse_ratio_vs_best_ungated": rse_g / max(best_u, 1e-300),
        "structure/exact_frac": float(np.mean([a == b for a, b in zip(eff, ranks)])),
        "structure/planted_ranks": ranks,
        "structure/learned_ranks": eff,
        "structure/rank_hit_frac": float(np.mean(hits)),
        "structure/gated/rse": rse_g,
        "structure/gated/params": int(p_g),
        "structure/ungated/params_at_equal_rse": int(p_u),
        "structure/ungated/reached": bool(reach),
        "structure/ungated/ranks": [r for r, _, _ in ungated],
        "structure/ungated/rse": [e for _, e, _ in ungated],
        "structure/ungated/params": [n for _, _, n in ungated],
        "structure/param_ratio": p_u / max(p_g, 1),
    }


def mc_identity(p: Profile, rec: dict, seed: int) -> dict:
    """R4: the MC mean over many masks approaches the deterministic prediction."""
    T = int(p["T_identity"])
    mean, std = M.predict_mc(rec["fit"], T=T, seed=seed + 1)
    det = rec["pred"]
    se = math.sqrt(float((std ** 2).sum()) / T)  # if unbiased, E||mean - det||^2 = sum Var / T
    return {"identity/mc_mean_rel_dev": float(np.linalg.norm(mean - det) / np.linalg.norm(det)),
            "identity/mc_dev_over_se": float(np.linalg.norm(mean - det) / max(se, 1e-300))}


def regression(p: Profile, seed: int) -> dict:
    """Tensor regression on digit pairs: MTNL weight tensor vs tensorly's CP/Tucker regressors at <= its parameters."""
    X, y = S.digits_pair(*list(p["reg_pair"]))
    rng = np.random.default_rng([seed, 5])
    idx = rng.permutation(len(y))
    tr, te = idx[:int(p["reg_train"])], idx[int(p["reg_train"]):]
    mu = X[tr].mean(0)
    Xtr, Xte = X[tr] - mu, X[te] - mu
    spec = [tuple(s) for s in p["reg_mtnl"]]
    dims = X.shape[1:]
    f = M.fit_tn_regression(Xtr, y[tr], spec, steps=int(p["reg_steps"]), lr=float(p["reg_lr"]), tau=float(p["tau"]),
                            wd=float(p["reg_wd"]), p=float(p["reg_p"]), seed=seed)
    budget = M.build_mtnl(dims, spec, 0).n_params()
    acc = lambda yh, yy: float(np.mean(np.sign(yh) == yy))  # noqa: E731
    out = {"regression/mtnl/acc": acc(M.predict_regression(f, Xte), y[te]),
           "regression/mtnl/train_acc": acc(M.predict_regression(f, Xtr), y[tr]),
           "regression/budget_params": budget,
           "regression/majority/acc": float(max(np.mean(y[te] == 1), np.mean(y[te] == -1)))}
    cp_rank = max(1, budget // int(sum(dims)))
    tk_rank = max(r for r in range(1, max(dims) + 1) if _tl_params(dims, "tucker", r) <= budget)
    out["regression/cp_tl/acc"] = acc(M.tensorly_regression(Xtr, y[tr], Xte, "cp", min(cp_rank, 64), seed=seed), y[te])
    out["regression/tucker_tl/acc"] = acc(M.tensorly_regression(Xtr, y[tr], Xte, "tucker", tk_rank, seed=seed), y[te])
    out["regression/best_tl/acc"] = max(out["regression/cp_tl/acc"], out["regression/tucker_tl/acc"])
    from sklearn.linear_model import RidgeCV

    ridge = RidgeCV(alphas=np.logspace(-3, 2, 11)).fit(Xtr.reshape(len(tr), -1), y[tr])
    out["regression/ridge/acc"] = acc(ridge.predict(Xte.reshape(len(te), -1)), y[te])
    out["regression/ridge/params"] = int(np.prod(dims)) + 1
    out["regression/ridge/alpha"] = float(ridge.alpha_)
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch

    seed_everything(seed)
    torch.set_num_threads(max(1, int(profile.cpus)))
    prob = problem(profile, seed)
    out: dict = {"image": prob["name"], "image_index": list(profile["images"]).index(prob["name"])}
    rec_metrics, rec = recovery(profile, seed, prob)
    out.update(rec_metrics)
    out.update(uncertainty(profile, seed, prob, rec))
    out.update(mc_identity(profile, rec, seed))
    # third pass: the same photo, an independent 90%-missing mask, the same recipe and controls
    prob90 = problem(profile, seed, missing=float(profile["missing2"]), stream=1)
    rec_metrics, rec90 = recovery(profile, seed, prob90, pre="recovery90")
    out.update(rec_metrics)
    out.update(uncertainty(profile, seed, prob90, rec90, pre="uq90"))
    out.update(structure(profile, seed))
    out.update(regression(profile, seed))
    out.update(peft(profile, seed))
    return out


def peft(p: Profile, seed: int) -> dict:
    """Third pass (claim ``peft``): an MTNL adapter vs peft's LoRA at (about) equal parameters on digits.

    A 64-128-10 ReLU MLP is pretrained on the digits 0-4 of the shared digits split's training part; its
    weights are frozen and both layers get adapters, trained on 80% of the training part's digits 5-9
    (the other 20%, a seed-dependent split, picks each arm's learning rate from the same grid); accuracy on
    the digits 5-9 of the split's validation and test parts. LoRA's rank is the smallest whose parameter
    count is at least the MTNL adapter's (the control is never given fewer parameters)."""
    import copy

    from icml26.nn import lora as L
    from icml26.science.mtnl import adapter as A
    from icml26.vision._data import load_digits_split

    sp = load_digits_split()
    xtr, ytr = sp.flat("train")
    xv, yv = sp.flat("val")
    xte, yte = sp.flat("test")
    x_eval, y_eval = np.concatenate([xv, xte]), np.concatenate([yv, yte])
    src, tgt_eval = ytr < 5, y_eval >= 5
    tgt = np.flatnonzero(ytr >= 5)
    perm = np.random.default_rng([seed, 6]).permutation(tgt)
    n_val = len(perm) // 5
    i_val, i_fit = perm[:n_val], perm[n_val:]
    base = A.pretrain_base(xtr[src], ytr[src], hidden=int(p["peft_hidden"]), steps=int(p["peft_pre_steps"]),
                           seed=seed)
    shapes = {k: tuple(v) for k, v in dict(p["peft_shapes"]).items()}
    names = list(shapes)
    spec = [tuple(s) for s in p["peft_mtnl"]]
    steps, lrs = int(p["peft_steps"]), [float(x) for x in p["peft_lr_grid"]]

    def make_tn():
        return A.add_tn_adapters(base, shapes, spec, seed=seed, p=float(p["peft_p"]))

    n_tn = A.tn_adapter_params(make_tn())
    r_lora = next(r for r in range(1, 65) if A.lora_params(base, names, r) >= n_tn)

    def make_lora():
        return L.add_lora(copy.deepcopy(base), r=r_lora, target_modules=names, seed=seed)

    out: dict = {"peft/base/src_acc": A.accuracy(base, x_eval[y_eval < 5], y_eval[y_eval < 5]),
                 "peft/none/acc": A.accuracy(base, x_eval[tgt_eval], y_eval[tgt_eval]),
                 "peft/tn/params": n_tn, "peft/lora/params": A.lora_params(base, names, r_lora),
                 "peft/lora/rank": r_lora}
    for arm, make, tau in (("tn", make_tn, float(p["peft_tau"])), ("lora", make_lora, 0.0)):
        best = None
        for lr in lrs:
            net = make()
            res = A.train_adapters(net, xtr[i_fit], ytr[i_fit], steps=steps, lr=lr, tau=tau)
            v = A.accuracy(net, xtr[i_val], ytr[i_val])
            if best is None or v > best[0]:
                best = (v, net, lr, res)
        v, net, lr, res = best
        out[f"peft/{arm}/acc"] = A.accuracy(net, x_eval[tgt_eval], y_eval[tgt_eval])
        out[f"peft/{arm}/train_acc"] = A.accuracy(net, xtr[i_fit], ytr[i_fit])
        out[f"peft/{arm}/val_acc"] = float(v)
        out[f"peft/{arm}/lr"] = lr
        out[f"peft/{arm}/loss_drop"] = res.history[0] / max(min(res.history), 1e-12)
    return out


_REG_RULE = C.all_of(
    C.non_inferior("regression/mtnl/acc", "regression/best_tl/acc", margin=0.01, by="ci",
                   label="MTNL regression accuracy", control_label="best tensorly regressor"),
    C.beats("regression/mtnl/acc", "regression/majority/acc", better="higher", test="wilcoxon",
            label="MTNL regression accuracy", control_label="majority class"))
_REG_SEPARATES = C.beats("regression/mtnl/acc", "regression/ridge/acc", better="higher", test="wilcoxon",
                         label="MTNL regression accuracy", control_label="plain ridge")
_REG_GATE = C.gate("regression/mtnl/train_acc", at_least=0.9, frac=0.8,
                   why="the MTNL regressor fits its training set (accuracy >= 0.9)")


def _with_ridge(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        m["regression/mtnl/acc"] = m["regression/ridge/acc"]
        out.append(m)
    return out


def check_tensor_regression(ms: list[dict]) -> Verdict:
    """Pre-registered (second pass, before the full run): MTNL passes the issue's rule (non-inferior within 1 point
    to the better tensorly regressor, 95% t interval; above the majority class, Wilcoxon) AND plain ridge does not
    match it: either ridge fails that same rule, or MTNL beats ridge (one-sided Wilcoxon over seeds, alpha 0.05).
    A rule ridge passes as well as MTNL does not show a benefit of the tensor network: not-reproduced."""
    v = _REG_RULE(ms)
    vr = _REG_RULE(_with_ridge(ms))
    sep = _REG_SEPARATES(ms)
    ridge = float(np.mean([m["regression/ridge/acc"] for m in ms]))
    if v.status != "reproduced":
        status = "not-reproduced" if v.status == "partly" else v.status
        why = f"MTNL does not pass the rule ({v.status})"
    elif vr.status == "reproduced" and sep.status != "reproduced":
        status = "not-reproduced"
        why = ("plain ridge (no tensor structure) passes the same rule and MTNL does not beat it, so the rule "
               "shows no benefit of the tensor network")
    else:
        status = "reproduced"
        why = "MTNL passes the rule and plain ridge does not match it"
    out = Verdict(status, v.measured + f"; plain ridge {ridge:.3f}",
                  f"{why}. MTNL: {v.evidence}. Ridge in MTNL's place: {vr.status} ({vr.measured}). "
                  f"MTNL vs ridge: {sep.status} ({sep.evidence})",
                  value=v.value, ci=v.ci, control=f"plain ridge: {ridge:.3f}; {v.control}")
    return C.apply_gates(out, ms, [_REG_GATE])


def contradict_tensor_regression(ms: list[dict]) -> list[dict]:
    return _REG_RULE.contradict([dict(m) for m in ms])


def control_tensor_regression(ms: list[dict]) -> list[dict]:
    return _with_ridge(ms)


def _not_built(what: str) -> Verdict:
    return Verdict("not-checkable", "nothing measured", what)


def check_structure_prior_guarantees(ms: list[dict]) -> Verdict:
    return _not_built("the paper's theorem is not public; shown instead: structure-prior's planted-rank "
                      "recovery")


def contradict_structure_prior_guarantees(ms: list[dict]) -> list[dict]:
    return [dict(m) for m in ms]


def figure(metrics: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 4, figsize=(20, 4.2))
    ax = axes[0]
    arms = list(ARMS) + ["mean"]
    vals = [[m[f"recovery/{a}/rse"] for m in metrics] for a in arms]
    ax.boxplot(vals, tick_labels=[LABELS[a] for a in arms])
    ax.set_ylabel("RSE on missing entries (lower is better)")
    ax.set_xlabel("arm")
    ax.tick_params(axis="x", rotation=40)
    ax.set_title("recovery, 80% missing")
    ax = axes[1]
    keys = [("uq/mc/spearman", "MC masks"), ("uq/ensemble/spearman", "5-member ensemble"),
            ("uq/heuristic/spearman", "distance heuristic")]
    ax.boxplot([[m[k] for m in metrics] for k, _ in keys], tick_labels=[lab for _, lab in keys])
    ax.set_ylabel("Spearman(std, |error|)")
    ax.set_xlabel("uncertainty estimate")
    ax.set_title("uncertainty")
    ax = axes[2]
    for i, m in enumerate(metrics):
        ax.plot(m["structure/ungated/params"], m["structure/ungated/rse"], "o-", color="C0", alpha=0.5,
                label="ungated TR (uniform ranks)" if i == 0 else None)
        ax.plot([m["structure/gated/params"]], [m["structure/gated/rse"]], "r*", ms=10,
                label="gated TR (learned ranks)" if i == 0 else None)
    ax.set_xlabel("parameters (at effective ranks)")
    ax.set_ylabel("RSE to the clean planted tensor")
    ax.set_yscale("log")
    ax.set_title("structure search, planted TR")
    ax.legend(fontsize=8)
    ax = axes[3]
    keys = [("peft/tn/acc", "MTNL adapter"), ("peft/lora/acc", "peft LoRA"), ("peft/none/acc", "no adapter")]
    ax.boxplot([[m[k] for m in metrics] for k, _ in keys], tick_labels=[lab for _, lab in keys])
    ax.set_ylabel("accuracy on digits 5-9")
    ax.set_xlabel("adapter (base MLP pretrained on 0-4, frozen)")
    ax.set_title("PEFT at about equal parameters")
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    """Public calls with good arguments, for the common bad-input test."""
    rng = np.random.default_rng(0)
    Y = rng.random((3, 3, 2))
    mask = np.ones((3, 3, 2), bool)
    mask[0, 0, 0] = False
    fit = M.fit_mtnl(Y, mask, [("tr", 2)], steps=2)
    return [
        (M.fit_mtnl, {"Y": Y, "mask": mask, "spec": [("tr", 2)], "steps": 2, "lr": 0.01, "tau": 0.001,
                      "wd": 0.0001, "p": 0.1, "seed": 0}),
        (M.predict_mc, {"fit": fit, "T": 3, "seed": 0, "p": 0.1}),
        (M.rse, {"X_hat": Y + 0.1, "X": Y, "mask": mask}),
        (M.make_tn, {"structure": "tr", "shape": (3, 3, 2), "rank": 2}),
        (M.build_mtnl, {"shape": (3, 3, 2), "spec": [("tr", 2), ("fctn", 2)], "seed": 0, "level": 1.0}),
        (M.tensorly_complete, {"Y": Y, "mask": mask, "method": "cp", "rank": 2, "n_iter": 3, "seed": 0}),
        (S.tensorize, {"img": rng.random((4, 4, 3)), "factors": [2, 2]}),
        (S.random_mask, {"shape": (3, 4), "missing": 0.5, "seed": 0}),
        (S.split_mask, {"mask": mask, "frac": 0.2, "seed": 0}),
        (S.distance_to_observed, {"mask_img": mask}),
        (S.planted_tensor_ring, {"dims": [3, 3, 3], "ranks": [2, 2, 2], "snr_db": 30.0, "seed": 0}),
        (S.load_image, {"name": "china", "side": 8}),
        (M.fit_tn_regression, {"X": rng.random((6, 2, 2, 2)), "y": rng.random(6), "spec": [("tr", 2)], "steps": 2,
                               "lr": 0.01, "tau": 0.001, "wd": 0.001, "p": 0.1, "seed": 0},
         {"X": {"wrong shape"}}),  # X with two extra unit modes is a valid higher-order regression problem
        (M.predict_regression, {"fit": M.fit_tn_regression(rng.random((6, 2, 2, 2)), rng.random(6), [("tr", 2)],
                                                           steps=2), "X": rng.random((3, 2, 2, 2))}),
        (M.tensorly_regression, {"X": rng.random((6, 2, 2, 2)), "y": rng.random(6), "X_test": rng.random((3, 2, 2, 2)),
                                 "method": "cp", "rank": 2, "seed": 0}),
    ]
