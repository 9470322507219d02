"""Unit tests for the certified-pareto package (arXiv:2606.02134): bounds, losses, schedules, Pareto tools."""

import math

import numpy as np
import pytest
import torch
from torch import nn

from icml26.vision._data import load_digits_split
from icml26.vision.certified_pareto import (
    TrainConfig,
    certify,
    crown_ibp_lower,
    dominates,
    evaluate,
    hypervolume_2d,
    ibp_bounds,
    input_box,
    make_mlp,
    margin_lower_bounds,
    margin_spec,
    nat_gain_at_matched_cert,
    pareto_mask,
    pgd_attack,
    run_study,
    smoothed_eps,
    train_certified,
)
from icml26.vision.certified_pareto.setting import PUBLISHED, published_config


def _net(widths=(6, 12, 10, 4), seed=0):
    torch.manual_seed(seed)
    return make_mlp(widths, init="default")


def _box(b=3, d=6, eps=0.3, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(b, d, generator=g)
    return x, *input_box(x, eps)


def _samples(lo, hi, n=4000, seed=1):
    g = torch.Generator().manual_seed(seed)
    u = torch.rand(n, *lo.shape, generator=g)
    s = lo + u * (hi - lo)
    # include the corners' extremes too: random vertices
    v = torch.where(torch.rand(n, *lo.shape, generator=g) < 0.5, lo, hi)
    return torch.cat([s, v])  # (2n, B, d)


# ------------------------------------------------------------------ data
def test_digits_split_shapes_and_range():
    s = load_digits_split()
    sz = s.sizes()
    assert sum(sz.values()) == 1797 and sz["test"] == 450
    x, y = s.flat("train")
    assert x.shape == (sz["train"], 64) and x.dtype == np.float32 and y.dtype == np.int64
    assert 0.0 <= x.min() and x.max() <= 1.0 and x.max() == 1.0
    xi, _ = s.images("val", as_torch=True)
    assert tuple(xi.shape) == (sz["val"], 1, 8, 8) and isinstance(xi, torch.Tensor)
    assert set(np.unique(s.flat("test")[1])) == set(range(10))
    # deterministic; the three parts partition the data
    s2 = load_digits_split()
    assert np.array_equal(s.flat("test")[0], s2.flat("test")[0])
    allx = np.concatenate([s.flat(p)[0] for p in ("train", "val", "test")])
    from sklearn.datasets import load_digits

    ref = load_digits().data / 16.0
    key = lambda a: sorted(map(bytes, np.round(a * 16).astype(np.uint8)))  # noqa: E731
    assert key(allx) == key(ref)


def test_digits_split_validation():
    with pytest.raises(ValueError, match="test_size"):
        load_digits_split(test_size=1.5)
    with pytest.raises(ValueError, match="part"):
        load_digits_split().flat("holdout")


# ------------------------------------------------------------------ bounds
def test_ibp_single_linear_layer_is_exact_interval_arithmetic():
    torch.manual_seed(3)
    lin = nn.Linear(5, 4)
    x, lo, hi = _box(b=2, d=5, eps=0.2)
    got_lo, got_hi = ibp_bounds(nn.Sequential(lin), lo, hi)
    W, b = lin.weight.detach(), lin.bias.detach()
    exact_lo = torch.minimum(W[None] * lo[:, None], W[None] * hi[:, None]).sum(-1) + b
    exact_hi = torch.maximum(W[None] * lo[:, None], W[None] * hi[:, None]).sum(-1) + b
    assert torch.allclose(got_lo, exact_lo, atol=1e-6) and torch.allclose(got_hi, exact_hi, atol=1e-6)
    # exact = attained at a vertex: min over all 2^5 vertices
    verts = torch.tensor(np.array(np.meshgrid(*[[0, 1]] * 5)).reshape(5, -1).T, dtype=torch.float32)
    pts = lo[0] + verts * (hi[0] - lo[0])
    out = lin(pts)
    assert torch.allclose(out.min(0).values, got_lo[0], atol=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounds_contain_dense_samples(seed):
    net = _net(seed=seed)
    x, lo, hi = _box(seed=seed)
    y = torch.tensor([0, 1, 3])
    with torch.no_grad():
        out = net(_samples(lo, hi).reshape(-1, lo.shape[1])).reshape(-1, lo.shape[0], 4)
        ilo, ihi = ibp_bounds(net, lo, hi)
        assert (out >= ilo - 1e-5).all() and (out <= ihi + 1e-5).all()
        margins = out.gather(2, y[None, :, None].expand(out.shape[0], -1, 1)) - out  # z_y - z_j
        for method in ("ibp", "crown-ibp", "best"):
            for slope in ("adaptive", "zero"):
                m = margin_lower_bounds(net, lo, hi, y, method, lower_slope=slope)
                assert (margins >= m - 1e-5).all(), (method, slope)
        # the sampled minimum is close to the bound from above only: bound <= true min
        assert (margins.min(0).values >= m - 1e-5).all()


@pytest.mark.parametrize("seed", range(5))
def test_crown_never_looser_than_ibp_on_final_layer(seed):
    net = _net((8, 20, 20, 5), seed=seed)
    x, lo, hi = _box(b=4, d=8, eps=0.15, seed=seed)
    y = torch.tensor([0, 1, 2, 4])
    C = margin_spec(y, 5)
    with torch.no_grad():
        ibp_lo = ibp_bounds(net, lo, hi, C)[0]
        crown_lo = crown_ibp_lower(net, lo, hi, C, lower_slope="zero")
    assert (crown_lo >= ibp_lo - 1e-5).all()
    assert (crown_lo > ibp_lo + 1e-4).any()  # and strictly tighter somewhere


def test_crown_exact_without_relu():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 6), nn.Linear(6, 3))
    x, lo, hi = _box(b=2, d=4, eps=0.1)
    y = torch.tensor([0, 2])
    C = margin_spec(y, 3)
    with torch.no_grad():
        crown = crown_ibp_lower(net, lo, hi, C)
        W = net[1].weight @ net[0].weight
        b = net[1].weight @ net[0].bias + net[1].bias
        A = C @ W
        exact = (A.clamp_min(0) @ lo[:, :, None] + A.clamp_max(0) @ hi[:, :, None]).squeeze(-1) + C @ b
        assert torch.allclose(crown, exact, atol=1e-5)
        assert (crown >= ibp_bounds(net, lo, hi, C)[0] - 1e-6).all()


