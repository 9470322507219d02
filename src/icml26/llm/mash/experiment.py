"""Small-scale reproduction of MASH: pay-per-search GRPO on a tiny search agent, then tool-less abstention.

``run`` composes named parts, one seed at a time:

* ``_base``: the seed's shared search policy and world, a train/test split of the 1-hop and
  2-hop questions, and each question's answerability (10 closed-book samples of the base);
* ``_warm_start``: MASH's synthetic-trace warm start (correct sampled traces, 0/1/2 searches
  balanced per question, no boundary labels), then SFT;
* ``_rl_arms``: GRPO from the same start with the same questions, steps and samples:
  MASH (exponential penalty), OTC-GRPO, Search-R1 (no penalty), MASH without warm start,
  MASH with the always-correct oracle helper;
* ``_label_arms``: the abstention baselines that need boundary labels (AFH-style SFT, DPO),
  trained on the training questions' answerability labels;
* ``_evaluate``: greedy test episodes with the noisy tool (accuracy, searches, productivity,
  search-count profile) and without it (abstention rates by answerability, Delta).

Claims: ``selective-help-seeking`` (paper Table 2: MASH vs OTC and Search-R1),
``abstention`` (Table 3: off-the-shelf abstention vs label-based SFT/DPO), ``warm-start``
(the ablation without warm start), ``oracle-helper`` (the helper-noise ablation). Every claim is
decided only if each RL arm it reads raised its held-out reward (the RL objective on the training
questions, same sampling stream before and after RL; third session), with no 'partly' tier for
abstention and warm-start (see their docstrings). The oracle arm's helper is always correct
(the knowledge base's passage for the asked fact); the other arms use the noisy one (p = 0.8).
"""

from __future__ import annotations

import copy

import numpy as np

from icml26.core import checks as C
from icml26.core.paper import Profile, Verdict
from icml26.core.seeding import seed_everything

ARMS_RL = ("mash", "otc", "r1", "nows", "oracle")
ALL_ARMS = ("base", "warm", *ARMS_RL, "sft", "dpo")


# ----------------------------------------------------------------------------- parts
def _base(profile: Profile, seed: int):
    from icml26.llm.mash.setting import SearchConfig, answerability, pretrain_search_policy, split_questions
    from icml26.tasks.kb import answer_matches
    from icml26.tasks.search import closed_book_answers

    cfg = SearchConfig(**dict(profile["search_config"]))
    model, world = pretrain_search_policy(seed, cfg)
    train, test = split_questions(world, seed)
    k_train = answerability(model, world, train, n=10, seed=30_000 + seed)
    k_test = answerability(model, world, test, n=10, seed=31_000 + seed)
    mem = [q for q in world.questions(1) if world.exposures(q) > 0]
    greedy = closed_book_answers(model, world, mem, greedy=True)
    cb_mem = float(np.mean([answer_matches(a[0], q) for a, q in zip(greedy, mem)])) if mem else float("nan")
    return model, world, train, test, k_train, k_test, cb_mem


def _warm_start(model, world, train, profile: Profile, seed: int):
    import torch

    from icml26.llm.mash.method import select_warm_start, sft
    from icml26.llm.mash.setting import noisy_helper, question_key
    from icml26.tasks.kb import answer_matches
    from icml26.tasks.search import rollout

    k = int(profile["warm_samples"])
    rep = [q for q in train for _ in range(k)]
    rs = rollout(model, world, rep, search_fn=noisy_helper(world, float(profile["helper_p"]), 40_000 + seed),
                 max_searches=3, generator=torch.Generator().manual_seed(41_000 + seed))
    ok = [answer_matches(r.answer or "", q) for r, q in zip(rs, rep)]
    traces = select_warm_start(rs, ok, [question_key(q) for q in rep])
    warm = copy.deepcopy(model)
    losses = sft(warm, traces, steps=int(profile["warm_steps"]), lr=float(profile["sft_lr"]), seed=seed)
    counts = np.bincount([t.n_searches for t in traces], minlength=3)[:3] / max(1, len(traces))
    return warm, {"warm/n_traces": float(len(traces)), "warm/trace_share0": float(counts[0]),
                  "warm/trace_share1": float(counts[1]), "warm/trace_share2": float(counts[2]),
                  "warm/sft_loss_first": float(np.mean(losses[:5])), "warm/sft_loss_last": float(np.mean(losses[-5:]))}


