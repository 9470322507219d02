"""Known answers for CAMEL (arXiv:2602.20670): the gate, the margin, counterfactual prefixes, AUROC, the format."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from icml26.alignment.camel.method import (auroc, camel_judge, confidence_gate, counterfactual_prefixes, grpo_judge,
                                           reflect, sampled_agreement, tau_for_rate, verdict_logits)
from icml26.alignment.camel.setting import (FINAL, OFFSETS, VERDICTS, encode_prompts, final_verdict, make_items,
                                            new_judge, prompt_text, reflection_text, sft_batch, tokenizer,
                                            verdict_ids)


@pytest.fixture(scope="module")
def judge():
    return new_judge(d_model=16, n_layers=1, n_heads=2, seed=0).eval()


# ----------------------------------------------------------------------------- setting
def test_items_have_one_correct_candidate_and_are_seeded():
    items = make_items(200, levels=(1, 2), seed=3)
    for it in items:
        assert it.candidates[it.label] == it.problem.answer
        assert it.candidates[1 - it.label] != it.problem.answer
        assert it.offset in OFFSETS
    again = make_items(200, levels=(1, 2), seed=3)
    assert [prompt_text(a) for a in items] == [prompt_text(b) for b in again]
    labels = np.array([it.label for it in items])
    assert 0.35 < labels.mean() < 0.65


def test_format_and_final_verdict_parsing():
    it = make_items(1, seed=0)[0]
    text = prompt_text(it) + VERDICTS[it.label] + reflection_text(it)
    assert text.endswith(">" + FINAL[it.label])
    tok = tokenizer()
    assert tok.decode(tok.encode(text)) == text
    assert final_verdict(tok.encode("3+4=7;#7>a")) == 0
    assert final_verdict(tok.encode("3+4=7;#7>b") + [tok.eos_id]) == 1
    assert final_verdict(tok.encode("3+4=7;#7")) == -1
    assert final_verdict(tok.encode("3+4=7;#7>7")) == -1
    assert final_verdict(tok.encode("3+4=7;#7>A")) == -1  # the opening tokens are not a final verdict


def test_sft_batch_scores_the_verdict_and_reflection_only():
    items = make_items(3, seed=1)
    ids, tgt = sft_batch(items, 64)
    tok = tokenizer()
    for i, it in enumerate(items):
        n_prompt = len(tok.encode(prompt_text(it), bos=True))
        assert (tgt[i, : n_prompt - 1] == -100).all()
        assert int(tgt[i, n_prompt - 1]) == verdict_ids()[it.label]
        assert int(ids[i, n_prompt]) == verdict_ids()[it.label]
        scored = tgt[i][tgt[i] != -100].tolist()
        assert tok.decode(scored) == VERDICTS[it.label] + reflection_text(it)


# ----------------------------------------------------------------------------- the margin and the gate
def test_verdict_logits_match_single_prompt_forward(judge):
    items = make_items(6, seed=2)
    prompts = encode_prompts(items)
    batched = verdict_logits(judge, prompts)
    a, b = verdict_ids()
    for i, p in enumerate(prompts):
        with torch.no_grad():
            logits, _ = judge(torch.tensor([p]))
        lp = torch.log_softmax(logits[0, -1], -1)
        assert batched[i] == pytest.approx(float(lp[a] - lp[b]), abs=1e-5)


@pytest.mark.parametrize("n", [1, 7, 100])
def test_tau_for_rate_reflects_exactly_the_requested_fraction(n):
    rng = np.random.default_rng(n)
    m = rng.exponential(size=n)
    for q in (0.0, 0.1, 0.25, 0.5, 0.9, 1.0):
        gate = confidence_gate(m, tau_for_rate(m, q))
        assert gate.sum() == round(q * n)
        if 0 < gate.sum() < n:  # the least confident items reflect
            assert m[gate].max() < m[~gate].min()


def test_gate_is_strict_and_extreme_thresholds():
    m = np.array([0.0, 0.5, 1.0])
    assert confidence_gate(m, 0.5).tolist() == [True, False, False]
    assert not confidence_gate(m, 0.0).any()
    assert confidence_gate(m, float("inf")).all()
    with pytest.raises(ValueError, match="margin"):
        confidence_gate(np.array([-0.1, 1.0]), 0.5)


def test_camel_judge_extremes(judge):
    prompts = encode_prompts(make_items(5, seed=4))
    never = camel_judge(judge, prompts, 0.0)
    assert not never.reflected.any() and (never.final == never.fast).all() and (never.tokens == 1).all()
    always = camel_judge(judge, prompts, float("inf"))
    assert always.reflected.all() and (always.tokens > 1).all()
    assert np.allclose(always.margin, np.abs(verdict_logits(judge, prompts)))


# ----------------------------------------------------------------------------- counterfactual prefixes
def test_counterfactual_prefixes():
    y = np.array([0.0, 1.0, 1.0, 0.0])
    own = np.array([0.0, 0.0, 1.0, 1.0])
    which, pre = counterfactual_prefixes(y, own, cpa=True)
    assert which.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]
    assert pre.tolist() == [0, 1, 1, 0, 1, 0, 0, 1]
    assert (pre != y[which]).mean() == 0.5
    which, pre = counterfactual_prefixes(y, own, cpa=False)
    assert which.tolist() == [0, 1, 2, 3] and pre.tolist() == own.tolist()
    with pytest.raises(ValueError, match="labels"):
        counterfactual_prefixes(np.array([0.0, 2.0]), np.array([0.0, 1.0]), cpa=True)
    with pytest.raises(TypeError, match="cpa"):
        counterfactual_prefixes(y, own, cpa="yes")


# ----------------------------------------------------------------------------- AUROC
def test_auroc_equals_brute_force_pair_count():
    rng = np.random.default_rng(0)
    s = rng.integers(0, 4, size=30).astype(float)  # ties on purpose
    c = rng.integers(0, 2, size=30).astype(float)
    pos, neg = s[c == 1], s[c == 0]
    brute = np.mean([1.0 if p > q else 0.5 if p == q else 0.0 for p, q in itertools.product(pos, neg)])
    assert auroc(s, c) == pytest.approx(brute)
    assert np.isnan(auroc(s, np.ones(30)))
    assert auroc(c, c) == 1.0


# ----------------------------------------------------------------------------- reflection and training run
def test_reflect_sampled_agreement_and_grpo_run(judge):
    import copy

    items = make_items(4, seed=5)
    y = np.array([it.label for it in items])
    ref = reflect(judge, encode_prompts(items, y))
    assert ref.verdicts.shape == (4,) and set(ref.verdicts.tolist()) <= {-1, 0, 1}
    agree = sampled_agreement(judge, encode_prompts(items), y, k=3, generator=torch.Generator().manual_seed(0))
    assert agree.shape == (4,) and ((agree >= 0) & (agree <= 1)).all()
    for cpa in (True, False):
        hist = grpo_judge(copy.deepcopy(judge), items, steps=1, cpa=cpa, batch=4, group=2, temperature=1.5, seed=0)
        assert len(hist.steps) == 1 and 0.0 <= hist.steps[0].reward <= 1.0


def test_bad_inputs_name_the_argument(judge):
    with pytest.raises(ValueError, match="rate"):
        tau_for_rate(np.array([1.0, 2.0]), 1.5)
    with pytest.raises(ValueError, match="prompts"):
        verdict_logits(judge, [])
    with pytest.raises(ValueError, match="fast"):
        sampled_agreement(judge, encode_prompts(make_items(2, seed=0)), np.array([0.0]))
    with pytest.raises(ValueError, match="score"):
        auroc(np.array([0.1, 0.2]), np.array([1.0]))


# ----------------------------------------------------------------------------- the frontier and the review gate
def _stub_frontier(monkeypatch, items, logit, reflected):
    """Run experiment.frontier with fixed verdict logits and fixed reflection verdicts (no model)."""
    from icml26.alignment.camel import experiment

    class _Gen:  # the greedy generation frontier reads (seventh session: shared with the scratchpad diagnostics)
        def as_lists(self):
            return [tokenizer().encode(f"1+1=2;#2>{FINAL[int(v)]}") for v in reflected]

        def lengths(self):
            return torch.full((len(items),), 5.0)

    monkeypatch.setattr(experiment, "verdict_logits", lambda model, prompts: np.asarray(logit, dtype=float))
    monkeypatch.setattr(experiment, "sample", lambda *a, **k: _Gen())
    got = experiment.frontier(None, items)
    assert [final_verdict(c) for c in _Gen().as_lists()] == list(np.asarray(reflected, dtype=int))
    return got


def test_frontier_random_gating_is_the_exact_expectation_and_gating_ranks_by_margin(monkeypatch):
    from icml26.alignment.camel.experiment import RATES

    items = make_items(10, seed=7)
    y = np.array([it.label for it in items])
    margin = np.arange(1.0, 11.0)  # item i has margin i + 1: items 0, 1, 2 are the least confident
    fast = y.copy()
    fast[:3] = 1 - y[:3]  # the fast verdict is wrong exactly on the three least confident items
    logit = np.where(fast == 0, margin, -margin)  # fast = 0 (A) where the logit is >= 0
    ref = y.copy()  # a reflection that is always right
    m = _stub_frontier(monkeypatch, items, logit, ref)
    assert m["never/acc"] == pytest.approx(0.7) and m["always/acc"] == pytest.approx(1.0)
    assert m["frontier/gated"][0] == m["never/acc"] and m["frontier/gated"][-1] == m["always/acc"]
    assert m["gated/acc30"] == pytest.approx(1.0)  # reflecting the 3 least confident items fixes every error
    assert m["gated/gap_to_always_le50"] == pytest.approx(0.0)
    f_ok, r_ok = (fast == y).astype(float), (ref == y).astype(float)
    for q, rand in zip(RATES, m["frontier/random"]):  # brute force over every subset of the same size
        k = int(round(q * 10))
        accs = [np.where(np.isin(np.arange(10), s), r_ok, f_ok).mean() for s in itertools.combinations(range(10), k)]
        assert rand == pytest.approx(float(np.mean(accs)))


def test_copying_reflection_makes_every_gating_rule_equal(monkeypatch):
    """Seeds 0 and 4 of the full run: a reflection that copies its opening gives gated = random = never = always."""
    items = make_items(20, seed=8)
    logit = np.random.default_rng(0).normal(size=20)
    fast = (logit < 0).astype(int)
    m = _stub_frontier(monkeypatch, items, logit, fast)
    assert m["frontier/gated"] == pytest.approx(m["frontier/random"])
    assert m["never/acc"] == m["always/acc"] and m["reflect/overturn_own"] == 0.0


def test_copying_reflection_earns_half_the_cpa_reward_and_the_gates_hold_it():
    """Under CPA a copying reflection earns exactly 0.5 at every step (no rise, no group spread), and it makes
    always-reflect equal never-reflect: the rise gate holds cpa-revisions and the helps gate gated-frontier."""
    from icml26.alignment.camel import PAPER

    y = np.random.default_rng(1).integers(0, 2, size=64).astype(float)
    which, pre = counterfactual_prefixes(y, y, cpa=True)
    tok = tokenizer()
    rewards = [float(final_verdict(tok.encode(f"1+1=2;#2>{FINAL[p]}")) == int(y[i])) for i, p in zip(which, pre)]
    assert np.mean(rewards) == 0.5
    claims = {c.id: c for c in PAPER.claims}
    base = {"gate/sft_acc": 0.8, "gated/acc30": 0.80, "random/acc30": 0.70, "gated/acc50": 0.80,
            "random/acc50": 0.70, "sft/fast_acc": 0.75, "gated/gap_to_always_le50": 0.0,
            "cpa/p_correct_wrong_prefix": 0.9, "own/p_correct_wrong_prefix": 0.1, "cpa/flip_correct_prefix": 0.0,
            "scalar_rm/acc": 0.7, "never/acc": 0.75, "always/acc": 0.80,
            "frontier/rates": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0],
            "frontier/random": [0.75, 0.755, 0.76, 0.765, 0.77, 0.775, 0.785, 0.80]}
    trained = [dict(base, **{"cpa/heldout_reward_gain": 0.1, "reflect/always_gain": 0.05}) for _ in range(5)]
    copying = [dict(base, **{"cpa/heldout_reward_gain": 0.0, "reflect/always_gain": 0.0}) for _ in range(5)]
    for cid in ("gated-frontier", "cpa-revisions"):
        assert PAPER.verdict(claims[cid], trained).status == "reproduced"
        assert PAPER.verdict(claims[cid], copying).status == "not-checkable"
    below_sft = [dict(r, **{"sft/fast_acc": 0.85}) for r in trained]  # the plain SFT judge is a named baseline
    # under the house rule a plain SFT judge that beats the gated one, put in its place, passes every part
    # the gated judge passes, so nothing is left to the gating (partly before the review's wrapper)
    assert PAPER.verdict(claims["gated-frontier"], below_sft).status == "not-reproduced"
    below_rm = [dict(r, **{"scalar_rm/acc": 0.85}) for r in trained]  # so is the scalar BT peer
    assert PAPER.verdict(claims["gated-frontier"], below_rm).status == "partly"
    rm_failed = [dict(r, **{"scalar_rm/acc": 0.5}) for r in trained]  # a peer that did not learn decides nothing
    assert PAPER.verdict(claims["gated-frontier"], rm_failed).status == "not-checkable"
    # a rise of the training reward alone (an early dip recovered) no longer opens cpa-revisions
    dip = [dict(r, **{"cpa/grpo_reward_gain": 0.08, "cpa/heldout_reward_gain": -0.01}) for r in trained]
    assert PAPER.verdict(claims["cpa-revisions"], dip).status == "not-checkable"


def test_heldout_cpa_reward_counts_correct_final_verdicts(monkeypatch):
    from icml26.alignment.camel import experiment
    from icml26.alignment.camel.method import Reflection

    items = make_items(5, seed=4)
    y = np.array([it.label for it in items])
    seen = {}

    def copier(model, prompts, **kw):  # copies the opening: right after the gold opening, wrong after the other
        seen.update(kw, n=len(prompts))
        a, _ = verdict_ids()
        return Reflection(np.array([0 if p[-1] == a else 1 for p in prompts]), np.ones(len(prompts)))

    monkeypatch.setattr(experiment, "reflect", copier)
    assert experiment.heldout_cpa_reward(None, items, temperature=1.5, k=3, seed=0) == 0.5
    assert seen["n"] == 2 * 3 * len(items) and seen["greedy"] is False and seen["temperature"] == 1.5

    def oracle(model, prompts, **kw):
        return Reflection(np.repeat(np.repeat(y, 2), 3), np.ones(len(prompts)))

    monkeypatch.setattr(experiment, "reflect", oracle)
    assert experiment.heldout_cpa_reward(None, items, temperature=1.0, k=3, seed=0) == 1.0


def test_revision_traces_open_wrongly_unscored_and_sft_schedules_run():
    from icml26.alignment.camel.method import sft_judge

    items = make_items(3, seed=2)
    ids, tgt = sft_batch(items, 64, [True, False, True])
    tok = tokenizer()
    for i, it in enumerate(items):
        n_prompt = len(tok.encode(prompt_text(it), bos=True))
        wrong = i != 1
        assert int(ids[i, n_prompt]) == verdict_ids()[1 - it.label if wrong else it.label]
        assert (int(tgt[i, n_prompt - 1]) == -100) == wrong  # the wrong opening is never a target
        scored = tok.decode(tgt[i][tgt[i] != -100].tolist())
        assert scored == ("" if wrong else VERDICTS[it.label]) + reflection_text(it)  # gold reflection either way
    with pytest.raises(ValueError, match="revise"):
        sft_batch(items, 64, [True])
    pool = make_items(32, seed=3)
    for schedule, rf in (("cosine", 0.0), ("constant", 0.5)):
        losses = sft_judge(new_judge(d_model=16, n_layers=1, n_heads=2, seed=0), pool, steps=3, batch=4,
                           schedule=schedule, revise_frac=rf)
        assert len(losses) == 3 and all(np.isfinite(losses))
    with pytest.raises(ValueError, match="schedule"):
        sft_judge(new_judge(d_model=16, n_layers=1, n_heads=2), pool, steps=1, schedule="linear")
    with pytest.raises(ValueError, match="revise_frac"):
        sft_judge(new_judge(d_model=16, n_layers=1, n_heads=2), pool, steps=1, revise_frac=1.5)


def test_sft_model_passes_the_profile_recipe_and_keys_the_cache_by_it(monkeypatch, tmp_path):
    from icml26.alignment.camel import PAPER, experiment

    seen = []
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    monkeypatch.setattr(experiment, "sft_judge", lambda model, items, **kw: seen.append(kw))
    monkeypatch.setattr(experiment, "make_items", lambda n, **kw: make_items(4, seed=0))
    experiment.sft_model(0, PAPER.profiles["quick"])
    assert seen[0]["schedule"] == PAPER.profiles["quick"]["sft_schedule"]
    assert seen[0]["revise_frac"] == PAPER.profiles["quick"]["revise_frac"] > 0
    experiment.sft_model(0, PAPER.profiles["quick"])  # now read from the cache
    assert len(seen) == 1 and len(list((tmp_path / "camel_judge").glob("*.pt"))) == 1


# ----------------------------------------------------------------------------- the scalar reward-model peer (trl)
def test_preference_pairs_are_the_correct_and_the_wrong_answer():
    from icml26.alignment.camel.setting import answer_text, preference_pairs

    it = make_items(1, seed=5)[0]
    chosen, rejected = preference_pairs([it])
    assert chosen == [f"{it.problem.prompt}{it.problem.answer}"]
    assert rejected == [f"{it.problem.prompt}{it.candidates[1 - it.label]}"]
    assert answer_text(it, it.label) == chosen[0]
    with pytest.raises(ValueError, match="k"):
        answer_text(it, 2)
    with pytest.raises(TypeError, match="item"):
        answer_text("3+4=7", 0)
    with pytest.raises(ValueError, match="items"):
        preference_pairs([])


@pytest.fixture(scope="module")
def tiny_rm():
    from icml26.alignment.camel.method import train_scalar_rm

    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    rm = train_scalar_rm(make_items(400, levels=(1,), offsets=(10, 20), seed=7), steps=40, batch=16, lr=3e-3,
                         d_model=16, n_layers=1, n_heads=2, seed=0)
    return rm, before, torch.rand(3)


def test_scalar_rm_trains_with_trl_and_leaves_the_global_rng_alone(tiny_rm):
    rm, before, after = tiny_rm
    assert torch.equal(before, after)  # the Trainer reseeds; train_scalar_rm restores the caller's state
    assert rm.logs and all(np.isfinite(r["loss"]) for r in rm.logs)
    assert rm.logs[-1]["loss"] < rm.logs[0]["loss"]


def test_scalar_rm_scores_do_not_depend_on_padding_and_verdicts_flip_with_the_candidates(tiny_rm):
    from icml26.alignment.camel.method import scalar_rm_verdicts
    from icml26.alignment.camel.setting import JudgeItem, answer_text

    rm = tiny_rm[0]
    items = make_items(12, levels=(1, 2), seed=8)
    texts = [answer_text(it, k) for it in items for k in (0, 1)]
    batched = rm.score(texts)
    single = np.array([rm.score([t])[0] for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-5)
    v = scalar_rm_verdicts(rm, items)
    swapped = [JudgeItem(it.problem, it.candidates[::-1], 1 - it.label) for it in items]
    tie = np.isclose(batched[0::2], batched[1::2])
    assert np.all((scalar_rm_verdicts(rm, swapped) == 1 - v) | tie)
    with pytest.raises(TypeError, match="rm"):
        scalar_rm_verdicts("rm", items)
    with pytest.raises(ValueError, match="texts"):
        rm.score([])
    with pytest.raises(TypeError, match="texts"):
        rm.score("3+4=7")
    with pytest.raises(TypeError, match="texts"):
        rm.score(None)


def test_scalar_rm_learns_an_easy_pair_task(tiny_rm):
    from icml26.alignment.camel.method import scalar_rm_verdicts

    test = make_items(200, levels=(1,), offsets=(10, 20), seed=9)
    acc = (scalar_rm_verdicts(tiny_rm[0], test) == np.array([it.label for it in test])).mean()
    assert acc > 0.75  # offsets of 10 or 20 are told apart by magnitude alone


def test_train_scalar_rm_rejects_bad_arguments():
    from icml26.alignment.camel.method import train_scalar_rm

    items = make_items(8, seed=0)
    with pytest.raises(ValueError, match="steps"):
        train_scalar_rm(items, steps=0)
    with pytest.raises(ValueError, match="d_model"):
        train_scalar_rm(items, steps=1, d_model=10, n_heads=4)
    with pytest.raises(ValueError, match="items"):
        train_scalar_rm([], steps=1)


def test_trl_reward_trainer_loss_is_the_shared_reward_model_loss(tiny_rm):
    """The substitution says the peer's training loss is ``_preferences.reward_model_loss``: check trl's
    ``RewardTrainer.compute_loss`` on one collated batch against it, with rewards from ``ScalarRM.score``."""
    import tempfile

    import datasets
    from trl import RewardConfig, RewardTrainer

    from icml26.alignment._preferences import reward_model_loss
    from icml26.alignment.camel.setting import preference_pairs

    rm, _, _ = tiny_rm
    chosen, rejected = preference_pairs(make_items(6, levels=(1,), seed=3))
    with tempfile.TemporaryDirectory() as out:
        args = RewardConfig(output_dir=out, max_steps=1, per_device_train_batch_size=6, report_to=[], use_cpu=True,
                            dataloader_num_workers=0, disable_tqdm=True, max_length=64, save_strategy="no")
        trainer = RewardTrainer(model=rm.model, args=args, processing_class=rm.tokenizer,
                                train_dataset=datasets.Dataset.from_dict({"chosen": chosen, "rejected": rejected}))
        batch = next(iter(trainer.get_train_dataloader()))
        rm.model.eval()
        with torch.no_grad():
            got = float(trainer.compute_loss(rm.model, dict(batch)))
    # the dataloader may shuffle: compare against the loss over the same (order-free) set of pairs
    r_c, r_r = torch.tensor(rm.score(chosen)), torch.tensor(rm.score(rejected))
    assert got == pytest.approx(float(reward_model_loss(r_c, r_r).mean()), abs=1e-5)


def test_sft_judge_on_train_lm_is_bit_identical_to_the_old_constant_loop():
    # issue 13: the hand-written constant-lr loop moved onto icml26.nn.train.train_lm (schedule="constant")
    from icml26.alignment.camel.method import sft_judge
    from icml26.alignment.camel.setting import sft_batch
    from icml26.nn.train import lm_loss

    pool = make_items(64, seed=101)

    def old_constant(model, steps, batch, lr, seed, revise_frac):
        warmup = min(20, steps)

        def draw(gen):
            idx = torch.randint(0, len(pool), (batch,), generator=gen).tolist()
            if revise_frac == 0:
                return sft_batch([pool[i] for i in idx], model.cfg.max_len)
            rev = (torch.rand(batch, generator=gen) < revise_frac).tolist()
            return sft_batch([pool[i] for i in idx], model.cfg.max_len, rev)

        gen = torch.Generator().manual_seed(int(seed))
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
        model.train()
        losses = []
        for step in range(steps):
            for g in opt.param_groups:
                g["lr"] = lr * min(1.0, (step + 1) / warmup)
            ids, target = draw(gen)
            loss = lm_loss(model, ids, None, target=target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
        model.eval()
        return losses

    for steps, rf in ((24, 0.1), (5, 0.0)):  # past the warm-up, and a run shorter than 20 steps
        a = new_judge(d_model=16, n_layers=1, n_heads=2, seed=101)
        b = new_judge(d_model=16, n_layers=1, n_heads=2, seed=101)
        la = sft_judge(a, pool, steps=steps, batch=8, lr=3e-3, seed=102, schedule="constant", revise_frac=rf)
        lb = old_constant(b, steps, 8, 3e-3, 102, rf)
        assert la == lb
        assert all(torch.equal(p, q) for p, q in zip(a.state_dict().values(), b.state_dict().values()))


def test_scratchpad_metrics_separate_the_arithmetic_from_the_verdict_after_it(monkeypatch):
    from icml26.alignment.camel import experiment
    from icml26.alignment.camel.setting import tokenizer

    items = make_items(4, seed=7)
    tok = tokenizer()
    right = [it.problem.answer for it in items]
    wrong = [it.candidates[1 - it.label] for it in items]
    texts = [f"#{right[0]}>{FINAL[items[0].label]}",          # right value, verdict follows it
             f"#{right[1]}>{FINAL[1 - items[1].label]}",      # right value, verdict ignores it
             f"#{wrong[2]}>{FINAL[1 - items[2].label]}",      # bent value, verdict follows the bent value
             f"{right[3]}>{FINAL[items[3].label]}"]           # no recomputed value at all

    class Gen:
        def as_lists(self):
            return [tok.encode(t) + [tok.eos_id] for t in texts]

    monkeypatch.setattr(experiment, "verdict_logits", lambda model, prompts: np.zeros(len(prompts)))
    monkeypatch.setattr(experiment, "sample", lambda *a, **k: Gen())
    m = experiment.scratchpad_metrics(None, items, "x")
    assert m == {"x/scratch_acc": 0.5, "x/verdict_follows": 0.5}


def test_scalar_rm_ids_are_those_of_trls_own_preprocessing_and_training_is_plain_fp32(tiny_rm):
    # fifth session: the pairs are tokenised by _rm_ids instead of trl's per-example datasets.map (a speed-up only),
    # and trained without gradient checkpointing, in float32
    import tempfile

    import datasets
    from trl import RewardConfig, RewardTrainer

    from icml26.alignment.camel.method import _rm_ids
    from icml26.alignment.camel.setting import preference_pairs

    rm = tiny_rm[0]
    m = rm.model
    name = "is_activation_checkpointing" if hasattr(m, "is_activation_checkpointing") else "is_gradient_checkpointing"
    assert not getattr(m, name)
    # (the weights are float32 under bf16 autocast too, so the precision is checked on the config: see
    # test_scalar_rm_is_configured_without_bf16_or_checkpointing)
    chosen, rejected = preference_pairs(make_items(50, levels=(1, 2), seed=4))
    with tempfile.TemporaryDirectory() as out:
        args = RewardConfig(output_dir=out, max_steps=1, per_device_train_batch_size=6, report_to=[], use_cpu=True,
                            dataloader_num_workers=0, disable_tqdm=True, max_length=64, save_strategy="no")
        trainer = RewardTrainer(model=rm.model, args=args, processing_class=rm.tokenizer,
                                train_dataset=datasets.Dataset.from_dict({"chosen": chosen, "rejected": rejected}))
        assert trainer.train_dataset["chosen_ids"] == _rm_ids(rm.tokenizer, chosen)
        assert trainer.train_dataset["rejected_ids"] == _rm_ids(rm.tokenizer, rejected)


def test_sft_batch_memoised_ids_equal_direct_encoding():
    # fifth session: sft_batch reads memoised ids (setting._trace_ids) and fills numpy arrays: same tensors as before
    tok = tokenizer()
    items = make_items(40, levels=(1, 2), seed=5)
    rev = [bool(i % 3 == 0) for i in range(len(items))]
    for max_len, r in ((64, rev), (12, rev), (64, None)):
        ids, tgt = sft_batch(items, max_len, r)
        rows, tgts = [], []
        for i, it in enumerate(items):
            pr = tok.encode(prompt_text(it), bos=True)
            wrong = bool(r[i]) if r is not None else False
            co = tok.encode(VERDICTS[1 - it.label if wrong else it.label] + reflection_text(it)) + [tok.eos_id]
            seq = (pr + co)[:max_len]
            t = [-100] * (len(pr) - 1) + co
            if wrong:
                t[len(pr) - 1] = -100
            rows.append(seq)
            tgts.append(t[: len(seq) - 1])
        assert ids.dtype == tgt.dtype == torch.long
        for i, (s, t) in enumerate(zip(rows, tgts)):
            assert ids[i, : len(s)].tolist() == s and set(ids[i, len(s):].tolist()) <= {tok.pad_id}
            assert tgt[i, : len(t)].tolist() == t and set(tgt[i, len(t):].tolist()) <= {-100}


def test_scalar_rm_is_configured_without_bf16_or_checkpointing(monkeypatch):
    # review of the fifth session: bf16=True only autocasts (the parameters stay float32), so a dtype check on the
    # trained model cannot see it; the arguments handed to trl's RewardConfig are checked instead
    import trl

    from icml26.alignment.camel.method import train_scalar_rm

    seen = {}
    real = trl.RewardConfig

    def recording(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(trl, "RewardConfig", recording)
    train_scalar_rm(make_items(40, levels=(1,), offsets=(10, 20), seed=3), steps=2, batch=4, d_model=8,
                    n_layers=1, n_heads=2, seed=1)
    assert seen["bf16"] is False
    assert seen["gradient_checkpointing"] is False


def test_shared_own_reflection_gives_the_frontier_that_reflect_gives():
    """Seventh session: the frontier reads the shared greedy generation of :func:`_own_reflection`; its gated and
    random accuracies must equal those computed from :func:`reflect` (the call it replaced) directly, on a judge
    briefly fine-tuned so that its reflections end in verdicts that differ from its fast ones (an untrained judge's
    reflections end in none, which would make gated = random = never)."""
    from icml26.alignment.camel import experiment
    from icml26.alignment.camel.method import sft_judge

    judge = new_judge(d_model=16, n_layers=1, n_heads=2, seed=0)
    sft_judge(judge, make_items(200, levels=(1,), seed=1), steps=60, batch=16, lr=3e-3, seed=0)
    judge.eval()
    items = make_items(24, levels=(1,), seed=5)
    y = np.array([it.label for it in items])
    logit = verdict_logits(judge, encode_prompts(items))
    fast = (logit < 0).astype(int)
    ref = reflect(judge, encode_prompts(items, fast))
    final = np.where(ref.verdicts >= 0, ref.verdicts, fast)
    f_ok, r_ok = (fast == y).astype(float), (final == y).astype(float)
    assert (ref.verdicts >= 0).any() and (final != fast).any()  # the reflection decides something
    order = np.argsort(np.abs(logit), kind="stable")
    f = experiment.frontier(judge, items, experiment._own_reflection(judge, items))
    for q in (30, 50):
        k = int(round(q / 100 * len(items)))
        chosen = np.isin(np.arange(len(items)), order[:k])
        assert f[f"gated/acc{q}"] == float(np.where(chosen, r_ok, f_ok).mean())
        assert f[f"random/acc{q}"] == pytest.approx((1 - k / len(items)) * f_ok.mean() + k / len(items) * r_ok.mean())
    assert f["gated/acc30"] != f["random/acc30"]  # the order by margin matters on this judge
    assert f["always/acc"] == float(r_ok.mean()) and f["never/acc"] == float(f_ok.mean())
    assert f["reflect/mean_tokens"] == float(ref.lengths.mean())
    assert experiment.frontier(judge, items) == f  # without a shared generation: the same numbers


def test_sft_model_uses_the_given_training_items(monkeypatch, tmp_path):
    """Seventh session: run() passes its training items to sft_model, which must then not make them again."""
    from icml26.alignment.camel import PAPER, experiment

    seen = []
    monkeypatch.setenv("ICML26_CACHE", str(tmp_path))
    monkeypatch.setattr(experiment, "sft_judge", lambda model, items, **kw: seen.append(items))
    monkeypatch.setattr(experiment, "make_items", lambda n, **kw: pytest.fail("items made again"))
    given = make_items(4, seed=0)
    experiment.sft_model(0, PAPER.profiles["quick"], given)
    assert seen == [given]


def _frontier_rows(d30, d50, *, sft_acc=0.64):
    """Synthetic rows of five seeds that meet every gate of gated-frontier, with gated - random = ``d30``, ``d50``."""
    rows = []
    for a, b in zip(d30, d50):
        rand30, rand50 = 0.666, 0.683
        rows.append({"gate/sft_acc": sft_acc, "sft/fast_acc": sft_acc, "never/acc": 0.64, "always/acc": 0.72,
                     "reflect/always_gain": 0.08, "scalar_rm/acc": 0.75,
                     "gated/acc30": rand30 + a, "random/acc30": rand30, "gated/acc50": rand50 + b,
                     "random/acc50": rand50, "gated/gap_to_always_le50": 0.05,
                     "frontier/rates": [0.0, 0.3, 0.5], "frontier/random": [0.64, rand30, rand50]})
    return rows


def test_gated_frontier_cap_lowers_partly_when_gated_is_not_above_random_on_average():
    """Review after the seventh session's run: the seventh session's differences (3/5 seeds above random at 30%,
    mean -0.001; 4/5 below at 50%) say partly by the pre-registered rule, and the cap lowers it to not-reproduced."""
    from icml26.alignment.camel import experiment

    d30, d50 = [-0.010, 0.0105, -0.0305, 0.00675, 0.017], [-0.0375, 0.0075, -0.025, -0.01375, -0.005]
    rows = _frontier_rows(d30, d50)
    rule = experiment.check_gated_frontier_rule()(rows)
    assert rule.status == "partly"  # the rule alone: 3/5 seeds above random at 30%, above the SFT judge
    v = experiment.check_gated_frontier(rows)
    assert v.status == "not-reproduced"
    assert "it can only lower a verdict" in v.evidence and "at most not-reproduced (was partly)" in v.evidence


def test_gated_frontier_cap_leaves_the_verdict_when_gated_is_above_random_at_one_rate():
    from icml26.alignment.camel import experiment

    d30, d50 = [-0.010, 0.0105, -0.0105, 0.00675, 0.017], [-0.0375, 0.0075, -0.025, -0.01375, -0.005]  # mean +0.003 @30
    v = experiment.check_gated_frontier(_frontier_rows(d30, d50))
    assert v.status == "partly" and "the cap leaves the verdict" in v.evidence
    d50_up = [0.01] * 5  # at 50% alone above random: the cap leaves it too
    assert experiment.check_gated_frontier(_frontier_rows([-0.01, 0.005, 0.005, 0.005, -0.02], d50_up)).status \
        == "partly"
    failed_gate = experiment.check_gated_frontier(_frontier_rows(d30, [-0.01] * 5, sft_acc=0.5))
    assert failed_gate.status == "not-checkable" and "cap" not in failed_gate.evidence  # a failed gate stays as it is
