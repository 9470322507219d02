"""Known-answer tests for the shared LM training loop (icml26.nn.train): schedules, the loss hook, validation."""

import math

import pytest
import torch

from icml26.nn import LMConfig, TinyLM, lm_loss, train_lm
from icml26.nn.train import SCHEDULES, lr_factor


def _model(seed: int = 0) -> TinyLM:
    torch.manual_seed(seed)
    return TinyLM(LMConfig(vocab_size=17, d_model=16, n_layers=1, n_heads=2, max_len=32))


def _batch(gen: torch.Generator) -> torch.Tensor:
    return torch.randint(0, 17, (4, 12), generator=gen)


class _RecordingAdamW(torch.optim.AdamW):
    """AdamW that records the lr of its first group at every step (the lr the step used)."""

    trace: list[float] = []

    def step(self, closure=None):
        _RecordingAdamW.trace.append(self.param_groups[0]["lr"])
        return super().step(closure)


def _lr_trace(monkeypatch, **kw) -> list[float]:
    _RecordingAdamW.trace = []
    monkeypatch.setattr(torch.optim, "AdamW", _RecordingAdamW)
    train_lm(_model(), _batch, **kw)
    return list(_RecordingAdamW.trace)


def test_constant_schedule_lr_trace(monkeypatch):
    trace = _lr_trace(monkeypatch, steps=8, lr=0.1, warmup=4, schedule="constant")
    assert trace == pytest.approx([0.025, 0.05, 0.075, 0.1, 0.1, 0.1, 0.1, 0.1], rel=0, abs=1e-15)
    assert trace[3:] == [0.1] * 5  # exactly lr after the warm-up
    assert _lr_trace(monkeypatch, steps=3, lr=0.1, warmup=0, schedule="constant") == [0.1] * 3


def test_cosine_schedule_lr_trace_is_the_default(monkeypatch):
    default = _lr_trace(monkeypatch, steps=9, lr=1.0, warmup=3)
    assert default == _lr_trace(monkeypatch, steps=9, lr=1.0, warmup=3, schedule="cosine")
    assert default[:3] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert default[3] == 1.0  # the cosine starts at its top
    expected = [0.5 * (1 + math.cos(math.pi * (s - 3) / 6)) * 0.9 + 0.1 for s in range(3, 9)]
    assert default[3:] == pytest.approx(expected, abs=1e-6)  # float32 cosine
    assert lr_factor(9, steps=9, warmup=3) == pytest.approx(0.1)
    # the factor is computed through a float32 torch.cos, as the loop always has (results keep their bits)
    frac = (5 - 3) / (9 - 3)
    assert lr_factor(5, steps=9, warmup=3) == 0.5 * (1 + torch.cos(torch.tensor(torch.pi * frac)).item()) * 0.9 + 0.1


def test_callable_schedule_gives_the_factor_per_step(monkeypatch):
    trace = _lr_trace(monkeypatch, steps=4, lr=0.5, schedule=lambda s: 1.0 - s / 4)
    assert trace == [0.5, 0.375, 0.25, 0.125]
    m = _model()
    before = [p.detach().clone() for p in m.parameters()]
    train_lm(m, _batch, steps=3, schedule=lambda s: 0.0)  # lr 0: AdamW (and its decay) leaves the weights alone
    assert all(torch.equal(a, b) for a, b in zip(before, m.parameters()))


def test_loss_hook_returning_lm_loss_gives_the_same_losses_and_weights():
    a, b = _model(), _model()
    la = train_lm(a, _batch, steps=6, seed=3)
    seen = []

    def hook(model, batch, step, gen):
        seen.append((step, model.training, isinstance(gen, torch.Generator)))
        return lm_loss(model, batch)

    lb = train_lm(b, _batch, steps=6, seed=3, loss_fn=hook)
    assert la == lb
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    assert seen == [(s, True, True) for s in range(6)]


