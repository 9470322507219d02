"""Small-scale reproduction of SHARP-Q (reconstructed): PTQ recipes side by side on three tiny families.

Per seed: draw the calibration set (``n_calib`` training images, unlabelled), train one FP model
per architecture (seeded), then quantize it with every recipe of ``method.RECIPES`` at every
width in ``bits`` (WbAb) and measure test accuracy and KL(p_FP || p_Q) on the test part.

Recipes (all share quantizers, calibration data, block order and steps):
    ``rtn``         uniform, round-to-nearest, clipping searched (no reconstruction);
    ``brecq_mse``   uniform, AdaRound/LSQ block reconstruction on output MSE (control of claim 1);
    ``fimaq``       uniform, static DPLR-Fisher objective (FIMA-Q-like; control of claim 2);
    ``sharpq``      uniform, HAR + dynamic DPLR Fisher (SHARP-Q-like, reconstructed);
    ``kmeans``/``pot`` non-uniform grids with the sharpq pipeline (controls of claim 3);
    ``kmeans_mse``  k-means grid with MSE reconstruction (the premise: non-uniform beats uniform under MSE).

Claims are decided at W3A3 with the pre-registered rule in ``PAPER`` (per-architecture count of
seeds where method > control, the FP-accuracy gate per architecture); W2A2 is reported.
Metric keys: ``<arch>/fp_acc``, ``<arch>/w<b>/<recipe>/acc`` and ``.../kl``, ``har_identity_err``.
"""

from __future__ import annotations

import numpy as np

from icml26.core.paper import Profile, Verdict

FP_GATE = 0.95
DECIDING_BITS = 3
MIN_SEEDS = 5
LABELS = {"rtn": "RTN (uniform)", "brecq_mse": "BRECQ-like MSE", "fimaq": "FIMA-Q-like DPLR",
          "sharpq": "SHARP-Q-like (reconstructed)", "kmeans": "k-means grid (same pipeline)",
          "pot": "power-of-two grid (same pipeline)", "kmeans_mse": "k-means grid, MSE"}


# ----------------------------------------------------------------------------- parts
def train_models(profile: Profile, seed: int, data: dict) -> dict:
    """One FP model per architecture, seeded by (seed, arch)."""
    import torch

    from icml26.llm.sharp_q.setting import ARCHS, build_model, train_fp

    x = torch.cat([data["train"][0], data["val"][0]])
    y = torch.cat([data["train"][1], data["val"][1]])
    models = {}
    for arch in profile["archs"]:
        torch.manual_seed(1000 * seed + ARCHS.index(arch))
        width = profile["width"]
        model = build_model(arch, int(width[arch] if isinstance(width, dict) else width))
        train_fp(model, x, y, epochs=int(profile["epochs"]), lr=1e-2, batch=128, seed=seed)
        models[arch] = model
    return models


def evaluate(model, fp_logits, x, y) -> tuple[float, float]:
    """Test accuracy and mean KL(p_FP || p_Q)."""
    import torch

    with torch.no_grad():
        logits = model(x)
        acc = float((logits.argmax(-1) == y).float().mean())
        lp, lq = torch.log_softmax(fp_logits, -1), torch.log_softmax(logits, -1)
        kl = float((lp.exp() * (lp - lq)).sum(-1).mean())
    return acc, kl


def quantize_all(profile: Profile, seed: int, arch: str, model, calib, x_test, y_test) -> dict:
    import torch

    from icml26.llm.sharp_q.method import quantize, recipe

    out = {}
    with torch.no_grad():
        fp_logits = model(x_test)
    out[f"{arch}/fp_acc"] = float((fp_logits.argmax(-1) == y_test).float().mean())
    for b in profile["bits"]:
        for name in profile["recipes"]:
            q = quantize(model, calib, int(b), int(b), recipe(name, int(profile["steps"])), seed=seed)
            acc, kl = evaluate(q, fp_logits, x_test, y_test)
            out[f"{arch}/w{b}/{name}/acc"], out[f"{arch}/w{b}/{name}/kl"] = acc, kl
    return out


def har_identity(models: dict, calib, x_test, seed: int) -> float:
    """Largest |logit change| caused by HAR's rescaling with every quantizer off, over architectures."""
    import torch

    from icml26.llm.sharp_q.method import rectified_copy

    err = 0.0
    with torch.no_grad():
        for model in models.values():
            r = rectified_copy(model, calib, draws=2, seed=seed)
            err = max(err, float((r(x_test) - model(x_test)).abs().max()))
    return err


