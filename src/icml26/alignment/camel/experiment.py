"""CAMEL reproduction (arXiv:2602.20670) with a TinyLM judge over arithmetic answer pairs.

Each seed:

1. supervised fine-tuning (``sft_judge``, constant lr after warm-up) of a fresh char-level
   TinyLM on gold traces (prompt, gold verdict, scratchpad reflection, gold final verdict), half
   of them (10% until the fourth session) opened with the wrong verdict as unscored context (revision traces), cached on disk
   by (seed, config) like the shared arithmetic policy;
2. GRPO on the reflection (binary reward 1[final verdict correct], groups of 8, rollouts at
   temperature 1.5, no KL term in the full profile) in two arms from the same SFT judge and the same number
   of rollouts: CAMEL with counterfactual prefix augmentation (every item opened with both
   verdicts) and the control opened with the model's own verdict only. A reflection that copies
   its opening earns a CPA reward of exactly 0.5 at every step, so ``cpa-revisions`` is gated on
   the rise of GRPO's objective on held-out items, the CPA reward of reflections sampled at the
   GRPO temperature on the validation items after CPA GRPO minus the SFT judge's
   (``cpa/heldout_reward_gain``; the training reward's quarter-to-quarter rise,
   ``cpa/grpo_reward_gain``, is still reported), and ``gated-frontier`` on reflecting
   helping at all (``reflect/always_gain`` = always - never reflecting); with a copying
   reflection gated, random, never and always reflecting give the same accuracy by construction;
3. measurements on held-out items:

* margin: AUROC of the verdict margin |log p(A) - log p(B)| of the CAMEL judge for the
  correctness of its fast verdict, and on a subset the AUROC of a costly proxy, the agreement
  of 8 sampled full judgements with the fast verdict (claim ``margin-predicts``);
* frontier: accuracy against the reflection rate for confidence gating (reflect the least
  confident fraction), random gating at the same rate (its exact expectation), never and
  always reflecting, and the plain SFT judge never reflecting (claim ``gated-frontier``);
* revisions: with every item opened by the wrong verdict, the fraction the reflection
  overturns to the correct one, and with the correct opening, the fraction it flips away, for
  both GRPO arms (claim ``cpa-revisions``);
* the operating point: tau fixed on validation items at a 30% reflection rate, and the test
  accuracy and rate it gives;
* identities of the gate and of the prefix construction (``gate-identities``);
* the scalar peer: a Bradley-Terry reward model of the judge's size trained with trl's
  ``RewardTrainer`` on the same items as (correct answer, wrong answer) pairs, each seen at most once
  (``rm_steps`` x ``rm_batch``: one pass over the 20k items until the seventh session, half a pass since), and
  its held-out pairwise accuracy (``scalar_rm/acc``, a control of ``gated-frontier``).
"""

from __future__ import annotations

import copy
import re

import numpy as np
import torch

from icml26.core.paper import Profile
from icml26.core.seeding import seed_everything
from icml26.nn.lm import sample

from .method import (auroc, camel_judge, confidence_gate, counterfactual_prefixes, grpo_judge, reflect,
                     sampled_agreement, scalar_rm_verdicts, sft_judge, tau_for_rate, train_scalar_rm, verdict_logits)
from .setting import MAX_REFLECT, OFFSETS, JudgeItem, encode_prompts, final_verdict, make_items, new_judge, tokenizer

RATES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)


