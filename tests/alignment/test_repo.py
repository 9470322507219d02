"""Known answers for the RePO losses (arXiv:2606.09124; windows of the released loss code)."""

import pytest
import torch

from icml26.alignment._preferences import dpo_loss
from icml26.alignment.repo.method import regret_scores, repo_det_loss, repo_loss

LP = torch.tensor([[-1.0, -2.0, -3.0]])
B = torch.tensor([[-0.5, -1.0, -1.0]])
M = torch.ones(1, 3, dtype=torch.bool)


def test_hand_computed_vectorised_and_loop_windows():
    # vectorised: future_t = sum_{k>=t}(b-l)/(L-t) = 3.5/3, 3/2, 2/1
    assert regret_scores(LP, B, M).item() == pytest.approx((-1 - 3.5 / 3 - 2 - 1.5 - 3 - 2) / 3)
    # loop: future_t = sum_{k>t}(b-l)/(L-t-1) = 3/2, 2/1, 0
    assert regret_scores(LP, B, M, window="loop").item() == pytest.approx((-1 - 1.5 - 2 - 2 - 3) / 3)


def test_repo_det_formula():
    # b = 0: s_t = l_t + mean_{k>=t} l_k = -3, -4.5, -6
    assert regret_scores(LP, None, M).item() == pytest.approx(-4.5)


@pytest.mark.parametrize("window", ["vectorised", "loop"])
def test_on_policy_data_removes_the_future_term(window):
    g = torch.Generator().manual_seed(0)
    lp = -torch.rand(4, 6, generator=g)
    mask = torch.ones(4, 6, dtype=torch.bool)
    mask[1, 4:] = False
    assert torch.allclose(regret_scores(lp, lp, mask, window=window), regret_scores(lp, None, mask, future=False))


def test_padding_is_ignored():
    lp = torch.tensor([[-1.0, -2.0, -3.0, -9.0]])
    b = torch.tensor([[-0.5, -1.0, -1.0, 7.0]])
    mask = torch.tensor([[True, True, True, False]])
    assert regret_scores(lp, b, mask).item() == pytest.approx(regret_scores(LP, B, M).item())


def test_gradient_signs():
    """Raising any chosen token's log-prob lowers the loss; raising a rejected one raises it."""
    g = torch.Generator().manual_seed(1)
    lc, lr = (-torch.rand(3, 5, generator=g)).requires_grad_(), (-torch.rand(3, 5, generator=g)).requires_grad_()
    b, ref = -torch.rand(3, 5, generator=g), -torch.rand(3, 5, generator=g)
    m = torch.ones(3, 5, dtype=torch.bool)
    for loss in (repo_loss(lc, lr, b, b, ref, ref, m, m), repo_det_loss(lc, lr, ref, ref, m, m)):
        gc, gr = torch.autograd.grad(loss.sum(), (lc, lr))
        assert bool((gc < 0).all()) and bool((gr > 0).all())


def test_no_future_symmetric_repo_is_length_normalised_dpo():
    """Without the future term, lambda = 1 and alpha = beta, RePO is DPO on mean token log-ratios."""
    g = torch.Generator().manual_seed(2)
    lc, lr, rc, rr = (-torch.rand(2, 4, generator=g) for _ in range(4))
    m = torch.ones(2, 4, dtype=torch.bool)
    got = repo_loss(lc, lr, None, None, rc, rr, m, m, lam=1.0, alpha=0.3, future=False)
    want = dpo_loss(lc.mean(1), lr.mean(1), rc.mean(1), rr.mean(1), beta=0.3)
    assert torch.allclose(got, want)


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="window"):
        regret_scores(LP, B, M, window="nope")
    with pytest.raises(ValueError, match="mask"):
        regret_scores(LP, B, torch.zeros(1, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="behaviour"):
        regret_scores(LP, torch.zeros(1, 2), M)


def test_train_preference_smoke_and_validation():
    from icml26.alignment.repo.method import train_preference
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(0)
    lm = TinyLM(LMConfig(vocab_size=8, d_model=8, n_layers=1, n_heads=2, max_len=16))
    prompts, ch, rj = [[1, 2], [1, 3]], [[4, 5], [5]], [[6], [6, 7]]
    beh = [[-1.0, -1.0], [-1.0]], [[-1.0], [-1.0, -1.0]]
    pol, hist = train_preference(lm, prompts, ch, rj, loss="repo", behaviour_chosen=beh[0], behaviour_rejected=beh[1],
                                 steps=2, batch=2)
    assert len(hist) == 2 and pol is not lm
    with pytest.raises(ValueError, match="loss"):
        train_preference(lm, prompts, ch, rj, loss="nope")
    with pytest.raises(ValueError, match="behaviour"):
        train_preference(lm, prompts, ch, rj, loss="repo")


def test_math_pairs_per_prompt_pairs_every_incorrect_rollout_once():
    from icml26.alignment.repo.setting import Rollouts, math_pairs, problems

    ps = problems(2, seed=0)
    right = [f"#{p.answer}" for p in ps]
    wrong = [f"#{p.answer + d}" for p, d in zip(ps, (1, 2))]
    # problem 0: 2 correct, 3 distinct incorrect rollouts; problem 1: only incorrect ones (no pair)
    texts = [[right[0], wrong[0], right[0], wrong[0] + "0", wrong[0] + "1"], [wrong[1]] * 5]
    resp = [[[10 * i + j] for j in range(5)] for i in range(2)]
    beh = [[[-float(j)] for j in range(5)] for _ in range(2)]
    ro = Rollouts(ps, [[0], [1]], resp, beh, texts)
    one = math_pairs(ro, seed=0)
    assert len(one["prompts"]) == 1 and one["chosen"][0][0] in (0, 2) and one["rejected"][0][0] in (1, 3, 4)
    many = math_pairs(ro, seed=0, per_prompt=7)
    assert sorted(r[0] for r in many["rejected"]) == [1, 3, 4]
    assert all(c[0] in (0, 2) for c in many["chosen"]) and many["beh_r"] == [[-float(r[0])] for r in many["rejected"]]
    assert len(math_pairs(ro, seed=0, per_prompt=2)["prompts"]) == 2
    with pytest.raises(ValueError, match="per_prompt"):
        math_pairs(ro, per_prompt=0)