def run(profile: Profile, seed: int) -> dict:
    from icml26.core.seeding import seed_everything
    from icml26.llm.sharp_q.setting import calibration_set, digits

    seed_everything(seed)
    data = digits()
    calib = calibration_set(data["train"][0], int(profile["n_calib"]), seed)
    x_test, y_test = data["test"]
    models = train_models(profile, seed, data)
    metrics: dict = {"archs": list(profile["archs"]), "bits": [int(b) for b in profile["bits"]]}
    for arch, model in models.items():
        metrics.update(quantize_all(profile, seed, arch, model, calib, x_test, y_test))
    metrics["har_identity_err"] = har_identity(models, calib, x_test, seed)
    return metrics


# ----------------------------------------------------------------------------- checks
def _control_value(m: dict, arch: str, bits: int, control) -> float:
    if isinstance(control, str):
        return float(m[f"{arch}/w{bits}/{control}/acc"])
    return max(float(m[f"{arch}/w{bits}/{c}/acc"]) for c in control)


def _ctl_name(control) -> str:
    return control if isinstance(control, str) else "best of " + "/".join(control)


def _decide(ms: list, method: str, control) -> Verdict:
    """The pre-registered rule (see ``PAPER``): per architecture, seeds with method - control > 0 at W3A3."""
    ms = list(ms)
    n = len(ms)
    archs = list(ms[0]["archs"])
    bits = [int(b) for b in ms[0]["bits"]]
    gated = [a for a in archs if all(float(m[f"{a}/fp_acc"]) >= FP_GATE for m in ms)]
    lines, ctl_lines, passed = [], [], []
    for a in archs:
        per_bits = []
        for b in bits:
            d = np.array([float(m[f"{a}/w{b}/{method}/acc"]) - _control_value(m, a, b, control) for m in ms])
            wins = int((d > 0).sum())
            mean_m = np.mean([float(m[f"{a}/w{b}/{method}/acc"]) for m in ms])
            mean_c = np.mean([_control_value(m, a, b, control) for m in ms])
            near_chance = all(max(float(m[f"{a}/w{b}/{r}/acc"]) for r in _recipes(m, a, b)) <= 0.2 for m in ms)
            tag = "" if b == DECIDING_BITS else (" (exploratory: all near chance)" if near_chance else " (reported)")
            per_bits.append(f"W{b}A{b}{tag}: {mean_m:.3f} vs {mean_c:.3f}, wins {wins}/{n}")
            if b == DECIDING_BITS:
                ctl_lines.append(f"{a} {mean_c:.3f}")
                if a in gated and wins >= 0.8 * n:
                    passed.append(a)
        fp = np.mean([float(m[f"{a}/fp_acc"]) for m in ms])
        lines.append(f"{a} (FP {fp:.3f}{'' if a in gated else ', fails FP gate'}): " + "; ".join(per_bits))
    measured = f"{LABELS.get(method, method)} vs {_ctl_name(control)}: " + " | ".join(lines)
    control_txt = f"{_ctl_name(control)} at W3A3: " + ", ".join(ctl_lines)
    if DECIDING_BITS not in bits:
        return Verdict("not-checkable", measured, "W3A3 was not run in this profile", control=control_txt)
    evidence = (f"rule: method - control > 0 at W3A3 in >= 80% of seeds for >= 2 of 3 architectures with FP "
                f"accuracy >= {FP_GATE} in every seed; architectures passing: {passed or 'none'}; gated: "
                f"{gated}; {n} seeds")
    if n < MIN_SEEDS:
        return Verdict("not-checkable", measured, f"too few seeds: the rule needs {MIN_SEEDS} seeds; " + evidence,
                       control=control_txt)
    if len(gated) < 2:
        return Verdict("not-checkable", measured, "precondition failed: fewer than 2 architectures pass the FP "
                       "accuracy gate; " + evidence, control=control_txt)
    status = "reproduced" if len(passed) >= 2 else ("partly" if len(passed) == 1 else "not-reproduced")
    return Verdict(status, measured, evidence, value=float(len(passed)), control=control_txt)


def _recipes(m: dict, arch: str, bits: int) -> list[str]:
    pre = f"{arch}/w{bits}/"
    return sorted({k[len(pre):].split("/")[0] for k in m if k.startswith(pre)})


