import math

import pytest
import torch

from icml26.nn.mlp import fit, loss_drop, mlp


def test_mlp_shapes_and_layers():
    net = mlp([3, 8, 8, 2], activation="tanh", out_activation="sigmoid", layer_norm=True, dropout=0.1)
    y = net(torch.randn(5, 3))
    assert y.shape == (5, 2) and bool(((y > 0) & (y < 1)).all())
    assert sum(isinstance(m, torch.nn.Linear) for m in net) == 3


@pytest.mark.parametrize("bad", [[3], "34", [3, 0, 1], [3, 2.5]])
def test_mlp_rejects_bad_sizes(bad):
    with pytest.raises((ValueError, TypeError), match="sizes"):
        mlp(bad)


def test_fit_learns_a_linear_map_and_reports_history():
    torch.manual_seed(0)
    x = torch.randn(256, 2)
    y = x @ torch.tensor([[2.0], [-1.0]]) + 0.5
    net = mlp([2, 1])
    res = fit(net, lambda m, b: ((m(b[0]) - b[1]) ** 2).mean(), [(x, y)], steps=400, lr=0.05)
    assert res.steps == 400 and res.history[-1] < 1e-4
    assert loss_drop(res.history) > 100
    w = net[0].weight.detach()
    assert torch.allclose(w, torch.tensor([[2.0, -1.0]]), atol=1e-2)


def test_fit_early_stops_and_restores_best():
    torch.manual_seed(0)
    x = torch.randn(64, 1)
    net = mlp([1, 1])
    calls = []

    def val(m):  # validation loss that gets worse after step 20
        calls.append(1)
        return abs(len(calls) - 2) + 0.0

    res = fit(net, lambda m, b: (m(b) ** 2).mean(), [x], steps=500, lr=0.01, val_loss=val, val_every=10,
              patience=30)
    assert res.stopped_early and res.best_step == 19 and res.steps < 500


def test_fit_validates_arguments():
    net = mlp([1, 1])
    loss = lambda m, b: m(b).mean()  # noqa: E731
    with pytest.raises(ValueError, match="steps"):
        fit(net, loss, [torch.zeros(1, 1)], steps=0)
    with pytest.raises(ValueError, match="lr"):
        fit(net, loss, [torch.zeros(1, 1)], steps=1, lr=math.nan)
    with pytest.raises(ValueError, match="patience"):
        fit(net, loss, [torch.zeros(1, 1)], steps=1, patience=3)
    with pytest.raises(ValueError, match="batches"):
        fit(net, loss, [], steps=1)
    assert math.isnan(loss_drop([1.0]))


# ---------------------------------------------------------------- additive options (issue 13)
def _plain_adam(net, x, y, steps, lr, cosine=False):
    """The loop fit() runs by default, written out (the reference for bit-identity)."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps) if cosine else None
    hist = []
    for _ in range(steps):
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        hist.append(float(loss.detach()))
    return hist


@pytest.mark.parametrize("cosine", [False, True])
def test_fit_default_path_equals_a_plain_adam_loop_bit_for_bit(cosine):
    x, y = torch.randn(32, 3, generator=torch.Generator().manual_seed(1)), torch.randn(32, 1)
    torch.manual_seed(0)
    a = mlp([3, 8, 1])
    torch.manual_seed(0)
    b = mlp([3, 8, 1])
    ref = _plain_adam(a, x, y, 25, 1e-2, cosine)
    res = fit(b, lambda m, bt: ((m(bt[0]) - bt[1]) ** 2).mean(), [(x, y)], steps=25, lr=1e-2,
              schedule="cosine" if cosine else "constant")
    assert res.history == ref
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


class _Scalar(torch.nn.Module):
    """loss = w: every SGD step moves w by exactly -lr, so w traces the learning rates used."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))


def test_fit_plateau_reduces_lr_then_stops():
    m = _Scalar()
    res = fit(m, lambda mod, b: mod.w * 1.0, [None], steps=100, lr=0.1, optimizer="sgd", val_loss=lambda mod: 1.0,
              val_every=1, patience=2, schedule="plateau", plateau_factor=0.5, plateau_reductions=2,
              restore_best=False)
    # step 0 is the best; patience runs out after steps 2 and 4 (lr 0.1 -> 0.05 -> 0.025), stop after step 6
    assert res.lr_reductions == 2 and res.stopped_early and res.steps == 7 and res.best_step == 0
    assert float(m.w.detach()) == pytest.approx(-(3 * 0.1 + 2 * 0.05 + 2 * 0.025), abs=1e-12)