# ----------------------------------------------------------------------------- parts
def sft_model(seed: int, p: Profile, train: list[JudgeItem] | None = None) -> torch.nn.Module:
    """The seed's SFT judge, trained once per (seed, config) and then read from the disk cache (:mod:`icml26.core.cache`).

    ``train``: the seed's training items if the caller already made them (``make_items(n_train, seed=seed)``, the
    same items; passing them saves generating them twice, seventh session).
    """
    from icml26.core.cache import cached

    cfg = {"seed": seed, "levels": list(p["levels"]), "offsets": list(OFFSETS), "n_train": p["n_train"],
           "sft_steps": p["sft_steps"], "sft_batch": p["sft_batch"], "sft_lr": p["sft_lr"], "d_model": p["d_model"],
           "schedule": p["sft_schedule"], "revise_frac": p["revise_frac"], "v": 2}
    model = new_judge(d_model=p["d_model"], seed=seed)

    def build() -> dict:
        items = train if train is not None else make_items(p["n_train"], levels=tuple(p["levels"]), seed=seed)
        sft_judge(model, items, steps=p["sft_steps"], batch=p["sft_batch"], lr=p["sft_lr"], seed=seed,
                  schedule=p["sft_schedule"], revise_frac=p["revise_frac"])
        return model.state_dict()

    model.load_state_dict(cached("camel_judge", "judge", build, params=cfg, fmt="pt"))
    return model.eval()


def fast_metrics(model, items: list[JudgeItem], tag: str) -> dict:
    """Accuracy of the fast verdict and AUROC of its margin."""
    y = np.array([it.label for it in items])
    logit = verdict_logits(model, encode_prompts(items))
    ok = ((logit < 0).astype(int) == y).astype(float)
    return {f"{tag}/fast_acc": float(ok.mean()), f"{tag}/auroc": auroc(np.abs(logit), ok)}


def revision_metrics(model, items: list[JudgeItem], tag: str) -> dict:
    """Greedy reflection from forced openings: P(correct | wrong opening) and P(flip | correct opening)."""
    y = np.array([it.label for it in items])
    wrong = reflect(model, encode_prompts(items, 1 - y)).verdicts
    right = reflect(model, encode_prompts(items, y)).verdicts
    return {f"{tag}/p_correct_wrong_prefix": float((wrong == y).mean()),
            f"{tag}/flip_correct_prefix": float((right != y).mean())}


@torch.no_grad()
def _own_reflection(model, items: list[JudgeItem]):
    """The fast verdict logits and the greedy reflections after the judge's own opening (one ``sample`` call)."""
    tok = tokenizer()
    logit = verdict_logits(model, encode_prompts(items))
    fast = (logit < 0).astype(int)
    gen = sample(model, encode_prompts(items, fast), MAX_REFLECT, greedy=True, eos_id=tok.eos_id, pad_id=tok.pad_id)
    return logit, gen


def scratchpad_metrics(model, items: list[JudgeItem], tag: str, own=None) -> dict:
    """Where reflection fails, after the judge's own greedy opening: the scratchpad or the verdict after it.

    ``scratch_acc``: the fraction of greedy reflections whose recomputed value (after ``#``) is the
    problem's answer; ``verdict_follows``: the fraction whose final verdict names the candidate equal
    to that value (a value matching neither candidate counts as not followed). Diagnostics only. ``own``: the
    result of :func:`_own_reflection` for the same model and items if already computed (the same generation).
    """
    tok = tokenizer()
    _, gen = own if own is not None else _own_reflection(model, items)
    ok, follows = [], []
    for it, comp in zip(items, gen.as_lists()):
        m = re.search(r"#(-?\d+)>", tok.decode(comp))
        value = int(m.group(1)) if m else None
        ok.append(value == it.problem.answer)
        follows.append(value in it.candidates and final_verdict(comp) == it.candidates.index(value))
    return {f"{tag}/scratch_acc": float(np.mean(ok)), f"{tag}/verdict_follows": float(np.mean(follows))}


def heldout_cpa_reward(model, items: list[JudgeItem], *, temperature: float, k: int, seed: int) -> float:
    """GRPO's CPA reward on held-out items: both openings each, ``k`` reflections sampled at ``temperature``.

    The mean of 1[final verdict correct] over 2 k n rollouts; measured on the same items, with
    the same sampling seed, for the SFT judge and for the judge after GRPO, so their difference
    is the rise of GRPO's objective (an early dip and its recovery within training cancel).
    """
    y = np.array([it.label for it in items])
    which, prefix = counterfactual_prefixes(y, y, cpa=True)
    prompts = [r for r in encode_prompts([items[i] for i in which], prefix) for _ in range(k)]
    ref = reflect(model, prompts, greedy=False, temperature=temperature,
                  generator=torch.Generator().manual_seed(seed))
    return float((ref.verdicts == np.repeat(y[which], k)).mean())


