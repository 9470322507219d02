"""Tests of batch parallel speculative decoding (MineDraft, arXiv:2603.18016)."""

import math

import numpy as np
import pytest
import torch

from icml26.llm.minedraft.method import (DraftSide, InlineDrafter, RaggedCache, TargetSide, expected_tokens,
                                         generate_psd, generate_sd, generate_target_only, psd_speedup_model,
                                         verify_greedy, verify_sampling)
from icml26.nn.transformer import LMConfig, TinyLM


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    tg = TinyLM(LMConfig(vocab_size=12, d_model=32, n_layers=2, n_heads=4, max_len=96)).eval()
    dr = TinyLM(LMConfig(vocab_size=12, d_model=16, n_layers=1, n_heads=2, max_len=96)).eval()
    return tg, dr


def test_verify_greedy_known_answer():
    V = 5
    drafts = torch.tensor([[1, 2, 3], [1, 2, 3], [4, 4, 4]])
    y = torch.tensor([[1, 2, 3, 0], [1, 0, 3, 2], [3, 4, 4, 1]])
    logits = torch.nn.functional.one_hot(y, V).float()
    n_acc, nxt = verify_greedy(drafts, logits)
    assert n_acc.tolist() == [3, 1, 0]
    assert nxt.tolist() == [0, 0, 3]


def test_verify_sampling_preserves_target_distribution():
    # one draft position, exact check of the emitted-token law by simulation (chi-square)
    from scipy import stats

    p0 = torch.tensor([0.5, 0.3, 0.15, 0.05])
    q0 = torch.tensor([0.1, 0.6, 0.1, 0.2])
    n = 20000
    g = torch.Generator().manual_seed(0)
    drafts = torch.multinomial(q0, n, replacement=True, generator=g)[:, None]
    q = q0.expand(n, 1, 4)
    p = torch.stack([p0, torch.tensor([0.25] * 4)])[None].expand(n, 2, 4)
    n_acc, nxt = verify_sampling(drafts, q, p, g)
    first = torch.where(n_acc >= 1, drafts[:, 0], nxt)
    obs = np.bincount(first.numpy(), minlength=4)
    assert stats.chisquare(obs, p0.numpy() * n).pvalue > 1e-3
    # acceptance probability is sum_x min(p, q)
    assert abs(float((n_acc >= 1).float().mean()) - float(torch.minimum(p0, q0).sum())) < 0.02


def test_identical_drafter_accepts_everything(models):
    tg, _ = models
    prompts = torch.randint(0, 12, (3, 5), generator=torch.Generator().manual_seed(2))
    sd = generate_sd(tg, tg, prompts, 12, 3, batch_size=3)
    assert all(a == 3 for a in sd.accepted[:-3])
    assert sd.outputs == tg.generate_greedy(prompts, 12)[:, 5:].tolist()


@pytest.mark.parametrize("b", [1, 2, 4])
def test_sd_and_psd_are_lossless_greedy(models, b):
    tg, dr = models
    prompts = torch.randint(0, 12, (5, 6), generator=torch.Generator().manual_seed(b))
    ref = tg.generate_greedy(prompts, 15)[:, 6:].tolist()
    assert generate_target_only(tg, prompts, 15, b).outputs == ref
    assert generate_sd(tg, dr, prompts, 15, 4, b).outputs == ref
    psd = generate_psd(tg, InlineDrafter(dr, 15, 4), prompts, 15, 4, b)
    assert psd.outputs == ref
    assert len(psd.latency) == 5 and len(psd.serial_latency) == 5
    # two devices never take longer than one, nor less than half
    assert psd.serial_makespan / 2 - 1e-9 <= psd.makespan <= psd.serial_makespan + 1e-9


def test_psd_with_perfect_drafter_round_count():
    """Drafter = target: every round accepts all k drafts plus a bonus token."""

    torch.manual_seed(0)
    tg = TinyLM(LMConfig(vocab_size=8, d_model=16, n_layers=1, n_heads=2, max_len=64)).eval()
    prompts = torch.zeros(4, 3, dtype=torch.long)
    psd = generate_psd(tg, InlineDrafter(tg, 9, 2), prompts, 9, 2, 2)
    # identical models: every round accepts k=2 and adds a bonus token -> 3 rounds per batch
    assert psd.rounds == 6
    assert psd.outputs == tg.generate_greedy(prompts, 9)[:, 3:].tolist()