def test_fit_plateau_without_reductions_is_early_stopping():
    m = _Scalar()
    res = fit(m, lambda mod, b: mod.w * 1.0, [None], steps=100, lr=0.1, optimizer="sgd", val_loss=lambda mod: 1.0,
              val_every=1, patience=2, schedule="plateau", plateau_reductions=0, restore_best=False)
    assert res.lr_reductions == 0 and res.steps == 3


def test_fit_min_rel_improvement():
    vals = iter([1.0, 0.995, 0.98, 0.975])
    res = fit(_Scalar(), lambda mod, b: mod.w * 1.0, [None], steps=4, val_loss=lambda mod: next(vals), val_every=1,
              min_rel_improvement=0.01)
    assert res.best_step == 2 and res.best_val == 0.98  # 0.995 and 0.975 are within 1% of the best


def test_fit_onecycle_follows_torch_one_cycle_lr():
    """loss = w under SGD: w after 20 steps is what torch's OneCycleLR (lr and momentum cycled) gives."""
    m = _Scalar()
    fit(m, lambda mod, b: mod.w * 1.0, [None], steps=20, lr=0.3, optimizer="sgd", schedule="onecycle")
    w = torch.nn.Parameter(torch.zeros((), dtype=torch.float64))
    opt = torch.optim.SGD([w], lr=0.3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.3, total_steps=20)
    for _ in range(20):
        opt.zero_grad()
        (w * 1.0).backward()
        opt.step()
        sched.step()
    assert float(m.w.detach()) == float(w.detach()) < -1.0


def test_fit_trains_only_the_given_params():
    torch.manual_seed(0)
    net = mlp([2, 4, 1])
    first = net[0].weight.detach().clone()
    last = net[2].weight.detach().clone()
    x = torch.randn(16, 2)
    fit(net, lambda m, b: (m(b) ** 2).mean(), [x], steps=5, lr=0.1, params=list(net[2].parameters()))
    assert torch.equal(net[0].weight, first) and not torch.equal(net[2].weight, last)


def test_fit_params_validation():
    net = mlp([1, 1])
    loss = lambda m, b: m(b).mean()  # noqa: E731
    batch = [torch.zeros(1, 1)]
    with pytest.raises(ValueError, match="params"):
        fit(net, loss, batch, steps=1, params=[])
    with pytest.raises(ValueError, match="params"):
        fit(net, loss, batch, steps=1, params=[torch.zeros(2)])
    with pytest.raises(TypeError, match="params"):
        fit(net, loss, batch, steps=1, params=net[0].weight)
    with pytest.raises(TypeError, match="params"):
        fit(net, loss, batch, steps=1, params=[1.0])
    with pytest.raises(ValueError, match="plateau"):
        fit(net, loss, batch, steps=1, schedule="plateau")
    with pytest.raises(ValueError, match="plateau_factor"):
        fit(net, loss, batch, steps=1, schedule="plateau", val_loss=lambda m: 0.0, patience=1, plateau_factor=1.0)
    with pytest.raises(ValueError, match="min_rel_improvement"):
        fit(net, loss, batch, steps=1, min_rel_improvement=1.0)
    with pytest.raises(ValueError, match="lbfgs_options"):
        fit(net, loss, batch, steps=1, optimizer="lbfgs", lbfgs_options={"lr": 1.0})
    with pytest.raises(ValueError, match="lbfgs_options"):
        fit(net, loss, batch, steps=1, lbfgs_options={"max_eval": 3})
    with pytest.raises(ValueError, match="schedule"):
        fit(net, loss, batch, steps=1, schedule="step")


