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


def test_all_problems_is_the_whole_level1_world():
    from icml26.alignment.repo.setting import all_problems, problems

    a = all_problems()
    prompts = {p.prompt for p in a}
    assert len(a) == len(prompts) == 200
    assert {p.prompt for p in problems(3000, seed=1)} == prompts


def _tiny_pretrain(monkeypatch, success, **kw):
    from icml26.alignment.repo import setting

    calls = []

    def fake_success(model, tok, probs):
        calls.append(len(probs))
        return success

    monkeypatch.setattr(setting, "success_rate", fake_success)
    tok = setting.make_tokenizer()
    model, hist = setting.pretrain_reference(tok, d_model=8, seed=0, **kw)
    return model, hist, calls


def test_pretrain_reference_stops_at_the_calibration_target(monkeypatch):
    from icml26.alignment.repo.setting import problems

    cal = problems(3, seed=0)
    model, hist, calls = _tiny_pretrain(monkeypatch, 0.5, steps=12, calibration=cal, target=0.5, check_every=4,
                                        min_steps=6)
    assert len(hist) == 8 and calls == [3] and not model.training   # checked first at step 8 (>= 6), met there
    _, hist, calls = _tiny_pretrain(monkeypatch, 0.49, steps=12, calibration=cal, target=0.5, check_every=4,
                                    min_steps=6)
    assert len(hist) == 12 and calls == [3, 3]                         # never met: runs to the cap


def test_pretrain_reference_without_target_runs_all_steps_and_is_unchanged(monkeypatch):
    from icml26.alignment.repo.setting import make_tokenizer, pretrain_reference, problems

    tok = make_tokenizer()
    _, h1 = pretrain_reference(tok, steps=5, d_model=8, seed=3)
    # a target that is met at once but only checked from min_steps > steps on: same run, same losses
    _, h2 = pretrain_reference(tok, steps=5, d_model=8, seed=3, calibration=problems(2, seed=0), target=1e-9,
                               min_steps=10)
    assert len(h1) == 5 and h1 == pytest.approx(h2)


def test_pretrain_reference_validates_the_target():
    from icml26.alignment.repo.setting import make_tokenizer, pretrain_reference, problems

    tok, cal = make_tokenizer(), problems(2, seed=0)
    with pytest.raises(ValueError, match="target"):
        pretrain_reference(tok, steps=2, calibration=cal, target=1.5)
    with pytest.raises(ValueError, match="target"):
        pretrain_reference(tok, steps=2, calibration=cal, target=0.0)
    with pytest.raises(ValueError, match="calibration"):
        pretrain_reference(tok, steps=2, target=0.3)
    with pytest.raises(ValueError, match="check_every"):
        pretrain_reference(tok, steps=2, calibration=cal, target=0.3, check_every=0)


def test_answer_logprob_matches_a_per_problem_loop():
    from icml26.alignment.repo.setting import answer_logprob, completion, make_tokenizer, problems
    from icml26.nn.transformer import LMConfig, TinyLM

    torch.manual_seed(0)
    tok = make_tokenizer()
    lm = TinyLM(LMConfig(vocab_size=tok.vocab_size, d_model=8, n_layers=1, n_heads=2, max_len=16)).eval()
    ps = problems(6, seed=0)
    want = []
    with torch.no_grad():
        for p in ps:
            pr, c = tok.encode(p.prompt, bos=True), tok.encode(completion(p), eos=True)
            ids = torch.tensor([pr + c])
            lp = torch.log_softmax(lm(ids[:, :-1])[0], -1)[0]
            want.append(float(lp[len(pr) - 1:].gather(1, ids[0, len(pr):, None]).sum()))
    assert answer_logprob(lm, tok, ps) == pytest.approx(sum(want) / len(want), abs=1e-5)
    with pytest.raises(ValueError, match="empty"):
        answer_logprob(lm, tok, [])
    with pytest.raises(TypeError, match="model"):
        answer_logprob(object(), tok, ps)
    lm.train()
    answer_logprob(lm, tok, ps)
    assert lm.training  # the caller's mode is restored


def _rows(n=10, **over):
    base = {"ref/success": 0.3, "dpo_gain": 0.05, "dpo_logp_gain": 0.1}
    rows = []
    for i in range(n):
        r = dict(base)
        for s in ("math", "human"):
            r.update({f"{s}/dpo/test": 0.4, f"{s}/repo/test": 0.45, f"{s}/repo_det/test": 0.45 + 0.001 * i})
        r.update({k: (v[i] if isinstance(v, list) else v) for k, v in over.items()})
        rows.append(r)
    return rows


def test_gate_needs_the_premise_band_and_a_per_seed_log_prob_rise():
    from icml26.alignment.repo.experiment import _gate

    assert _gate(_rows())[0]
    assert not _gate(_rows(**{"ref/success": [0.6] * 3 + [0.3] * 7}))[0]        # 7/10 in the band < 8
    assert _gate(_rows(**{"ref/success": [0.6] * 2 + [0.3] * 8}))[0]
    assert not _gate(_rows(dpo_logp_gain=[-0.1] * 4 + [0.1] * 6))[0]            # 6/10 < 7
    assert not _gate(_rows(dpo_gain=0.02))[0]
    old = [{k: v for k, v in r.items() if k != "dpo_logp_gain"} for r in _rows()]
    assert not _gate(old)[0]                                                    # rows without the metric


def test_det_competitive_is_per_seed():
    from icml26.alignment.repo.experiment import check_det_competitive

    assert check_det_competitive(_rows()).status == "reproduced"
    # RePO_det above DPO on the mean, but only in 6/10 seeds
    lose = {f"{s}/repo_det/test": [0.30] * 4 + [0.52] * 6 for s in ("math", "human")}
    assert check_det_competitive(_rows(**lose)).status == "not-reproduced"
    # more than 1 point below RePO in the median seed
    far = {"math/repo_det/test": [0.43] * 6 + [0.47] * 4}
    assert check_det_competitive(_rows(**far)).status == "partly"
    assert check_det_competitive(_rows(dpo_gain=0.0)).status == "not-checkable"
