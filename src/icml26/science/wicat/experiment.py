"""Small-scale reproduction of WiCAT (ICML 2026 poster 61497) on the simulated multi-mouse world.

One seed = one world (atlas, physiology, subjects) from :mod:`.setting`. Subjects ``0..n_train-1``
are pretraining/training subjects, the rest are unseen. Every session is tokenized twice on the
same registered frame: parcel traces (WiCAT) and grid patches (control); both are z-scored per
session. Parts of :func:`run`:

* ``pretrain_models``: masked pretraining of WiCAT (parcel tokens), of the grid-token model and of
  the per-session-stitcher model, all on the training subjects' task-A sessions, same width, steps,
  optimiser and seed; the gate statistic (masked-token MSE over the mean predictor's) on unseen data.
* ``single_session`` (claim beats-single-session): on each unseen subject's task-A session, with the
  first ``n`` frames labelled (n in ``budgets``): frozen WiCAT + ridge vs the same transformer trained
  from scratch on those frames vs session PCA + ridge; R^2 on the session's second half. Reported
  outside the pass rule (what pretraining buys): the pretrained encoder fine-tuned with the scratch
  control's recipe, and a random-init frozen encoder + the same ridge head.
* ``zero_shot`` (claims zero-shot, cross-task): a ridge head fit on the training subjects' sessions of a
  task, applied with no update to the unseen subjects' second halves; controls: pooled ridge on raw
  parcel-trace windows, the grid-token model, the stitcher model (a new stitcher fit on the target
  session's first ``stitch_frames`` unlabelled frames); reported: a random-init frozen encoder + the
  same pooled ridge head. Task B (other dynamics, other readout) is never
  seen in pretraining.
* ``region_reconstruction`` (claim left-out-region): hide every token of one parcel on an unseen
  subject and reconstruct it; control: ridge from the other parcels fit on training subjects.
"""

from __future__ import annotations

import numpy as np

from icml26.core.cache import cached
from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from icml26.science.wicat.method import (
    EncoderConfig,
    StitchedEncoder,
    TokenEncoder,
    adapt_stitcher,
    config_dict,
    encode,
    encode_stitched,
    make_windows,
    masked_mse,
    masked_mse_ratio,
    patch_targets,
    pretrain,
    pretrain_stitched,
    r2,
    reconstruct_region,
    ridge_fit,
    train_supervised,
)
from icml26.science.wicat.setting import (
    TASKS,
    WorldConfig,
    grid_traces,
    make_world,
    parcel_traces,
    simulate_session,
    zscore,
)

ARMS = {"wicat": "WiCAT (parcel tokens, pretrained)", "grid": "grid-token model", "raw": "pooled ridge on traces",
        "stitch": "per-session stitcher model", "scratch": "same transformer from scratch",
        "pca": "session PCA + ridge", "finetune": "pretrained encoder fine-tuned on the session (reported)",
        "randinit": "random-init frozen encoder + ridge (reported)"}
SINGLE_ARMS = ("wicat", "scratch", "pca", "finetune", "randinit")
ZERO_SHOT_ARMS = ("wicat", "grid", "raw", "stitch", "randinit")


# ----------------------------------------------------------------------------- data
def build_data(wcfg: WorldConfig, seed: int) -> dict:
    """Simulate every session of the world and tokenize it (cached on disk per config and seed)."""
    def build():
        world = make_world(wcfg, seed)
        inside = world.atlas >= 0
        out = {"atlas": world.atlas}
        for task in TASKS:
            for s in range(wcfg.n_subjects):
                sess = simulate_session(world, s, task, seed)
                out[f"{task}/{s}/parcel"] = zscore(parcel_traces(sess.frames, world.atlas)).astype(np.float32)
                out[f"{task}/{s}/grid"] = zscore(grid_traces(sess.frames, inside, wcfg.grid_patch)).astype(np.float32)
                out[f"{task}/{s}/y"] = sess.behaviour.astype(np.float32)
        return out

    params = {**wcfg.__dict__, "seed": int(seed), "v": 2}
    return cached("wicat", "data", build, params=params, fmt="npz")


def _cfg(profile: Profile, n_channels: int) -> EncoderConfig:
    return EncoderConfig(n_channels=n_channels, n_patches=int(profile["n_patches"]),
                         patch_len=int(profile["patch_len"]), d_model=int(profile["d_model"]),
                         n_layers=int(profile["n_layers"]), n_heads=int(profile["n_heads"]))


