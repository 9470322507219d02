import math

import pytest
import torch

from icml26.nn.rl import GRPOConfig, grpo_loss, group_advantages, kl_k3, train_grpo
from icml26.nn.transformer import LMConfig, TinyLM


def test_group_advantages_closed_form():
    r = torch.tensor([[1.0, 0.0, 0.0, 1.0], [2.0, 2.0, 2.0, 2.0]])
    a = group_advantages(r)
    s = torch.tensor([1.0, 0.0, 0.0, 1.0]).std()
    assert torch.allclose(a[0], (r[0] - 0.5) / (s + 1e-4)) and torch.allclose(a[1], torch.zeros(4))
    assert torch.allclose(group_advantages(r, scale=False)[0], r[0] - 0.5)
    with pytest.raises(ValueError, match="group_size"):
        group_advantages(torch.ones(3, 1))
    with pytest.raises(ValueError, match="NaN"):
        group_advantages(torch.tensor([[1.0, math.nan]]))


def test_kl_k3_is_nonnegative_and_zero_at_equality():
    x = torch.randn(100)
    assert bool((kl_k3(x, x + torch.randn(100)) >= 0).all()) and float(kl_k3(x, x).abs().max()) == 0.0


def test_on_policy_loss_is_minus_mean_advantage_and_gradient_is_reinforce():
    torch.manual_seed(0)
    logp = torch.randn(4, 5, requires_grad=True)
    mask = torch.ones(4, 5, dtype=torch.bool)
    adv = torch.tensor([1.0, -1.0, 0.5, -0.5])
    loss = grpo_loss(logp, logp.detach(), adv, mask)
    assert float(loss) == pytest.approx(-float(adv.mean()))
    loss.backward()
    # d/dlogp of -ratio*A / T per sequence, averaged over batch: -A / (T * B)
    assert torch.allclose(logp.grad, (-adv[:, None] / 5 / 4).expand(4, 5))


def test_clipping_stops_the_gradient_beyond_the_trust_region():
    logp = torch.full((1, 3), 0.5, requires_grad=True)
    old = torch.zeros(1, 3)  # ratio e^0.5 > 1.2 with a positive advantage: clipped, no gradient
    grpo_loss(logp, old, torch.tensor([1.0]), torch.ones(1, 3, dtype=torch.bool)).backward()
    assert float(logp.grad.abs().max()) == 0.0
    logp.grad = None
    grpo_loss(logp, old, torch.tensor([1.0]), torch.ones(1, 3, dtype=torch.bool), eps_high=1.0).backward()
    assert float(logp.grad.abs().max()) > 0  # clip-higher lets it through


def test_aggregations_differ_only_in_weighting():
    logp = torch.zeros(2, 4)
    mask = torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]], dtype=torch.bool)
    adv = torch.tensor([1.0, 3.0])
    assert float(grpo_loss(logp, logp, adv, mask)) == pytest.approx(-2.0)
    assert float(grpo_loss(logp, logp, adv, mask, aggregation="token")) == pytest.approx(-(4 + 3) / 5)
    assert float(grpo_loss(logp, logp, adv, mask, aggregation="dr_grpo", max_len=4)) == pytest.approx(-7 / 8)


def test_bad_input():
    z = torch.zeros(2, 3)
    m = torch.ones(2, 3, dtype=torch.bool)
    with pytest.raises(ValueError, match="aggregation"):
        grpo_loss(z, z, torch.zeros(2), m, aggregation="mean")
    with pytest.raises(ValueError, match="advantages"):
        grpo_loss(z, z, torch.zeros(3), m)
    with pytest.raises(ValueError, match="ref_logp"):
        grpo_loss(z, z, torch.zeros(2), m, beta=0.1)
    with pytest.raises((ValueError, TypeError), match="group_size"):
        GRPOConfig(group_size=1)