def frontier(model, items: list[JudgeItem], own=None) -> dict:
    """Accuracy against reflection rate: confidence gating, random gating (expectation), never, always.

    ``own``: :func:`_own_reflection`'s result for the same model and items if already computed. The greedy
    reflection is the call :func:`~.method.reflect` makes (same arguments), so its verdicts and lengths are the same.
    """
    y = np.array([it.label for it in items])
    logit, gen = own if own is not None else _own_reflection(model, items)
    fast = (logit < 0).astype(int)
    ref_verdicts = np.array([final_verdict(c) for c in gen.as_lists()], dtype=int)
    ref_lengths = gen.lengths().numpy().astype(float)
    final = np.where(ref_verdicts >= 0, ref_verdicts, fast)
    f_ok, r_ok = (fast == y).astype(float), (final == y).astype(float)
    order = np.argsort(np.abs(logit), kind="stable")
    n = len(items)
    gated, rand = [], []
    for q in RATES:
        k = int(round(q * n))
        chosen = np.zeros(n, dtype=bool)
        chosen[order[:k]] = True
        gated.append(float(np.where(chosen, r_ok, f_ok).mean()))
        rand.append(float((1 - k / n) * f_ok.mean() + (k / n) * r_ok.mean()))
    le50 = [g for q, g in zip(RATES, gated) if q <= 0.5]
    always = float(r_ok.mean())
    return {"frontier/rates": list(RATES), "frontier/gated": gated, "frontier/random": rand,
            "gated/acc30": gated[RATES.index(0.3)], "random/acc30": rand[RATES.index(0.3)],
            "gated/acc50": gated[RATES.index(0.5)], "random/acc50": rand[RATES.index(0.5)],
            "never/acc": float(f_ok.mean()), "always/acc": always, "reflect/always_gain": always - float(f_ok.mean()),
            "gated/gap_to_always_le50": always - max(le50),
            "reflect/overturn_own": float((final != fast).mean()),
            "reflect/mean_tokens": float(ref_lengths.mean())}


def margin_vs_proxy(model, items: list[JudgeItem], k: int, seed: int) -> dict:
    """AUROC of the free margin and of the costly k-sample agreement for the fast verdict's correctness."""
    y = np.array([it.label for it in items])
    prompts = encode_prompts(items)
    logit = verdict_logits(model, prompts)
    fast = (logit < 0).astype(int)
    ok = (fast == y).astype(float)
    agree = sampled_agreement(model, prompts, fast, k=k, generator=torch.Generator().manual_seed(seed))
    a_m, a_p = auroc(np.abs(logit), ok), auroc(agree, ok)
    return {"margin/auroc_sub": a_m, "proxy/auroc": a_p, "margin/proxy_gap": a_p - a_m}


def operating_point(model, val: list[JudgeItem], test: list[JudgeItem], rate: float) -> dict:
    """tau fixed on validation items at ``rate`` reflection, then CAMEL's test accuracy, rate and tokens per item."""
    tau = tau_for_rate(np.abs(verdict_logits(model, encode_prompts(val))), rate)
    j = camel_judge(model, encode_prompts(test), tau)
    y = np.array([it.label for it in test])
    return {"camel/tau": tau, "camel/acc": float((j.final == y).mean()), "camel/rate": float(j.reflected.mean()),
            "camel/tokens": float(j.tokens.mean())}