def _rl_arms(base, warm, world, train, profile: Profile, seed: int) -> tuple[dict, dict]:
    """The five RL arms from the same starts on the same question stream; each arm's training gate is its
    held-out reward gain: the RL objective (its own penalty, no historical minimum) on all training
    questions x ``group`` samples, before vs after RL, on the same sampling stream (``heldout_reward``)."""
    from icml26.llm.mash.method import RLConfig, heldout_reward, train_search_rl

    common = dict(steps=int(profile["rl_steps"]), prompts=int(profile["prompts"]), group=int(profile["group"]),
                  lr=float(profile["rl_lr"]), helper_p=float(profile["helper_p"]))
    spec = {"mash": ("warm", RLConfig(penalty="mash", **common)),
            "otc": ("warm", RLConfig(penalty="otc", **common)),
            "r1": ("warm", RLConfig(penalty="none", **common)),
            "nows": ("base", RLConfig(penalty="mash", **common)),
            "oracle": ("warm", RLConfig(penalty="mash", helper="oracle", **common))}
    starts = {"warm": warm, "base": base}
    # One held-out evaluation per (start, helper): the same episodes score every penalty, and each arm reads its
    # OWN penalty's reward from it (fourth session, review: the before value was the first arm's, MASH's, reward for
    # every arm, which overstated the OTC and Search-R1 gains of the third session's run).
    before: dict = {}
    models, out = {}, {}
    for arm, (start, cfg) in spec.items():
        if (start, cfg.helper) not in before:
            before[(start, cfg.helper)] = heldout_reward(starts[start], world, train, cfg, seed=60_000 + seed)
        h0 = before[(start, cfg.helper)]
        m = copy.deepcopy(starts[start])
        # same question draws for every arm (the helper's noise has its own generator since the fourth session)
        hist = train_search_rl(m, world, train, cfg, seed=50_000 + seed)
        h1 = heldout_reward(m, world, train, cfg, seed=60_000 + seed)
        own = f"reward_{cfg.penalty}"
        models[arm] = m
        out[f"{arm}/train_reward"] = hist.reward
        out[f"{arm}/train_searches"] = hist.searches
        out[f"{arm}/reward_gain"] = hist.gain("reward")
        out[f"{arm}/train_acc_gain"] = hist.gain("accuracy")
        out[f"{arm}/heldout_reward_before"] = h0[own]
        out[f"{arm}/heldout_reward_after"] = h1[own]
        out[f"{arm}/heldout_reward_gain"] = h1[own] - h0[own]
        out[f"{arm}/heldout_acc_gain"] = h1["accuracy"] - h0["accuracy"]
        out[f"{arm}/heldout_searches_after"] = h1["searches"]
        out[f"{arm}/heldout_format_ok"] = h1["format_ok"]
    out["warm/heldout_acc_noisy"] = before[("warm", "noisy")]["accuracy"]
    out["warm/heldout_acc_oracle"] = before[("warm", "oracle")]["accuracy"]
    # premise metrics (fourth session, review): does searching pay with each helper before RL (warm start's
    # accuracy on held-out episodes that searched minus those that did not), and does the no-warm-start arm's
    # start already mix search counts (modal share of its sampled held-out episodes)?
    for helper in ("noisy", "oracle"):
        h = before[("warm", helper)]
        out[f"warm/{helper}_acc_searched"] = h["acc_searched"]
        out[f"warm/{helper}_acc_nosearch"] = h["acc_nosearch"]
        out[f"warm/{helper}_search_pays"] = h["acc_searched"] - h["acc_nosearch"]
    out["nows/start_modal_share"] = before[("base", "noisy")]["modal_share"]
    out["warm/start_modal_share"] = before[("warm", "noisy")]["modal_share"]
    return models, out