def test_margin_spec_rows():
    C = margin_spec(torch.tensor([2]), 4)
    z = torch.tensor([1.0, 2.0, 5.0, 3.0])
    assert torch.allclose(C[0] @ z, torch.tensor([4.0, 3.0, 0.0, 2.0]))


def test_eps_zero_gives_point_bounds():
    net = _net()
    x = torch.rand(2, 6)
    lo, hi = ibp_bounds(net, x, x)
    with torch.no_grad():
        assert torch.allclose(lo, net(x), atol=1e-5) and torch.allclose(hi, net(x), atol=1e-5)


def test_input_box_clips_to_domain():
    lo, hi = input_box(torch.tensor([[0.05, 0.5, 0.97]]), 0.1)
    assert torch.allclose(lo, torch.tensor([[0.0, 0.4, 0.87]])) and torch.allclose(hi, torch.tensor([[0.15, 0.6, 1.0]]))


def test_bound_input_validation():
    net = _net()
    x = torch.rand(2, 6)
    with torch.no_grad():
        with pytest.raises(ValueError, match="x_lo must be <= x_hi"):
            ibp_bounds(net, x + 0.1, x)
        with pytest.raises(ValueError, match="NaN"):
            ibp_bounds(net, x * float("nan"), x)
        with pytest.raises(ValueError, match="only hold"):
            ibp_bounds(nn.Sequential(nn.Linear(6, 3), nn.Tanh(), nn.Linear(3, 2)), x, x)
        with pytest.raises(ValueError, match="lower_slope"):
            crown_ibp_lower(net, x, x, margin_spec(torch.tensor([0, 1]), 4), lower_slope="alpha")
        with pytest.raises(ValueError, match="beta"):
            margin_lower_bounds(net, x, x, torch.tensor([0, 1]), "crown-ibp", beta=2.0)
        with pytest.raises(ValueError, match="labels"):
            margin_spec(torch.tensor([7]), 4)
        with pytest.raises(ValueError, match="eps"):
            input_box(x, -0.1)


