"""Unit tests of the ADEPT reproduction (arXiv:2602.12714): known answers, brute force, invariances."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from icml26.vision.adept import method as M
from icml26.vision.adept import setting as S


def _pulse_train(f0: float, sr: int = 16000, dur: float = 0.5, amp: float = 0.3) -> np.ndarray:
    x = np.zeros(int(sr * dur))
    x[:: int(round(sr / f0))] = 1.0
    from scipy.signal import lfilter

    return amp * lfilter([1.0], [1.0, -0.9], x) / 10


# ----------------------------------------------------------------------------- scores
def test_set_f1_known_values():
    pred = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)
    true = np.array([[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0]], dtype=bool)
    np.testing.assert_allclose(M.set_f1(pred, true), [1.0, 2 / 3, 1.0, 0.0])


def test_macro_f1_matches_sklearn():
    from sklearn.metrics import f1_score

    rng = np.random.default_rng(0)
    p, t = rng.random((50, 4)) < 0.3, rng.random((50, 4)) < 0.4
    assert M.macro_f1(p, t) == pytest.approx(f1_score(t, p, average="macro", zero_division=0))


def test_minor_from_probs_never_holds_the_argmax_and_tune_tau_recovers_threshold():
    probs = np.array([[0.6, 0.3, 0.1, 0.0], [0.1, 0.5, 0.35, 0.05]])
    m = M.minor_from_probs(probs, 0.2)
    np.testing.assert_array_equal(m, [[False, True, False, False], [False, False, True, False]])
    true = np.array([[False, True, False, False], [False, False, True, False]])
    tau = M.tune_tau(probs, true, grid=(0.05, 0.2, 0.4))
    assert tau == 0.2


# ----------------------------------------------------------------------------- setting
def test_labels_from_votes_plurality_tiebreak_and_minority():
    p, m = S.labels_from_votes(np.array([3, 3, 1, 0]), np.array([0.2, 0.6, 0.2, 0.0]))
    assert p == 1
    np.testing.assert_array_equal(m, [True, False, True, False])


def test_annotators_without_noise_or_text_vote_the_voice():
    w = np.array([0.1, 0.7, 0.2, 0.0])
    v = S.annotate(w, 3, np.random.default_rng(0), n_annotators=7, text_weight=0.0, noise=0.0)
    np.testing.assert_array_equal(v, [0, 7, 0, 0])


def test_corpus_is_deterministic_and_conflicts_are_absent_from_the_voice():
    a = S.make_corpus(12, 5, dur=0.2)
    b = S.make_corpus(12, 5, dur=0.2)
    np.testing.assert_array_equal(a.votes, b.votes)
    np.testing.assert_array_equal(a.audio[3], b.audio[3])
    assert a.votes.sum(1).tolist() == [7] * 12
    for i in np.flatnonzero(a.conflict):
        assert a.mixture[i, a.text_emotion[i]] == 0
    np.testing.assert_allclose(a.mixture.sum(1), 1.0)


def test_prosody_blends_profiles_linearly_without_scatter(monkeypatch):
    monkeypatch.setattr(S, "SCATTER", {k: 0.0 for k in S.SCATTER})
    spk = dict(f0=100.0, formant=1.0, level=0.0, rate=1.0, snr=30.0)
    w = np.array([0.5, 0.5, 0.0, 0.0])
    p = S.prosody(w, spk, np.random.default_rng(0))
    expect = 0.5 * (S.PROFILES["neutral"]["level"] + S.PROFILES["happy"]["level"])
    assert p["level"] == pytest.approx(expect)
    assert p["f0"] == pytest.approx(100 * 0.5 * (S.PROFILES["neutral"]["f0"] + S.PROFILES["happy"]["f0"]))


# ----------------------------------------------------------------------------- tools
def test_pitch_tool_reads_a_known_f0():
    x = _pulse_train(150.0)
    median_st = M.pitch_tool(x, 16000)[0]
    assert median_st == pytest.approx(12 * np.log2(1.5), abs=0.3)


def test_energy_tool_doubling_amplitude_adds_6_db():
    x = _pulse_train(120.0)
    e1, e2 = M.energy_tool(x, 16000), M.energy_tool(2 * x, 16000)
    assert e2[0] - e1[0] == pytest.approx(20 * np.log10(2), abs=0.05)


def test_lexicon_tool_counts_hits():
    np.testing.assert_array_equal(M.lexicon_tool("i love this great day but i miss you"), [0, 2, 1, 0])


def test_tool_probe_separable_support_points_to_label():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 20)
    x = np.eye(4)[y] * 3 + 0.1 * rng.standard_normal((80, 4))
    sup = M.ToolProbe().fit(x, np.eye(4)[y]).support(x)
    assert (sup.argmax(1) == y).mean() == 1.0
    assert np.all(np.abs(sup) <= 1.0)


# ----------------------------------------------------------------------------- agent
def test_trajectory_probabilities_sum_to_one_by_enumeration():
    """Brute force on K = 2 tools, C = 2 emotions: the trajectory distribution is normalised."""
    torch.manual_seed(0)
    agent = M.AdeptAgent(n_tools=2, n_emotions=2, hidden=8)
    torch.nn.init.normal_(agent.controller[-1].weight)
    sup = torch.randn(1, 2, 2)
    K = 2
    seqs = []
    for n_calls in range(K + 1):
        for order in itertools.permutations(range(K), n_calls):
            acts = list(order) + ([K] if n_calls < K else [])
            seqs.append(acts + [-1] * (K + 1 - len(acts)))
    total = 0.0
    for acts in seqs:
        for primary in range(2):
            for other in (False, True):
                minor = torch.zeros(1, 2, dtype=torch.bool)
                minor[0, 1 - primary] = other
                ro = M.Rollout(torch.tensor([acts]), torch.tensor([primary]), minor, torch.zeros(1), torch.zeros(1),
                               torch.zeros(1, 2))
                lp, mask = M.trajectory_logprobs(agent, sup, ro)
                total += float(torch.exp((lp * mask).sum()).detach())
    assert total == pytest.approx(1.0, abs=1e-5)


def test_sampled_rollouts_match_their_logprob_frequencies():
    """The empirical frequency of the first action equals exp(logp) of that token."""
    torch.manual_seed(1)
    agent = M.AdeptAgent(n_tools=3, n_emotions=2, hidden=8)
    torch.nn.init.normal_(agent.controller[-1].weight)
    sup = torch.randn(1, 3, 2).repeat(4000, 1, 1)
    ro = M.rollout(agent, sup, mode="sample", generator=torch.Generator().manual_seed(0))
    lp, _ = M.trajectory_logprobs(agent, sup, ro)
    for a in range(4):
        sel = ro.actions[:, 0] == a
        if sel.any():
            assert float(sel.float().mean()) == pytest.approx(float(torch.exp(lp[sel][0, 0]).detach()), abs=0.03)


def test_each_tool_is_called_at_most_once_and_calls_match_mask():
    agent = M.AdeptAgent(hidden=8)
    ro = M.rollout(agent, np.random.default_rng(0).uniform(-1, 1, (64, 6, 4)), mode="random",
                   generator=torch.Generator().manual_seed(0))
    for row, calls in zip(ro.actions.tolist(), ro.calls.tolist()):
        tools = [a for a in row if 0 <= a < 6]
        assert len(tools) == len(set(tools)) == int(calls)
    assert not ro.minor[torch.arange(64), ro.primary].any()


def test_reward_gate_and_per_call_bonus():
    ro = M.Rollout(torch.zeros(2, 7, dtype=torch.long), torch.tensor([1, 2]),
                   torch.tensor([[False, False, True, False], [False, False, False, False]]),
                   torch.tensor([4.0, 2.0]), torch.tensor([0.5, 1.0]), torch.zeros(2, 4))
    y, minor = np.array([1, 1]), np.array([[False, False, True, False], [True, False, False, False]])
    np.testing.assert_allclose(M.adept_reward(ro, y, minor, r_tool=0.3), [1 + 1 + 0.15, 0 + 0 + 0])
    np.testing.assert_allclose(M.adept_reward(ro, y, minor, tool_reward="per_call", bonus=0.1), [2.4, 0.2])
    np.testing.assert_allclose(M.adept_reward(ro, y, minor, lam_minor=0.0, tool_reward="none"), [1.0, 0.0])


def test_env_replay_equals_batched_rollout():
    torch.manual_seed(0)
    agent = M.AdeptAgent(hidden=16)
    torch.nn.init.normal_(agent.controller[-1].weight)
    rng = np.random.default_rng(1)
    sup = np.round(rng.uniform(-1, 1, (6, 6, 4)), 9)
    primary, minor = rng.integers(0, 4, 6), rng.random((6, 4)) < 0.3
    env = S.make_probe_env({t: sup[:, k] for k, t in enumerate(M.TOOLS)}, primary, minor)
    from icml26.agents.env import replay, run_episode

    ro = M.rollout(agent, sup, mode="greedy")
    for i in range(6):
        ep = run_episode(env, M.AdeptPolicy(agent), seed=i)
        assert ep["steps"] - 1 == int(ro.calls[i])
        want = float(ro.primary[i] == primary[i]) + M.set_f1(ro.minor[i:i + 1].numpy(), minor[i:i + 1])[0]
        assert ep["reward"] == pytest.approx(want)
        assert replay(env, ep["log"])


def test_grpo_training_raises_reward_on_an_easy_task():
    """One informative tool, labels equal to its top emotion: GRPO learns to call it and answer."""
    rng = np.random.default_rng(0)
    n = 64
    y = rng.integers(0, 4, n)
    sup = rng.uniform(-0.2, 0.2, (n, 6, 4))
    sup[np.arange(n), 5, y] = 1.0
    minor = np.zeros((n, 4), dtype=bool)
    torch.manual_seed(0)
    agent = M.AdeptAgent(hidden=16)
    hist = M.train_adept(agent, sup, y, minor, M.GRPOSettings(steps=60, batch=16, group=4, lr=1e-2), seed=0)
    assert np.mean(hist[-10:]) > np.mean(hist[:10]) + 0.3


# ----------------------------------------------------------------------------- checks (added by review)
def test_non_inferior_check_known_verdicts_contradiction_and_control():
    from icml26.core import checks as C

    chk = C.non_inferior("a", "b", margin=0.01, by="mean", partly_margin=0.03)
    ms = lambda d: [{"a": 0.5 + x, "b": 0.5} for x in d]  # noqa: E731
    assert chk(ms([0.0, -0.01, 0.01])).status == "reproduced"
    assert chk(ms([-0.02, -0.02, -0.02])).status == "partly"
    assert chk(ms([-0.05, -0.04, -0.06])).status == "not-reproduced"
    good = ms([0.1, 0.1, 0.1])
    assert chk(chk.contradict(good)).status == "not-reproduced"
    assert chk(chk.on_control(good)).status == "reproduced"  # equal to the control is non-inferior by definition
    with pytest.raises(ValueError):
        C.non_inferior("a", "b", margin=0.05, partly_margin=0.01)


def test_minor_emotions_rule_is_pass_fail_on_both_controls():
    """A 0/5 loss to one pre-registered control is not a partial reproduction of 'exceeds both'."""
    from icml26.vision.adept import PAPER

    claim = next(c for c in PAPER.claims if c.id == "minor-emotions")
    base = {"grpo/adept/rise": 0.3, "grpo/adept/reward_minus_random": 0.1, "encoder/loss_drop": 3.0}
    win = [dict(base, **{"test/adept/minor_f1": 0.4, "test/nominority/minor_f1": 0.3,
                         "test/encoder_soft/minor_f1": 0.3}) for _ in range(5)]
    assert PAPER.verdict(claim, win).status == "reproduced"
    lose_one = [dict(m, **{"test/encoder_soft/minor_f1": 0.45}) for m in win]
    assert PAPER.verdict(claim, lose_one).status == "not-reproduced"


def test_breath_cue_is_read_by_egemaps():
    """The 5-7.5 kHz breath band was meant to be untooled; it moves eGeMAPS MFCC1 (the docstring says so)."""
    import opensmile

    names = list(opensmile.Smile(feature_set=opensmile.FeatureSet.eGeMAPSv02,
                                 feature_level=opensmile.FeatureLevel.Functionals).feature_names)
    j = names.index("mfcc1V_sma3nz_amean")
    spk = dict(f0=150.0, formant=1.0, level=0.0, rate=1.0, snr=30.0)
    d = []
    for i in range(4):
        p = S.prosody(np.array([1.0, 0, 0, 0]), spk, np.random.default_rng(i))
        feats = [M.egemaps_tool(S.synthesize(dict(p, breath=b), np.random.default_rng(100 + i)), 16000)[j]
                 for b in (0.0, 1.0)]
        d.append(feats[1] - feats[0])
    assert np.all(np.abs(d) > 3.0)
