"""RePO reproduction (arXiv:2606.09124) on a char-level TinyLM doing verifiable arithmetic.

Each seed pretrains pi_ref (``setting.pretrain_reference``: a TinyLM on + / - problems whose
training answers are wrong 30% of the time; with ``pretrain_target`` in the profile, stopped at the
first check from ``pretrain_min`` on, every ``pretrain_check`` steps, at which its greedy success on
``n_cal`` calibration problems reaches the target, at most ``pretrain_steps`` steps), samples 8 rollouts per training prompt from the
behaviour policy mu (pi_ref at temperature ``tau``, per-token log-probabilities stored), and
builds two preference sets from the same rollouts:

* math: correct vs incorrect rollouts of the same prompt (every incorrect rollout, up to
  ``pairs_per_prompt``, paired with a correct one drawn at random);
* human: two distinct rollouts compared by a user drawn from a two-type latent-utility
  population (``_preferences``), over (correct, closeness of the answer, brevity).

Arms, all fine-tuned from pi_ref with the same optimiser, steps, batches and tuning protocol
(``train_arms``: the learning rate chosen per arm and seed from the common grid ``lrs`` by
validation success (math) or validation win rate (human); each arm's loss scale is its
``<arm>_betas`` grid, one value in the profiles): RePO (vectorised window, lambda = 0.5,
alpha = 1, c_ref = 1, mean normalisation), RePO_det, the key-idea control RePO without the
future term (lambda, alpha and normalisation kept), and DPO, IPO and SimPO. Metrics: greedy success rate
(math) and the true-utility win rate against pi_ref's greedy answer (human; ties count one half), on
``n_test`` drawn problems or, with ``test_all``, on all 200 problems of the level-1 world once; and the
mean log-prob of the correct answer (math, ``logp_correct``), which the training gate reads per seed.

The loss identities (on-policy data removes the future term, hand-computed values of both
windows and of RePO_det, gradient signs) are measured in every run.
"""

from __future__ import annotations

import numpy as np
import torch

from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything

from .method import regret_scores, repo_loss, train_preference
from .setting import (all_problems, answer_logprob, greedy_texts, human_pairs, make_population, make_tokenizer,
                      math_pairs, pretrain_reference, problems, response_features, rollouts, success_rate, true_utility)

SETTINGS = ("math", "human")
CONTROLS = ("dpo", "ipo", "simpo", "repo_nofuture")
ARMS = ("repo", "repo_det") + CONTROLS
GRID_ARMS = ("dpo", "ipo", "simpo")
WIN_FRAC = 0.7     # RePO above each control in >= 7/10 seeds
GATE = 0.03        # DPO raises math success over pi_ref by >= 3 points (seed mean) ...
GATE_FRAC = 0.7    # ... and raises the log-prob of the correct answer in >= 7/10 seeds
REF_BAND = (0.2, 0.5)  # premise: pi_ref's success lies in this band (room to improve, not at the floor) ...
REF_FRAC = 0.8     # ... in >= 8/10 seeds


# ----------------------------------------------------------------------------- parts
def loss_identities(seed: int) -> dict:
    """Max errors of the loss identities on random inputs (0 up to float error when they hold)."""
    g = torch.Generator().manual_seed(seed)
    lp = -torch.rand(6, 7, generator=g)
    mask = torch.ones(6, 7, dtype=torch.bool)
    mask[2, 5:] = False
    err = 0.0
    for w in ("vectorised", "loop"):
        err = max(err, float((regret_scores(lp, lp, mask, window=w) - regret_scores(lp, None, mask, future=False))
                             .abs().max()))
    lp3, b3, m3 = torch.tensor([[-1.0, -2.0, -3.0]]), torch.tensor([[-0.5, -1.0, -1.0]]), torch.ones(1, 3, dtype=torch.bool)
    err = max(err, abs(regret_scores(lp3, b3, m3).item() - (-1 - 3.5 / 3 - 2 - 1.5 - 3 - 2) / 3),
              abs(regret_scores(lp3, b3, m3, window="loop").item() - (-1 - 1.5 - 2 - 2 - 3) / 3),
              abs(regret_scores(lp3, None, m3).item() + 4.5))
    lc, lr = lp.clone().requires_grad_(), (lp * 1.5).clone().requires_grad_()
    b, ref = -torch.rand(6, 7, generator=g), -torch.rand(6, 7, generator=g)
    gc, gr = torch.autograd.grad(repo_loss(lc, lr, b, b, ref, ref, mask, mask).sum(), (lc, lr))
    wrong_sign = float(((gc[mask] >= 0).float().mean() + (gr[mask] <= 0).float().mean()) / 2)
    return {"identity/max_err": err, "identity/wrong_sign_frac": wrong_sign}