def _windows(x: np.ndarray, profile: Profile, stride: int | None = None) -> np.ndarray:
    return make_windows(x, int(profile["n_patches"]), int(profile["patch_len"]), stride)


def _targets(y: np.ndarray, profile: Profile, stride: int | None = None) -> np.ndarray:
    return patch_targets(y, int(profile["n_patches"]), int(profile["patch_len"]), stride)


# ----------------------------------------------------------------------------- pretraining
def _pretrain_lr(profile: Profile) -> float:
    """Peak learning rate of the three pretrained arms (``pretrain_lr``; ``lr`` stays the from-scratch control's)."""
    return float(profile.get("pretrain_lr", profile["lr"]))


def _cached_model(kind: str, cfg: EncoderConfig, profile: Profile, seed: int, wcfg: WorldConfig, build):
    import torch

    params = {"kind": kind, **config_dict(cfg), "steps": int(profile["steps"]), "batch": int(profile["batch"]),
              "lr": _pretrain_lr(profile), "world": wcfg.__dict__, "n_train": int(profile["n_train"]),
              "seed": int(seed), "v": 2}
    blob = cached("wicat", kind, build, params=params, fmt="pt")
    torch.manual_seed(seed)
    return blob


def pretrain_models(data: dict, profile: Profile, seed: int, wcfg: WorldConfig) -> tuple[dict, dict]:
    """Pretrain WiCAT, the grid-token model and the stitcher model on the training subjects' task-A sessions."""
    n_train, stride = int(profile["n_train"]), int(profile["patch_len"])
    kw = dict(steps=int(profile["steps"]), batch=int(profile["batch"]), lr=_pretrain_lr(profile), seed=seed)
    models, metrics = {}, {}
    for kind in ("parcel", "grid"):
        x = np.concatenate([_windows(data[f"A/{s}/{kind}"], profile, stride) for s in range(n_train)])
        cfg = _cfg(profile, x.shape[1])

        def build(x=x, cfg=cfg):
            m, hist = pretrain(x, cfg, **kw)
            return {"state": m.state_dict(), "hist": hist}

        blob = _cached_model(kind, cfg, profile, seed, wcfg, build)
        model = TokenEncoder(cfg)
        model.load_state_dict(blob["state"])
        models[kind] = model.eval()
        arm = "wicat" if kind == "parcel" else "grid"
        held = np.concatenate([_windows(data[f"A/{s}/{kind}"], profile)
                               for s in range(n_train, wcfg.n_subjects)])
        metrics[f"gate/{arm}_mse_ratio"] = masked_mse_ratio(model, held, seed=seed)
        metrics[f"train/{arm}_loss_first_last"] = [float(np.mean(blob["hist"][:10])),
                                                    float(np.mean(blob["hist"][-10:]))]
    wins = [_windows(data[f"A/{s}/parcel"], profile, stride) for s in range(n_train)]
    cfg = _cfg(profile, wins[0].shape[1])

    def build_st():
        m, hist = pretrain_stitched(wins, cfg, **kw)
        return {"state": m.state_dict(), "hist": hist}

    blob = _cached_model("stitch2", cfg, profile, seed, wcfg, build_st)
    st = StitchedEncoder(cfg, wins[0].shape[1], n_train)
    st.load_state_dict(blob["state"])
    models["stitch"] = st.eval()
    metrics["train/stitch_loss_first_last"] = [float(np.mean(blob["hist"][:10])), float(np.mean(blob["hist"][-10:]))]
    # reported control (what pretraining buys): the same encoder at its random initialisation, frozen
    import torch

    torch.manual_seed(seed)
    models["random"] = TokenEncoder(models["parcel"].cfg).eval()
    return models, metrics


def _stitch_mse_ratio(model: StitchedEncoder, windows: np.ndarray, session: int, seed: int) -> float:
    import torch

    with torch.no_grad():
        x = torch.as_tensor(windows, dtype=torch.float32)
        gen = torch.Generator().manual_seed(seed)
        m = torch.rand(x.shape[:3], generator=gen) < 0.5
        _, rec = model(x, session, m)
        return float(masked_mse(rec, x, m) / masked_mse(torch.zeros_like(x), x, m))


# ----------------------------------------------------------------------------- parts
def _halves(profile: Profile, wcfg: WorldConfig) -> int:
    return wcfg.n_frames // 2