def _label_arms(base, world, train, k_train, profile: Profile, seed: int) -> tuple[dict, dict]:
    from icml26.llm.mash.method import Trace, label_dpo, label_sft
    from icml26.tasks.search import gold_trace, prompt_text

    tok = world.tokenizer

    def trace(q, text):
        return Trace(tuple(tok.encode(prompt_text(q), bos=True)), tuple(tok.encode(text)),
                     tuple([True] * len(tok.encode(text))))

    answer = [trace(q, gold_trace(world, q, search=False)[0][0]) for q in train]
    abstain = [trace(q, gold_trace(world, q, search=True)[0][0]) for q in train]  # the first search request
    known = [bool(k >= 5) for k in k_train]  # boundary label: majority of closed-book samples correct
    sft_m, dpo_m = copy.deepcopy(base), copy.deepcopy(base)
    ls = label_sft(sft_m, answer, abstain, known, steps=int(profile["label_steps"]), lr=float(profile["sft_lr"]),
                   seed=seed)
    ld = label_dpo(dpo_m, answer, abstain, known, steps=int(profile["label_steps"]), lr=float(profile["dpo_lr"]),
                   seed=seed)
    return {"sft": sft_m, "dpo": dpo_m}, {
        "sft/loss_drop": float(np.mean(ls[:5]) / max(np.mean(ls[-5:]), 1e-9)),
        "dpo/loss_drop": float(np.mean(ld[:5]) / max(np.mean(ld[-5:]), 1e-9)),
        "labels/known_share": float(np.mean(known))}


def _evaluate(name: str, model, world, test, k_test, profile: Profile, seed: int) -> dict:
    from icml26.llm.mash.method import abstention_metrics, search_profile
    from icml26.llm.mash.setting import evaluate_abstention, evaluate_with_tool

    out: dict = {}
    ev = evaluate_with_tool(model, world, test, p=float(profile["helper_p"]), seed=seed,
                            helper="oracle" if name == "oracle" else "noisy")
    c, n, h = ev["correct"], ev["n_searches"], ev["hops"]
    out[f"{name}/acc"] = float(c.mean())
    out[f"{name}/acc1"] = float(c[h == 1].mean())
    out[f"{name}/acc2"] = float(c[h == 2].mean())
    out[f"{name}/searches"] = float(n.mean())
    out[f"{name}/searches1"] = float(n[h == 1].mean())
    out[f"{name}/searches2"] = float(n[h == 2].mean())
    out[f"{name}/productivity"] = float(c.sum() / max(n.sum(), 1.0))
    out[f"{name}/format_ok"] = float(ev["format_ok"].mean())
    out[f"{name}/searched_frac"] = float((n > 0).mean())
    for k, v in search_profile(n, n_max=3).items():
        out[f"{name}/{k}"] = v
    ab = evaluate_abstention(model, world, test)
    for k, v in abstention_metrics(ab["abstained"], k_test).items():
        out[f"{name}/{k}"] = v
    answered = ab["abstained"] == 0
    out[f"{name}/abst_precision"] = float(ab["correct"][answered].mean()) if answered.any() else float("nan")
    return out


