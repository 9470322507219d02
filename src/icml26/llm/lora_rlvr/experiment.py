"""Small-scale reproduction of lora-rlvr: orthonormal LoRA initialisations under RLVR (DAPO) on a tiny policy.

``run`` composes four named parts:

* ``_base``: the seed's under-trained base policy (:func:`setting.pretrain_policy`) and its
  greedy exact match on validation and test problems;
* ``_one_step``: the one-step LoRA-vs-full geometry on the base policy's real policy-gradient
  ``G`` of every adapted weight: gap and update-norm ratio per initialisation, the
  Eckart-Young floor and a brute force over random Gaussian ``A`` of the orthonormal norm;
* ``_rlvr``: DAPO (clip-higher 0.2/0.28, token-level loss, beta = 0, KL to the start measured)
  from the same start, on the same prompt stream, for full fine-tuning (on its own 3-value
  lr grid, ``full_lr_grid``: its natural lr is lower than LoRA's) and every LoRA init (rank r,
  alpha = r, on every linear layer of each block: attention and MLP) over one common 3-value
  grid ``lr_grid``; each arm is reported at the lr with the best validation exact match, and
  every LoRA arm also at the grid's largest lr (stability);
* ``_sft``: supervised fine-tuning on correct scratchpads with standard LoRA, PiSSA and
  MiLoRA (the earlier papers' setting), held-out completion loss.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core import checks as C
from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything
from icml26.core.stats import sign_test
from icml26.llm.lora_rlvr.method import (INITS, TARGETS, adapter_init, dapo_config, make_arm, one_step_gap,
                                        optimal_gap)
from icml26.llm.lora_rlvr.setting import (PolicyConfig, training_batch, encode_prompts, exact_match,
                                          pretrain_policy, problems, reward_fn, tokenizer)

LORA_ARMS = ("kaiming", "gaussian_scaled", "random_orthonormal", "rlpo", "rlmo", "pissa", "milora")


def _policy_cfg(profile: Profile) -> PolicyConfig:
    return PolicyConfig(d_model=int(profile["d_model"]), n_layers=2, n_heads=4, levels=(1,),
                        steps=int(profile["pretrain_steps"]), batch=32, max_len=24)


def _base(profile: Profile, seed: int):
    base = pretrain_policy(seed, _policy_cfg(profile))
    val = problems(int(profile["n_val"]), levels=(1,), seed=50_000 + seed)
    test = problems(int(profile["n_test"]), levels=(1,), seed=60_000 + seed)
    return base, val, test


# ----------------------------------------------------------------------------- one-step geometry
def _policy_gradients(base: torch.nn.Module, seed: int, n_prompts: int = 16, group: int = 8) -> dict:
    """G = d(GRPO surrogate)/dW for every adapted weight, from one sampled group batch of the base policy."""
    import copy

    from icml26.nn.lm import sample, token_logprobs
    from icml26.nn.rl import group_advantages, grpo_loss

    tok = tokenizer()
    model = copy.deepcopy(base)
    items = problems(n_prompts, levels=(1,), seed=70_000 + seed)
    rep = [p for p in items for _ in range(group)]
    prompts = encode_prompts(rep)
    gen = sample(model, prompts, 12, eos_id=tok.eos_id, pad_id=tok.pad_id,
                 generator=torch.Generator().manual_seed(seed))
    comps = gen.as_lists()
    rewards = torch.tensor(reward_fn(rep, comps)).view(n_prompts, group)
    adv = group_advantages(rewards).view(-1)
    logp, mask = token_logprobs(model, prompts, comps, pad_id=tok.pad_id)
    loss = grpo_loss(logp, logp.detach(), adv, mask, aggregation="token")
    model.zero_grad()
    loss.backward()
    out = {}
    for name, mod in model.named_modules():
        if isinstance(mod, torch.nn.Linear) and any(name == t or name.endswith("." + t) for t in TARGETS):
            out[name] = (mod.weight.detach().clone(), mod.weight.grad.detach().clone())
    return out


def _one_step(base: torch.nn.Module, profile: Profile, seed: int) -> dict:
    r = int(profile["rank"])
    grads = _policy_gradients(base, seed)
    gaps = {k: [] for k in INITS}
    ratios = {k: [] for k in INITS}
    violation = 0.0
    floor_gap, best_random = [], []
    rng = torch.Generator().manual_seed(seed)
    for li, (name, (W, G)) in enumerate(grads.items()):
        if float(G.norm()) == 0:
            continue
        Wd, Gd = W.double(), G.double()
        for kind in INITS:
            A, _, _ = adapter_init(Wd, r, kind, seed=seed * 100 + li)
            g = one_step_gap(Gd, A)
            gaps[kind].append(g["gap"])
            ratios[kind].append(g["norm_ratio"])
            if kind in ("random_orthonormal", "rlpo", "rlmo"):
                violation = max(violation, g["norm_ratio"] - 1.0)
        floor = optimal_gap(Gd, r)
        _, _, vh = torch.linalg.svd(Gd, full_matrices=False)
        violation = max(violation, abs(one_step_gap(Gd, vh[:r])["gap"] - floor))
        n_in = Gd.shape[1]
        rand = torch.randn(int(profile["n_random_A"]), r, n_in, generator=rng, dtype=torch.float64)
        rand = rand * (np.sqrt(r) / rand.flatten(1).norm(dim=1))[:, None, None]
        proj = torch.einsum("oi,kri,krj->koj", Gd, rand, rand)
        rgaps = (Gd[None] - proj).flatten(1).norm(dim=1) / Gd.norm()
        violation = max(violation, floor - float(rgaps.min()))
        floor_gap.append(floor)
        best_random.append(float(rgaps.min()))
    out = {"onestep/violation": violation, "onestep/floor_gap": float(np.mean(floor_gap)),
           "onestep/best_random_gap": float(np.mean(best_random))}
    for kind in INITS:
        out[f"onestep/{kind}/gap"] = float(np.mean(gaps[kind]))
        out[f"onestep/{kind}/norm_ratio"] = float(np.mean(ratios[kind]))
    return out


# ----------------------------------------------------------------------------- RLVR
def _train_arm(base, arm: str, lr: float, profile: Profile, seed: int, val, test) -> dict:
    from icml26.nn.rl import train_grpo

    tok = tokenizer()
    model, params = make_arm(base, arm, int(profile["rank"]), seed=seed)
    pool = problems(4000, levels=(1,), seed=80_000 + seed)
    n_prompts = int(profile["prompts"])

    def prompts_fn(gen: torch.Generator):
        idx = torch.randint(0, len(pool), (n_prompts,), generator=gen).tolist()
        items = [pool[i] for i in idx]
        return encode_prompts(items), items

    cfg = dapo_config(lr, group_size=int(profile["group"]), max_new=12, eos_id=tok.eos_id, pad_id=tok.pad_id)
    hist = train_grpo(model, prompts_fn, reward_fn, cfg, steps=int(profile["rl_steps"]), seed=seed, params=params)
    kl = hist.series("kl")
    per_item = exact_match(model, test)
    return {"val": float(exact_match(model, val).mean()), "test": float(per_item.mean()), "items": per_item,
            "max_kl": float(max(kl)), "final_kl": float(kl[-1]), "reward": hist.series("reward")}


def _paired_bootstrap(a: np.ndarray, b: np.ndarray, seed: int, n: int = 2000) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    d = a - b
    idx = rng.integers(0, d.size, size=(n, d.size))
    boots = d[idx].mean(1)
    return float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def _best_on_grid(base, arm: str, grid: list[float], profile: Profile, seed: int, val, test) -> tuple[float, dict]:
    """Train ``arm`` at every lr of ``grid``; return the lr with the best validation EM (ties: the smaller) and all runs."""
    runs = {lr: _train_arm(base, arm, lr, profile, seed, val, test) for lr in grid}
    return max(grid, key=lambda lr: (runs[lr]["val"], -lr)), runs


def _rlvr(base, profile: Profile, seed: int, val, test) -> dict:
    grid = [float(x) for x in profile["lr_grid"]]
    out: dict = {}
    base_test = exact_match(base, test)
    base_acc = float(base_test.mean())
    # full fine-tuning on its own grid (its natural lr is lower than LoRA's), best on validation
    full_lr, full_runs = _best_on_grid(base, "full", [float(x) for x in profile["full_lr_grid"]], profile, seed,
                                       val, test)
    full = full_runs[full_lr]
    out["rl/full/lr"] = full_lr
    out["rl/full/test"] = full["test"]
    out["rl/full/gain"] = full["test"] - base_acc
    out["rl/full/max_kl"] = full["max_kl"]
    items = {}
    for arm in LORA_ARMS:  # every LoRA arm on the same grid, reported at its best lr on validation
        best_lr, runs = _best_on_grid(base, arm, grid, profile, seed, val, test)
        best = runs[best_lr]
        out[f"rl/{arm}/lr"] = best_lr
        out[f"rl/{arm}/test"] = best["test"]
        out[f"rl/{arm}/gain"] = best["test"] - base_acc
        out[f"rl/{arm}/max_kl"] = best["max_kl"]
        out[f"rl/{arm}/final_kl"] = best["final_kl"]
        out[f"rl/{arm}/reward"] = best["reward"]
        items[arm] = best["items"]
        top = runs[max(grid)]  # stability is judged at the grid's largest lr
        out[f"rl/{arm}/hi_lr/max_kl"] = top["max_kl"]
        out[f"rl/{arm}/hi_lr/collapse"] = float(top["test"] < 0.5 * base_acc)
        out[f"rl/{arm}/hi_lr/test"] = top["test"]
    lo, hi = _paired_bootstrap(items["rlpo"], items["kaiming"], seed)
    out["rl/rlpo_vs_lora/boot_lo"], out["rl/rlpo_vs_lora/boot_hi"] = lo, hi
    out["rl/base/test"] = base_acc
    return out


# ----------------------------------------------------------------------------- SFT (prior work)
def _sft(base, profile: Profile, seed: int) -> dict:
    from icml26.nn.lm import token_logprobs  # noqa: F401 - keeps the import graph explicit
    from icml26.nn.mlp import fit
    from icml26.nn.train import lm_loss

    train_items = problems(4000, levels=(1,), seed=90_000 + seed)
    held = problems(256, levels=(1,), seed=91_000 + seed)
    held_ids, held_tgt = training_batch(held, 24)
    out = {}

    def draw(gen: torch.Generator):
        idx = torch.randint(0, len(train_items), (32,), generator=gen).tolist()
        return training_batch([train_items[i] for i in idx], 24)

    def loss_fn(model, batch):
        return lm_loss(model, batch[0], target=batch[1])

    for arm in ("kaiming", "pissa", "milora"):
        model, params = make_arm(base, arm, int(profile["rank"]), seed=seed)
        # nn.mlp.fit: Adam on the adapter's params, batches drawn from Generator().manual_seed(seed),
        # no clipping, constant lr; leaves the model in eval mode (bit-identical to the loop it replaced)
        fit(model, loss_fn, draw, steps=int(profile["sft_steps"]), lr=float(profile["sft_lr"]), params=params,
            seed=seed)
        with torch.no_grad():
            out[f"sft/{arm}/loss"] = float(lm_loss(model, held_ids, target=held_tgt))
    return out


def run(profile: Profile, seed: int) -> dict:
    seed_everything(seed)
    base, val, test = _base(profile, seed)
    out: dict = {"base/val": float(exact_match(base, val).mean()), "rank": int(profile["rank"])}
    out.update(_one_step(base, profile, seed))
    out.update(_rlvr(base, profile, seed, val, test))
    out.update(_sft(base, profile, seed))
    return out


# ----------------------------------------------------------------------------- hand-written checks
_GATES = (C.gate("rl/full/gain", at_least=0.05, frac=0.8, why="full fine-tuning with DAPO gains >= 5 points"),
          C.gate("rl/kaiming/gain", at_least=0.01, frac=0.8, why="the standard-LoRA control itself learns (>= 1 point)"))


def _gates(ms) -> str | None:
    for g in _GATES:
        ok, text = g.evaluate(ms)
        if not ok:
            return text
    return None


def check_rlpo_beats_lora(ms) -> Verdict:
    ms = list(ms)
    n = len(ms)
    acc = {k: np.array([m[f"rl/{k}/test"] for m in ms]) for k in ("rlpo", "rlmo", "kaiming", "gaussian_scaled")}
    kl = {k: np.array([m[f"rl/{k}/max_kl"] for m in ms]) for k in ("rlpo", "kaiming")}
    above_both = (acc["rlpo"] > acc["kaiming"]) & (acc["rlpo"] > acc["gaussian_scaled"])
    kl_below = kl["rlpo"] < kl["kaiming"]
    rlmo_ok = acc["rlmo"] >= acc["kaiming"] - 0.01
    ok_seed = above_both & kl_below & rlmo_ok
    k = int(ok_seed.sum())
    wins = int((acc["rlpo"] > acc["kaiming"]).sum())
    # the same-lr KL comparison (the best-lr one can compare different lrs): the grid's largest lr
    hi_kl_above = int(sum(m["rl/rlpo/hi_lr/max_kl"] > m["rl/kaiming/hi_lr/max_kl"] for m in ms))
    boots = ", ".join(f"[{m['rl/rlpo_vs_lora/boot_lo']:+.3f}, {m['rl/rlpo_vs_lora/boot_hi']:+.3f}]" for m in ms)
    measured = (f"RLPO {acc['rlpo'].mean():.3f}, RLMO {acc['rlmo'].mean():.3f} test EM; max-KL RLPO "
                f"{kl['rlpo'].mean():.3g} vs LoRA {kl['kaiming'].mean():.3g} (seed means at each arm's best lr); "
                f"per seed: RLPO above both controls in {int(above_both.sum())}/{n}, RLPO max-KL below LoRA's in "
                f"{int(kl_below.sum())}/{n}, RLMO >= LoRA - 1 pt in {int(rlmo_ok.sum())}/{n}; all conditions in {k}/{n} seeds")
    control = (f"standard LoRA {acc['kaiming'].mean():.3f} (max-KL {kl['kaiming'].mean():.3g}); norm-matched "
               f"Gaussian A {acc['gaussian_scaled'].mean():.3f}")
    rule = ("per seed: RLPO test EM above standard LoRA and above the norm-matched Gaussian A, RLPO max-KL below "
            "standard LoRA's, RLMO >= LoRA - 1 pt; reproduced if in >= 80% of >= 5 seeds, partly if in >= 60%, or if "
            "the accuracy half (RLPO above both controls) holds in >= 80% of seeds")
    mean_win = acc["rlpo"].mean() > max(acc["kaiming"].mean(), acc["gaussian_scaled"].mean())
    former = "reproduced" if k / n >= 0.8 else "partly" if k / n >= 0.6 or mean_win else "not-reproduced"
    revised = ("rule revised by review after the 12-step attention-only full run (which read partly under the former "
               "rule): the former partly tier 'or RLPO's mean EM beats both controls' (not in the issue's "
               "pre-registered rule, and blind to the KL and RLMO conditions) is replaced by the per-seed accuracy "
               f"count above; under the former rule these rows read {former}")
    p = sign_test(acc["rlpo"] - acc["kaiming"], alternative="greater")
    evidence = (f"rule: {rule}; {revised}; sign test RLPO > LoRA in EM: {wins}/{n}, one-sided p (ties dropped) = {p:.3g} "
                f"(smallest attainable {0.5 ** n:.3g}); per-seed paired item bootstrap 95% CI of RLPO - LoRA EM: {boots}; "
                f"at the grid's largest lr RLPO's max-KL is above standard LoRA's in {hi_kl_above}/{n} seeds (same lr)")
    gate = _gates(ms)
    if gate is not None:
        return Verdict("not-checkable", measured, f"training gate failed: {gate}; {evidence}", control=control)
    if n < 5:
        return Verdict("not-checkable", measured, f"too few seeds ({n} < 5) for the 4-of-5 rule; {evidence}",
                       control=control)
    if k / n >= 0.8:
        status = "reproduced"
    elif k / n >= 0.6 or above_both.mean() >= 0.8:
        status = "partly"
    else:
        status = "not-reproduced"
    return Verdict(status, measured, evidence, value=float(acc["rlpo"].mean()), control=control)


def contradict_rlpo_beats_lora(ms):
    out = [dict(m) for m in ms]
    for m in out:
        worst = min(m["rl/kaiming/test"], m["rl/gaussian_scaled/test"])
        m["rl/rlpo/test"] = worst - 0.1
        m["rl/rlmo/test"] = m["rl/kaiming/test"] - 0.1
        m["rl/rlpo/max_kl"] = m["rl/kaiming/max_kl"] + 1.0
    return out


def control_rlpo_beats_lora(ms):
    out = [dict(m) for m in ms]
    for m in out:
        for key in ("test", "max_kl"):
            m[f"rl/rlpo/{key}"] = m[f"rl/kaiming/{key}"]
            m[f"rl/rlmo/{key}"] = m[f"rl/kaiming/{key}"]
    return out


def _unstable(ms, arm: str) -> np.ndarray:
    col = np.array([m[f"rl/{arm}/hi_lr/collapse"] > m["rl/kaiming/hi_lr/collapse"] for m in ms])
    kl = np.array([m[f"rl/{arm}/hi_lr/max_kl"] > m["rl/kaiming/hi_lr/max_kl"] for m in ms])
    return col | kl


def check_pissa_unstable(ms) -> Verdict:
    ms = list(ms)
    n = len(ms)
    counts = {arm: int(_unstable(ms, arm).sum()) for arm in ("pissa", "milora")}
    mean = {arm: np.mean([m[f"rl/{arm}/hi_lr/max_kl"] for m in ms]) for arm in ("pissa", "milora", "kaiming")}
    col = {arm: np.mean([m[f"rl/{arm}/hi_lr/collapse"] for m in ms]) for arm in ("pissa", "milora", "kaiming")}
    measured = (f"at the largest lr: max-KL PiSSA {mean['pissa']:.3g}, MiLoRA {mean['milora']:.3g}; collapse rate "
                f"PiSSA {col['pissa']:.2f}, MiLoRA {col['milora']:.2f}; less stable than LoRA in "
                f"{counts['pissa']}/{n} (PiSSA) and {counts['milora']}/{n} (MiLoRA) seeds")
    control = f"standard LoRA at the largest lr: max-KL {mean['kaiming']:.3g}, collapse rate {col['kaiming']:.2f}"
    evidence = ("rule: per seed, collapse (test EM < half the base's) or max-KL above standard LoRA's at the grid's "
                "largest lr; reproduced if in >= 80% of >= 5 seeds for both PiSSA and MiLoRA, partly if for one; "
                f"sign-test p on the per-seed less-stable indicator (+1 / -1): PiSSA "
                f"{sign_test(2.0 * _unstable(ms, 'pissa') - 1, alternative='greater'):.3g}, MiLoRA "
                f"{sign_test(2.0 * _unstable(ms, 'milora') - 1, alternative='greater'):.3g} "
                f"(smallest attainable {0.5 ** n:.3g})")
    if all(f"rl/{a}/test" in m for m in ms for a in ("pissa", "milora", "kaiming")):  # reported, not deciding
        best = {a: np.array([m[f"rl/{a}/test"] for m in ms]) for a in ("pissa", "milora", "kaiming")}
        evidence += (f"; reported, not deciding: at each arm's best validation lr test EM PiSSA "
                     f"{best['pissa'].mean():.3f}, MiLoRA {best['milora'].mean():.3f}, LoRA {best['kaiming'].mean():.3f}; "
                     f"below LoRA in {int((best['pissa'] < best['kaiming']).sum())}/{n} (PiSSA) and "
                     f"{int((best['milora'] < best['kaiming']).sum())}/{n} (MiLoRA) seeds")
    gate = _gates(ms)
    if gate is not None:
        return Verdict("not-checkable", measured, f"training gate failed: {gate}; {evidence}", control=control)
    if n < 5:
        return Verdict("not-checkable", measured, f"too few seeds ({n} < 5); {evidence}", control=control)
    hits = [counts[a] / n >= 0.8 for a in ("pissa", "milora")]
    status = "reproduced" if all(hits) else "partly" if any(hits) else "not-reproduced"
    return Verdict(status, measured, evidence, value=float(mean["pissa"]), control=control)


def contradict_pissa_unstable(ms):
    out = [dict(m) for m in ms]
    for m in out:
        for arm in ("pissa", "milora"):
            m[f"rl/{arm}/hi_lr/max_kl"] = m["rl/kaiming/hi_lr/max_kl"] * 0.5
            m[f"rl/{arm}/hi_lr/collapse"] = m["rl/kaiming/hi_lr/collapse"]
    return out


def control_pissa_unstable(ms):
    out = [dict(m) for m in ms]
    for m in out:
        for arm in ("pissa", "milora"):
            for key in ("max_kl", "collapse"):
                m[f"rl/{arm}/hi_lr/{key}"] = m[f"rl/kaiming/hi_lr/{key}"]
    return out


# ----------------------------------------------------------------------------- figure and examples
def figure(metrics: list[dict]):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9, 3.2))
    ax1, ax2, ax3 = fig.subplots(1, 3)
    arms = ["full", *LORA_ARMS]
    vals = [[m[f"rl/{a}/test"] for m in metrics] for a in arms]
    ax1.boxplot(vals)
    ax1.axhline(np.mean([m["rl/base/test"] for m in metrics]), color="grey", ls="--", lw=1, label="start")
    ax1.set_xticks(range(1, len(arms) + 1), [a[:6] for a in arms], rotation=60, fontsize=7)
    ax1.set_xlabel("arm (best lr on validation)")
    ax1.set_ylabel("test exact match after DAPO")
    ax1.legend(fontsize=7)
    kls = [[m[f"rl/{a}/hi_lr/max_kl"] for m in metrics] for a in LORA_ARMS]
    ax2.boxplot(kls)
    ax2.set_yscale("log")
    ax2.set_xticks(range(1, len(LORA_ARMS) + 1), [a[:6] for a in LORA_ARMS], rotation=60, fontsize=7)
    ax2.set_xlabel("LoRA init (largest lr)")
    ax2.set_ylabel("max KL to the start")
    gaps = [[m[f"onestep/{a}/gap"] for m in metrics] for a in INITS]
    ax3.bar(range(len(INITS)), [np.mean(g) for g in gaps])
    ax3.axhline(np.mean([m["onestep/floor_gap"] for m in metrics]), color="k", ls=":", lw=1, label="floor")
    ax3.set_xticks(range(len(INITS)), [a[:6] for a in INITS], rotation=60, fontsize=7)
    ax3.set_xlabel("initialisation")
    ax3.set_ylabel("one-step gap ||G(I-A'A)||/||G||")
    ax3.legend(fontsize=7)
    fig.suptitle(f"lora-rlvr: {len(metrics)} seeds", fontsize=9)
    fig.tight_layout()
    return fig


def EXAMPLES():
    """Public functions with good arguments, for the common bad-input test."""
    from icml26.llm.lora_rlvr.method import lora_one_step_delta

    W = torch.randn(6, 5, generator=torch.Generator().manual_seed(0))
    G = torch.randn(6, 5, generator=torch.Generator().manual_seed(1))
    A = torch.randn(2, 5, generator=torch.Generator().manual_seed(2))
    return [
        (adapter_init, {"W": W, "r": 2, "kind": "rlpo"}),
        (one_step_gap, {"G": G, "A": A}),
        (optimal_gap, {"G": G, "r": 2}),
        (lora_one_step_delta, {"G": G, "A": A, "lr": 0.1}),
        (dapo_config, {"lr": 1e-3}),
        (problems, {"n": 4}),
    ]