def single_session(models: dict, data: dict, profile: Profile, seed: int, wcfg: WorldConfig) -> dict:
    """Pretrained + ridge vs single-session models at each labelled-frame budget, on unseen subjects (task A).

    Reported arms outside the pass rule: the pretrained encoder fine-tuned end to end with the scratch
    control's recipe (same steps, lr, seed, batches), and a random-init frozen encoder + the same ridge head.
    """
    import torch
    from sklearn.decomposition import PCA

    n_train, p = int(profile["n_train"]), int(profile["patch_len"])
    half = _halves(profile, wcfg)
    budgets = [int(b) for b in profile["budgets"]]
    out = {f"single/{a}/r2": [] for a in SINGLE_ARMS}
    for n in budgets:
        per = {a: [] for a in SINGLE_ARMS}
        for s in range(n_train, wcfg.n_subjects):
            x, y = data[f"A/{s}/parcel"], data[f"A/{s}/y"]
            xl, yl, xt, yt = x[:n], y[:n], x[half:], y[half:]
            # windows every P frames (overlapping crops); the ridge heads pick alpha on contiguous blocks
            wl, tl = _windows(xl, profile, p), _targets(yl, profile, p)
            wt, tt = _windows(xt, profile), _targets(yt, profile)
            for arm, enc in (("wicat", models["parcel"]), ("randinit", models["random"])):
                head = ridge_fit(encode(enc, wl), tl, folds=5)
                per[arm].append(r2(tt, head.predict(encode(enc, wt))))
            cfg = models["parcel"].cfg
            for arm, init in (("scratch", None), ("finetune", models["parcel"])):
                sup = train_supervised(wl, tl.reshape(wl.shape[0], -1), cfg, steps=int(profile["sup_steps"]),
                                       batch=int(profile["batch"]), lr=float(profile["lr"]), seed=seed + 17 * s + n,
                                       init=init)
                with torch.no_grad():
                    pred = sup(torch.as_tensor(wt)).numpy().reshape(-1)
                per[arm].append(r2(tt, pred))
            pca = PCA(n_components=int(profile["n_pcs"]), random_state=0).fit(xl)
            fl = _windows(pca.transform(xl), profile, p).transpose(0, 2, 1, 3).reshape(-1, pca.n_components_ * p)
            ft = _windows(pca.transform(xt), profile).transpose(0, 2, 1, 3).reshape(-1, pca.n_components_ * p)
            per["pca"].append(r2(tt, ridge_fit(fl, tl, folds=5).predict(ft)))
        for a in per:
            out[f"single/{a}/r2"].append(float(np.mean(per[a])))
            out[f"single/{a}/r2_{n}"] = float(np.mean(per[a]))
    out["single/budgets"] = budgets
    return out


def zero_shot(models: dict, data: dict, profile: Profile, seed: int, wcfg: WorldConfig, task: str) -> dict:
    """Behaviour decoders fit on training subjects, applied unchanged to unseen subjects' second halves."""
    n_train, n_sub = int(profile["n_train"]), wcfg.n_subjects
    half, p = _halves(profile, wcfg), int(profile["patch_len"])
    st: StitchedEncoder = models["stitch"]
    feats = {a: ([], []) for a in ZERO_SHOT_ARMS}
    for s in range(n_train):
        w, g = _windows(data[f"{task}/{s}/parcel"], profile), _windows(data[f"{task}/{s}/grid"], profile)
        y = _targets(data[f"{task}/{s}/y"], profile)
        # a training subject keeps the stitcher learned on its task-A session (same animal)
        for a, f in (("wicat", encode(models["parcel"], w)), ("grid", encode(models["grid"], g)),
                     ("raw", w.transpose(0, 2, 1, 3).reshape(-1, w.shape[1] * p)),
                     ("stitch", encode_stitched(st, w, s)), ("randinit", encode(models["random"], w))):
            feats[a][0].append(f)
            feats[a][1].append(y)
    # alpha picked on contiguous blocks of the pooled rows (about one block per training subject)
    heads = {a: ridge_fit(np.concatenate(f), np.concatenate(y), folds=n_train) for a, (f, y) in feats.items()}
    scores = {a: [] for a in heads}
    ratios = []
    for s in range(n_train, n_sub):
        x, g, y = data[f"{task}/{s}/parcel"], data[f"{task}/{s}/grid"], data[f"{task}/{s}/y"]
        wt, gt, tt = _windows(x[half:], profile), _windows(g[half:], profile), _targets(y[half:], profile)
        k = adapt_stitcher(st, _windows(x[:int(profile["stitch_frames"])], profile, p),
                           steps=int(profile["adapt_steps"]), batch=int(profile["batch"]), seed=seed + 31 * s)
        ratios.append(_stitch_mse_ratio(st, wt, k, seed))
        fs = {"wicat": encode(models["parcel"], wt), "grid": encode(models["grid"], gt),
              "raw": wt.transpose(0, 2, 1, 3).reshape(-1, wt.shape[1] * p), "stitch": encode_stitched(st, wt, k),
              "randinit": encode(models["random"], wt)}
        for a in heads:
            scores[a].append(r2(tt, heads[a].predict(fs[a])))
    out = {f"zeroshot/{task}/{a}/r2": float(np.mean(v)) for a, v in scores.items()}
    out[f"gate/stitch_mse_ratio_{task}"] = float(np.mean(ratios))
    return out