def test_fit_lbfgs_converges_to_least_squares_one_iteration_per_step():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(50, 3, generator=g, dtype=torch.float64)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]], dtype=torch.float64) + 0.1 * torch.randn(50, 1, generator=g,
                                                                                          dtype=torch.float64)
    net = mlp([3, 1], bias=False, dtype=torch.float64)
    res = fit(net, lambda m, b: ((m(b[0]) - b[1]) ** 2).mean(), [(x, y)], steps=20, lr=1.0, optimizer="lbfgs")
    w = torch.linalg.lstsq(x, y).solution.T
    assert torch.allclose(net[0].weight.detach(), w, atol=1e-8)
    assert res.history[0] > res.history[-1]


def test_fit_lbfgs_steps_of_one_iteration_equal_one_step_of_many():
    """The line search gets its evaluations on every step: 40 steps of one iteration reach what one
    LBFGS.step(max_iter=40) reaches (full batch, float64)."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(64, 3, generator=g, dtype=torch.float64)
    y = torch.sin(x.sum(1, keepdim=True))
    loss = lambda m, b: ((m(b[0]) - b[1]) ** 2).mean()  # noqa: E731
    torch.manual_seed(1)
    a = mlp([3, 16, 1], activation="tanh", dtype=torch.float64)
    torch.manual_seed(1)
    b = mlp([3, 16, 1], activation="tanh", dtype=torch.float64)
    fit(a, loss, [(x, y)], steps=40, lr=1.0, optimizer="lbfgs")
    fit(b, loss, [(x, y)], steps=1, lr=1.0, optimizer="lbfgs", lbfgs_iters=40, lbfgs_options={"max_eval": 200})
    la, lb = float(loss(a, (x, y)).detach()), float(loss(b, (x, y)).detach())
    torch.manual_seed(1)
    start = float(loss(mlp([3, 16, 1], activation="tanh", dtype=torch.float64), (x, y)).detach())
    assert la < start / 10 and la == pytest.approx(lb, rel=1e-6)


def test_epoch_batches_walks_permutations_of_each_epoch():
    from icml26.nn.mlp import epoch_batches, epoch_means, steps_per_epoch

    assert steps_per_epoch(10, 4) == 3 and steps_per_epoch(8, 4) == 2 and steps_per_epoch(3, 64) == 1
    draw = epoch_batches(10, 4)
    g = torch.Generator().manual_seed(5)
    got = [draw(g) for _ in range(6)]
    ref_g = torch.Generator().manual_seed(5)
    p1, p2 = torch.randperm(10, generator=ref_g), torch.randperm(10, generator=ref_g)
    want = [p1[:4], p1[4:8], p1[8:], p2[:4], p2[4:8], p2[8:]]
    assert all(torch.equal(a, b) for a, b in zip(got, want))
    torch.manual_seed(3)
    glob = epoch_batches(5, 5, global_rng=True)
    a = glob(g)
    torch.manual_seed(3)
    assert torch.equal(a, torch.randperm(5))
    # weighted by batch size: epoch of losses 1, 2, 3 over batches 4, 4, 2 of n = 10 -> (4 + 8 + 6) / 10
    assert epoch_means([1.0, 2.0, 3.0, 0.0, 0.0, 5.0, 7.0], 10, 4) == [1.8, 1.0]
    for bad in (dict(n=0, batch_size=1), dict(n=3, batch_size=0)):
        with pytest.raises(ValueError, match="n|batch_size"):
            epoch_batches(**bad)
    with pytest.raises(TypeError, match="batch_size"):
        steps_per_epoch(3, 1.5)


def test_fit_over_epoch_batches_equals_a_hand_written_epoch_loop():
    x, y = torch.randn(23, 3, generator=torch.Generator().manual_seed(0)), torch.randn(23, 1)
    torch.manual_seed(0)
    a = mlp([3, 5, 1])
    torch.manual_seed(0)
    b = mlp([3, 5, 1])
    gen, opt, curve = torch.Generator().manual_seed(7), torch.optim.AdamW(a.parameters(), lr=1e-2, weight_decay=1e-4), []
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=3 * 3)
    for _ in range(3):
        perm, tot = torch.randperm(23, generator=gen), 0.0
        for i in range(0, 23, 8):
            idx = perm[i:i + 8]
            loss = ((a(x[idx]) - y[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
        curve.append(tot / 23)
    from icml26.nn.mlp import epoch_batches, epoch_means

    res = fit(b, lambda m, idx: ((m(x[idx]) - y[idx]) ** 2).mean(), epoch_batches(23, 8), steps=9, lr=1e-2,
              optimizer="adamw", weight_decay=1e-4, schedule="onecycle", seed=7)
    assert epoch_means(res.history, 23, 8) == curve
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


# ---------------------------------------------------------------- review (issue 13): documented edges
def test_fit_restore_best_applies_without_patience():
    """restore_best acts whenever val_loss is given: no patience, no early stop, yet the weights are step 0's."""
    m = _Scalar()
    vals = iter([1.0, 2.0, 3.0])
    res = fit(m, lambda mod, b: mod.w * 1.0, [None], steps=3, lr=0.1, optimizer="sgd",
              val_loss=lambda mod: next(vals), val_every=1)
    assert not res.stopped_early and res.steps == 3 and res.best_step == 0
    assert float(m.w.detach()) == pytest.approx(-0.1, abs=1e-12)  # one SGD step of lr 0.1, not three
    m2 = _Scalar()
    vals = iter([1.0, 2.0, 3.0])
    fit(m2, lambda mod, b: mod.w * 1.0, [None], steps=3, lr=0.1, optimizer="sgd",
        val_loss=lambda mod: next(vals), val_every=1, restore_best=False)
    assert float(m2.w.detach()) == pytest.approx(-0.3, abs=1e-12)


