"""Known answers for the shared preference loop (icml26.alignment._dpo)."""

import copy
import math

import numpy as np
import pytest
import torch

from icml26.alignment._dpo import PairBatch, pair_sums, train_loop, train_preference
from icml26.alignment._preferences import dpo_loss
from icml26.nn.lm import token_logprobs
from icml26.nn.transformer import LMConfig, TinyLM


def _lm(seed: int = 0) -> TinyLM:
    torch.manual_seed(seed)
    return TinyLM(LMConfig(vocab_size=10, d_model=16, n_layers=1, n_heads=2, max_len=16))


def _toy(n: int = 12):
    """Separable pairs: after prompt (1, k) the chosen answer is token 5, the rejected token 6 (ragged lengths)."""
    prompts = [[1, 2 + i % 3] for i in range(n)]
    chosen = [[5] if i % 2 else [5, 7] for i in range(n)]
    rejected = [[6, 7] if i % 2 else [6] for i in range(n)]
    return prompts, chosen, rejected


@pytest.mark.parametrize("per_batch", [False, True])
def test_dpo_starts_at_log2_and_ipo_at_its_constant(per_batch):
    p, c, r = _toy()
    hist = train_preference(_lm(), p, c, r, loss="dpo", beta=0.3, steps=1, batch=4, reference_per_batch=per_batch)
    assert abs(hist[0] - math.log(2)) < 1e-6
    hist = train_preference(_lm(), p, c, r, loss="ipo", beta=0.25, steps=1, batch=4, reference_per_batch=per_batch)
    assert hist[0] == pytest.approx((1 / (2 * 0.25)) ** 2, abs=1e-5)


def test_simpo_first_step_is_its_formula():
    p, c, r = _toy()
    m = _lm()
    with torch.no_grad():
        lc, _ = token_logprobs(m, p, c)
        lr, _ = token_logprobs(m, p, r)
    nc = torch.tensor([len(x) for x in c], dtype=torch.float32)
    nr = torch.tensor([len(x) for x in r], dtype=torch.float32)
    want = -torch.nn.functional.logsigmoid(2.0 * (lc.sum(1) / nc - lr.sum(1) / nr) - 0.5).mean()
    hist = train_preference(m, p, c, r, loss="simpo", beta=2.0, gamma=0.5, steps=1, batch=len(p),
                            sampler="permutation")
    assert hist[0] == pytest.approx(float(want), abs=1e-6)


@pytest.mark.parametrize("optimizer,schedule", [("adam", "constant"), ("adamw", "warmup_cosine")])
def test_dpo_learns_a_separable_toy(optimizer, schedule):
    p, c, r = _toy()
    m = _lm()
    ref = copy.deepcopy(m)
    hist = train_preference(m, p, c, r, reference=ref, loss="dpo", beta=0.5, steps=40, batch=8, lr=1e-2,
                            optimizer=optimizer, schedule=schedule)
    assert len(hist) == 40 and np.mean(hist[-5:]) < 0.5 * math.log(2)
    assert not m.training
    with torch.no_grad():  # the reference is untouched; the policy now prefers the chosen answers
        assert all(torch.equal(a, b) for a, b in zip(ref.state_dict().values(), _lm().state_dict().values()))
        def gap(mdl):
            return token_logprobs(mdl, p, c)[0].sum(1) - token_logprobs(mdl, p, r)[0].sum(1)

        assert bool((gap(m) > gap(ref)).all())


def test_loss_masks_exclude_tokens():
    # masking the second token of every two-token response equals training on the first token alone
    p, c, r = _toy()
    cut_c, cut_r = [x[:1] for x in c], [x[:1] for x in r]
    a = train_preference(_lm(), p, c, r, chosen_masks=[[1] + [0] * (len(x) - 1) for x in c],
                         rejected_masks=[[True] for _ in r], steps=5, batch=4, lr=1e-2, reference_per_batch=True)
    b = train_preference(_lm(), p, cut_c, cut_r, steps=5, batch=4, lr=1e-2, reference_per_batch=True)
    assert a[0] == pytest.approx(math.log(2), abs=1e-6)
    # the two-token rows see the masked token in their forward pass only: the losses agree closely
    assert np.allclose(a, b, atol=1e-5)


def test_callable_loss_equals_the_named_one_and_sees_token_tensors():
    p, c, r = _toy()
    seen = []

    def mine(b: PairBatch) -> torch.Tensor:
        assert b.policy_chosen.shape == b.ref_chosen.shape == b.mask_chosen.shape
        assert b.policy_chosen.requires_grad and not b.ref_chosen.requires_grad
        seen.append(b.progress)
        pc, pr, rc, rr, _, _ = pair_sums(b)
        return dpo_loss(pc, pr, rc, rr, beta=0.2)

    a = train_preference(_lm(), p, c, r, loss=mine, steps=4, batch=5, lr=1e-2, seed=3)
    b = train_preference(_lm(), p, c, r, loss="dpo", beta=0.2, steps=4, batch=5, lr=1e-2, seed=3)
    assert a == b and seen == [0.0, 0.25, 0.5, 0.75]