# ------------------------------------------------------------------ certification vs attack
def test_certified_points_survive_pgd():
    s = load_digits_split()
    x, y = s.flat("train", as_torch=True)
    torch.manual_seed(0)
    net = make_mlp((64, 32, 32, 10))
    cfg = TrainConfig("ibp", warm_up_epochs=0, ramp_up_epochs=2, learning_rate=3e-3, start_kappa=0.5)
    train_certified(net, x[:400], y[:400], cfg, 0.05, epochs=4, seed=0)
    xt, yt = s.flat("test", as_torch=True)
    r = evaluate(net, xt[:200], yt[:200], 0.05, pgd_steps=30, pgd_restarts=2)
    assert r["n_certified"] > 0
    assert r["unsound"] == 0
    assert r["cert_acc"] <= r["adv_acc"] <= r["nat_acc"]


def test_pgd_stays_in_ball_and_domain():
    net = _net((6, 8, 3))
    x = torch.rand(5, 6)
    y = torch.tensor([0, 1, 2, 0, 1])
    xa = pgd_attack(net, x, y, 0.2, steps=10, step_size=0.05)
    assert ((xa - x).abs() <= 0.2 + 1e-6).all() and (xa >= 0).all() and (xa <= 1).all()


def test_certify_implies_correct():
    net = _net((6, 8, 3))
    x = torch.rand(20, 6)
    with torch.no_grad():
        y = net(x).argmax(1)
    assert certify(net, x, y, 0.0).all()  # eps = 0: certified iff correctly classified
    assert not certify(net, x, (y + 1) % 3, 0.0).any()


# ------------------------------------------------------------------ schedules and training
def test_smoothed_eps_schedule():
    assert smoothed_eps(0.5, 1, 4, 0.1) == 0.0
    assert smoothed_eps(5.0, 1, 4, 0.1) == pytest.approx(0.1)
    assert smoothed_eps(9.0, 1, 4, 0.1) == pytest.approx(0.1)
    vals = [smoothed_eps(s, 1, 4, 0.1) for s in np.linspace(1, 5, 41)]
    assert all(b >= a for a, b in zip(vals, vals[1:]))
    # continuity of value and slope at the mid point (t = 0.25 -> step 2.0)
    h = 1e-5
    left = (smoothed_eps(2.0, 1, 4, 0.1) - smoothed_eps(2.0 - h, 1, 4, 0.1)) / h
    right = (smoothed_eps(2.0 + h, 1, 4, 0.1) - smoothed_eps(2.0, 1, 4, 0.1)) / h
    assert left == pytest.approx(right, rel=1e-3)
    with pytest.raises(ValueError):
        smoothed_eps(1.0, 0, 1, -0.1)


def test_ibp_init_scale():
    net = make_mlp((64, 128, 10))
    assert float(net[0].weight.detach().std()) == pytest.approx(math.sqrt(2 * math.pi) / 64, rel=0.05)
    assert float(net[0].bias.detach().abs().max()) == 0.0


@pytest.mark.parametrize("method", ["ibp", "crown-ibp", "sabr", "mtl-ibp"])
def test_each_method_trains_and_reduces_loss(method):
    g = torch.Generator().manual_seed(0)
    x = torch.rand(64, 6, generator=g)
    y = (x[:, 0] > 0.5).long()
    torch.manual_seed(0)
    net = make_mlp((6, 16, 2))
    cfg = TrainConfig(method, warm_up_epochs=2, ramp_up_epochs=4, learning_rate=2e-2, pgd_steps=2)
    before = evaluate(net, x, y, 0.02)
    train_certified(net, x, y, cfg, 0.02, epochs=30, batch_size=32)
    r = evaluate(net, x, y, 0.02)
    assert r["nat_acc"] > 0.85 and r["cert_acc"] > before["cert_acc"]


def test_train_config_validation():
    with pytest.raises(ValueError, match="method"):
        TrainConfig("pgd")
    with pytest.raises(ValueError, match="start_kappa"):
        TrainConfig("ibp", start_kappa=1.5)
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig("ibp", optimizer="sgd")
    with pytest.raises(ValueError, match="epochs"):
        train_certified(make_mlp((6, 4, 2)), torch.rand(4, 6), torch.zeros(4, dtype=torch.long),
                        TrainConfig("ibp"), 0.1, epochs=0)


def test_published_configs_scale():
    for m in PUBLISHED:
        c = published_config(m, 10)
        assert c.method == m and c.warm_up_epochs >= 1 and c.ramp_up_epochs >= 1
        m1, m2 = c.milestones()
        assert m1 <= m2
    c = published_config("crown-ibp", 100)  # CTRAIN's own schedule: ramp to epoch 71, decays at 80 and 90
    assert (c.warm_up_epochs, c.ramp_up_epochs, *c.milestones()) == (1, 70, 80, 90)
    assert (c.start_kappa, c.end_kappa, c.end_beta, c.train_eps_factor) == (1.0, 0.0, 0.0, 1.0)