def test_grpo_learns_a_verifiable_preference():
    """Reward = fraction of completion tokens equal to 3: the policy must learn to emit 3."""
    torch.manual_seed(0)
    pol = TinyLM(LMConfig(vocab_size=6, d_model=16, n_layers=1, n_heads=2, max_len=12))
    cfg = GRPOConfig(group_size=8, max_new=4, lr=3e-2, beta=0.01)
    prompts = lambda g: ([[1, 2]] * 2, [None, None])  # noqa: E731
    reward = lambda info, comps: [sum(t == 3 for t in c) / len(c) for c in comps]  # noqa: E731
    hist = train_grpo(pol, prompts, reward, cfg, steps=25, seed=0)
    r = hist.series("reward")
    assert sum(r[-5:]) / 5 > sum(r[:5]) / 5 + 0.3
    assert hist.steps[-1].kl > 0


def test_loss_equals_trl_grpo_loss():
    """Our loss equals TRL's GRPOTrainer loss on the same batch (TRL as the reference implementation)."""
    trl = pytest.importorskip("trl", reason="trl not installed: the TRL cross-check is skipped")
    from trl_reference import trl_grpo_loss

    torch.manual_seed(0)
    b, t = 4, 5
    logp = torch.randn(b, t) - 1.0
    old = logp + 0.3 * torch.randn(b, t)
    ref = logp + 0.2 * torch.randn(b, t)
    mask = torch.ones(b, t, dtype=torch.bool)
    mask[1, 3:] = False
    adv = torch.tensor([1.0, -0.5, 0.25, -2.0])
    for agg, loss_type in (("grpo", "grpo"), ("token", "bnpo"), ("dr_grpo", "dr_grpo")):
        ours = grpo_loss(logp, old, adv, mask, ref_logp=ref, beta=0.04, eps_low=0.2, eps_high=0.28,
                         aggregation=agg, max_len=t)
        theirs = trl_grpo_loss(logp, old, ref, adv, mask, beta=0.04, epsilon=0.2, epsilon_high=0.28,
                               loss_type=loss_type, max_completion_length=t)
        assert float(ours) == pytest.approx(float(theirs), rel=1e-5, abs=1e-7), (agg, trl.__version__)


def test_grpo_update_loss_mask_drops_tokens_from_the_update():
    """An update with a loss mask equals a manual SGD step on grpo_loss with those tokens masked;
    with an all-True mask it equals the unmasked update."""
    import copy

    from icml26.nn.lm import token_logprobs
    from icml26.nn.rl import grpo_update

    torch.manual_seed(0)
    base = TinyLM(LMConfig(vocab_size=12, d_model=16, n_layers=1, n_heads=2, max_len=16))
    prompts = [[1, 3], [1, 3], [1, 4, 5], [1, 4, 5]]
    comps = [[6, 7, 8], [6, 9], [7, 7, 7, 2], [8, 2]]
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0])
    lmask = [[True, False, True], [True, True], [True, False, False, True], [False, True]]
    cfg = GRPOConfig(group_size=2, lr=0.1, grad_clip=None)

    def run(mask):
        m = copy.deepcopy(base)
        grpo_update(m, None, torch.optim.SGD(m.parameters(), lr=0.1), prompts, comps, rewards, cfg, loss_mask=mask)
        return m

    manual = copy.deepcopy(base)
    lp, mk = token_logprobs(manual, prompts, comps)
    extra = torch.zeros_like(mk)
    for i, m in enumerate(lmask):
        extra[i, :len(m)] = torch.tensor(m)
    adv = group_advantages(rewards.view(2, 2)).view(-1)
    loss = grpo_loss(lp, lp.detach(), adv, mk & extra)
    loss.backward()
    with torch.no_grad():
        for p in manual.parameters():
            p -= 0.1 * p.grad
    masked = run(lmask)
    for a, b in zip(masked.parameters(), manual.parameters()):
        assert torch.allclose(a, b, atol=1e-6)
    full, none = run([[True] * len(c) for c in comps]), run(None)
    for a, b in zip(full.parameters(), none.parameters()):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="loss_mask"):
        run([[True]] * 4)
    with pytest.raises(ValueError, match="group_size"):
        grpo_update(base, None, torch.optim.SGD(base.parameters(), lr=0.1), prompts[:3], comps[:3], rewards[:3], cfg)
