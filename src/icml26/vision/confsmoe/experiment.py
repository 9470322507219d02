"""Small-scale reproduction of ConfSMoE (arXiv:2505.19525): missing-modality digits.

Kept from the paper: the architecture (per-modality encoders to tokens, learned positional
embedding, one fusion layer = self-attention + sparse MoE feed-forward block with a noisy top-2
router over 8 experts), the confidence-guided gate (per-expert sigmoid heads trained by MSE towards
the probe's probability of the true label, mixture weights = confidences, no load-balance loss), the
two-stage imputation (modality-pool average of 10 training inputs, then sparse cross-attention over
the other modalities' expert outputs), the loss ``CE + L_conf``, Adam, random missing modalities at
the same rate in training and test, macro-F1 as the headline metric.

Replaced: MIMIC-III/IV and CMU-MOSI/MOSEI by the complementary three-band digits of
:mod:`.setting`; tiny widths (d = 16, 4 tokens per modality, 2 heads). Every variant trains at a
constant learning rate until its validation accuracy has not improved for ``patience`` epochs (at
most ``epochs``) and is evaluated on the test split at its best *validation* epoch; the convergence
gate requires that every variant stopped before the cap. The released code selects the best *test*
epoch, which we do not do.

Variants trained side by side on identical data, masks and seeds (``VARIANTS``): ``confsmoe`` (paper:
confidence gate, router trained through a straight-through weight, two-stage imputation),
``confsmoe_released`` (router never receives a gradient, as in the released code), ``softmax``
(noisy top-2 softmax gate, same imputation: the control), ``softmax_lb`` (the same plus the
Switch load-balance loss, weight ``lb_coef``: the usual remedy for collapse), ``laplace`` (FuseMoE's
Laplace gate), ``conf_laplace`` (the confidence gate on FuseMoE's distance router: the Laplace gate with
confidences as mixture weights), ``conf_zero_fill`` (confidence gate, missing modalities as zero tokens, no
stage 2) and ``dense`` (dense feed-forward fusion, stage-1 pool imputation). The collapse-prone setting
(profile key ``sharp``) trains its arms from one shared initial draw.

Parts of ``run``: :func:`train_variant` (train and evaluate one variant at one missing rate), and
:func:`summarise` (per-seed means over rates and the gates' numbers).

Metrics per seed, for each variant ``v`` and missing rate ``r`` (percent, e.g. ``r50``):
``f1_<v>_r<r>``, ``acc_<v>_r<r>``, ``gap_<v>_r<r>`` (best minus final validation accuracy),
``rise_<v>_r<r>`` (late rise of validation accuracy), ``epochs_run_<v>_r<r>``, ``capped_<v>_r<r>``
(1 when training hit the epoch cap before early stopping fired) and for
sparse variants ``entropy_<v>_r<r>`` (expert-usage entropy / log E over present test tokens),
``maxshare_<v>_r<r>``, ``mi_<v>_r<r>`` and ``minull_<v>_r<r>`` (I(expert; class) in bits and its
label-permutation mean), ``mimod_<v>_r<r>``, ``entropy0_<v>_r<r>`` and ``maxshare0_<v>_r<r>`` (the same
usage statistics of the untrained model), ``entdrop_<v>_r<r>`` (entropy0 minus entropy: the fall during
training), and ``corr_<v>_r<r>`` (our diagnostic, not a paper claim:
correlation of c_i with the probe's p_i). The same names without ``_r<r>`` are means over rates;
``gap_max``, ``capped_max`` and ``acc_min`` are taken over variants and rates (the gates' numbers).
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from icml26.core.stats import mean_ci
from icml26.vision.confsmoe.method import ConfSMoEClassifier, routing_statistics, sample_missing_mask
from icml26.vision.confsmoe.setting import load_modalities

VARIANTS = {
    "confsmoe": dict(gate="confidence", router_grad="straight_through", imputation="two_stage"),
    "confsmoe_released": dict(gate="confidence", router_grad="none", imputation="two_stage"),
    "softmax": dict(gate="softmax", imputation="two_stage"),
    "softmax_lb": dict(gate="softmax", imputation="two_stage"),
    "laplace": dict(gate="laplace", imputation="two_stage"),
    "conf_laplace": dict(gate="confidence", router_grad="straight_through", imputation="two_stage",
                         router_kind="laplace"),
    "conf_zero_fill": dict(gate="confidence", router_grad="straight_through", imputation="zero"),
    "dense": dict(ffn="dense", imputation="pool"),
}
LOAD_BALANCED = ("softmax_lb",)
LABELS = {"confsmoe": "ConfSMoE (paper)", "confsmoe_released": "ConfSMoE (released code)",
          "softmax": "softmax SMoE", "softmax_lb": "softmax SMoE + load balance", "laplace": "Laplace SMoE",
          "conf_laplace": "conf gate, Laplace router",
          "conf_zero_fill": "conf gate, zero fill", "dense": "dense fusion"}
COLORS = {"confsmoe": "tab:red", "confsmoe_released": "tab:pink", "softmax": "tab:blue",
          "softmax_lb": "tab:cyan", "laplace": "tab:green", "conf_laplace": "tab:olive", "conf_zero_fill": "tab:orange", "dense": "tab:gray"}
SPARSE_METRICS = ("entropy", "maxshare", "mi", "minull", "mimod", "entropy0", "maxshare0", "entdrop")
#: Suffix of the variants trained in the collapse-prone setting (a fast noise-free router), profile key ``sharp``:
#: overrides of the model parameters (``tokens``, ``router`` options, ``router_lr_mult``) and its
#: ``variants``. Their metrics are named like the main ones with the suffix, e.g. ``entropy_softmax_sharp``.
SHARP = "_sharp"


def key(metric: str, variant: str, rate: float | None = None) -> str:
    return f"{metric}_{variant}" if rate is None else f"{metric}_{variant}_r{int(round(rate * 100))}"


def _to_t(mods: list[np.ndarray]) -> list[torch.Tensor]:
    return [torch.from_numpy(np.ascontiguousarray(m)) for m in mods]


def _accuracy(model, xs, pres, y) -> float:
    model.eval()
    with torch.no_grad():
        return float((model(xs, pres)[0].argmax(1) == y).float().mean())


def _rise(val_acc: list[float]) -> float:
    """Late rise of validation accuracy: mean of the last 3 epochs minus the mean of the 3 epochs ending
    at three quarters of training (> 0: still improving when training stopped)."""
    q = max(3, int(round(0.75 * len(val_acc))))
    return float(np.mean(val_acc[-3:]) - np.mean(val_acc[q - 3:q]))


def _plateaued(val_acc: list[float], patience: int) -> bool:
    """Early-stopping rule: the best validation accuracy (first epoch reaching it) lies ``patience`` or
    more epochs back."""
    return len(val_acc) - 1 - int(np.argmax(val_acc)) >= patience


def _routing(aux: dict, present: torch.Tensor, y: torch.Tensor, n_experts: int, n_perm: int, seed: int) -> dict:
    """:func:`routing_statistics` of the present tokens' top-K choices (``aux["idx"]``, (B, M, L, K)) against
    the class, plus ``mimod`` (I(expert; modality))."""
    pres = present.view(present.shape[0], -1, 1).expand(aux["idx"].shape[:3]).numpy()  # (B, M, L)
    idx = aux["idx"].numpy()[pres]  # (n_tokens, K)
    b, m_, _ = np.nonzero(pres)
    rs = routing_statistics(idx, y.numpy()[b], n_experts, n_perm=n_perm, rng=np.random.default_rng(seed))
    rs["mimod"] = routing_statistics(idx, m_, n_experts)["mi"]
    return rs


def train_variant(variant: str, data: dict, masks: dict, p: Profile, init_seed: int) -> dict:
    """Train one variant (loss CE + L_conf, plus ``lb_coef * L_lb`` for the load-balanced baseline) and
    evaluate it on the test split.

    Training runs for at most ``epochs`` epochs; with ``patience > 0`` it stops once validation accuracy
    has not improved for ``patience`` epochs and the best validation epoch's weights are evaluated
    (``capped`` = 1 when the cap was reached first, or when ``patience`` is 0). Also returned: ``gap``
    (best minus mean of the last 3 validation accuracies), ``rise`` (:func:`_rise`), ``epochs_run``.

    Its own loop, not the shared ``nn.mlp.fit`` / ``nn.train.train_lm``: a separate router learning rate and
    the variant's own plateau rule.
    """
    (xs_tr, y_tr), (xs_va, y_va), (xs_te, y_te) = data["train"], data["val"], data["test"]
    torch.manual_seed(init_seed)
    model = ConfSMoEClassifier([x.shape[1] for x in xs_tr], 10, d=p["d"], tokens=p["tokens"],
                               n_experts=p["n_experts"], top_k=p["top_k"], n_heads=p["n_heads"],
                               dropout=p["dropout"], router=p.get("router"), **VARIANTS[variant])
    model.set_pools([x[masks["train"][:, m]] for m, x in enumerate(xs_tr)])
    at_init = {}
    if model.ffn == "sparse":  # routing before any step (own RNG stream: training draws as without it)
        with torch.random.fork_rng(devices=[]):
            model.eval()
            with torch.no_grad():
                aux0 = model(xs_te, masks["test"], y_te)[1]
            rs0 = _routing(aux0, masks["test"], y_te, p["n_experts"], 0, init_seed)
        at_init = {"entropy0": rs0["entropy"], "maxshare0": rs0["max_share"]}
    named = list(model.named_parameters())
    groups = [{"params": [w for n_, w in named if ".router." not in n_]},
              {"params": [w for n_, w in named if ".router." in n_],
               "lr": p["lr"] * float(p.get("router_lr_mult", 1.0))}]
    opt = torch.optim.Adam([g for g in groups if g["params"]], lr=p["lr"], fused=True)  # one kernel per step
    lb = float(p["lb_coef"]) if variant in LOAD_BALANCED else 0.0
    n, bs, val_acc = y_tr.shape[0], p["batch"], []
    sched = None
    if p.params.get("lr_schedule", "constant") == "cosine":  # anneal to 0 over the run: the last epochs settle
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=p["epochs"] * -(-n // bs))
    patience = int(p.params.get("patience", 0))  # 0: train for exactly `epochs`
    best, best_state, stopped = -1.0, None, False
    for _ in range(p["epochs"]):
        model.train()
        perm = torch.randperm(n)
        for s in range(0, n, bs):
            b = perm[s:s + bs]
            logits, aux = model([x[b] for x in xs_tr], masks["train"][b], y_tr[b])
            loss = torch.nn.functional.cross_entropy(logits, y_tr[b]) + aux["conf_loss"] + lb * aux["lb_loss"]
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
        val_acc.append(_accuracy(model, xs_va, masks["val"], y_va))
        if patience:
            if val_acc[-1] > best:
                best, best_state = val_acc[-1], {k: v.detach().clone() for k, v in model.state_dict().items()}
            elif _plateaued(val_acc, patience):
                stopped = True
                break
    if patience:  # early stopping on the validation split: evaluate the best validation epoch
        model.load_state_dict(best_state)
    model.eval()
    with torch.no_grad():
        logits, aux = model(xs_te, masks["test"], y_te)
    from sklearn.metrics import accuracy_score, f1_score

    pred = logits.argmax(1).numpy()
    out = {"f1": f1_score(y_te.numpy(), pred, average="macro"), "acc": accuracy_score(y_te.numpy(), pred),
           "gap": max(val_acc) - float(np.mean(val_acc[-3:])), "rise": _rise(val_acc),
           "epochs_run": float(len(val_acc)), "capped": float(not stopped)}
    if "idx" in aux:
        rs = _routing(aux, masks["test"], y_te, p["n_experts"], p["n_perm"], init_seed)
        out.update(entropy=rs["entropy"], maxshare=rs["max_share"], mi=rs["mi"], minull=rs["mi_null"],
                   mimod=rs["mimod"], **at_init, entdrop=at_init["entropy0"] - rs["entropy"])
        pres = masks["test"].view(masks["test"].shape[0], -1, 1).expand(aux["idx"].shape[:3]).numpy()
        if "conf" in aux:
            c, q = aux["conf"].numpy()[pres].ravel(), aux["p_true"].numpy()[pres].ravel()
            out["corr"] = float(np.corrcoef(c, q)[0, 1]) if c.std() > 0 and q.std() > 0 else 0.0
    return out


def summarise(metrics: dict, variants: list[str], rates: list[float], suffix: str = "") -> dict:
    """Per-seed means over rates of every per-rate metric, and the gates' numbers (``gap_max``,
    ``capped_max``, ``acc_min`` plus ``suffix``, over ``variants``)."""
    out = {}
    for v in variants:
        for name in ("f1", "acc", "gap", "rise", "epochs_run", "capped", *SPARSE_METRICS, "corr"):
            vals = [metrics[key(name, v, r)] for r in rates if key(name, v, r) in metrics]
            if vals:
                out[key(name, v)] = float(np.mean(vals))
    out["gap_max" + suffix] = max(metrics[key("gap", v, r)] for v in variants for r in rates)
    out["capped_max" + suffix] = max(metrics[key("capped", v, r)] for v in variants for r in rates)
    out["acc_min" + suffix] = min(metrics[key("acc", v, r)] for v in variants for r in rates)
    return out


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    mods = load_modalities(seed, float(profile["feat_noise"]))
    data = {part: (_to_t(xs), torch.from_numpy(y)) for part, (xs, y) in mods.items()}
    variants, rates = list(profile["variants"]), [float(r) for r in profile["rates"]]
    sharp_cfg = dict(profile.get("sharp") or {})
    sharp_variants = list(sharp_cfg.pop("variants", []))
    sharp = Profile(profile.name + SHARP, profile.seeds, {**profile.params, **sharp_cfg})
    metrics: dict = {"rates": rates, "variants": variants}
    for ri, rate in enumerate(rates):
        rng = np.random.default_rng([seed, int(round(rate * 100))])  # masks depend on (seed, rate) alone
        masks = {part: torch.from_numpy(sample_missing_mask(len(y), 3, rate, rng)) for part, (_, y) in mods.items()}
        for vi, v in enumerate(variants):
            res = train_variant(v, data, masks, profile, init_seed=10_000 * seed + 100 * ri + vi)
            metrics.update({key(k, v, rate): float(val) for k, val in res.items()})
        for v in sharp_variants:  # the collapse-prone setting, same data and masks, one shared initial draw
            res = train_variant(v, data, masks, sharp, init_seed=10_000 * seed + 100 * ri + 50)
            metrics.update({key(k, v + SHARP, rate): float(val) for k, val in res.items()})
    metrics.update(summarise(metrics, variants, rates))
    if sharp_variants:
        metrics.update(summarise(metrics, [v + SHARP for v in sharp_variants], rates, suffix=SHARP))
    return metrics


# ----------------------------------------------------------------------------- figure
def figure(ms: list[dict]):
    """Per variant: test macro-F1, expert-usage entropy (also of the sharp-router variants) and excess
    I(expert; class), mean and 95% CI over seeds; lines over missing rates, or bars when only one rate was run."""
    from matplotlib.figure import Figure

    rates = list(ms[0]["rates"])
    variants = list(ms[0]["variants"])
    fig = Figure(figsize=(14, 4.2))
    axes = fig.subplots(1, 3)
    sharp = [v + SHARP for v in VARIANTS if key("entropy", v + SHARP, rates[0]) in ms[0]]
    for v in sharp:  # the collapse-prone setting's variants: same colour, own label
        LABELS.setdefault(v, LABELS[v[:-len(SHARP)]] + ", fast router")
        COLORS.setdefault(v, COLORS[v[:-len(SHARP)]])
    panels = (("f1", "test macro-F1", variants),
              ("entropy", "expert-usage entropy / log E", [v for v in variants if v != "dense"] + sharp),
              ("mix", "excess I(expert; class) (bits)", [v for v in variants if v != "dense"]))

    def value(m, metric, v, r):
        if metric == "mix":
            return m[key("mi", v, r)] - m[key("minull", v, r)]
        return m[key(metric, v, r)]

    for ax, (metric, ylabel, vs) in zip(axes, panels):
        if len(rates) == 1:
            st = [mean_ci([value(m, metric, v, rates[0]) for m in ms]) for v in vs]
            mu = np.array([s[0] for s in st])
            err = np.array([[s[0] - s[1] for s in st], [s[2] - s[0] for s in st]])
            ax.bar(np.arange(len(vs)), mu, yerr=np.nan_to_num(err), color=[COLORS[v] for v in vs], capsize=3)
            ax.set_xticks(np.arange(len(vs)), [LABELS[v] for v in vs], rotation=35, ha="right", fontsize=7)
            ax.set_xlabel(f"variant (missing rate {100 * rates[0]:.0f}% per modality)")
        else:
            x = 100 * np.asarray(rates)
            for v in vs:
                st = [mean_ci([value(m, metric, v, r) for m in ms]) for r in rates]
                ax.plot(x, [s[0] for s in st], marker="o", color=COLORS[v], label=LABELS[v])
                ax.fill_between(x, [s[1] for s in st], [s[2] for s in st], color=COLORS[v], alpha=0.15)
            ax.set_xlabel("missing rate per modality (%)")
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3)
    axes[1].axhline(1.0, color="k", lw=0.8, ls=":")
    if len(rates) > 1:
        axes[0].legend(fontsize=7)
    fig.suptitle(f"ConfSMoE on complementary missing-modality digits ({len(ms)} seeds, mean and 95% CI)")
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    """Public calls with good arguments, for the common bad-input test."""
    from icml26.vision.confsmoe import method as M
    from icml26.vision.confsmoe import setting as S

    g = torch.Generator().manual_seed(0)
    return [
        (S.make_modalities, {"x": np.random.default_rng(0).random((3, 64)), "rng": 0, "feat_noise": 0.1}),
        (M.sample_missing_mask, {"n": 5, "n_modalities": 3, "rate": 0.3, "rng": 0}),
        (M.pool_impute, {"pool": torch.rand(4, 3, generator=g), "n_missing": 2, "n_draw": 3}),
        (M.sparse_cross_attention, {"q": torch.rand(2, 3, 4, generator=g), "kv": torch.rand(2, 5, 2, 4, generator=g),
                                    "top_k": 2, "keep_frac": 0.5}),
        (M.confidence_loss, {"conf": torch.rand(3, 2, generator=g), "p_true": torch.rand(3, 2, generator=g)}),
        (M.routing_statistics, {"idx": np.array([[0, 1], [1, 2], [2, 0]]), "labels": np.array([0, 1, 1]),
                                "n_experts": 3, "n_perm": 2}),
    ]
