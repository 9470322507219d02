"""Known-answer tests for the SHARP-Q-like PTQ pipeline (grids, AdaRound on a grid, HAR, DPLR Fisher)."""

import numpy as np
import pytest
import torch
from torch import nn

from icml26.llm.sharp_q.method import (
    ActQuantizer,
    PTQConfig,
    QuantLayer,
    WeightQuantizer,
    dplr_fisher,
    har_scales,
    kmeans_levels,
    pot_levels,
    quantize,
    rectified_copy,
    round_to_grid,
    search_channel_scale,
    uniform_levels,
)
from icml26.llm.sharp_q.setting import ARCHS, build_model, calibration_set


def test_grids_have_the_right_levels():
    assert uniform_levels(2).tolist() == [-2, -1, 0, 1]
    assert len(uniform_levels(3)) == 8
    assert pot_levels(2).tolist() == [-1, 0, 1]
    assert pot_levels(3).tolist() == [-1, -0.5, -0.25, 0, 0.25, 0.5, 1]
    assert len(pot_levels(4)) == 15


def test_round_to_grid_is_nearest_level_by_brute_force():
    rng = np.random.default_rng(0)
    levels = torch.sort(torch.as_tensor(rng.normal(size=6), dtype=torch.float32)).values
    x = rng.normal(size=200).astype(np.float32) * 2
    got = round_to_grid(x, levels).numpy()
    brute = levels.numpy()[np.abs(x[:, None] - levels.numpy()[None, :]).argmin(1)]
    np.testing.assert_allclose(got, brute)


def test_channel_scale_search_beats_minmax():
    w = torch.randn(6, 20, generator=torch.Generator().manual_seed(1))
    w[:, 0] = 8.0  # an outlier per channel: min-max wastes the grid
    lv = uniform_levels(3)
    s = search_channel_scale(w, lv)
    base = w.abs().amax(1) / lv.abs().max()
    err = lambda sc: ((round_to_grid(w / sc[:, None], lv) * sc[:, None] - w) ** 2).sum()  # noqa: E731
    assert err(s) <= err(base) + 1e-6


def test_kmeans_codebook_is_exact_on_a_few_values():
    w = torch.tensor([[-1.0, -0.5, 0.5, 1.0], [1.0, 0.5, -0.5, -1.0]]).reshape(2, 4, 1, 1)
    lv = kmeans_levels(w, 2, seed=0)
    np.testing.assert_allclose(lv.numpy(), [-1, -0.5, 0.5, 1], atol=1e-6)


def test_weight_quantizer_modes():
    w = torch.randn(3, 5, generator=torch.Generator().manual_seed(2))
    wq = WeightQuantizer(w, uniform_levels(3))
    s = wq.scale[:, None]
    rtn = wq()
    np.testing.assert_allclose(rtn.numpy(), (round_to_grid(w / s, uniform_levels(3)) * s).numpy(), atol=1e-6)
    wq.mode = "soft"  # soft rounding starts at the (clipped) FP weight
    lo, hi = uniform_levels(3)[0] * s, uniform_levels(3)[-1] * s
    np.testing.assert_allclose(wq().detach().numpy(), torch.maximum(torch.minimum(w, hi), lo).numpy(), atol=1e-5)
    wq.mode = "hard"
    hard = wq()
    on_grid = hard / s
    assert torch.allclose(on_grid, on_grid.round(), atol=1e-5)


def test_act_quantizer_straight_through_gradient_to_step():
    aq = ActQuantizer(3)
    x = torch.linspace(0, 1, 50)
    aq.init_from(x)
    y = aq(x)
    assert len(torch.unique(y)) <= 8
    y.sum().backward()
    assert aq.log_step.grad is not None and torch.isfinite(aq.log_step.grad)


def test_har_scales_minimise_the_proxy():
    rng = np.random.default_rng(3)
    x_sq, f = rng.uniform(0.1, 5, 4), rng.uniform(0.1, 2, 3)
    w = rng.normal(size=(3, 4))
    s = har_scales(x_sq, w, f, clamp=1e6).numpy()
    b = (f[:, None] * w ** 2).sum(0)

    def proxy(t):
        return float((x_sq / t ** 2 + b * t ** 2).sum())

    # the closed form up to a global factor c; the optimal c makes both terms equal
    c = np.sqrt(np.sqrt((x_sq / s ** 2).sum() / (b * s ** 2).sum()))
    best = proxy(c * s)
    for _ in range(200):
        t = c * s * np.exp(rng.normal(scale=0.2, size=4))
        assert proxy(t) >= best - 1e-9
    np.testing.assert_allclose(np.exp(np.log(s).mean()), 1.0, rtol=1e-5)