# ------------------------------------------------------------------ Pareto tools
def test_dominates():
    assert dominates((0.9, 0.5), (0.8, 0.5))
    assert not dominates((0.8, 0.5), (0.8, 0.5))
    assert not dominates((0.9, 0.4), (0.8, 0.5))


def test_pareto_mask_brute_force():
    rng = np.random.default_rng(0)
    pts = rng.random((40, 2))
    mask = pareto_mask(pts)
    brute = [not any(dominates(q, p) for q in pts) for p in pts]
    assert mask.tolist() == brute
    with pytest.raises(ValueError):
        pareto_mask(np.array([[np.nan, 1.0]]))


def test_hypervolume_closed_forms():
    assert hypervolume_2d([(0.5, 0.5)]) == pytest.approx(0.25)
    # staircase of two points: union of two rectangles
    assert hypervolume_2d([(1.0, 0.2), (0.4, 0.8)]) == pytest.approx(1.0 * 0.2 + 0.4 * 0.6)
    # dominated points add nothing; points below the reference add nothing
    assert hypervolume_2d([(1.0, 0.2), (0.4, 0.8), (0.3, 0.1)]) == pytest.approx(0.44)
    assert hypervolume_2d([(0.5, 0.5)], ref=(0.6, 0.0)) == 0.0
    # Monte Carlo agreement
    rng = np.random.default_rng(1)
    pts = rng.random((8, 2))
    u = rng.random((200000, 2))
    mc = np.mean([(u[:, None, :] <= pts[None]).all(-1).any(-1)])
    assert hypervolume_2d(pts) == pytest.approx(mc, abs=5e-3)


def test_nat_gain_at_matched_cert():
    front = [(0.9, 0.3), (0.8, 0.5), (0.6, 0.7)]
    assert nat_gain_at_matched_cert(front, (0.7, 0.5)) == pytest.approx(0.1)
    assert math.isnan(nat_gain_at_matched_cert(front, (0.5, 0.8)))


def test_run_study_returns_all_trials():
    def objective(cfg):
        return 1.0 - cfg.learning_rate, cfg.start_kappa

    recs = run_study(objective, "crown-ibp", 10, n_trials=4, sampler="random", seed=0)
    assert len(recs) == 4 and all(len(r["values"]) == 2 for r in recs)
    assert all(0 <= r["config"].end_beta <= 1 for r in recs)
    with pytest.raises(ValueError, match="n_trials"):
        run_study(objective, "ibp", 10, n_trials=0)


# ------------------------------------------------------------------ exact (MILP) verification
def test_milp_verify_agrees_with_dense_sampling_and_is_at_least_as_strong_as_bounds():
    from icml26.vision.certified_pareto.verify import CERTIFIED, FALSIFIED, milp_verify

    torch.manual_seed(1)
    net = make_mlp((3, 6, 6, 3), init="default")
    gen = torch.Generator().manual_seed(0)
    counts = {CERTIFIED: 0, FALSIFIED: 0}
    for _ in range(12):
        x = torch.rand(3, generator=gen)
        with torch.no_grad():
            y = int(net(x[None]).argmax())
        status = milp_verify(net, x, y, 0.15, time_limit=5.0)
        lo, hi = input_box(x[None], 0.15)
        pts = torch.cat([lo + (hi - lo) * torch.rand(40000, 3, generator=gen),
                         lo + (hi - lo) * torch.tensor([[i >> k & 1 for k in range(3)] for i in range(8)]).float()])
        with torch.no_grad():
            violated = bool((net(pts).argmax(1) != y).any())
        if status == CERTIFIED:
            assert not violated
        if bool(certify(net, x[None], torch.tensor([y]), 0.15)[0]):
            assert status == CERTIFIED  # complete verification is never weaker than the bounds
        counts[status] = counts.get(status, 0) + 1
    assert counts[CERTIFIED] > 0 and counts[FALSIFIED] > 0