def run(profile: Profile, seed: int) -> dict:
    import torch

    seed_everything(seed)
    torch.manual_seed(seed)
    base, world, train, test, k_train, k_test, cb_mem = _base(profile, seed)
    out: dict = {"base/cb_memorised": cb_mem, "n_train": float(len(train)), "n_test": float(len(test)),
                 "test/answerability_mean": float(k_test.mean() / 10)}
    warm, wm = _warm_start(base, world, train, profile, seed)
    out.update(wm)
    rl, rm = _rl_arms(base, warm, world, train, profile, seed)
    out.update(rm)
    lab, lm = _label_arms(base, world, train, k_train, profile, seed)
    out.update(lm)
    for name, model in {"base": base, "warm": warm, **rl, **lab}.items():
        out.update(_evaluate(name, model, world, test, k_test, profile, seed))
    out["mash_minus_dpo/delta_fit"] = out["mash/delta_fit"] - out["dpo/delta_fit"]
    return out


# ----------------------------------------------------------------------------- training gates
# Third session (issue 20; pre-registered on dev seeds 100-103 before the stored run): every RL arm a
# claim reads must have raised its own objective, measured as the held-out reward gain (same training
# questions, same sampling stream before and after RL; ``_rl_arms``) > 0 in >= 4/5 seeds. It replaces
# the second-half-minus-first-half training-reward gain, which with 8 questions a step mostly measured
# which questions were drawn and, for MASH/OTC, the historical minimum tightening (the reward of an
# unchanged policy falls as the tracker learns cheaper solutions); that gain is still reported.
def _rl_gate(arm: str, who: str):
    return C.gate(f"{arm}/heldout_reward_gain", at_least=1e-6, frac=0.8,
                  why=f"{who}'s held-out RL reward rose (after minus before RL, same prompts and sampling stream)")


_WHO = {"mash": "MASH", "otc": "the OTC control", "r1": "the Search-R1 control",
        "nows": "the no-warm-start control", "oracle": "the oracle-helper arm"}


# ----------------------------------------------------------------------------- claim 1 (hand-written: the OTC cap)
_GATES = (C.gate("base/cb_memorised", at_least=0.8, frac=0.8, why="base closed-book accuracy on memorised facts >= 0.8"),
          C.gate("warm/format_ok", at_least=0.95, frac=0.8, why="warm-start format correct >= 0.95"))
# partly="none" since the fourth session (review after the third session's full run): that run's 'partly' came from
# AllOf's default tier on the search-count part alone, which OTC in MASH's place passes as well.
_SHS = C.all_of(
    C.beats_in_seeds("mash/acc2", "otc/acc2", margin=0.0, frac=0.8, label="MASH 2-hop accuracy",
                     control_label="OTC-GRPO"),
    C.beats_in_seeds("mash/searches", "r1/searches", margin=0.05, frac=0.8, better="lower",
                     label="MASH searches", control_label="Search-R1"),
    partly="none",
).gated(*_GATES, *(_rl_gate(a, _WHO[a]) for a in ("mash", "otc", "r1")))


def _seed_stats(ms, pairs) -> str:
    """Reported beside the pre-registered k/5 rule (fourth session, review): per pair, the mean per-seed
    difference (method minus control, sign flipped where lower is better), its 95% percentile bootstrap CI over
    seeds and the one-sided sign test's p (at 5 seeds the smallest attainable p is 0.031). Decides nothing."""
    from icml26.core.stats import bootstrap_ci, sign_test

    parts = []
    for label, a, b, better in pairs:
        if not all(a in m and b in m for m in ms):
            continue
        d = np.array([float(m[a]) - float(m[b]) for m in ms])
        if better == "lower":
            d = -d
        lo, hi = bootstrap_ci(d)
        parts.append(f"{label}: mean {np.nanmean(d):+.3f}, 95% bootstrap CI over seeds [{lo:+.3f}, {hi:+.3f}], "
                     f"one-sided sign test p = {sign_test(d, alternative='greater'):.3f}")
    return ("; reported, not deciding (the k/5 rule decides): " + "; ".join(parts)) if parts else ""


def _with(v: Verdict, *, before: str = "", after: str = "") -> Verdict:
    from dataclasses import replace

    return replace(v, evidence=f"{before}{v.evidence}{after}")