def _arm_kwargs(arm: str, beta: float, lr: float, pairs: dict, p: Profile, seed: int) -> dict:
    kw = {"loss": arm, "steps": p["steps"], "batch": p["batch"], "lr": lr, "seed": seed, "lam": 0.5,
          "alpha": p["alpha"], "c_ref": 1.0, "gamma": p["simpo_gamma"], "beta": beta}
    if arm == "repo":
        kw.update(behaviour_chosen=pairs["beh_c"], behaviour_rejected=pairs["beh_r"])
    return kw


def win_rate(policy, ref_texts: list[str], tok, probs, pop) -> float:
    """True-utility win rate of the policy's greedy answers against pi_ref's (ties count 1/2)."""
    texts = greedy_texts(policy, tok, probs)
    u_pol = true_utility(pop, np.stack([response_features(t, q) for t, q in zip(texts, probs)]))
    u_ref = true_utility(pop, np.stack([response_features(t, q) for t, q in zip(ref_texts, probs)]))
    return float(np.mean((u_pol > u_ref) + 0.5 * (u_pol == u_ref)))


def train_arms(ref, tok, pairs: dict, score_val, score_test, p: Profile, seed: int, extra=None) -> dict:
    """Every arm on one preference set, tuned by one protocol: each arm keeps the (beta, lr) of its grid
    (its own beta values, 1 for the RePO arms, times the learning rates common to all arms) with the best
    validation score (ties keep the earlier configuration). ``extra(model) -> float``, optional, is also
    recorded for the kept model (as ``logp_correct``)."""
    out = {}
    for arm in ARMS:
        betas = list(p[f"{arm}_betas"]) if arm in GRID_ARMS else [1.0]
        best = None
        for beta in betas:
            for lr in p["lrs"]:
                pol, hist = train_preference(ref, pairs["prompts"], pairs["chosen"], pairs["rejected"],
                                             **_arm_kwargs(arm, float(beta), float(lr), pairs, p, seed))
                v = score_val(pol)
                if best is None or v > best[0]:
                    best = (v, beta, lr, pol, hist)
        out[arm] = {"test": score_test(best[3]), "val": best[0], "beta": float(best[1]), "lr": float(best[2]),
                    "loss_first": best[4][0], "loss_last": float(np.mean(best[4][-5:]))}
        if extra is not None:
            out[arm]["logp_correct"] = float(extra(best[3]))
    return out


def run(profile: Profile, seed: int) -> dict:
    rng = seed_everything(seed)
    p = profile
    torch.set_num_threads(max(1, int(p.get("threads", 1))))
    tok = make_tokenizer()
    cal = problems(p["n_cal"], seed=rng) if p.get("pretrain_target") is not None else None
    ref, hist = pretrain_reference(tok, steps=p["pretrain_steps"], noise=p["noise"], seed=rng, calibration=cal,
                                   target=p.get("pretrain_target"), check_every=p.get("pretrain_check", 25),
                                   min_steps=p.get("pretrain_min", 100))
    train_p, val_p = (problems(n, seed=rng) for n in (p["n_prompts"], p["n_val"]))
    test_p = all_problems() if p.get("test_all", False) else problems(p["n_test"], seed=rng)
    ro = rollouts(ref, tok, train_p, k=8, tau=p["tau"], seed=int(rng.integers(2**31)))
    pop = make_population(seed=rng)
    sets = {"math": math_pairs(ro, seed=rng, per_prompt=p["pairs_per_prompt"]), "human": human_pairs(ro, pop, seed=rng)}
    ref_val, ref_test = greedy_texts(ref, tok, val_p), greedy_texts(ref, tok, test_p)
    scorers = {"math": (lambda m: success_rate(m, tok, val_p), lambda m: success_rate(m, tok, test_p)),
               "human": (lambda m: win_rate(m, ref_val, tok, val_p, pop),
                         lambda m: win_rate(m, ref_test, tok, test_p, pop))}
    m: dict = {"ref/success": success_rate(ref, tok, test_p), "pretrain/loss_drop": hist[0] / np.mean(hist[-10:]),
               "pretrain/steps": float(len(hist)), "ref/logp_correct": answer_logprob(ref, tok, test_p)}
    if cal is not None:
        m["pretrain/cal_success"] = success_rate(ref, tok, cal)
    for s in SETTINGS:
        m[f"{s}/n_pairs"] = len(sets[s]["prompts"])
        res = train_arms(ref, tok, sets[s], *scorers[s], p, seed,
                         extra=(lambda mdl: answer_logprob(mdl, tok, test_p)) if s == "math" else None)
        for arm, r in res.items():
            for k, v in r.items():
                m[f"{s}/{arm}/{k}"] = v
        m[f"{s}/best_control/test"] = max(res[c]["test"] for c in CONTROLS)
    m["dpo_gain"] = m["math/dpo/test"] - m["ref/success"]
    m["dpo_logp_gain"] = m["math/dpo/logp_correct"] - m["ref/logp_correct"]
    m.update(loss_identities(seed))
    return m