def test_throughput_model_closed_form():
    assert psd_speedup_model(5, 1.0, 5.0) == pytest.approx(2.0)
    assert psd_speedup_model(5, 1.0, 10.0) == pytest.approx(1.5)
    assert psd_speedup_model(5, 2.0, 5.0) == pytest.approx(1.5)
    assert expected_tokens(0.0, 5) == 1.0
    assert expected_tokens(1.0, 5) == 6.0
    assert expected_tokens(0.5, 2) == pytest.approx(1.75)


def test_input_validation(models):
    tg, dr = models
    with pytest.raises(ValueError, match="k"):
        psd_speedup_model(0, 1.0, 1.0)
    with pytest.raises(ValueError, match="t_d"):
        psd_speedup_model(1, float("nan"), 1.0)
    with pytest.raises(ValueError, match="alpha"):
        expected_tokens(1.5, 3)
    with pytest.raises(ValueError, match="prompts"):
        TargetSide(tg, torch.zeros(3, dtype=torch.long), 4, 2)
    with pytest.raises(ValueError, match="n_new"):
        DraftSide(dr, torch.zeros(1, 3, dtype=torch.long), 0, 2)
    with pytest.raises(ValueError, match="max_len"):
        RaggedCache(tg, 1, 1000)
    with pytest.raises(ValueError, match="drafts"):
        verify_greedy(torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, 3, 5))
    with pytest.raises(ValueError, match="q contains NaN"):
        verify_sampling(torch.zeros(1, 1, dtype=torch.long), torch.full((1, 1, 3), float("nan")),
                        torch.ones(1, 2, 3) / 3)
    with pytest.raises(ValueError, match="batch_size"):
        generate_sd(tg, dr, torch.zeros(2, 3, dtype=torch.long), 4, 2, 0)


def test_cost_model_replay_is_deterministic_and_bounded(models):
    from icml26.llm.minedraft.setting import CostModel

    tg, dr = models
    prompts = torch.randint(0, 12, (8, 5), generator=torch.Generator().manual_seed(3))

    def once():
        c = CostModel(1e-4, 2e-4, 1e10)
        psd = generate_psd(tg, InlineDrafter(dr, 10, 3, cost=c), prompts, 10, 3, 4, cost=c)
        sd = generate_sd(tg, dr, prompts, 10, 3, 4, cost=CostModel(1e-4, 2e-4, 1e10))
        return psd, sd

    (p1, s1), (p2, _) = once(), once()
    assert p1.makespan == p2.makespan and p1.latency == p2.latency
    # the same stages run serially are exactly standard SD with the same cost model
    assert p1.serial_makespan == pytest.approx(s1.makespan, rel=1e-9)
    # the critical path is at least the busier device's total work
    d_total = sum(t for _, t in p1.t_draft)
    v_total = sum(t for _, t in p1.t_verify)
    assert p1.makespan >= max(d_total, v_total) - 1e-12
    with pytest.raises(ValueError, match="flops_per_s"):
        CostModel(1e-4, 1e-4, 0.0)


def test_markov_language_rows_are_distributions_with_few_successors():
    from icml26.llm.minedraft.setting import chain_entropy, markov_language, sample_sequences

    T = markov_language(7, np.random.default_rng(0), n_succ=3)
    assert T.shape == (7, 7, 7)
    np.testing.assert_allclose(T.sum(-1), 1.0)
    assert ((T > 0).sum(-1) <= 3).all()
    x = sample_sequences(T, 50, 12, torch.Generator().manual_seed(0))
    # every observed transition has positive probability under the chain
    assert all(T[a, b, c] > 0 for row in x.tolist() for a, b, c in zip(row, row[1:], row[2:]))
    assert 0 < chain_entropy(T) <= math.log(3)


def test_psd_with_process_drafter_is_lossless(models):
    """The second-process drafter (token ids over a pipe) gives the target's greedy output."""
    from icml26.llm.minedraft.endpoints import ProcessDrafter

    tg, dr = models
    prompts = torch.randint(0, 12, (4, 5), generator=torch.Generator().manual_seed(4))
    ep = ProcessDrafter(dr, 8, 3)
    try:
        psd = generate_psd(tg, ep, prompts, 8, 3, 2)
    finally:
        ep.close()
    assert psd.outputs == tg.generate_greedy(prompts, 8)[:, 5:].tolist()