def check_selective_help_seeking(ms) -> Verdict:
    """MASH >= OTC on 2-hop accuracy and < Search-R1 in searches (4/5 seeds); at most partly unless OTC degenerates.

    Gates (third session, pre-registered): MASH's, OTC's and Search-R1's held-out RL reward rose in
    >= 4/5 seeds (was: OTC's second-half training reward not below its first half). Revised by review after
    the third session's full run (fourth session): no 'partly if any part passes' tier (that run's partly rested
    on the search-count part alone, which OTC in MASH's place passes too), as claims 2-3 since the second
    session; the sign test's p and a bootstrap CI over seeds are reported beside the rule."""
    v = _SHS(ms)
    degen = np.array([float(m["otc/modal_share"]) >= 0.9 for m in ms])
    note = (f"; OTC degenerate (modal search-count share >= 0.9) in {int(degen.sum())}/{degen.size} seeds, "
            f"OTC modal share mean {np.mean([m['otc/modal_share'] for m in ms]):.2f}")
    note += _seed_stats(ms, (("MASH - OTC 2-hop accuracy", "mash/acc2", "otc/acc2", "higher"),
                             ("Search-R1 - MASH searches", "mash/searches", "r1/searches", "lower")))
    note += (" (rule history: 'partly if any part passes' removed by review after the third session's full run, "
             "whose partly rested on the search-count part alone, which the OTC control in MASH's place passes "
             "equally)")
    if v.status == "reproduced" and degen.mean() < 0.5:
        return Verdict("partly", v.measured, v.evidence + note + ": the paper's gap rests on OTC's degenerate "
                       "convergence, absent here, so at most partly", value=v.value, control=v.control)
    return Verdict(v.status, v.measured, v.evidence + note, value=v.value, ci=v.ci, control=v.control)


def contradict_selective_help_seeking(ms):
    return _SHS.contradict(ms)


def control_selective_help_seeking(ms):
    return _SHS.on_control(ms)


# ----------------------------------------------------------------------------- claims 2-4
# History. First session: declarative checks with no gate on the RL arms they read and AllOf's default
# 'partly if any part passes'. Second session (review after that full run, disclosed in each verdict):
# (a) each claim decided only if its RL arms' training reward did not fall (second-half minus first-half
# mean >= 0 in >= 4/5 seeds); (b) abstention and warm-start lost the 'partly' tier, which the issue's
# rule does not have and which that run handed out for parts the control passed equally. Third session
# (pre-registered before its full run): the gates read the held-out reward gain (``_rl_gate``) instead.
# The rules live inside claim-code functions so the run fingerprint does not hold them.
def check_abstention_rule():
    """The declarative part of the abstention check (kept in a claim-code function, out of the fingerprint)."""
    from icml26.llm.mash import _BASE_GATES

    return C.all_of(
        C.beats_in_seeds("mash/delta_fit", "sft/delta_fit", margin=0.0, frac=0.8, label="MASH Delta",
                         control_label="label SFT Delta"),
        C.threshold("mash_minus_dpo/delta_fit", at_least=-0.1, frac=0.8, label="MASH Delta - DPO Delta"),
        C.threshold("r1/delta_fit", at_most=0.3, frac=0.8, label="Search-R1 Delta"),
        C.beats_in_seeds("mash/delta_fit", "r1/delta_fit", margin=0.05, frac=0.8, label="MASH Delta",
                         control_label="Search-R1 Delta"),
        partly="none",
    ).gated(*_BASE_GATES, C.gate("dpo/loss_drop", at_least=1.5, frac=0.8, why="label DPO loss fell 1.5x"),
            C.gate("sft/loss_drop", at_least=1.5, frac=0.8, why="label SFT loss fell 1.5x"),
            _rl_gate("mash", _WHO["mash"]), _rl_gate("r1", _WHO["r1"]))