# ----------------------------------------------------------------------------- checks
def _gate(ms) -> tuple[bool, str]:
    """Premise (pi_ref's success in ``REF_BAND`` in >= ``REF_FRAC`` of the seeds) and training gate (DPO raises
    math success by >= ``GATE`` on the seed mean, and the mean log-prob of the correct answer in >= ``GATE_FRAC``
    of the seeds). Rows without the log-prob metric (runs before the fourth session) fail the gate."""
    n = len(ms)
    g = np.array([mm["dpo_gain"] for mm in ms])
    lg = np.array([mm.get("dpo_logp_gain", np.nan) for mm in ms])
    ref = np.array([mm["ref/success"] for mm in ms])
    in_band = int(np.sum((ref >= REF_BAND[0]) & (ref <= REF_BAND[1])))
    lp_up = int(np.sum(lg > 0))
    need_band, need_lp = int(np.ceil(REF_FRAC * n - 1e-9)), int(np.ceil(GATE_FRAC * n - 1e-9))
    ok_band, ok_mean, ok_lp = in_band >= need_band, float(g.mean()) >= GATE, lp_up >= need_lp
    ok = ok_band and ok_mean and ok_lp
    return ok, (f"premise 'pi_ref success in [{REF_BAND[0]:g}, {REF_BAND[1]:g}] in >= {need_band}/{n} seeds' "
                f"({in_band}/{n}, range {ref.min():.3f}-{ref.max():.3f}): {'met' if ok_band else 'not met'}; "
                f"gate 'DPO raises math success over pi_ref by >= {GATE:g}' (seed mean {g.mean():+.3f}, per seed "
                f"{g.min():+.3f} to {g.max():+.3f}, > 0 in {int(np.sum(g > 0))}/{n}): {'met' if ok_mean else 'not met'}; "
                f"gate 'DPO raises the mean log-prob of the correct answer in >= {need_lp}/{n} seeds' ({lp_up}/{n}, "
                f"seed mean {np.nanmean(lg) if np.isfinite(lg).any() else np.nan:+.3f} nats): "
                f"{'met' if ok_lp else 'not met'}")


def _boot_lo(d: np.ndarray, level: float = 0.90) -> float:
    from icml26.core.stats import bootstrap_ci

    return bootstrap_ci(d, level=level)[0]


def check_beats_dpo_style(ms) -> Verdict:
    """RePO above each control (DPO, IPO, SimPO with a fixed beta and the lr validated from the common grid;
    RePO without the future term) in each setting: wins in >= 7/10 of the seeds and the paired-bootstrap 90% CI
    of the mean difference has its lower end >= 0. Reproduced if all 8 (setting, control) comparisons pass; partly
    if some do; gated on the premise and on DPO (``_gate``)."""
    n = len(ms)
    need = int(np.ceil(WIN_FRAC * n - 1e-9))

    def passes(arm: str, s: str, c: str) -> tuple[bool, int, float, np.ndarray, np.ndarray]:
        a = np.array([mm[f"{s}/{arm}/test"] for mm in ms])
        b = np.array([mm[f"{s}/{c}/test"] for mm in ms])
        d = a - b
        wins, lo = int(np.sum(d > 0)), _boot_lo(d)
        return wins >= need and lo >= 0 and d.mean() > 0, wins, lo, a, b

    parts, oks, beyond = [], [], []
    for s in SETTINGS:
        for c in CONTROLS:
            ok, wins, lo, a, b = passes("repo", s, c)
            oks.append(ok)
            parts.append(f"{s} vs {c}: {a.mean():.3f} vs {b.mean():.3f}, wins {wins}/{n}, 90% CI lo {lo:+.3f}")
            # reported only: does the key-idea control (no future term) in RePO's place pass the same part?
            ctl_ok = c != "repo_nofuture" and passes("repo_nofuture", s, c)[0]
            if ok and not ctl_ok:
                beyond.append(f"{s} vs {c}")
    n_ctl = sum(passes("repo_nofuture", s, c)[0] for s in SETTINGS for c in CONTROLS if c != "repo_nofuture")
    status = "reproduced" if all(oks) else ("partly" if any(oks) else "not-reproduced")
    gok, gtxt = _gate(ms)
    ev = (f"rule: in each setting RePO beats each control in >= {need}/{n} seeds with the paired-bootstrap 90% CI "
          f"of the mean difference not below 0; {sum(oks)}/{len(oks)} comparisons pass; {gtxt}; "
          f"reported, not deciding (added after the third full run, verdict unchanged): the key-idea control, "
          f"RePO without the future term, put in RePO's place passes {n_ctl} of the same comparisons with DPO, IPO "
          f"and SimPO, so what RePO passes beyond it is: {', '.join(beyond) or 'nothing'} (the direct comparison "
          f"with the control is the only part the control cannot pass by construction; see the substitution's "
          f"review note (b) for how small the rest is)")
    if not gok:
        ev = f"precondition failed, so the claim is not decided (on these numbers: {status}). " + ev
        status = "not-checkable"
    ctl = "; ".join(f"{s} {c} {np.mean([mm[f'{s}/{c}/test'] for mm in ms]):.3f}" for s in SETTINGS for c in CONTROLS)
    ctl += f"; pi_ref math success {np.mean([mm['ref/success'] for mm in ms]):.3f}"
    return Verdict(status, " | ".join(parts), ev, control=ctl,
                   value=float(np.mean([mm["math/repo/test"] - mm["math/best_control/test"] for mm in ms])))