def test_exact_certify_with_no_milp_points_is_the_bound_result():
    from icml26.vision.certified_pareto.verify import crown_certify, exact_certify

    torch.manual_seed(0)
    net = make_mlp((3, 4, 2))
    x, y = torch.rand(5, 3), torch.tensor([0, 1, 0, 1, 0])
    cert = torch.tensor([True, False, False, True, False])
    broken = torch.tensor([False, True, False, False, False])
    out = exact_certify(net, x, y, 0.05, cert, broken, max_points=0)
    # the open points 2 and 4 are decided by full CROWN where it can, else stay undecided (no MILP, no attack)
    by_crown = crown_certify(net, x[[2, 4]], y[[2, 4]], 0.05)
    assert out["n_milp"] == 0 and out["n_crown"] == int(by_crown.sum())
    assert out["cert_acc"] == pytest.approx(0.4 + 0.2 * int(by_crown.sum()))
    assert out["open_frac"] == pytest.approx(0.2 * (2 - int(by_crown.sum())))
    with pytest.raises(ValueError, match="max_points"):
        exact_certify(net, x, y, 0.05, cert, broken, max_points=-1)


def test_exact_certify_is_count_based_and_matches_milp():
    """With every open point solved, exact_certify agrees point by point with milp_verify, does not depend
    on the time cap when no solve hits it, and reports how many points each stage decided."""
    from icml26.vision.certified_pareto.verify import CERTIFIED, exact_certify, milp_verify

    torch.manual_seed(2)
    net = make_mlp((4, 8, 8, 3), init="default")
    x = torch.rand(30, 4, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        y = net(x).argmax(1)
    cert = certify(net, x, y, 0.08)
    broken = torch.zeros(30, dtype=torch.bool)
    a = exact_certify(net, x, y, 0.08, cert, broken, node_limit=200, time_limit=30.0)
    b = exact_certify(net, x, y, 0.08, cert, broken, node_limit=200, time_limit=60.0)
    assert a["n_time_capped"] == 0 and torch.equal(a["certified"], b["certified"])
    assert a["n_crown"] + a["n_milp"] == int((~cert).sum())
    for i in range(30):
        if not cert[i]:
            st = milp_verify(net, x[i], int(y[i]), 0.08, node_limit=200, time_limit=30.0)
            assert (st == CERTIFIED) == bool(a["certified"][i])
    assert a["cert_acc"] >= float(cert.float().mean())
    few = exact_certify(net, x, y, 0.08, cert, broken, max_points=1, node_limit=200)
    assert few["n_milp"] <= 1


def test_crown_intermediate_bounds_are_sound_and_no_looser_than_ibp():
    from icml26.vision.certified_pareto.bounds import crown_intermediate_bounds

    for seed in range(3):
        net = _net((6, 12, 10, 8, 4), seed=seed)
        x, lo, hi = _box(seed=seed)
        with torch.no_grad():
            tight = crown_intermediate_bounds(net, lo, hi)
            _, _, ibp = ibp_bounds(net, lo, hi, return_intermediate=True)
            s = _samples(lo, hi).reshape(-1, lo.shape[1])
            acts, h = [], s
            for layer in net:
                h = layer(h)
                if isinstance(layer, nn.Linear):
                    acts.append(h.reshape(-1, lo.shape[0], h.shape[-1]))
        assert len(tight) == len(ibp) == 3
        for (l, u), (li, ui), z in zip(tight, ibp, acts):
            assert (l >= li - 1e-6).all() and (u <= ui + 1e-6).all()
            assert (z >= l - 1e-5).all() and (z <= u + 1e-5).all()
        assert any(((l > li + 1e-4) | (u < ui - 1e-4)).any() for (l, u), (li, ui) in zip(tight, ibp))


def test_crown_certify_is_at_least_as_strong_as_certify():
    from icml26.vision.certified_pareto.verify import crown_certify

    net = _net((6, 12, 10, 4), seed=4)
    x = torch.rand(40, 6, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        y = net(x).argmax(1)
    for eps in (0.01, 0.03):
        c = certify(net, x, y, eps)
        cc = crown_certify(net, x, y, eps)
        assert (cc | ~c).all()


def test_milp_verify_node_limit_and_info():
    from icml26.vision.certified_pareto.verify import CERTIFIED, FALSIFIED, UNKNOWN, milp_verify

    torch.manual_seed(1)
    net = make_mlp((3, 6, 6, 3), init="default")
    x = torch.rand(3, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        y = int(net(x[None]).argmax())
    st, info = milp_verify(net, x, y, 0.15, node_limit=1, return_info=True)
    assert st in (CERTIFIED, FALSIFIED, UNKNOWN) and info["time_capped"] is False and info["n_solves"] >= 0
    with pytest.raises(ValueError, match="node_limit"):
        milp_verify(net, x, y, 0.15, node_limit=0)