def check_review_note(v: Verdict, ms, extra: str, context: tuple = ()) -> Verdict:
    """Append reference numbers (label, key: seed means) and the rule's history to a verdict's evidence."""
    from dataclasses import replace

    have = [(lab, k) for lab, k in context if all(k in m for m in ms)]
    ctx = ("; for reference " + ", ".join(f"{lab} {np.mean([m[k] for m in ms]):.3f}" for lab, k in have)
           if have else "")
    note = ("rule history: RL-arm training gates added after the first full run by review (none were pre-registered "
            "for this claim), read as the held-out reward gain since the third session, pre-registered before its "
            f"full run{extra}")
    return replace(v, evidence=f"{v.evidence}{ctx} ({note})")


def check_abstention(ms) -> Verdict:
    """Pre-registered: MASH's Delta >= label SFT's and within 0.1 of label DPO's, Search-R1's Delta <= 0.3,
    and MASH's Delta above Search-R1's by 0.05, each in >= 4/5 seeds; decided only if the base policy
    memorised its facts, the warm start keeps the format and the label SFT/DPO losses fell 1.5x.

    Revised after the first full run by review: also decided only if MASH's and Search-R1's RL
    training reward did not fall in >= 4/5 seeds, and no 'partly' tier (the issue's rule is pass or
    fail; that run's 'partly' was passed at least as well by the no-penalty Search-R1 control).
    Third session (pre-registered): the RL gates read the held-out reward gain (> 0 in >= 4/5 seeds).
    The evidence also gives the untrained base policy's Delta, the naive alternative a reviewer would
    ask about (no RL at all)."""
    v = check_review_note(check_abstention_rule()(ms), ms,
                          "; 'partly if any part passes' removed after the first full run: the issue's rule has no "
                          "partly tier, and that run's partly was passed at least as well by the no-penalty "
                          "Search-R1 control",
                          (("untrained base policy's Delta", "base/delta_fit"),
                           ("base 2-hop accuracy with the tool", "base/acc2"),
                           ("MASH 2-hop accuracy", "mash/acc2")))
    base = float(np.mean([m["base/delta_fit"] for m in ms])) if all("base/delta_fit" in m for m in ms) else np.nan
    first = (f"Context (fourth session, review): the untrained base policy already abstains selectively without the "
             f"tool (Delta {base:.3f}, above the 0.3 the no-penalty control must stay under), so RL has little to add "
             f"here. " if np.isfinite(base) and base >= 0.3 else "")
    return _with(v, before=first, after=_seed_stats(ms, (
        ("MASH - label SFT Delta", "mash/delta_fit", "sft/delta_fit", "higher"),
        ("MASH - label DPO Delta", "mash/delta_fit", "dpo/delta_fit", "higher"),
        ("MASH - Search-R1 Delta", "mash/delta_fit", "r1/delta_fit", "higher"))))


def contradict_abstention(ms):
    return check_abstention_rule().contradict(ms)


def control_abstention(ms):
    return check_abstention_rule().on_control(ms)


def check_warm_start_rule():
    """The declarative part of the warm-start check (kept in a claim-code function, out of the fingerprint)."""
    from icml26.llm.mash import _BASE_GATES

    return C.all_of(
        C.threshold("mash/modal_share", at_most=0.9, frac=0.8, label="MASH modal search-count share"),
        C.threshold("nows/modal_share", at_least=0.9, frac=0.8, label="no-warm-start modal share"),
        C.beats_in_seeds("mash/entropy", "nows/entropy", margin=0.1, frac=0.8,
                         label="MASH search-count entropy", control_label="no warm start"),
        partly="none",
    ).gated(_BASE_GATES[1], _rl_gate("mash", _WHO["mash"]), _rl_gate("nows", _WHO["nows"]), _WARM_PREMISE)


