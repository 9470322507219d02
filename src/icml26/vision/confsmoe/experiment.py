"""Small-scale reproduction of ConfSMoE (arXiv:2505.19525): missing-modality digits.

Kept from the paper: the architecture (per-modality encoders to tokens, learned positional
embedding, one fusion layer = self-attention + per-modality sparse MoE feed-forward block with a
noisy top-2 router over 8 experts), the confidence-guided gate (per-expert sigmoid heads trained
by MSE towards the probe's probability of the true label, mixture weights = confidences, no
load-balance loss), the two-stage imputation (modality-pool average of 10 training inputs, then
sparse cross-attention over the other modalities' expert outputs), the loss ``CE + L_conf``, Adam,
random missing modalities at the same rate in training and test, macro-F1 as the headline metric.

Replaced: MIMIC-III/IV and CMU-MOSI/MOSEI by scikit-learn's 8x8 digits (shared split of the
``vision`` cluster, train part for training, test part for every number reported). Three
modalities cut from each image: the top half (rows 0-3, 32 px), the bottom half (rows 4-7, 32 px)
and a derived view (2x2 average pooling to 4x4 plus Gaussian noise, sd ``feat_noise``). Each modality
is dropped independently with rate ``r`` (a sample that lost all keeps one at random); training and
test masks are drawn once per (seed, r) and shared by all variants. Widths are tiny (d = 16,
4 tokens per modality, 2 heads) and training is short (``epochs`` of batch 256).

Variants trained side by side on identical data, masks and seeds:
``confsmoe`` (paper: confidence gate, router trained through a straight-through weight, two-stage
imputation), ``confsmoe_released`` (as the released code: confidence gate, router never receives a
gradient), ``softmax`` (noisy top-2 softmax gate, same imputation), ``laplace`` (FuseMoE's Laplace
gate, same imputation), ``conf_zero_fill`` (confidence gate, missing modalities as zero tokens, no
stage 2) and ``dense`` (dense feed-forward fusion, stage-1 pool imputation).

Metrics per seed, for each variant ``v`` and missing rate ``r`` (percent in the key, e.g. ``r50``):
``f1_<v>_r<r>``, ``acc_<v>_r<r>`` (test), and for sparse variants ``entropy_<v>_r<r>`` (expert-usage
entropy / log E over test tokens), ``maxshare_<v>_r<r>``, ``mi_<v>_r<r>`` (I(expert; class) in bits)
and ``mix_<v>_r<r>`` (that MI minus its mean under label permutations), ``mimod_<v>_r<r>``
(I(expert; modality)); for confidence variants ``corr_<v>_r<r>`` (Pearson correlation of c_i with
the probe's p_i on test tokens). Also ``rates`` and ``variants``.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import fmt_p, mean_ci, one_sample_test, paired_test
from icml26.vision._data import load_digits_split
from icml26.vision.confsmoe.method import ConfSMoEClassifier, routing_statistics, sample_missing_mask

VARIANTS = {
    "confsmoe": dict(gate="confidence", router_grad="straight_through", imputation="two_stage"),
    "confsmoe_released": dict(gate="confidence", router_grad="none", imputation="two_stage"),
    "softmax": dict(gate="softmax", imputation="two_stage"),
    "laplace": dict(gate="laplace", imputation="two_stage"),
    "conf_zero_fill": dict(gate="confidence", router_grad="straight_through", imputation="zero"),
    "dense": dict(ffn="dense", imputation="pool"),
}
LABELS = {"confsmoe": "ConfSMoE (paper)", "confsmoe_released": "ConfSMoE (released code)",
          "softmax": "softmax SMoE", "laplace": "Laplace SMoE", "conf_zero_fill": "conf gate, zero fill",
          "dense": "dense fusion"}
COLORS = {"confsmoe": "tab:red", "confsmoe_released": "tab:pink", "softmax": "tab:blue",
          "laplace": "tab:green", "conf_zero_fill": "tab:orange", "dense": "tab:gray"}


def key(metric: str, variant: str, rate: float) -> str:
    return f"{metric}_{variant}_r{int(round(rate * 100))}"


def make_modalities(x: np.ndarray, rng: np.random.Generator, feat_noise: float) -> list[np.ndarray]:
    """(n, 64) pixels in [0, 1] -> [top half (n, 32), bottom half (n, 32), pooled + noise (n, 16)]."""
    img = x.reshape(-1, 8, 8)
    pooled = img.reshape(-1, 4, 2, 4, 2).mean((2, 4)).reshape(-1, 16)
    noisy = pooled + feat_noise * rng.standard_normal(pooled.shape)
    return [img[:, :4].reshape(-1, 32), img[:, 4:].reshape(-1, 32), noisy.astype(np.float32)]


def _train_eval(variant: str, xs_tr, pres_tr, y_tr, xs_te, pres_te, y_te, p: Profile, init_seed: int) -> dict:
    torch.manual_seed(init_seed)
    model = ConfSMoEClassifier([x.shape[1] for x in xs_tr], 10, d=p["d"], tokens=p["tokens"],
                               n_experts=p["n_experts"], top_k=p["top_k"], n_heads=p["n_heads"],
                               dropout=p["dropout"], **VARIANTS[variant])
    model.set_pools([x[pres_tr[:, m]] for m, x in enumerate(xs_tr)])
    opt = torch.optim.Adam(model.parameters(), lr=p["lr"])
    n, bs = y_tr.shape[0], p["batch"]
    for _ in range(p["epochs"]):
        model.train()
        perm = torch.randperm(n)
        for s in range(0, n, bs):
            b = perm[s:s + bs]
            logits, aux = model([x[b] for x in xs_tr], pres_tr[b], y_tr[b])
            loss = torch.nn.functional.cross_entropy(logits, y_tr[b]) + aux["conf_loss"]
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with torch.no_grad():
        logits, aux = model(xs_te, pres_te, y_te)
    from sklearn.metrics import accuracy_score, f1_score

    pred = logits.argmax(1).numpy()
    out = {"f1": f1_score(y_te.numpy(), pred, average="macro"), "acc": accuracy_score(y_te.numpy(), pred)}
    if "idx" in aux:
        pres = pres_te.view(pres_te.shape[0], -1, 1).expand(aux["idx"].shape[:3]).numpy()  # (B, M, L)
        idx = aux["idx"].numpy()[pres]  # (n_tokens, K)
        b, m_, _ = np.nonzero(pres)
        rs = routing_statistics(idx, y_te.numpy()[b], p["n_experts"], n_perm=p["n_perm"],
                                rng=np.random.default_rng(init_seed))
        out.update(entropy=rs["entropy"], maxshare=rs["max_share"], mi=rs["mi"], mix=rs["mi"] - rs["mi_null"],
                   mimod=routing_statistics(idx, m_, p["n_experts"])["mi"])
        if "conf" in aux:
            c, q = aux["conf"].numpy()[pres].ravel(), aux["p_true"].numpy()[pres].ravel()
            out["corr"] = float(np.corrcoef(c, q)[0, 1]) if c.std() > 0 and q.std() > 0 else 0.0
    return out


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    split = load_digits_split(0)
    x_tr, y_tr = split.flat("train")
    x_te, y_te = split.flat("test")
    mods_tr = make_modalities(x_tr, rng, profile["feat_noise"])
    mods_te = make_modalities(x_te, rng, profile["feat_noise"])
    xs_tr = [torch.from_numpy(np.ascontiguousarray(m)) for m in mods_tr]
    xs_te = [torch.from_numpy(np.ascontiguousarray(m)) for m in mods_te]
    yt_tr, yt_te = torch.from_numpy(y_tr), torch.from_numpy(y_te)
    variants = list(profile["variants"])
    metrics: dict = {"rates": list(profile["rates"]), "variants": variants}
    for ri, rate in enumerate(profile["rates"]):
        pres_tr = torch.from_numpy(sample_missing_mask(len(y_tr), 3, rate, rng))
        pres_te = torch.from_numpy(sample_missing_mask(len(y_te), 3, rate, rng))
        for vi, v in enumerate(variants):
            res = _train_eval(v, xs_tr, pres_tr, yt_tr, xs_te, pres_te, yt_te, profile,
                              init_seed=10_000 * seed + 100 * ri + vi)
            for k, val in res.items():
                metrics[key(k, v, rate)] = float(val)
    return metrics


# ----------------------------------------------------------------------------- claim checks

def _per_seed(ms: list[dict], metric: str, variant: str, rates) -> np.ndarray:
    """Per-seed mean of ``metric`` over ``rates``: shape (n_seeds,)."""
    return np.array([np.mean([m[key(metric, variant, r)] for r in rates]) for m in ms])


def _missing_rates(ms: list[dict]) -> list[float]:
    rates = [r for r in ms[0]["rates"] if r > 0]
    return rates or list(ms[0]["rates"])


def _cmp(ms, metric, a, b, rates) -> tuple[float, float, float, bool]:
    """(mean a, mean b, one-sided Wilcoxon p for a > b, mean difference > 0 at every rate)."""
    xa, xb = _per_seed(ms, metric, a, rates), _per_seed(ms, metric, b, rates)
    p = paired_test(xa, xb, alternative="greater")
    every = all(np.mean([m[key(metric, a, r)] - m[key(metric, b, r)] for m in ms]) > 0 for r in rates)
    return float(xa.mean()), float(xb.mean()), p, every


def check_relieves_collapse(ms: list[dict]) -> Verdict:
    rates = list(ms[0]["rates"])
    parts, sig, pos = [], [], []
    for base in ("softmax", "laplace"):
        a, b, p, every = _cmp(ms, "entropy", "confsmoe", base, rates)
        parts.append(f"vs {base}: {a:.3f} vs {b:.3f} ({fmt_p(p)}, higher at every rate: {every})")
        sig.append(p < 0.05 and every)
        pos.append(a > b)
    rel = _per_seed(ms, "entropy", "confsmoe_released", rates).mean()
    ms_c = _per_seed(ms, "maxshare", "confsmoe", rates).mean()
    ms_s = _per_seed(ms, "maxshare", "softmax", rates).mean()
    return Verdict(
        status="reproduced" if all(sig) else ("partly" if any(sig) or all(pos) else "not-reproduced"),
        measured=(f"usage entropy/log E, ConfSMoE {'; '.join(parts)}; released-code variant {rel:.3f}; "
                  f"max expert share ConfSMoE {ms_c:.2f} vs softmax {ms_s:.2f}"),
        evidence=(f"per-seed mean over missing rates {rates}; one-sided paired Wilcoxon over {len(ms)} seeds "
                  "(ConfSMoE > baseline) against softmax and Laplace gates; reproduced if p<0.05 and the mean "
                  "difference is positive at every rate for both, partly if for one or if both means are higher"),
        value=float(_per_seed(ms, "entropy", "confsmoe", rates).mean()))


def contradict_relieves_collapse(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for r in m["rates"]:
            vals = [m[key("entropy", v, r)] for v in ("confsmoe", "softmax", "laplace")]
            m[key("entropy", "confsmoe", r)] = min(vals) - 0.01
            m[key("entropy", "softmax", r)] = m[key("entropy", "laplace", r)] = max(vals)
        out.append(m)
    return out


def check_specialised_routing(ms: list[dict]) -> Verdict:
    rates = list(ms[0]["rates"])
    mix = _per_seed(ms, "mix", "confsmoe", rates)
    p_pos = one_sample_test(mix, 0.0, alternative="greater", method="wilcoxon")
    soft = _per_seed(ms, "mix", "softmax", rates)
    p_lower = paired_test(mix, soft, alternative="less")
    rel = _per_seed(ms, "mix", "confsmoe_released", rates)
    m_c, lo, hi = mean_ci(mix)
    ok_pos = p_pos < 0.05 and m_c > 0
    return Verdict(
        status="reproduced" if ok_pos and p_lower >= 0.05 else ("partly" if ok_pos else "not-reproduced"),
        measured=(f"excess I(expert; class) ConfSMoE {m_c:.3f} bits [{lo:.3f}, {hi:.3f}], softmax {soft.mean():.3f}, "
                  f"released-code variant {rel.mean():.3f}; I(expert; modality) ConfSMoE "
                  f"{_per_seed(ms, 'mimod', 'confsmoe', rates).mean():.3f} vs released "
                  f"{_per_seed(ms, 'mimod', 'confsmoe_released', rates).mean():.3f} bits"),
        evidence=(f"excess MI = MI minus its label-permutation mean, per-seed mean over rates {rates}; one-sided "
                  f"Wilcoxon over {len(ms)} seeds that ConfSMoE's is > 0 ({fmt_p(p_pos)}) and that it is lower than "
                  f"softmax's ({fmt_p(p_lower)}); reproduced if the first p<0.05 and the second p>=0.05"),
        value=m_c, ci=(lo, hi))


def contradict_specialised_routing(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for r in m["rates"]:
            m[key("mix", "confsmoe", r)] = -abs(m[key("mix", "confsmoe", r)]) - 0.01
        out.append(m)
    return out


def check_beats_smoe_missing(ms: list[dict]) -> Verdict:
    rates = _missing_rates(ms)
    parts, sig, pos = [], [], []
    for base in ("softmax", "dense"):
        a, b, p, every = _cmp(ms, "f1", "confsmoe", base, rates)
        parts.append(f"vs {base} {b:.3f} ({fmt_p(p)})")
        sig.append(p < 0.05)
        pos.append(a > b)
    a = _per_seed(ms, "f1", "confsmoe", rates).mean()
    rel = _per_seed(ms, "f1", "confsmoe_released", rates).mean()
    lap = _per_seed(ms, "f1", "laplace", rates).mean()
    return Verdict(
        status="reproduced" if all(sig) else ("partly" if any(sig) or all(pos) else "not-reproduced"),
        measured=(f"macro-F1 ConfSMoE {a:.3f} {'; '.join(parts)}; Laplace {lap:.3f}; released-code variant "
                  f"{rel:.3f}"),
        evidence=(f"per-seed mean macro-F1 over missing rates {rates}; one-sided paired Wilcoxon over {len(ms)} "
                  "seeds; reproduced if p<0.05 against both softmax SMoE and dense fusion, partly if against one "
                  "or if both means are lower than ConfSMoE's"),
        value=float(a))


def contradict_beats_smoe_missing(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for r in m["rates"]:
            best = max(m[key("f1", "softmax", r)], m[key("f1", "dense", r)], m[key("f1", "confsmoe", r)])
            m[key("f1", "confsmoe", r)] = min(m[key("f1", "softmax", r)], m[key("f1", "dense", r)]) - 0.01
            m[key("f1", "softmax", r)] = m[key("f1", "dense", r)] = best
        out.append(m)
    return out


def check_imputation_helps(ms: list[dict]) -> Verdict:
    rates = _missing_rates(ms)
    a, b, p, every = _cmp(ms, "f1", "confsmoe", "conf_zero_fill", rates)
    return Verdict(
        status="reproduced" if p < 0.05 else ("partly" if a > b else "not-reproduced"),
        measured=f"macro-F1 two-stage imputation {a:.3f} vs zero fill {b:.3f} (higher at every rate: {every})",
        evidence=(f"per-seed mean over missing rates {rates}; one-sided paired Wilcoxon over {len(ms)} seeds, "
                  f"{fmt_p(p)}; reproduced if p<0.05, partly if only the mean is higher"),
        value=a - b)


def contradict_imputation_helps(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for r in m["rates"]:
            a, b = m[key("f1", "confsmoe", r)], m[key("f1", "conf_zero_fill", r)]
            m[key("f1", "confsmoe", r)], m[key("f1", "conf_zero_fill", r)] = min(a, b) - 0.01, max(a, b)
        out.append(m)
    return out


def check_confidence_tracks_truth(ms: list[dict]) -> Verdict:
    rates = list(ms[0]["rates"])
    c = _per_seed(ms, "corr", "confsmoe", rates)
    p = one_sample_test(c, 0.5, alternative="greater", method="t")
    m, lo, hi = mean_ci(c)
    rel = _per_seed(ms, "corr", "confsmoe_released", rates).mean()
    return Verdict(
        status="reproduced" if p < 0.05 and m > 0.5 else ("partly" if m > 0.5 else "not-reproduced"),
        measured=f"corr(c_i, p_i) on test tokens: ConfSMoE {m:.3f} [{lo:.3f}, {hi:.3f}], released-code variant {rel:.3f}",
        evidence=(f"Pearson correlation per (seed, rate), mean over rates {rates}; one-sample t-test over "
                  f"{len(ms)} seeds that it exceeds 0.5, {fmt_p(p)}; reproduced if p<0.05"),
        value=m, ci=(lo, hi))


def contradict_confidence_tracks_truth(ms: list[dict]) -> list[dict]:
    out = []
    for m in ms:
        m = dict(m)
        for r in m["rates"]:
            m[key("corr", "confsmoe", r)] = 0.5 - abs(m[key("corr", "confsmoe", r)] - 0.5) - 0.01
        out.append(m)
    return out


# ----------------------------------------------------------------------------- figure

def figure(ms: list[dict]):
    from matplotlib.figure import Figure

    rates = list(ms[0]["rates"])
    variants = list(ms[0]["variants"])
    fig = Figure(figsize=(13, 3.8))
    axes = fig.subplots(1, 3)
    panels = (("f1", "test macro-F1", variants),
              ("entropy", "expert-usage entropy / log E", [v for v in variants if v != "dense"]),
              ("mix", "excess I(expert; class) (bits)", [v for v in variants if v != "dense"]))
    x = 100 * np.asarray(rates)
    for ax, (metric, ylabel, vs) in zip(axes, panels):
        for v in vs:
            stats = [mean_ci([m[key(metric, v, r)] for m in ms]) for r in rates]
            mu = np.array([s[0] for s in stats])
            ax.plot(x, mu, marker="o", color=COLORS[v], label=LABELS[v])
            ax.fill_between(x, [s[1] for s in stats], [s[2] for s in stats], color=COLORS[v], alpha=0.15)
        ax.set_xlabel("missing rate per modality (%)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[1].axhline(1.0, color="k", lw=0.8, ls=":")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"ConfSMoE on missing-modality digits ({len(ms)} seeds, mean and 95% CI)")
    fig.tight_layout()
    return fig