def scalar_rm_peer(train: list[JudgeItem], test: list[JudgeItem], p: Profile, seed: int) -> dict:
    """The scalar Bradley-Terry judge (trl ``RewardTrainer``) on the same pairs: test accuracy, training record."""
    rm = train_scalar_rm(train, steps=p["rm_steps"], batch=p["rm_batch"], lr=p["rm_lr"], d_model=p["d_model"],
                         seed=seed)
    y = np.array([it.label for it in test])
    acc = [float(r["accuracy"]) for r in rm.logs if "accuracy" in r]
    return {"scalar_rm/acc": float((scalar_rm_verdicts(rm, test) == y).mean()),
            "scalar_rm/train_loss": [float(r["loss"]) for r in rm.logs],
            "scalar_rm/train_acc_last": acc[-1] if acc else float("nan")}


def identities(seed: int) -> dict:
    """Exact properties of the gate and the prefixes: 0 when they hold."""
    rng = np.random.default_rng(seed)
    m = rng.exponential(size=257)
    err = 0.0
    for q in (0.0, 0.1, 0.3, 0.5, 1.0):
        err = max(err, abs(confidence_gate(m, tau_for_rate(m, q)).sum() - round(q * m.size)))
    err = max(err, float(confidence_gate(m, 0.0).sum()), float(m.size - confidence_gate(m, float("inf")).sum()))
    y = rng.integers(0, 2, size=50).astype(float)
    own = rng.integers(0, 2, size=50).astype(float)
    which, pre = counterfactual_prefixes(y, own, cpa=True)
    err = max(err, abs(float((pre != y[which]).mean()) - 0.5), float(np.abs(np.bincount(which) - 2).max()))
    which, pre = counterfactual_prefixes(y, own, cpa=False)
    err = max(err, float(np.abs(pre - own).max()))
    return {"identity/max_err": float(err)}