def test_fit_lbfgs_does_not_use_grad_clip_or_weight_decay():
    """As documented: with optimizer='lbfgs' both are accepted and have no effect."""
    def run(**kw):
        m = _Scalar()
        fit(m, lambda mod, b: (mod.w - 1.0) ** 2, [None], steps=3, lr=0.5, optimizer="lbfgs", **kw)
        return float(m.w.detach())

    plain = run()
    assert 0.5 < plain <= 1.0  # it moves towards the minimum 1 (clipping to 1e-9 would freeze it)
    assert run(grad_clip=1e-9, weight_decay=100.0) == plain


def test_epoch_batches_function_keeps_its_place_between_calls():
    from icml26.nn.mlp import epoch_batches

    draw = epoch_batches(6, 4)
    g = torch.Generator().manual_seed(0)
    first = draw(g)
    second = draw(torch.Generator().manual_seed(99))  # mid-epoch: the old permutation, not a new draw
    perm = torch.randperm(6, generator=torch.Generator().manual_seed(0))
    assert torch.equal(first, perm[:4]) and torch.equal(second, perm[4:])


def test_fit_refuses_a_negative_grad_clip():
    m = _Scalar()
    try:
        fit(m, lambda mod, b: (mod.w - 1.0) ** 2, [None], steps=3, lr=0.1, optimizer="sgd", grad_clip=-1.0)
    except ValueError as e:
        assert "grad_clip" in str(e)
        return
    raise AssertionError(f"grad_clip=-1 accepted; w moved away from the minimum 1 to {float(m.w.detach()):.3f}")


def test_onecycle_pct_start_sets_where_the_lr_peaks(monkeypatch):
    import torch
    from torch import nn as tnn

    from icml26.nn.mlp import fit

    trace = []

    class Rec(torch.optim.AdamW):
        def step(self, closure=None):
            trace.append(self.param_groups[0]["lr"])
            return super().step(closure)

    monkeypatch.setattr(torch.optim, "AdamW", Rec)
    x = torch.randn(16, 3)

    def loss(m, b):
        return (m(b) ** 2).mean()

    peaks = {}
    for pct in (0.1, 0.3, 0.5):
        trace.clear()
        fit(tnn.Linear(3, 1), loss, [x], steps=21, lr=1e-2, optimizer="adamw", schedule="onecycle", pct_start=pct)
        peaks[pct] = max(range(len(trace)), key=trace.__getitem__)
    assert peaks[0.1] < peaks[0.3] < peaks[0.5]
    assert peaks[0.1] == round(0.1 * 21) - 1 or peaks[0.1] == round(0.1 * 21)
    for bad in (0, 1, 1.5, -0.2, "x", True):
        with pytest.raises(ValueError, match="pct_start"):
            fit(tnn.Linear(3, 1), loss, [x], steps=3, schedule="onecycle", pct_start=bad)