# Premise gates (fourth session, review after the third session's full run; added after seeing that run, whose
# base policy mixed 0/1/2 searches with a modal share of 0.47 and whose warm start was no more accurate after
# searching with the oracle than without): a claim about what happens when X is decided only where X holds.
_WARM_PREMISE = C.gate("nows/start_modal_share", at_least=0.8, frac=0.8,
                       why="premise: the no-warm-start start does not already mix search counts (modal share of its "
                           "sampled held-out episodes >= 0.8), the paper's starting point from which RL without warm "
                           "start can collapse")
_ORACLE_PREMISE = C.gate("warm/oracle_search_pays", at_least=1e-6, frac=0.8,
                         why="premise: searching pays with the oracle helper (warm start's held-out accuracy after "
                             "searching above its accuracy without searching, before RL)")


def check_warm_start(ms) -> Verdict:
    """Pre-registered: MASH's modal search-count share <= 0.9, the no-warm-start control's >= 0.9 (it
    degenerates) and MASH's search-count entropy above the control's by 0.1, each in >= 4/5 seeds;
    decided only if the warm start keeps the format.

    Revised after the first full run by review: also decided only if MASH's and the no-warm-start
    arm's RL training reward did not fall in >= 4/5 seeds (the claim is about what RL converges to),
    and no 'partly' tier (that run's only passing part, MASH's modal share <= 0.9, was met equally by
    the control). Third session (pre-registered): the RL gates read the held-out reward gain.
    Not fixable here: the shared base policy already knows the Search-R1 format from demonstrations
    with 0/1/2 searches, so 'without warm start' still starts from a mixed policy. Fourth session (review
    after the third session's full run): decided only if that premise holds (the no-warm-start start's sampled
    modal search-count share >= 0.8 in >= 4/5 seeds); the entropy difference's sign test and CI are reported."""
    v = check_review_note(check_warm_start_rule()(ms), ms,
                          "; 'partly if any part passes' removed after the first full run: its only passing part, "
                          "MASH's modal share <= 0.9, was passed equally by the no-warm-start control; premise gate "
                          "(the start does not already mix search counts) added by review after the third session's "
                          "full run",
                          (("base policy's modal share (the no-warm-start start, greedy on test)", "base/modal_share"),
                           ("warm-start policy's modal share", "warm/modal_share"),
                           ("sampled held-out modal share of the warm start", "warm/start_modal_share")))
    return _with(v, after=_seed_stats(ms, (("MASH - no-warm-start search-count entropy", "mash/entropy",
                                            "nows/entropy", "higher"),)))


def contradict_warm_start(ms):
    return check_warm_start_rule().contradict(ms)


def control_warm_start(ms):
    return check_warm_start_rule().on_control(ms)


def check_oracle_helper_rule():
    """The declarative part of the oracle-helper check (kept in a claim-code function, out of the fingerprint)."""
    from icml26.llm.mash import _BASE_GATES

    return C.all_of(
        C.threshold("oracle/searched_frac", at_least=0.9, frac=0.8, label="share of test questions searched"),
        C.beats_in_seeds("oracle/searched_frac", "mash/searched_frac", margin=0.05, frac=0.8,
                         label="oracle helper", control_label="noisy helper"),
    ).gated(_BASE_GATES[1], _rl_gate("oracle", _WHO["oracle"]),
            _rl_gate("mash", "the noisy-helper MASH control"), _ORACLE_PREMISE)