def test_loss_hook_gets_any_batch_and_the_sampler_generator():
    # the hook continues the sampler's stream: drawing there equals drawing right after the batch
    draws = []

    def sample(gen):
        return {"ids": _batch(gen)}

    def hook(model, batch, step, gen):
        draws.append(torch.rand(1, generator=gen).item())
        return lm_loss(model, batch["ids"])

    train_lm(_model(), sample, steps=3, seed=5, loss_fn=hook)
    g = torch.Generator().manual_seed(5)
    ref = []
    for _ in range(3):
        _batch(g)
        ref.append(torch.rand(1, generator=g).item())
    assert draws == ref


def test_bad_arguments_raise():
    m = _model()
    assert SCHEDULES == ("cosine", "constant")
    with pytest.raises(ValueError, match="schedule"):
        train_lm(m, _batch, steps=2, schedule="linear")
    with pytest.raises(ValueError, match="schedule"):
        train_lm(m, _batch, steps=2, schedule=None)
    with pytest.raises(ValueError, match="schedule"):
        lr_factor(0, steps=2, warmup=1, schedule="anneal")
    with pytest.raises(TypeError, match="loss_fn"):
        train_lm(m, _batch, steps=2, loss_fn="lm")
    with pytest.raises(TypeError, match="on_step"):
        train_lm(m, _batch, steps=2, on_step=1)
    with pytest.raises(TypeError, match="sample_batch"):
        train_lm(m, None, steps=2)
    with pytest.raises(ValueError, match="steps"):
        train_lm(m, _batch, steps=0)
    with pytest.raises(TypeError, match="steps"):
        train_lm(m, _batch, steps=2.0)
    with pytest.raises(ValueError, match="warmup"):
        train_lm(m, _batch, steps=2, warmup=-1)
    with pytest.raises(ValueError, match="lr"):
        train_lm(m, _batch, steps=2, lr=0.0)
    with pytest.raises(ValueError, match="weight_decay"):
        train_lm(m, _batch, steps=2, weight_decay=-0.1)
    with pytest.raises(ValueError, match="grad_clip"):
        train_lm(m, _batch, steps=2, grad_clip=-1.0)


# ----------------------------------------------------------------------------- review (issue 13): documented edges
def test_grad_clip_zero_and_none_are_both_off_and_a_tiny_bound_is_on():
    ref = _model()
    la = train_lm(ref, _batch, steps=4, seed=1, grad_clip=0)
    for clip in (None, 0.0):
        m = _model()
        assert train_lm(m, _batch, steps=4, seed=1, grad_clip=clip) == la
        assert all(torch.equal(p, q) for p, q in zip(ref.parameters(), m.parameters()))
    tight = _model()
    train_lm(tight, _batch, steps=4, seed=1, grad_clip=1e-6)
    assert not all(torch.equal(p, q) for p, q in zip(ref.parameters(), tight.parameters()))


def test_frozen_parameters_stay_put_and_the_model_ends_in_eval_mode():
    m = _model()
    frozen = m.tok.weight  # the token embedding, as a LoRA model freezes its base
    frozen.requires_grad_(False)
    before = frozen.detach().clone()
    others = [p.detach().clone() for p in m.parameters() if p.requires_grad]
    train_lm(m, _batch, steps=3)  # AdamW with weight decay 0.01 skips tensors without a gradient
    assert torch.equal(frozen, before)
    assert not all(torch.equal(a, b) for a, b in zip(others, [p for p in m.parameters() if p.requires_grad]))
    assert not m.training


def test_lr_factor_is_meant_for_steps_before_the_end():
    # as documented: not validated, and past ``steps`` the half cosine rises again
    assert lr_factor(4, steps=5, warmup=2) > 0.1
    assert lr_factor(5, steps=5, warmup=2) == pytest.approx(0.1)
    assert lr_factor(10, steps=5, warmup=2) == pytest.approx(0.325, abs=1e-6)


# ----------------------------------------------------------------------------- params=, betas=, generator= (issue 13)
def test_params_subset_trains_only_those_tensors():
    m = _model()
    head = [m.tok.weight]  # tied embedding / output matrix
    before = {n: p.detach().clone() for n, p in m.named_parameters()}
    train_lm(m, _batch, steps=3, params=head)
    changed = {n for n, p in m.named_parameters() if not torch.equal(p, before[n])}
    assert changed == {"tok.weight"}