def test_quant_layer_is_exact_in_fp_with_any_har_scale():
    torch.manual_seed(0)
    for layer, x in ((nn.Linear(5, 3), torch.randn(7, 5)), (nn.Conv2d(4, 2, 3, padding=1), torch.randn(2, 4, 6, 6))):
        q = QuantLayer(layer, 3, 3)
        q.s.copy_(torch.rand(q.s.shape) + 0.5)
        torch.testing.assert_close(q(x), layer(x), atol=1e-5, rtol=1e-5)


def test_dplr_fisher_is_exact_at_full_rank_and_keeps_the_diagonal():
    g = torch.as_tensor(np.random.default_rng(4).normal(size=(40, 6)), dtype=torch.float32)
    emp = g.T @ g / 40
    full = dplr_fisher(g, 6)
    torch.testing.assert_close(full.lr @ full.lr.T + torch.diag(full.d), emp, atol=1e-4, rtol=1e-4)
    low = dplr_fisher(g, 2)
    torch.testing.assert_close(torch.diag(low.lr @ low.lr.T) + low.d, torch.diag(emp), atol=1e-5, rtol=1e-4)
    dz = torch.randn(3, 6)
    a, c = full.quad_terms(dz)
    torch.testing.assert_close(a + c, torch.einsum("ni,ij,nj->n", dz, emp, dz).mean(), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("arch", ARCHS)
def test_rectified_copy_is_the_same_function(arch):
    torch.manual_seed(0)
    model = build_model(arch, 8).eval()
    x = torch.rand(6, 1, 8, 8)
    r = rectified_copy(model, x, draws=1, seed=0)
    torch.testing.assert_close(r(x), model(x), atol=1e-4, rtol=1e-4)


def test_quantize_returns_hard_quantized_weights_on_the_grid():
    torch.manual_seed(0)
    model = build_model("cnn", 8).eval()
    calib = calibration_set(torch.rand(20, 1, 8, 8), 8, 0)
    q = quantize(model, calib, 3, 3, PTQConfig(objective="fisher", har=True, refresh=2, steps=4, rank=2), seed=0)
    qls = [m for m in q.modules() if isinstance(m, QuantLayer)]
    edges = [m for b in (0, len(q) - 1) for m in q[b].modules() if isinstance(m, QuantLayer)]
    assert qls and all(ql.wq.mode == ("nearest" if ql in edges else "hard") for ql in qls)
    mid = [m for m in q[1].modules() if isinstance(m, QuantLayer)]
    for ql in mid:
        u = ql.wq() / ql.wq.scale.reshape(-1, 1, 1, 1)
        assert torch.allclose(u, u.round(), atol=1e-4) and float(u.max()) <= 3 + 1e-4 and float(u.min()) >= -4 - 1e-4
    assert torch.isfinite(q(calib)).all()
    # the FP model is untouched
    assert not any(isinstance(m, QuantLayer) for m in model.modules())


def test_bad_input():
    with pytest.raises(ValueError, match="grid"):
        PTQConfig(grid="lloyd")
    with pytest.raises(ValueError, match="bits"):
        uniform_levels(1)
    with pytest.raises(ValueError, match="weight"):
        har_scales(np.ones(3), np.ones((2, 4)), np.ones(2))
    with pytest.raises(TypeError, match="model"):
        quantize(nn.Linear(2, 2), torch.rand(2, 1, 8, 8), 3, 3, PTQConfig())


def test_train_fp_on_shared_fit_equals_its_private_loop_bit_for_bit():
    """train_fp moved onto icml26.nn.mlp.fit (issue 13); its private AdamW + one-cycle epoch loop, kept here as
    the reference, gives the same weights and per-epoch losses (a last batch shorter than the others)."""
    from icml26.llm.sharp_q.setting import train_fp

    g = torch.Generator().manual_seed(0)
    x, y = torch.randn(45, 6, generator=g), torch.randint(0, 3, (45,), generator=g)

    def make():
        torch.manual_seed(1)
        return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 3))

    a, b = make(), make()
    torch.manual_seed(2)
    curve = train_fp(a, x, y, epochs=3, lr=1e-2, batch=16, seed=5)
    torch.manual_seed(2)
    gen = torch.Generator().manual_seed(5)
    opt = torch.optim.AdamW(b.parameters(), lr=1e-2, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=3 * 3)
    ref = []
    b.train()
    for _ in range(3):
        perm, total = torch.randperm(45, generator=gen), 0.0
        for i in range(0, 45, 16):
            idx = perm[i:i + 16]
            loss = nn.functional.cross_entropy(b(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        ref.append(total / 45)
    assert curve == ref and not a.training
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