def region_reconstruction(models: dict, data: dict, profile: Profile, wcfg: WorldConfig) -> dict:
    """Left-out parcel reconstruction on unseen subjects (task A second halves) vs ridge from other parcels."""
    n_train, half = int(profile["n_train"]), _halves(profile, wcfg)
    train = np.concatenate([data[f"A/{s}/parcel"] for s in range(n_train)])
    n_reg = train.shape[1]
    ours, ridge = [], []
    for s in range(n_train, wcfg.n_subjects):
        xt = data[f"A/{s}/parcel"][half:]
        wt = _windows(xt, profile)
        used = wt.shape[0] * wt.shape[2] * wt.shape[3]
        for r in range(n_reg):
            truth = wt[:, r].reshape(wt.shape[0], -1)
            ours.append(r2(truth, reconstruct_region(models["parcel"], wt, r)))
            others = [c for c in range(n_reg) if c != r]
            head = ridge_fit(train[:, others], train[:, r], alphas=np.logspace(-3, 3, 7))
            ridge.append(r2(xt[:used, r], head.predict(xt[:used, others])))
    return {"region/wicat/r2": float(np.mean(ours)), "region/ridge/r2": float(np.mean(ridge)),
            "region/wicat/r2_per_region": [float(v) for v in ours[:n_reg]]}


def world_config(profile: Profile) -> WorldConfig:
    return WorldConfig(n_subjects=int(profile["n_subjects"]), n_frames=int(profile["n_frames"]),
                       n_regions=int(profile["n_regions"]))


def run(profile: Profile, seed: int) -> dict:
    import torch

    seed_everything(seed)
    torch.set_num_threads(max(1, int(profile.cpus)))
    wcfg = world_config(profile)
    data = build_data(wcfg, seed)
    models, metrics = pretrain_models(data, profile, seed, wcfg)
    metrics.update(single_session(models, data, profile, seed, wcfg))
    for task in TASKS:
        metrics.update(zero_shot(models, data, profile, seed, wcfg, task))
    metrics.update(region_reconstruction(models, data, profile, wcfg))
    return metrics


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    ax = axes[0]
    budgets = metrics[0]["single/budgets"]
    for a in SINGLE_ARMS:
        if f"single/{a}/r2" not in metrics[0]:
            continue
        v = np.array([m[f"single/{a}/r2"] for m in metrics])
        ax.errorbar(budgets, v.mean(0), yerr=v.std(0), marker="o", capsize=3, label=ARMS[a],
                    ls="--" if a in ("finetune", "randinit") else "-")
    ax.set_xlabel("labelled frames of the unseen subject's session")
    ax.set_ylabel("behaviour R$^2$ (second half)")
    ax.set_title("vs single-session models")
    ax.legend(fontsize=7)
    ax = axes[1]
    arms = tuple(a for a in ZERO_SHOT_ARMS if f"zeroshot/A/{a}/r2" in metrics[0])
    for j, task in enumerate(TASKS):
        v = np.array([[m[f"zeroshot/{task}/{a}/r2"] for a in arms] for m in metrics])
        ax.bar(np.arange(len(arms)) + 0.4 * j, v.mean(0), 0.4, yerr=v.std(0), capsize=3, label=f"task {task}")
    ax.axhline(0.3, color="k", ls=":", lw=1, label="R$^2$ = 0.3 (pass bar)")
    ax.set_xticks(np.arange(len(arms)) + 0.2, [ARMS[a].split(" (")[0] for a in arms], rotation=20, fontsize=7)
    ax.set_xlabel("decoder (zero-shot on unseen subjects)")
    ax.set_ylabel("behaviour R$^2$")
    ax.legend(fontsize=7)
    ax = axes[2]
    a = [m["region/wicat/r2"] for m in metrics]
    b = [m["region/ridge/r2"] for m in metrics]
    ax.scatter(b, a)
    lo, hi = min(a + b) - 0.05, max(a + b) + 0.05
    ax.plot([lo, hi], [lo, hi], "k:", lw=1)
    ax.set_xlabel("left-out region R$^2$, ridge from other regions")
    ax.set_ylabel("left-out region R$^2$, WiCAT")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- bad-input examples
