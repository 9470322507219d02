"""ConG reproduction: weak pi_ref/pi_r TinyLMs, CD data, and eight strong-model arms on a sorting task.

Parts of one seed (each a named function below):

* ``pretrain``       weak (1 layer) and strong (2 layers, wider) base models on the sloppy corpus;
* ``align_weak``     pi_r = DPO (beta 0.1) of the weak model on best-vs-worst of 5 samples scored by
                     the hidden reward (the stand-in for ArmoRM) -> gate: R rises by 0.05..0.2;
* ``weak_samples``   on the training prompts: naive pi_r samples (the repository's on-policy sampler:
                     temperature 0.8, top-p 0.95), pi_r truncated to the same
                     plausibility set with the same processors (alpha = 1), CD samples (alpha = 0.5)
                     and an alpha sweep; their hidden and implicit rewards; Spearman(implicit,
                     explicit) pooled over the three samplers -> claims ``cd-higher-reward``,
                     ``cd-implicit-reward``;
* ``strong_arms``    base, WeakSFT, AuxConf, WSPO (on naive samples), ConG-S (SFT on CD), ConG
                     (ConG-S + DPO, chosen CD, rejected own sample at T 0.8 / top-p 0.95, beta 0.5),
                     the key-idea control
                     (the same SFT + DPO with truncated pi_r samples as chosen) and a best-of-5 SFT
                     ceiling -> claims ``beats-baselines``, ``cong-beats-cong-s``.

Evaluation: mean hidden reward of two T = 1 samples per held-out prompt (greedy reported too) and
the win rate against the untrained strong model (pairwise R, ties 1/2), our AlpacaEval stand-in.

Review note (after the full run; no check changed). The pre-registered gate on the weak DPO (R up
by 0.05..0.2) passed, and the claims are kept ``not-reproduced`` rather than gated to
``not-checkable`` on the near-zero ``data/spearman``: that Spearman is part of the paper's own
claim (Fig. 1b), and a diagnostic outside the store (seeds 0, 1) shows the weak pair's implicit
reward does rank pi_ref samples of held-out prompts (best-vs-worst accuracy 0.77-0.78, Spearman
0.49-0.53) and fails only on samples from pi_r and CD -- the over-optimisation the claim tests.
Claims ``beats-baselines`` and ``cong-beats-cong-s`` follow from the same failure (CD data below
naive data, and in the DPO pairs the chosen CD sample is usually worse than the strong model's own
sample), so they are not independent evidence against the paper. Not stored yet, worth adding to
``run`` in a later session: the implicit reward's pair accuracy on pi_ref samples (a premise gate)
and R(chosen) - R(rejected) of the DPO pairs.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything

from .method import (TEMPERATURE, TOP_P, aux_conf_sft, contrastive_generate,
                     decode, dpo_train, implicit_reward, wspo_train)
from .setting import SortTask, hidden_reward, make_lm, make_prompts, sloppy_responses, train_on_responses

STRONG_ARMS = ("base", "weaksft", "auxconf", "wspo", "trunc_dpo", "cong_s", "cong", "ceiling")
BASELINES = ("weaksft", "auxconf", "wspo", "trunc_dpo")
#: reported, not deciding: the truncated SFT stage, and both DPO stages at the paper's DPO/SFT lr ratio
EXTRA_ARMS = ("trunc_s", "cong_lowlr", "trunc_dpo_lowlr")


def _gen(seed: int, salt: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed * 1000 + salt)


def pretrain(task: SortTask, p: Profile, seed: int, rng: np.random.Generator) -> tuple:
    prompts = make_prompts(task, p["n_pretrain"], seed=rng)
    resp = sloppy_responses(task, prompts, p_sorted=p["p_sorted"], p_copy=p["p_copy"], seed=rng)
    weak = make_lm(task, d_model=p["weak_d"], n_layers=1, seed=seed)
    strong = make_lm(task, d_model=p["strong_d"], n_layers=p["strong_layers"], n_heads=4, seed=seed + 1)
    hw = train_on_responses(weak, task, prompts, resp, steps=p["pretrain_steps"], seed=seed)
    hs = train_on_responses(strong, task, prompts, resp, steps=p["pretrain_steps"], seed=seed + 1)
    return weak, strong, {"pretrain/weak_loss": float(np.mean(hw[-10:])),
                          "pretrain/strong_loss": float(np.mean(hs[-10:])),
                          "pretrain/loss_drop": float(min(hw[0] / np.mean(hw[-10:]), hs[0] / np.mean(hs[-10:])))}


def mean_reward(task: SortTask, model, prompts: np.ndarray, g: torch.Generator, n: int = 2, **kw) -> float:
    return float(np.mean([hidden_reward(task, prompts, decode(model, prompts, task.k, generator=g, **kw).numpy())
                          for _ in range(n)]))


def align_weak(task: SortTask, weak, p: Profile, seed: int, rng: np.random.Generator, test: np.ndarray) -> tuple:
    prompts = make_prompts(task, p["n_align"], seed=rng)
    g = _gen(seed, 1)
    samples = [decode(weak, prompts, task.k, temperature=TEMPERATURE, top_p=TOP_P, generator=g).numpy()
               for _ in range(5)]
    rs = np.stack([hidden_reward(task, prompts, s) for s in samples], 1)
    rows = np.arange(len(prompts))
    best = np.stack(samples, 1)[rows, rs.argmax(1)]
    worst = np.stack(samples, 1)[rows, rs.argmin(1)]
    keep = rs.max(1) > rs.min(1)
    pi_r, hist = dpo_train(weak, prompts[keep], best[keep], worst[keep], beta=0.1, steps=p["weak_dpo_steps"],
                           lr=p["weak_dpo_lr"], seed=seed)
    ge = _gen(seed, 2)
    m = {"weak/R_ref": mean_reward(task, weak, test, ge), "weak/R_r": mean_reward(task, pi_r, test, ge),
         "weak/n_pairs": float(keep.sum())}
    m["weak/gain"] = m["weak/R_r"] - m["weak/R_ref"]
    return pi_r, (prompts, best), m


def weak_samples(task: SortTask, pi_r, pi_ref, prompts: np.ndarray, p: Profile, seed: int) -> tuple:
    """Naive, truncated (alpha = 1) and CD samples of the weak pair on the training prompts."""
    from scipy.stats import spearmanr

    g = _gen(seed, 3)
    data = {"naive": decode(pi_r, prompts, task.k, temperature=TEMPERATURE, top_p=TOP_P, generator=g).numpy(),
            "trunc": contrastive_generate(pi_r, pi_ref, prompts, task.k, alpha=1.0, generator=g).numpy(),
            "cd": contrastive_generate(pi_r, pi_ref, prompts, task.k, alpha=p["alpha"], generator=g).numpy()}
    m, R, IR = {}, [], []
    for name, y in data.items():
        r = hidden_reward(task, prompts, y)
        ir = implicit_reward(pi_r, pi_ref, prompts, y).numpy()
        m[f"data/R_{name}"], m[f"data/IR_{name}"] = float(r.mean()), float(ir.mean())
        R.append(r)
        IR.append(ir)
    m["data/spearman"] = float(spearmanr(np.concatenate(IR), np.concatenate(R)).statistic)
    m["data/spearman_naive"] = float(spearmanr(IR[0], R[0]).statistic)  # diagnostic: within naive samples
    sweep = []
    for a in p["alpha_sweep"]:
        y = contrastive_generate(pi_r, pi_ref, prompts[:p["n_sweep"]], task.k, alpha=float(a), generator=g).numpy()
        sweep.append(float(hidden_reward(task, prompts[:p["n_sweep"]], y).mean()))
    m["data/alpha"] = [float(a) for a in p["alpha_sweep"]]
    m["data/R_sweep"] = sweep
    return data, m


def _evaluate(task: SortTask, model, base, test: np.ndarray, seed: int, salt: int) -> dict:
    g = _gen(seed, salt)
    ys = [decode(model, test, task.k, generator=g).numpy() for _ in range(2)]
    yb = [decode(base, test, task.k, generator=g).numpy() for _ in range(2)]
    r = np.stack([hidden_reward(task, test, y) for y in ys])
    rb = np.stack([hidden_reward(task, test, y) for y in yb])
    greedy = decode(model, test, task.k, greedy=True).numpy()
    return {"R": float(r.mean()), "R_greedy": float(hidden_reward(task, test, greedy).mean()),
            "win": float(((r > rb) + 0.5 * (r == rb)).mean())}


def strong_arms(task: SortTask, strong, pi_r, pi_ref, prompts: np.ndarray, data: dict, best5: tuple,
                test: np.ndarray, p: Profile, seed: int) -> dict:
    kw = {"steps": p["sft_steps"], "seed": seed}
    models = {"base": strong}
    for arm, y in (("weaksft", data["naive"]), ("cong_s", data["cd"]), ("trunc_s", data["trunc"])):
        models[arm] = copy.deepcopy(strong)
        train_on_responses(models[arm], task, prompts, y, **kw)
    models["ceiling"] = copy.deepcopy(strong)
    train_on_responses(models["ceiling"], task, best5[0], best5[1], **kw)
    models["auxconf"], _ = aux_conf_sft(strong, prompts, data["naive"], aux_max=p["aux_max"], **kw)
    models["wspo"], _ = wspo_train(strong, pi_r, pi_ref, prompts, data["naive"], beta=p["wspo_beta"],
                                   lr=p["pref_lr"], **kw)
    for sft, chosen, arm in (("cong_s", data["cd"], "cong"), ("trunc_s", data["trunc"], "trunc_dpo")):
        own = decode(models[sft], prompts, task.k, temperature=TEMPERATURE, top_p=TOP_P,
                     generator=_gen(seed, 4)).numpy()
        models[arm], _ = dpo_train(models[sft], prompts, chosen, own, beta=0.5, steps=p["dpo_steps"],
                                   lr=p["pref_lr"], seed=seed)
        # sensitivity (added after the first full run, reported only): the paper's DPO/SFT learning-rate ratio
        models[arm + "_lowlr"], _ = dpo_train(models[sft], prompts, chosen, own, beta=0.5, steps=p["dpo_steps"],
                                              lr=p["dpo_lr_low"], seed=seed)
    m = {}
    for i, arm in enumerate(STRONG_ARMS + EXTRA_ARMS):
        for k, v in _evaluate(task, models[arm], strong, test, seed, 10 + i).items():
            m[f"strong/{arm}/{k}"] = v
    return m


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    p = profile
    torch.set_num_threads(max(1, int(p.get("threads", 1))))
    task = SortTask(p["n_digits"], p["k"])
    test = make_prompts(task, p["n_test"], seed=rng)
    weak, strong, m = pretrain(task, p, seed, rng)
    pi_r, best5, mw = align_weak(task, weak, p, seed, rng, test)
    prompts = make_prompts(task, p["n_train"], seed=rng)
    data, md = weak_samples(task, pi_r, weak, prompts, p, seed)
    ms = strong_arms(task, strong, pi_r, weak, prompts, data, best5, test, p, seed)
    m.update(mw)
    m.update(md)
    m.update(ms)
    m["gate/ceiling_gap"] = m["strong/ceiling/R"] - m["weak/R_r"]
    return m


# ----------------------------------------------------------------------------- hand-written check
def check_cong_beats_cong_s(ms) -> Verdict:
    """Pre-registered (issue 23): ConG > ConG-S reported; reproduced in >= 3/5 seeds, partly in fewer
    (but at least one), not-reproduced in none. Decided only if the weak-DPO gate holds."""
    from icml26.alignment.cong import CEILING, GATES

    a = np.array([m["strong/cong/R"] for m in ms])
    b = np.array([m["strong/cong_s/R"] for m in ms])
    d = a - b
    k = int((d > 0).sum())
    frac = k / len(d)
    status = "reproduced" if frac >= 0.6 else ("partly" if k >= 1 else "not-reproduced")
    ev = (f"rule: ConG's mean hidden reward above ConG-S's in >= 60% of seeds (partly: in at least one); met in "
          f"{k}/{len(d)}; differences " + ", ".join(f"{x:+.3f}" for x in d))
    failed = []
    for g in (*GATES, CEILING):
        ok, text = g.evaluate(ms)
        ev += "; " + text
        if not ok:
            failed.append(text)
    if failed:
        ev = f"precondition failed, so the claim is not decided (the count rule alone says {status}). " + ev
        status = "not-checkable"
    return Verdict(status, f"ConG {a.mean():.3f} vs ConG-S {b.mean():.3f}", ev, value=float(d.mean()),
                   control=f"ConG-S: {b.mean():.3f}")


def contradict_cong_beats_cong_s(ms):
    out = copy.deepcopy(list(ms))
    for m in out:
        m["strong/cong/R"] = m["strong/cong_s/R"] - 0.1
    return out


def control_cong_beats_cong_s(ms):
    out = copy.deepcopy(list(ms))
    for m in out:
        m["strong/cong/R"] = m["strong/cong_s/R"]
    return out


# ----------------------------------------------------------------------------- figure
def figure(ms):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    ax = axes[0]
    alphas = ms[0]["data/alpha"]
    sweep = np.array([m["data/R_sweep"] for m in ms])
    ax.errorbar(alphas, sweep.mean(0), yerr=sweep.std(0), marker="o", label="CD samples (alpha sweep)")
    for key, ls, lab in (("data/R_naive", "--", "naive pi_r samples"), ("weak/R_ref", ":", "pi_ref samples")):
        ax.axhline(np.mean([m[key] for m in ms]), color="k", ls=ls, label=lab)
    ax.set_xlabel("CD alpha (1 = pi_r on the plausibility set)")
    ax.set_ylabel("hidden reward R of weak samples")
    ax.legend(fontsize=8)
    ax = axes[1]
    vals = [[m[f"strong/{a}/R"] for m in ms] for a in STRONG_ARMS]
    colors = ["0.6"] + ["C0"] * len(BASELINES) + ["C1", "C3", "C2"]
    ax.bar(range(len(STRONG_ARMS)), [np.mean(v) for v in vals], yerr=[np.std(v) for v in vals], color=colors)
    ax.axhline(np.mean([m["weak/R_r"] for m in ms]), color="k", ls="--", label="weak pi_r")
    ax.set_xticks(range(len(STRONG_ARMS)), STRONG_ARMS, rotation=30, ha="right")
    ax.set_xlabel("strong-model arm")
    ax.set_ylabel("hidden reward R on held-out prompts (T = 1)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    from .method import EXAMPLES as method_examples

    return method_examples()