def test_train_loop_equals_a_hand_written_adam_loop():
    torch.manual_seed(0)
    x, y = torch.randn(20, 3), torch.randn(20)

    def fresh():
        torch.manual_seed(1)
        return torch.nn.Linear(3, 1)

    m = fresh()
    hist = train_loop(m, 20, lambda idx, prog: (m(x[idx]).squeeze(1) - y[idx]) ** 2, steps=6, batch=7, lr=0.05,
                      seed=4, sampler="permutation", grad_clip=None)
    ref = fresh()
    opt = torch.optim.Adam(ref.parameters(), lr=0.05)
    gen = torch.Generator().manual_seed(4)
    want = []
    for _ in range(6):
        idx = torch.randperm(20, generator=gen)[:7]
        loss = ((ref(x[idx]).squeeze(1) - y[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        want.append(float(loss.detach()))
    assert hist == want
    assert torch.equal(m.weight, ref.weight)


def test_warmup_cosine_schedule_values():
    m = torch.nn.Linear(1, 1)
    lrs = []

    def loss(idx, prog):
        return m.weight.sum() * 0.0

    # read the lr the optimizer uses at each step
    orig = torch.optim.AdamW.step

    def step(self, *a, **k):
        lrs.append(self.param_groups[0]["lr"])
        return orig(self, *a, **k)

    torch.optim.AdamW.step = step
    try:
        train_loop(m, 4, loss, steps=20, batch=2, lr=1.0, optimizer="adamw", schedule="warmup_cosine")
    finally:
        torch.optim.AdamW.step = orig
    assert lrs[:2] == pytest.approx([0.5, 1.0])  # warm-up over 20 // 10 = 2 steps
    assert lrs[2] == pytest.approx(1.0) and lrs[-1] == pytest.approx(0.5 * (1 + math.cos(math.pi * 17 / 18)))


def test_bad_input_names_the_argument():
    p, c, r = _toy(4)
    m = _lm()
    with pytest.raises(ValueError, match="loss"):
        train_preference(m, p, c, r, loss="kto")
    with pytest.raises(ValueError, match="equally long"):
        train_preference(m, p, c, r[:3])
    with pytest.raises(ValueError, match="steps"):
        train_preference(m, p, c, r, steps=0)
    with pytest.raises(ValueError, match="sampler"):
        train_preference(m, p, c, r, sampler="bootstrap")
    with pytest.raises(ValueError, match="optimizer"):
        train_preference(m, p, c, r, optimizer="sgd")
    with pytest.raises(ValueError, match="schedule"):
        train_preference(m, p, c, r, schedule="step")
    with pytest.raises(ValueError, match="beta"):
        train_preference(m, p, c, r, beta=float("nan"))
    with pytest.raises(ValueError, match="lr"):
        train_preference(m, p, c, r, lr=-1.0)
    with pytest.raises(TypeError, match="chosen"):
        train_preference(m, p, [[0.5]] * 4, r)
    with pytest.raises(ValueError, match="chosen"):
        train_preference(m, p, [[]] * 4, r)
    with pytest.raises(TypeError, match="prompts"):
        train_preference(m, "abc", c, r)
    with pytest.raises(ValueError, match="reference"):
        train_preference(m, p, c, r, reference=m)
    with pytest.raises(TypeError, match="policy"):
        train_preference("model", p, c, r)
    with pytest.raises(ValueError, match="chosen_masks"):
        train_preference(m, p, c, r, chosen_masks=[[1, 1, 1]] * 4)
    with pytest.raises(ValueError, match="chosen_masks"):
        train_preference(m, p, c, r, chosen_masks=[[2]] * 4)
    with pytest.raises(TypeError, match="batch_loss"):
        train_loop(m, 4, "loss", steps=1, batch=1, lr=1.0)
    with pytest.raises(ValueError, match="n"):
        train_loop(m, 0, lambda i, q: torch.zeros(()), steps=1, batch=1, lr=1.0)
    with pytest.raises(ValueError, match="grad_clip"):
        train_loop(m, 4, lambda i, q: torch.zeros(()), steps=1, batch=1, lr=1.0, grad_clip=-1.0)
    with pytest.raises(TypeError, match="grad_clip"):
        train_loop(m, 4, lambda i, q: torch.zeros(()), steps=1, batch=1, lr=1.0, grad_clip="1")
    with pytest.raises(ValueError, match="grad_clip"):
        train_preference(m, p, c, r, grad_clip=float("inf"))


def test_gamma_only_acts_on_simpo():
    """As documented: gamma is validated but used by "simpo" only."""
    p, c, r = _toy()
    for kind in ("dpo", "ipo"):
        a = train_preference(_lm(), p, c, r, loss=kind, gamma=0.0, steps=3, batch=4, lr=1e-2)
        b = train_preference(_lm(), p, c, r, loss=kind, gamma=5.0, steps=3, batch=4, lr=1e-2)
        assert a == b
    a = train_preference(_lm(), p, c, r, loss="simpo", gamma=0.0, steps=1, batch=4)
    b = train_preference(_lm(), p, c, r, loss="simpo", gamma=5.0, steps=1, batch=4)
    assert a != b


def test_a_given_reference_is_run_in_the_mode_it_was_given():
    """As documented: a reference passed in training mode stays so (its dropout runs); after .eval() it runs in eval."""
    p, c, r = _toy()

    def lm_with_dropout():
        torch.manual_seed(0)
        return TinyLM(LMConfig(vocab_size=10, d_model=16, n_layers=1, n_heads=2, max_len=16, dropout=0.5))

    ref = lm_with_dropout().train()
    seen = []
    ref.register_forward_pre_hook(lambda mod, args: seen.append(mod.training))
    train_preference(lm_with_dropout(), p, c, r, reference=ref, steps=2, batch=4, lr=1e-2, reference_per_batch=True)
    assert ref.training and seen and all(seen)
    ref.eval()
    seen.clear()
    train_preference(lm_with_dropout(), p, c, r, reference=ref, steps=2, batch=4, lr=1e-2)
    assert not ref.training and seen and not any(seen)


def _old_train_loop(model, n, batch_loss, *, steps, batch, lr, seed=0, sampler="replacement", optimizer="adam",
                    weight_decay=0.0, schedule="constant", clip=1.0):
    """train_loop as it was before issue 13 renamed ``clip`` to ``grad_clip`` (settings and loop, verbatim)."""
    from icml26.core.validate import check_positive

    clip = None if clip is None else check_positive("clip", clip)
    gen = torch.Generator().manual_seed(seed)
    if optimizer == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    sched = None
    if schedule == "warmup_cosine":
        warm = max(1, steps // 10)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda t: (t + 1) / warm if t < warm
            else 0.5 * (1 + np.cos(np.pi * (t - warm) / max(1, steps - warm))))
    model.train()
    hist = []
    for step in range(steps):
        if sampler == "replacement":
            idx = torch.randint(0, n, (min(batch, n),), generator=gen)
        else:
            idx = torch.randperm(n, generator=gen)[:min(batch, n)]
        out = batch_loss(idx, step / steps)
        loss = out.mean() if out.dim() > 0 else out
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if clip is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if sched is not None:
            sched.step()
        hist.append(float(loss.detach()))
    model.eval()
    return hist


@pytest.mark.parametrize("old_clip, new_clip", [(1.0, 1.0), (1.0, "default"), (0.05, 0.05), (2, 2), (None, None),
                                                (None, 0), (None, 0.0)])
@pytest.mark.parametrize("schedule", ["constant", "warmup_cosine"])
def test_grad_clip_is_bit_identical_to_the_old_clip(old_clip, new_clip, schedule):
    """grad_clip (None or 0: off) trains exactly as the old ``clip`` did (None: off): losses, weights, RNG."""
    torch.manual_seed(0)
    x, y = torch.randn(30, 4) * 3, torch.randn(30)

    def run(fn, **kw):
        torch.manual_seed(1)
        m = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        hist = fn(m, 30, lambda idx, prog: (m(x[idx]).squeeze(1) - y[idx]) ** 2, steps=8, batch=6, lr=0.1, seed=2,
                  optimizer="adamw", weight_decay=0.01, schedule=schedule, **kw)
        return hist, m, torch.rand(())

    h_old, m_old, r_old = run(_old_train_loop, clip=old_clip)
    h_new, m_new, r_new = run(train_loop, **({} if new_clip == "default" else {"grad_clip": new_clip}))
    assert h_old == h_new and torch.equal(r_old, r_new)
    for a, b in zip(m_old.parameters(), m_new.parameters()):
        assert torch.equal(a, b)


def test_train_preference_grad_clip_zero_means_off():
    """train_preference: grad_clip=0 and None give the same run; a small bound changes it."""
    p, c, r = _toy()
    runs = {}
    for g in (None, 0, 1e-3):
        m = _lm()
        runs[g] = (train_preference(m, p, c, r, steps=3, batch=4, lr=0.05, grad_clip=g), m)
    assert runs[None][0] == runs[0][0]
    for a, b in zip(runs[None][1].parameters(), runs[0][1].parameters()):
        assert torch.equal(a, b)
    assert runs[1e-3][0] != runs[None][0]