# ----------------------------------------------------------------------------- run
def run(profile: Profile, seed: int) -> dict:
    """One seed: SFT judge, two GRPO arms, and the measurements named in the module docstring."""
    p = profile
    seed_everything(seed)
    levels = tuple(p["levels"])
    train = make_items(p["n_train"], levels=levels, seed=seed)
    val = make_items(p["n_val"], levels=levels, seed=50_000 + seed)
    test = make_items(p["n_test"], levels=levels, seed=100_000 + seed)
    out: dict = {**identities(seed)}
    sft = sft_model(seed, p, train)
    out.update(fast_metrics(sft, test, "sft"))
    out.update(scratchpad_metrics(sft, test, "sft"))
    out.update(revision_metrics(sft, test, "sft"))  # does SFT alone revise a wrong opening (the premise of GRPO's signal)
    out["gate/sft_acc"] = out["sft/fast_acc"]
    heldout = dict(temperature=p["grpo_temperature"], k=p["heldout_k"], seed=seed + 2)
    out["sft/heldout_cpa_reward"] = heldout_cpa_reward(sft, val, **heldout)
    arms = {}
    for arm, cpa in (("cpa", True), ("own", False)):
        model = copy.deepcopy(sft)
        hist = grpo_judge(model, train, steps=p["grpo_steps"], cpa=cpa, batch=p["grpo_batch"], group=p["group"],
                          lr=p["grpo_lr"], beta=p["grpo_beta"], temperature=p["grpo_temperature"], seed=seed + 1)
        r = hist.series("reward")
        w = max(1, len(r) // 4)
        out[f"{arm}/grpo_reward_first"], out[f"{arm}/grpo_reward_last"] = float(np.mean(r[:w])), float(np.mean(r[-w:]))
        out[f"{arm}/grpo_reward_gain"] = out[f"{arm}/grpo_reward_last"] - out[f"{arm}/grpo_reward_first"]
        out[f"{arm}/grpo_reward"] = r
        if cpa:  # GRPO's objective on held-out items, before (the SFT judge) and after: did training raise it?
            out["cpa/heldout_cpa_reward"] = heldout_cpa_reward(model, val, **heldout)
            out["cpa/heldout_reward_gain"] = out["cpa/heldout_cpa_reward"] - out["sft/heldout_cpa_reward"]
        out.update(fast_metrics(model, test, arm))
        out.update(revision_metrics(model, test, arm))
        arms[arm] = model
    camel = arms["cpa"]
    out["margin/auroc"] = out["cpa/auroc"]
    own = _own_reflection(camel, test)  # one greedy generation shared by the frontier and the scratchpad diagnostics
    out.update(frontier(camel, test, own))
    out.update(scratchpad_metrics(camel, test, "cpa", own))
    out.update(margin_vs_proxy(camel, test[: p["n_proxy"]], p["proxy_k"], seed))
    out.update(operating_point(camel, val, test, p["rate"]))
    out.update(scalar_rm_peer(train, test, p, seed))  # last: the Trainer reseeds the global RNGs (restored on return)
    return out


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    """Left: accuracy against reflection rate (gated, random, never/always). Right: revisions by GRPO arm."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    rates = np.asarray(metrics[0]["frontier/rates"])
    for key, label in (("frontier/gated", "confidence-gated (CAMEL)"), ("frontier/random", "random gating")):
        ys = np.array([m[key] for m in metrics])
        ax1.errorbar(rates, ys.mean(0), yerr=ys.std(0), marker="o", capsize=3, label=label)
    ax1.axhline(np.mean([m["always/acc"] for m in metrics]), ls="--", c="k", lw=0.8, label="always reflect")
    ax1.axhline(np.mean([m["never/acc"] for m in metrics]), ls=":", c="k", lw=0.8, label="never reflect")
    ax1.axhline(np.mean([m["sft/fast_acc"] for m in metrics]), ls="-.", c="grey", lw=0.8,
                label="SFT judge, never reflecting")
    ax1.set_xlabel("reflection rate (fraction of items that reflect)")
    ax1.set_ylabel("judge accuracy on held-out pairs")
    ax1.legend(fontsize=8)
    x = np.arange(2)
    for i, (key, label) in enumerate((("p_correct_wrong_prefix", "P(correct | wrong opening)"),
                                      ("flip_correct_prefix", "P(flip | correct opening)"))):
        vals = [[m[f"{arm}/{key}"] for m in metrics] for arm in ("cpa", "own")]
        ax2.bar(x + 0.35 * i, [np.mean(v) for v in vals], 0.35, yerr=[np.std(v) for v in vals], label=label)
    ax2.set_xticks(x + 0.175, ["GRPO + CPA", "GRPO, own openings"])
    ax2.set_ylabel("fraction of held-out items")
    ax2.set_xlabel("GRPO arm")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def EXAMPLES() -> list:
    """Good calls of the public API for the common bad-input test (see :func:`method.EXAMPLES`)."""
    from .method import EXAMPLES as method_examples

    return method_examples()


# ----------------------------------------------------------------------------- claim: gated-frontier
def check_gated_frontier_rule():
    """The pre-registered rule: gated above random gating at 30% and 50% and above the SFT judge never reflecting,
    within 1 point of always reflecting at <= 50%, above the scalar BT peer; gated on the SFT judge, on reflection
    helping and on the peer learning."""
    from icml26.alignment.camel import _HELPS_GATE, _RM_GATE, _SFT_GATE
    from icml26.core import checks as C

    return C.all_of(
        C.beats_in_seeds("gated/acc30", "random/acc30", margin=0.0025, frac=0.8,
                         label="gated @30%", control_label="random @30%"),
        C.beats_in_seeds("gated/acc50", "random/acc50", margin=0.0025, frac=0.8,
                         label="gated @50%", control_label="random @50%"),
        C.beats_in_seeds("gated/acc30", "sft/fast_acc", margin=0.0025, frac=0.8,
                         label="gated @30%", control_label="SFT judge, never reflecting"),
        C.threshold("gated/gap_to_always_le50", at_most=0.01, frac=0.8,
                    label="always-reflect acc - best gated acc at <= 50%"),
        C.beats_in_seeds("gated/acc30", "scalar_rm/acc", margin=0.0025, frac=0.8,
                         label="gated @30%", control_label="scalar BT RM (trl RewardTrainer)"),
    ).gated(_SFT_GATE, _HELPS_GATE, _RM_GATE)


def control_gated_frontier_random(ms: list[dict]) -> list[dict]:
    """Random gating wholly in the gated judge's place: its accuracy at 30% and 50% and its gap to always
    reflecting at <= 50% (from the stored random frontier)."""
    out = []
    for m in ms:
        le50 = [r for q, r in zip(m["frontier/rates"], m["frontier/random"]) if q <= 0.5]
        out.append({**m, "gated/acc30": m["random/acc30"], "gated/acc50": m["random/acc50"],
                    "gated/gap_to_always_le50": m["always/acc"] - max(le50)})
    return out


def control_gated_frontier_fast(ms: list[dict], key: str) -> list[dict]:
    """A judge that never reflects (``key``: its accuracy) wholly in the gated judge's place."""
    return [{**m, "gated/acc30": m[key], "gated/acc50": m[key], "gated/gap_to_always_le50": m["always/acc"] - m[key]}
            for m in ms]


def check_gated_frontier(ms: list[dict]):
    """The pre-registered rule (:func:`check_gated_frontier_rule`) under the house rule: 'partly' or 'reproduced'
    needs, against each control put wholly in the gated judge's place (random gating at the same rate, the SFT
    judge never reflecting, the CPA judge never reflecting), a part the gated judge passes better. Wrapped by
    review after the fourth session's full run; the verdict on that run is unchanged (partly: in the fourth
    session's run only the gated judge beat random gating at 30% in >= 4/5 seeds; 3/5 in the seventh's).

    Then a cap added by review after the seventh session's run, knowing its numbers (it can only lower a verdict):
    if the seed mean of gated - random gating is <= 0 at both 30% and 50% reflection, the margin ranks items for
    reflection no better than chance on average, and the verdict is at most not-reproduced (a sign count of
    half the seeds at one rate is not enough for 'partly' then). A verdict that is not 'partly' or 'reproduced'
    (not-checkable when a gate fails) is left as it is."""
    from dataclasses import replace

    from icml26.core import checks as C

    controls = [("random gating", control_gated_frontier_random),
                ("SFT judge never reflecting", lambda m: control_gated_frontier_fast(m, "sft/fast_acc")),
                ("CAMEL judge never reflecting", lambda m: control_gated_frontier_fast(m, "never/acc"))]
    v = C.part_beyond_controls(check_gated_frontier_rule(), ms, controls, who="the gated judge",
                               note=" (house rule applied by review after the fourth session's full run; "
                                    "verdict unchanged)")
    if v.status not in ("reproduced", "partly"):
        return v
    d = {q: np.array([float(m[f"gated/acc{q}"]) - float(m[f"random/acc{q}"]) for m in ms]) for q in (30, 50)}
    capped = all(float(x.mean()) <= 0.0 for x in d.values())
    means = ", ".join(f"at {q}% {float(x.mean()):+.4f} (median {float(np.median(x)):+.4f})" for q, x in d.items())
    note = (f"; cap (added by review after the seventh session's run, knowing its numbers; it can only lower a "
            f"verdict): seed mean of gated - random gating {means}; ")
    if capped:
        note += (f"<= 0 at both rates, so the margin does not rank items for reflection better than random gating "
                 f"on average and the verdict is at most not-reproduced (was {v.status})")
        return replace(v, status="not-reproduced", evidence=v.evidence + note)
    return replace(v, evidence=v.evidence + note + "above 0 at some rate, so the cap leaves the verdict")


def contradict_gated_frontier(ms: list[dict]) -> list[dict]:
    return check_gated_frontier_rule().contradict(ms)


def control_gated_frontier(ms: list[dict]) -> list[dict]:
    return control_gated_frontier_random(ms)