def contradict_beats_dpo_style(ms):
    return [{**mm, **{f"{s}/repo/test": min(mm[f"{s}/{c}/test"] for c in CONTROLS) - 0.05 for s in SETTINGS}}
            for mm in ms]


def control_beats_dpo_style(ms):
    return [{**mm, **{f"{s}/repo/test": mm[f"{s}/best_control/test"] for s in SETTINGS}} for mm in ms]


def check_det_competitive(ms) -> Verdict:
    """In each setting: RePO_det above DPO in >= 7/10 seeds with the paired-bootstrap 90% CI of the mean difference
    not below 0, and within 1 point of RePO (mean and median over seeds of RePO_det - RePO >= -0.01). Reproduced if
    both settings pass; partly if one does; gated on the premise and on DPO (``_gate``)."""
    n = len(ms)
    need = int(np.ceil(WIN_FRAC * n - 1e-9))
    parts, oks = [], []
    for s in SETTINGS:
        det, dpo, rp = (np.array([mm[f"{s}/{a}/test"] for mm in ms]) for a in ("repo_det", "dpo", "repo"))
        d, e = det - dpo, det - rp
        wins, lo = int(np.sum(d > 0)), _boot_lo(d)
        ok = wins >= need and lo >= 0 and d.mean() > 0 and e.mean() >= -0.01 and np.median(e) >= -0.01
        oks.append(ok)
        parts.append(f"{s}: RePO_det {det.mean():.3f}, DPO {dpo.mean():.3f} (wins {wins}/{n}, 90% CI lo {lo:+.3f}), "
                     f"RePO {rp.mean():.3f} (RePO_det - RePO mean {e.mean():+.3f}, median {np.median(e):+.3f})")
    status = "reproduced" if all(oks) else ("partly" if any(oks) else "not-reproduced")
    gok, gtxt = _gate(ms)
    ev = (f"rule: in each setting RePO_det beats DPO in >= {need}/{n} seeds with the paired-bootstrap 90% CI of the "
          f"mean difference not below 0, and the mean and the median over seeds of RePO_det - RePO are >= -0.01; "
          f"{sum(oks)}/2 settings pass; {gtxt}")
    if not gok:
        ev = f"precondition failed, so the claim is not decided (on these numbers: {status}). " + ev
        status = "not-checkable"
    ctl = "; ".join(f"{s} DPO {np.mean([mm[f'{s}/dpo/test'] for mm in ms]):.3f}" for s in SETTINGS)
    return Verdict(status, " | ".join(parts), ev, control=ctl)


def contradict_det_competitive(ms):
    return [{**mm, **{f"{s}/repo_det/test": mm[f"{s}/dpo/test"] - 0.1 for s in SETTINGS}} for mm in ms]


def control_det_competitive(ms):
    return [{**mm, **{f"{s}/repo_det/test": mm[f"{s}/dpo/test"] for s in SETTINGS}} for mm in ms]


# ----------------------------------------------------------------------------- figure
def figure(ms):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, s in zip(axes, SETTINGS):
        vals = [[mm[f"{s}/{a}/test"] for mm in ms] for a in ARMS]
        ax.bar(range(len(ARMS)), [np.mean(v) for v in vals], yerr=[np.std(v) for v in vals],
               color=["C3", "C1"] + ["C0"] * len(CONTROLS))
        ax.set_xticks(range(len(ARMS)), ARMS, rotation=30, ha="right")
        ax.set_xlabel("fine-tuning loss")
        if s == "math":
            ax.axhline(np.mean([mm["ref/success"] for mm in ms]), color="k", ls="--", label="pi_ref")
            ax.set_ylabel("greedy success rate on the test problems")
            ax.legend()
        else:
            ax.axhline(0.5, color="k", ls="--")
            ax.set_ylabel("true-utility win rate vs pi_ref")
    fig.tight_layout()
    return fig