def check_oracle_helper(ms) -> Verdict:
    """Pre-registered: with the oracle helper >= 0.9 of test questions are searched, and more than with
    the noisy helper by 0.05, each in >= 4/5 seeds; decided only if the warm start keeps the format.

    Revised after the first full run by review: also decided only if both arms' RL training reward
    did not fall. Third session (pre-registered): the oracle helper is now always correct (the
    knowledge base's passage for the asked fact, :func:`~icml26.llm.mash.setting.oracle_helper`;
    it was noise-free BM25 top-1, which misses the asked fact for ~15% of queries), and the RL gates
    read the held-out reward gain. The evidence gives the warm-start policy's held-out accuracy with
    each helper (does searching pay more with the oracle?). Fourth session (review after the third session's
    full run): decided only if searching pays with the oracle before RL (the warm start's held-out accuracy
    after searching above its accuracy without, >= 4/5 seeds), the paper's premise; the paper's oracle answers a
    help request with the question's gold answer, ours returns the asked fact's passage (see the substitution)."""
    v = check_review_note(check_oracle_helper_rule()(ms), ms,
                          "; the oracle helper is the always-correct knowledge-base lookup since the third session "
                          "(before: noise-free BM25 top-1, not always correct); premise gate (searching pays with "
                          "the oracle) added by review after the third session's full run",
                          (("searched share before RL (warm start)", "warm/searched_frac"),
                           ("Search-R1 (no penalty) searched share", "r1/searched_frac"),
                           ("warm start's held-out accuracy with the noisy helper", "warm/heldout_acc_noisy"),
                           ("with the oracle helper", "warm/heldout_acc_oracle"),
                           ("with the oracle, after a search", "warm/oracle_acc_searched"),
                           ("without a search", "warm/oracle_acc_nosearch"),
                           ("with the noisy helper, after a search", "warm/noisy_acc_searched"),
                           ("without a search", "warm/noisy_acc_nosearch")))
    return _with(v, after=_seed_stats(ms, (("oracle - noisy helper searched share", "oracle/searched_frac",
                                            "mash/searched_frac", "higher"),)))


def contradict_oracle_helper(ms):
    return check_oracle_helper_rule().contradict(ms)


def control_oracle_helper(ms):
    return check_oracle_helper_rule().on_control(ms)


# ----------------------------------------------------------------------------- figure
def figure(metrics: list[dict]):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = [a for a in ALL_ARMS if f"{a}/acc2" in metrics[0]]
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    x = np.arange(len(arms))
    for ax, key, ylabel in ((axes[0], "acc2", "2-hop test accuracy with tool (EM)"),
                            (axes[1], "searches", "mean searches per test question")):
        vals = np.array([[m[f"{a}/{key}"] for a in arms] for m in metrics])
        ax.bar(x, vals.mean(0), yerr=vals.std(0), color="tab:blue", alpha=0.8)
        ax.set_xticks(x, arms, rotation=45)
        ax.set_xlabel("arm")
        ax.set_ylabel(ylabel)
    vals = np.array([[m[f"{a}/delta_fit"] for a in arms] for m in metrics])
    axes[2].bar(x, vals.mean(0), yerr=vals.std(0), color="tab:orange", alpha=0.8)
    axes[2].axhline(0.3, ls="--", color="gray", label="Search-R1 bound 0.3")
    axes[2].set_xticks(x, arms, rotation=45)
    axes[2].set_xlabel("arm")
    axes[2].set_ylabel("tool-less Delta = Abs(0/10) - Abs(10/10) (line fit)")
    axes[2].legend(fontsize=7)
    fig.suptitle(f"MASH small-scale reproduction ({len(metrics)} seeds)")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- bad-input examples
def EXAMPLES():
    from icml26.llm.mash import method

    return [
        (method.exponential_penalty, {"correct": [1.0, 1.0, 0.0], "n_searches": [0.0, 1.0, 2.0], "lam": 0.5}),
        (method.otc_penalty, {"correct": [1.0, 1.0, 0.0], "n_searches": [1.0, 2.0, 0.0], "n_max": 3}),
        (method.no_penalty, {"correct": [1.0, 0.0], "n_searches": [1.0, 0.0]}),
        (method.group_minimum, {"correct": [1.0, 1.0], "n_searches": [2.0, 1.0]}),
        (method.abstention_metrics, {"abstained": [1.0, 0.0, 1.0, 0.0], "answerability": [0.0, 10.0, 3.0, 7.0]}),
        (method.search_profile, {"n_searches": [0.0, 1.0, 1.0, 2.0]}),
    ]