def EXAMPLES():
    from icml26.science.wicat import method, setting

    rng = np.random.default_rng(0)
    atlas = setting.make_atlas(16, 4, rng)
    frames = rng.standard_normal((10, 16, 16))
    traces = rng.standard_normal((40, 4))
    cfg = method.EncoderConfig(n_channels=4, n_patches=2, patch_len=4, d_model=8, n_layers=1, n_heads=2)
    model = method.TokenEncoder(cfg).eval()
    win = rng.standard_normal((3, 4, 2, 4)).astype(np.float32)
    return [
        (setting.parcel_traces, {"frames": frames, "atlas": atlas}),
        (setting.grid_traces, {"frames": frames, "inside": atlas >= 0, "patch": 4}),
        (setting.zscore, {"x": traces}),
        (method.make_windows, {"traces": traces, "n_patches": 2, "patch_len": 4}),
        (method.patch_targets, {"y": traces[:, 0].copy(), "n_patches": 2, "patch_len": 4}),
        (method.encode, {"model": model, "windows": win}),
        (method.reconstruct_region, {"model": model, "windows": win, "channel": 1}),
        (method.ridge_fit, {"features": traces, "y": traces[:, 0].copy()}),
        (method.pretrain, {"windows": win, "cfg": cfg, "steps": 2, "batch": 2, "lr": 1e-3}),
    ]


# ----------------------------------------------------------------------------- zero-shot (review)
def check_zero_shot(ms: list[dict]):
    """The pre-registered declarative rule of ``_zero_shot("A")`` (R^2 >= 0.3 and above each control,
    one-sided Wilcoxon), with 'partly' tightened by review after the full run (partly -> not-reproduced):
    partly needs, against each control put in WiCAT's place, a part of the rule that WiCAT passes and
    that control fails. In the full run the pooled ridge on raw traces, in WiCAT's place, passes every
    part WiCAT passes (R^2 0.408 >= 0.3; above the grid-token model, p=0.0312; above the stitcher,
    p=0.0312), and WiCAT is not above it (+0.0126 [-0.0078, 0.0332], p=0.219). The common test had put
    the stitcher (the last control of the chain) in WiCAT's place, which read partly through the R^2
    threshold alone (0.305)."""
    from dataclasses import replace

    from icml26.core.checks import control_in_method
    from icml26.science.wicat import _zero_shot

    chk = _zero_shot("A")
    v = chk(ms)
    if v.status != "partly":
        return v
    parts = chk.inner.parts
    mine = [p(ms).status == "reproduced" for p in parts]
    key = "zeroshot/A/wicat/r2"
    found = []
    for ctl, label in (("raw", "pooled ridge on traces"), ("grid", "grid-token model"),
                       ("stitch", "stitcher model (300 frames)")):
        sub = control_in_method(ms, key, f"zeroshot/A/{ctl}/r2")
        theirs = [p(sub).status == "reproduced" for p in parts]
        found.append((label, any(a and not b for a, b in zip(mine, theirs))))
    ok = all(f for _, f in found)
    note = ("; partly needs, against each control in WiCAT's place, a part WiCAT passes and it fails: "
            + ", ".join(f"{label} {'yes' if f else 'no'}" for label, f in found)
            + " (changed by review after the full run: partly -> not-reproduced)")
    return replace(v, status="partly" if ok else "not-reproduced", evidence=v.evidence + note)


def contradict_zero_shot(ms: list[dict]) -> list[dict]:
    from icml26.science.wicat import _zero_shot

    return _zero_shot("A").contradict(ms)


def control_zero_shot(ms: list[dict]) -> list[dict]:
    """The strongest control, pooled ridge on raw parcel traces, in WiCAT's place (review after the full
    run; the declarative chain had left the stitcher, the weakest, there)."""
    from icml26.core.checks import control_in_method

    return control_in_method(ms, "zeroshot/A/wicat/r2", "zeroshot/A/raw/r2")