def _contradict(ms: list, method: str, control) -> list:
    out = []
    for m in ms:
        m = dict(m)
        for a in m["archs"]:
            for b in map(int, m["bits"]):
                m[f"{a}/w{b}/{method}/acc"] = _control_value(m, a, b, control) - 0.05
        out.append(m)
    return out


def _on_control(ms: list, method: str, control) -> list:
    out = []
    for m in ms:
        m = dict(m)
        for a in m["archs"]:
            for b in map(int, m["bits"]):
                m[f"{a}/w{b}/{method}/acc"] = _control_value(m, a, b, control)
        out.append(m)
    return out


_PAIRS = {
    "fisher_beats_mse": ("sharpq", "brecq_mse"),
    "har_dfsc_add": ("sharpq", "fimaq"),
    "uniform_beats_nonuniform": ("sharpq", ("kmeans", "pot")),
    "fimaq_beats_mse": ("fimaq", "brecq_mse"),
    "nonuniform_premise": ("kmeans_mse", "brecq_mse"),
}


def check_fisher_beats_mse(ms):
    return _decide(ms, *_PAIRS["fisher_beats_mse"])


def contradict_fisher_beats_mse(ms):
    return _contradict(ms, *_PAIRS["fisher_beats_mse"])


def control_fisher_beats_mse(ms):
    return _on_control(ms, *_PAIRS["fisher_beats_mse"])


def check_har_dfsc_add(ms):
    return _decide(ms, *_PAIRS["har_dfsc_add"])


def contradict_har_dfsc_add(ms):
    return _contradict(ms, *_PAIRS["har_dfsc_add"])


def control_har_dfsc_add(ms):
    return _on_control(ms, *_PAIRS["har_dfsc_add"])


def check_uniform_beats_nonuniform(ms):
    return _decide(ms, *_PAIRS["uniform_beats_nonuniform"])


def contradict_uniform_beats_nonuniform(ms):
    return _contradict(ms, *_PAIRS["uniform_beats_nonuniform"])


def control_uniform_beats_nonuniform(ms):
    return _on_control(ms, *_PAIRS["uniform_beats_nonuniform"])


def check_fimaq_beats_mse(ms):
    return _decide(ms, *_PAIRS["fimaq_beats_mse"])


def contradict_fimaq_beats_mse(ms):
    return _contradict(ms, *_PAIRS["fimaq_beats_mse"])


def control_fimaq_beats_mse(ms):
    return _on_control(ms, *_PAIRS["fimaq_beats_mse"])


def check_nonuniform_premise(ms):
    return _decide(ms, *_PAIRS["nonuniform_premise"])


def contradict_nonuniform_premise(ms):
    return _contradict(ms, *_PAIRS["nonuniform_premise"])


def control_nonuniform_premise(ms):
    return _on_control(ms, *_PAIRS["nonuniform_premise"])


# ----------------------------------------------------------------------------- figure
def figure(metrics: list):
    """Test accuracy per recipe at each width, one panel per architecture (mean and range over seeds)."""
    from matplotlib.figure import Figure

    archs, bits = metrics[0]["archs"], [int(b) for b in metrics[0]["bits"]]
    fig = Figure(figsize=(4.2 * len(archs), 3.4))
    axes = fig.subplots(1, len(archs), squeeze=False)[0]
    for ax, a in zip(axes, archs):
        recipes = _recipes(metrics[0], a, bits[0])
        xs = np.arange(len(recipes))
        for j, b in enumerate(bits):
            vals = np.array([[m[f"{a}/w{b}/{r}/acc"] for r in recipes] for m in metrics])
            mean = vals.mean(0)
            ax.bar(xs + 0.8 * j / len(bits), mean, width=0.8 / len(bits), label=f"W{b}A{b}",
                   yerr=[mean - vals.min(0), vals.max(0) - mean], capsize=2)
        ax.axhline(np.mean([m[f"{a}/fp_acc"] for m in metrics]), color="k", ls="--", lw=1, label="FP32")
        ax.axhline(0.1, color="grey", ls=":", lw=1, label="chance")
        ax.set_xticks(xs + 0.4 * (len(bits) - 1) / len(bits))
        ax.set_xticklabels(recipes, rotation=45, ha="right", fontsize=7)
        ax.set_ylabel("test accuracy (digits)")
        ax.set_xlabel("PTQ recipe")
        ax.set_title(f"{a}: mean and range over {len(metrics)} seeds")
        ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


__all__ = ["run", "figure"]
