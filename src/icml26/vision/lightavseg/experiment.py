"""Small-scale reproduction of LightAVSeg (arXiv:2605.08805): accuracy, cost and the alignment loss.

One seed runs four named parts:

* ``data``: generated MS3-like scenes (1-3 sounding objects among silent look-alike
  distractors, mixture audio with noise; :mod:`.setting`), train and test drawn from the seed;
* ``arms``: five models on one backbone, decoder, loss, initialisation and batch order, differing
  only in the interaction (``light`` = LightAVSeg, ``light_align`` = LightAVSeg + the training-only
  alignment loss, ``attention`` = AVSegFormer-like dense attention, ``concat`` = naive fusion,
  ``none`` = no audio). Each is scored by mIoU (mean per-frame IoU, in points) on the whole test
  set (multi-source), its distractor frames (>= 1 silent object) and its single-source frames;
* ``cost``: fvcore FLOPs of one interaction module (stride-4 features, 32 channels) at input sizes
  64-256 px, and the inference parameters and FLOPs of the deployed models with and without the
  alignment loss (deterministic);
* ``timing``: CPU wall clock of the light module against the dense-attention module at the same
  sizes (``icml26.core.timing.compare``, under ``timing/``).

Claims map to: accuracy at linear cost -> ``ms3/<arm>/miou``; linear FLOPs -> ``cost/flops/*``;
the growing wall-clock ratio -> ``timing/slope/*``; the alignment loss -> ``ms3/light_align/miou``
against ``ms3/light/miou``; zero overhead -> ``cost/inference_*``. The audio gate: every
audio-conditioned arm beats ``none`` by >= 15 points on distractor frames.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything

ARMS = ("light", "light_align", "attention", "concat", "none")
LABELS = {"light": "LightAVSeg", "light_align": "LightAVSeg + alignment loss", "attention": "dense attention",
          "concat": "concat fusion", "none": "audio-free"}
CACHE = Path.home() / ".cache" / "icml26" / "lightavseg"


# --------------------------------------------------------------------------- data
def data(profile: Profile, seed: int) -> dict:
    """Train and test scenes of one seed (cached on disk, keyed by their parameters and the seed)."""
    from icml26.vision.lightavseg.setting import make_scenes

    size, n_train, n_test = int(profile["size"]), int(profile["n_train"]), int(profile["n_test"])
    key = hashlib.sha1(json.dumps([size, n_train, n_test, int(seed), 1]).encode()).hexdigest()[:16]
    path = CACHE / f"scenes_{key}.npz"
    if path.exists():
        try:
            with np.load(path) as z:
                return {k: z[k] for k in z.files}
        except (OSError, ValueError):
            pass
    out = {}
    for part, n, stream in (("train", n_train, 1), ("test", n_test, 2)):
        sc = make_scenes(n, size, np.random.default_rng([int(seed), stream]))
        out.update({f"{part}_images": sc.images, f"{part}_masks": sc.masks, f"{part}_audio": sc.audio,
                    f"{part}_n_sound": sc.n_sound, f"{part}_n_silent": sc.n_silent})
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{np.random.default_rng().integers(1 << 30)}.tmp.npz")
    np.savez_compressed(tmp, **out)
    tmp.replace(path)
    return out


# --------------------------------------------------------------------------- arms
def arms(profile: Profile, seed: int, d: dict) -> dict:
    """Train every arm from the same initialisation and batch order; score it on the test set."""
    import torch
    from torchmetrics.functional.classification import binary_fbeta_score, binary_jaccard_index

    from icml26.vision.lightavseg.method import AVSegModel, count_parameters, frame_iou, predict, train_model

    mu, sd = float(d["train_audio"].mean()), float(d["train_audio"].std())  # train statistics only
    tr_spec, te_spec = (d["train_audio"] - mu) / sd, (d["test_audio"] - mu) / sd
    target = torch.as_tensor(d["test_masks"])
    subsets = {"ms3": np.ones(len(target), bool), "distractor": d["test_n_silent"] > 0,
               "single": d["test_n_sound"] == 1}
    out: dict = {f"n_test/{k}": float(v.sum()) for k, v in subsets.items()}
    for arm in profile["arms"]:
        kind = "light" if arm == "light_align" else arm
        torch.manual_seed(int(seed))  # same initialisation for light and light_align
        model = AVSegModel(kind)
        hist = train_model(model, d["train_images"], d["train_masks"], tr_spec, steps=int(profile["steps"]),
                           batch=int(profile["batch"]), lr=float(profile["lr"]),
                           align_weight=float(profile["align_weight"]) if arm == "light_align" else 0.0,
                           seed=int(seed))
        logits = predict(model, d["test_images"], te_spec)
        iou = frame_iou(logits, target).numpy()
        for name, sel in subsets.items():
            out[f"{name}/{arm}/miou"] = 100.0 * float(iou[sel].mean())
        probs = torch.sigmoid(logits).flatten()
        out[f"ms3/{arm}/pixel_iou"] = 100.0 * float(binary_jaccard_index(probs, target.flatten().long()))
        out[f"ms3/{arm}/fscore"] = float(binary_fbeta_score(probs, target.flatten().long(), beta=0.3 ** 0.5))
        out[f"train/{arm}/loss_drop"] = hist["loss_drop"]
        out[f"train/{arm}/seg_loss"] = [float(np.mean(hist["seg"][i:i + 10])) for i in range(0, len(hist["seg"]), 10)]
        out[f"params/{arm}"] = float(count_parameters(model))
    if "none" in profile["arms"]:
        for arm in profile["arms"]:
            if arm != "none":
                out[f"gap/{arm}"] = out[f"distractor/{arm}/miou"] - out["distractor/none/miou"]
    return out


# --------------------------------------------------------------------------- cost
def cost(profile: Profile) -> dict:
    """FLOPs of the interaction modules against input size; inference cost with and without L_align."""
    import torch
    from fvcore.nn import FlopCountAnalysis

    from icml26.vision.lightavseg.method import AVSegModel, count_parameters, interaction_flops

    px = [int(p) for p in profile["cost_px"]]
    out: dict = {"cost/px": px, "cost/pixels": [float(p * p) for p in px]}
    for kind in ("light", "attention", "concat"):
        out[f"cost/flops/{kind}"] = [interaction_flops(kind, 32, p // 4) for p in px]
    # deployed models: the alignment loss's heads live outside AVSegModel, so both arms deploy this class
    s = int(profile["size"])
    inputs = (torch.zeros(1, 3, s, s), torch.zeros(1, 1, 16, 32))
    for arm in ("light", "light_align"):
        torch.manual_seed(0)
        model = AVSegModel("light").eval()
        fl = FlopCountAnalysis(model, inputs)
        fl.unsupported_ops_warnings(False)
        fl.uncalled_modules_warnings(False)
        out[f"cost/inference_params/{arm}"] = float(count_parameters(model))
        out[f"cost/inference_flops/{arm}"] = float(fl.total())
    from icml26.vision.lightavseg.method import AlignmentHeads

    out["cost/train_only_params/light_align"] = float(count_parameters(AlignmentHeads(32, 64)))
    return out


# --------------------------------------------------------------------------- timing
def timing(profile: Profile) -> dict:
    """CPU wall clock of one interaction module (light vs dense attention), batch 1, forward only."""
    import torch

    from icml26.core.stats import loglog_slope
    from icml26.core.timing import compare
    from icml26.vision.lightavseg.method import make_interaction

    px = [int(p) for p in profile["timing_px"]]
    torch.manual_seed(0)
    light, attn = make_interaction("light", 32, 64).eval(), make_interaction("attention", 32, 64).eval()
    a, tok = torch.randn(1, 64), torch.randn(1, 16, 64)
    t_light, t_attn = [], []
    with torch.no_grad():
        for p in px:
            f = torch.randn(1, 32, p // 4, p // 4)
            r = compare(lambda: attn(f, a, tok), lambda: light(f, a, tok), repeats=int(profile["timing_repeats"]))
            t_light.append(r["method"]["wall_median"])
            t_attn.append(r["baseline"]["wall_median"])
    pixels = [float(p * p) for p in px]
    return {"timing/px": px, "timing/light_s": t_light, "timing/attention_s": t_attn,
            "timing/speedup": [b / m for b, m in zip(t_attn, t_light)],
            "timing/light_s_max": t_light[-1], "timing/attention_s_max": t_attn[-1],
            "timing/slope/light": loglog_slope(pixels, t_light)[0],
            "timing/slope/attention": loglog_slope(pixels, t_attn)[0]}


def run(profile: Profile, seed: int) -> dict:
    import torch  # noqa: F401  (imported first so that seed_everything seeds it)

    seed_everything(seed)
    d = data(profile, seed)
    out = {"size": float(profile["size"])}
    out.update(arms(profile, seed, d))
    out.update(cost(profile))
    out.update(timing(profile))
    return out


# --------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(14, 4))
    ax1, ax2, ax3 = fig.subplots(1, 3)
    arms_here = [a for a in ARMS if f"ms3/{a}/miou" in ms[0]]
    x = np.arange(len(arms_here))
    for j, (sub, name) in enumerate((("ms3", "all (multi-source)"), ("distractor", "distractor frames"),
                                     ("single", "single-source"))):
        vals = np.array([[m[f"{sub}/{a}/miou"] for a in arms_here] for m in ms])
        ax1.bar(x + 0.27 * (j - 1), vals.mean(0), 0.27, yerr=vals.std(0), label=name)
    ax1.set_xticks(x, [LABELS[a] for a in arms_here], rotation=20, ha="right", fontsize=8)
    ax1.set_ylabel("mIoU on generated test scenes (points)")
    ax1.set_title("accuracy (mean and sd over seeds)")
    ax1.legend(fontsize=7)
    px = np.array(ms[0]["cost/px"], float)
    for kind, c in (("light", "C0"), ("attention", "C3"), ("concat", "C2")):
        ax2.loglog(px, np.mean([m[f"cost/flops/{kind}"] for m in ms], 0), "o-", color=c, label=kind)
    ax2.set_xlabel("input side (px); module on stride-4 features")
    ax2.set_ylabel("interaction FLOPs (fvcore)")
    ax2.set_title("interaction cost vs resolution")
    ax2.legend(fontsize=7)
    tpx = np.array(ms[0]["timing/px"], float)
    for kind, c in (("light", "C0"), ("attention", "C3")):
        ax3.loglog(tpx, 1e3 * np.median([m[f"timing/{kind}_s"] for m in ms], 0), "o-", color=c, label=kind)
    ax3.set_xlabel("input side (px)")
    ax3.set_ylabel("CPU wall clock per call (ms, median over seeds)")
    ax3.set_title("interaction module latency, batch 1")
    ax3.legend(fontsize=7)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- bad-input examples
def EXAMPLES():
    import torch

    from icml26.vision.lightavseg import method, setting

    g = torch.Generator().manual_seed(0)
    logits, target = torch.randn(2, 8, 8, generator=g), (torch.rand(2, 8, 8, generator=g) > 0.5).float()
    images = np.random.default_rng(0).random((4, 3, 16, 16))
    masks = (images[:, 0] > 0.5).astype(float)
    specs = np.random.default_rng(1).normal(size=(4, 1, 16, 32))
    model = method.AVSegModel("light")
    return [
        *setting.EXAMPLES_SETTING(),
        (method.seg_loss, {"logits": logits, "target": target}),
        (method.frame_iou, {"logits": logits, "target": target}),
        (method.alignment_loss, {"visual": torch.randn(4, 8, generator=g), "audio": torch.randn(4, 8, generator=g),
                                 "temperature": 0.1}),
        (method.masked_pool, {"feat": torch.randn(2, 4, 4, 4, generator=g), "mask": target}),
        (method.make_interaction, {"kind": "light", "channels": 8, "audio_dim": 4}),
        (method.interaction_flops, {"kind": "attention", "channels": 8, "side": 4, "audio_dim": 4, "n_tokens": 2}),
        (method.train_model, {"model": model, "images": images, "masks": masks, "specs": specs, "steps": 1,
                              "batch": 2, "lr": 1e-3, "align_weight": 0.1, "temperature": 0.1, "seed": 0}),
        (method.predict, {"model": model, "images": images, "specs": specs, "batch": 2}),
    ]