def test_all_tensors_as_params_equal_the_default_and_groups_carry_their_own_decay():
    ref = _model()
    la = train_lm(ref, _batch, steps=4, seed=2)
    m = _model()
    assert train_lm(m, _batch, steps=4, seed=2, params=list(m.parameters())) == la
    assert all(torch.equal(p, q) for p, q in zip(ref.parameters(), m.parameters()))
    # one group with the default decay is the same run; a group with a large decay is a different run
    g = _model()
    assert train_lm(g, _batch, steps=4, seed=2, params=[{"params": list(g.parameters())}]) == la
    h = _model()
    train_lm(h, _batch, steps=4, seed=2, params=[{"params": list(h.parameters()), "weight_decay": 5.0}])
    assert not all(torch.equal(p, q) for p, q in zip(ref.parameters(), h.parameters()))


def test_betas_reach_adamw(monkeypatch):
    seen = []

    class Rec(torch.optim.AdamW):
        def __init__(self, params, **kw):
            seen.append(kw["betas"])
            super().__init__(params, **kw)

    monkeypatch.setattr(torch.optim, "AdamW", Rec)
    train_lm(_model(), _batch, steps=1, betas=(0.9, 0.95))
    train_lm(_model(), _batch, steps=1)
    assert seen == [(0.9, 0.95), (0.9, 0.999)]


def test_external_generator_continues_the_callers_stream():
    g = torch.Generator().manual_seed(7)
    a = train_lm(_model(), _batch, steps=3, generator=g, seed=123)  # seed unused
    b = train_lm(_model(), _batch, steps=3, seed=7)
    assert a == b
    ref = torch.Generator().manual_seed(7)
    for _ in range(3):
        _batch(ref)
    assert torch.equal(g.get_state(), ref.get_state())


def test_new_options_reject_bad_input():
    m = _model()
    with pytest.raises(TypeError, match="generator"):
        train_lm(m, _batch, steps=1, generator=7)
    for bad in ((0.9,), (0.9, 1.0), (-0.1, 0.9), "ab"):
        with pytest.raises(ValueError, match="betas"):
            train_lm(m, _batch, steps=1, betas=bad)
    with pytest.raises(TypeError, match="params"):
        train_lm(m, _batch, steps=1, params=m.tok.weight)
    with pytest.raises(ValueError, match="empty"):
        train_lm(m, _batch, steps=1, params=[])
    with pytest.raises(ValueError, match="'params'"):
        train_lm(m, _batch, steps=1, params=[{"lr": 1.0}])
    with pytest.raises(TypeError, match="mix"):
        train_lm(m, _batch, steps=1, params=[{"params": [m.tok.weight]}, m.pos.weight])
    with pytest.raises(TypeError, match="tensor"):
        train_lm(m, _batch, steps=1, params=[1.0])
    with pytest.raises(ValueError, match="leaf"):
        train_lm(m, _batch, steps=1, params=[m.tok.weight * 2])


def test_group_options_are_checked_and_integer_betas_work():
    m = _model()
    with pytest.raises(ValueError, match="unknown AdamW group option"):
        train_lm(m, _batch, steps=1, params=[{"params": list(m.parameters()), "weight_decy": 0.1}])
    with pytest.raises(ValueError, match=r"params\[0\]\['weight_decay'\]"):
        train_lm(m, _batch, steps=1, params=[{"params": list(m.parameters()), "weight_decay": -1.0}])
    with pytest.raises(ValueError, match=r"params\[1\]\['lr'\]"):
        train_lm(m, _batch, steps=1, params=[{"params": [m.tok.weight]}, {"params": [m.pos.weight], "lr": 0.0}])
    with pytest.raises(ValueError, match="betas"):
        train_lm(m, _batch, steps=1, betas=(True, 0.9))
    a = train_lm(_model(), _batch, steps=2, betas=(0, 0.999))  # ints are numbers: torch gets floats
    b = train_lm(_model(), _batch, steps=2, betas=(0.0, 0.999))
    assert a == b
