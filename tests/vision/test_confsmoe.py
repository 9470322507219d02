"""Unit tests of the ConfSMoE implementation (arXiv:2505.19525): known answers, invariances, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from icml26.vision.confsmoe.method import (
    NoisyTopKRouter,
    ConfSMoEClassifier,
    SparseMoE,
    confidence_loss,
    pool_impute,
    routing_statistics,
    sample_missing_mask,
    sparse_cross_attention,
)


def _data(B=12, seed=0, rate=0.5):
    g = torch.Generator().manual_seed(seed)
    xs = [torch.rand(B, 6, generator=g), torch.rand(B, 5, generator=g), torch.rand(B, 3, generator=g)]
    present = torch.from_numpy(sample_missing_mask(B, 3, rate, np.random.default_rng(seed)))
    y = torch.randint(0, 4, (B,), generator=g)
    return xs, present, y


def _model(**kw):
    torch.manual_seed(0)
    m = ConfSMoEClassifier([6, 5, 3], 4, d=8, tokens=4, n_experts=4, top_k=2, n_heads=2, dropout=0.0, **kw)
    m.set_pools([torch.rand(20, 6), torch.rand(20, 5), torch.rand(20, 3)])
    return m


# --------------------------------------------------------------------------- sparse MoE block

def test_experts_match_explicit_linear_gelu_linear():
    torch.manual_seed(0)
    moe = SparseMoE(8, n_experts=3, top_k=2, n_classes=4, gate="softmax")
    h = torch.randn(5, 8)
    all_out = moe.experts(h)
    for i in range(3):
        ref = F.gelu(h @ moe.w1[i] + moe.b1[i]) @ moe.w2[i] + moe.b2[i]
        assert torch.allclose(all_out[:, i], ref, atol=1e-6)


def test_dispatch_equals_dense_experts_gathered_and_chosen_confidences():
    """Token dispatch (each expert on the tokens that chose it) = all experts densely, gathered at idx;
    the confidence heads of the chosen experts = every head, gathered; an unchosen expert is harmless."""
    torch.manual_seed(6)
    moe = SparseMoE(8, n_experts=5, top_k=2, n_classes=4, gate="confidence")
    h = torch.randn(9, 8)
    idx = torch.tensor([[0, 1], [1, 0], [3, 0], [0, 3], [1, 3], [3, 1], [0, 1], [1, 3], [3, 0]])  # expert 2, 4 unused
    dense = moe.experts(h).gather(1, idx.unsqueeze(-1).expand(-1, -1, 8))
    got = moe.dispatch(h, idx)
    assert torch.allclose(got, dense, atol=1e-6)
    assert torch.allclose(moe.confidence_chosen(got, idx), moe.confidence(moe.experts(h)).gather(1, idx), atol=1e-6)
    got.sum().backward()
    assert moe.w1.grad[[2, 4]].abs().sum() == 0 and moe.w1.grad[[0, 1, 3]].abs().sum() > 0


def test_moe_runs_on_present_tokens_only():
    """Routing records, confidences and expert outputs of missing modalities are zero; the routing of the
    present tokens (eval: no noise) equals the block applied to those tokens alone."""
    m = _model(gate="confidence").eval()
    xs, present, y = _data()
    torch.manual_seed(7)  # the same stage-1 pool draws in both passes
    logits, aux = m(xs, present, y)
    miss = ~present
    assert (aux["idx"][miss] == 0).all() and (aux["conf"][miss] == 0).all()
    B, M, L = 12, 3, 4
    torch.manual_seed(7)
    x = m.encode(xs, present).reshape(B, M * L, 8) + m.pos
    h = m.norm_attn(x)
    z = m.norm_ffn((x + m.attn(h, h, h, need_weights=False)[0]).view(B, M, L, 8))
    ref = m.moe(z[present].reshape(-1, 8), y.view(B, 1, 1).expand(B, M, L)[present].reshape(-1))
    assert torch.equal(aux["idx"][present].reshape(-1, 2), ref.idx)
    assert torch.allclose(aux["conf"][present].reshape(-1, 2), ref.conf, atol=1e-6)


def test_softmax_gate_mixture_is_convex_combination_of_chosen_experts():
    torch.manual_seed(1)
    moe = SparseMoE(8, n_experts=4, top_k=2, n_classes=4, gate="softmax").eval()
    h = torch.randn(6, 8)
    out = moe(h)
    assert torch.allclose(out.weight.sum(1), torch.ones(6), atol=1e-6)
    u = h @ moe.router.w_gate  # eval: no noise, so the chosen experts are the top-2 clean logits
    assert torch.equal(out.idx.sort(1).values, u.topk(2, dim=1).indices.sort(1).values)
    all_out = moe.experts(h)
    ref = sum(out.weight[:, k:k + 1] * all_out[torch.arange(6), out.idx[:, k]] for k in range(2))
    assert torch.allclose(out.y, ref, atol=1e-6)


def test_laplace_gate_prefers_nearest_centre():
    moe = SparseMoE(2, n_experts=3, top_k=1, n_classes=2, gate="laplace").eval()
    with torch.no_grad():
        moe.router.w_gate.copy_(torch.tensor([[0.0, 5.0, -5.0], [0.0, 0.0, 0.0]]))
    h = torch.tensor([[4.0, 0.0], [-6.0, 1.0], [0.1, -0.2]])
    assert moe(h).idx.squeeze(1).tolist() == [1, 2, 0]


def test_confidence_gate_weights_are_confidences_and_target_is_probe_probability():
    torch.manual_seed(2)
    moe = SparseMoE(8, n_experts=4, top_k=2, n_classes=5, gate="confidence").eval()
    h, y = torch.randn(7, 8), torch.randint(0, 5, (7,))
    out = moe(h, y)
    assert torch.allclose(out.weight, out.conf)  # value of the straight-through weight is c_i
    assert ((out.conf > 0) & (out.conf < 1)).all()
    e = out.expert_out
    for n in range(7):
        for k in range(2):
            i = out.idx[n, k]
            z = F.layer_norm(e[n, k], (8,)) * moe.conf_ln_w[i] + moe.conf_ln_b[i]
            assert torch.allclose(out.conf[n, k], torch.sigmoid(z @ moe.conf_w[i] + moe.conf_b[i]), atol=1e-6)
            assert torch.allclose(out.p_true[n, k], torch.softmax(moe.probe(e[n, k]), -1)[y[n]], atol=1e-6)


def test_straight_through_router_gradient_is_log_softmax_gradient():
    """d/du of sum_k c_k g_k/sg(g_k) a_k equals d/du of sum_k sg(c_k a_k) log g_k."""
    u = torch.randn(4, 2, requires_grad=True)
    c, a = torch.rand(4, 2), torch.randn(4, 2)
    g = torch.softmax(u, -1)
    (c * g / g.detach() * a).sum().backward()
    g1 = u.grad.clone()
    u.grad = None
    ((c * a) * torch.log_softmax(u, -1)).sum().backward()
    assert torch.allclose(g1, u.grad, atol=1e-6)


@pytest.mark.parametrize("router_grad,expect_grad", [("straight_through", True), ("none", False)])
def test_router_receives_gradient_only_in_paper_variant(router_grad, expect_grad):
    m = _model(gate="confidence", router_grad=router_grad)
    xs, present, y = _data()
    logits, aux = m(xs, present, y)
    (F.cross_entropy(logits, y) + aux["conf_loss"]).backward()
    g = m.moe.router.w_gate.grad
    if expect_grad:
        assert g is not None and g.abs().sum() > 0
    else:
        assert g is None and not m.moe.router.w_gate.requires_grad


def test_confidence_loss_closed_form():
    c = torch.tensor([[0.2, 0.9], [0.5, 0.1]])
    p = torch.tensor([[0.0, 1.0], [0.5, 0.4]])
    assert math.isclose(confidence_loss(c, p).item(), (0.04 + 0.01 + 0.0 + 0.09) / 4, rel_tol=1e-6)
    with pytest.raises(ValueError, match="equal shapes"):
        confidence_loss(c, p[:, :1])


# --------------------------------------------------------------------------- imputation

def test_pool_impute_averages_pool_rows():
    pool = torch.tensor([[1.0, 2.0]]).repeat(5, 1)
    assert torch.allclose(pool_impute(pool, 3, 10), torch.tensor([[1.0, 2.0]] * 3))
    pool = torch.arange(10.0).view(5, 2)
    one = pool_impute(pool, 4, 1, generator=torch.Generator().manual_seed(0))
    assert all(any(torch.equal(r, q) for q in pool) for r in one)
    assert pool_impute(pool, 0).shape == (0, 2)


def test_sparse_cross_attention_dense_limit_and_sparsity():
    torch.manual_seed(3)
    q, kv = torch.randn(2, 3, 4), torch.randn(2, 8, 2, 4)
    dense = sparse_cross_attention(q, kv, 2, keep_frac=1.0)
    w = torch.softmax(torch.einsum("bld,btkd->bltk", q, kv) / 2.0, dim=2)
    assert torch.allclose(dense, torch.einsum("bltk,btkd->bld", w, kv), atol=1e-6)
    # keep a quarter: 2 of 8 tokens per slot, brute force for one query
    sparse = sparse_cross_attention(q, kv, 2, keep_frac=0.25)
    ref = torch.zeros(4)
    for k in range(2):
        top = w[0, 0, :, k].topk(2).indices
        ref += (w[0, 0, top, k].unsqueeze(-1) * kv[0, top, k]).sum(0)
    assert torch.allclose(sparse[0, 0], ref, atol=1e-6)


def test_vectorised_stage2_matches_per_modality_loop():
    m = _model(gate="softmax").eval()
    B, M, L, d, K = 6, 3, 4, 8, 2
    torch.manual_seed(4)
    x, z, e = torch.randn(B, M, L, d), torch.randn(B, M, L, d), torch.randn(B, M, L, K, d)
    present = torch.tensor([[1, 0, 1], [0, 1, 1], [1, 1, 0], [1, 0, 0], [1, 1, 1], [0, 0, 1]], dtype=torch.bool)
    got = m._stage2(x, z, e, present)
    for b in range(B):
        for mod in range(M):
            if present[b, mod]:
                assert torch.allclose(got[b, mod], x[b, mod])
                continue
            others = [j for j in range(M) if j != mod]
            kv = (e[b, others] * present[b, others].view(-1, 1, 1, 1)).reshape(1, (M - 1) * L, K, d)
            read = sparse_cross_attention(m.w_q(z[b:b + 1, mod]), m.w_k(kv), K)
            assert torch.allclose(got[b, mod], m.norm_imp(x[b, mod] + read[0]), atol=1e-5)


# --------------------------------------------------------------------------- full model

@pytest.mark.parametrize("kw", [dict(gate="confidence"), dict(gate="softmax"), dict(gate="laplace"),
                                dict(gate="confidence", imputation="zero"), dict(ffn="dense", imputation="pool")])
def test_classifier_shapes_and_missing_rows_are_ignored(kw):
    m = _model(**kw).eval()
    xs, present, y = _data()
    torch.manual_seed(5)
    logits, aux = m(xs, present, y)
    assert logits.shape == (12, 4) and torch.isfinite(logits).all()
    xs2 = [torch.where(present[:, i:i + 1], x, torch.full_like(x, float("nan"))) for i, x in enumerate(xs)]
    torch.manual_seed(5)
    logits2, _ = m(xs2, present, y)
    assert torch.allclose(logits, logits2, atol=1e-6)


def test_full_modality_output_independent_of_imputation_mode():
    """With every modality present, stage-2 parameters are unused: two-stage and zero fill coincide."""
    xs, _, y = _data()
    present = torch.ones(12, 3, dtype=torch.bool)
    a = _model(gate="confidence", imputation="two_stage").eval()
    b = _model(gate="confidence", imputation="zero").eval()
    b.load_state_dict({k: v for k, v in a.state_dict().items() if not k.startswith(("w_q", "w_k", "norm_imp"))})
    assert torch.allclose(a(xs, present, y)[0], b(xs, present, y)[0], atol=1e-6)


def test_training_reduces_loss():
    m = _model(gate="confidence")
    xs, present, y = _data(B=32)
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    losses = []
    for _ in range(60):
        logits, aux = m(xs, present, y)
        loss = F.cross_entropy(logits, y) + aux["conf_loss"]
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


# --------------------------------------------------------------------------- diagnostics

def test_routing_statistics_known_answers():
    labels = np.repeat(np.arange(4), 25)
    det = routing_statistics(labels.reshape(-1, 1), labels, 4, n_perm=5)
    assert math.isclose(det["entropy"], 1.0) and math.isclose(det["mi"], 2.0, rel_tol=1e-9)
    assert det["mi_null"] < 0.3
    one = routing_statistics(np.zeros((10, 1), int), np.arange(10) % 2, 4)
    assert one["entropy"] == 0.0 and one["max_share"] == 1.0 and abs(one["mi"]) < 1e-12
    # independent routing: every label sees every expert equally -> MI 0, entropy 1
    idx = np.tile(np.arange(4), 8).reshape(-1, 1)
    ind = routing_statistics(idx, np.repeat(np.arange(2), 16), 4)
    assert abs(ind["mi"]) < 1e-12 and math.isclose(ind["entropy"], 1.0)


def test_sample_missing_mask_properties():
    rng = np.random.default_rng(0)
    assert sample_missing_mask(50, 3, 0.0, rng).all()
    pres = sample_missing_mask(20000, 3, 0.5, rng)
    assert pres.any(1).all()
    # P(present) = 1 - r + r^3 / 3 (all-dropped rows restore one modality at random)
    assert abs(pres.mean() - (0.5 + 0.125 / 3)) < 0.01


# --------------------------------------------------------------------------- validation

def test_input_validation():
    m = _model()
    xs, present, y = _data()
    with pytest.raises(ValueError, match="xs must hold"):
        m(xs[:2], present)
    with pytest.raises(ValueError, match=r"xs\[1\]"):
        m([xs[0], xs[1][:, :3], xs[2]], present)
    bad = present.clone()
    bad[0] = False
    with pytest.raises(ValueError, match="at least one modality"):
        m(xs, bad)
    with pytest.raises(ValueError, match="present must be a bool"):
        m(xs, present.float())
    nan = xs[0].clone()
    nan[present[:, 0].nonzero()[0, 0]] = float("nan")
    with pytest.raises(ValueError, match="NaN"):
        m([nan, xs[1], xs[2]], present)
    with pytest.raises(ValueError, match="y must have shape"):
        m(xs, present, y[:3])
    with pytest.raises(ValueError, match="gate"):
        SparseMoE(8, gate="gaussian-ish")
    with pytest.raises(ValueError, match="top_k"):
        SparseMoE(8, n_experts=2, top_k=3)
    with pytest.raises(ValueError, match="router_grad"):
        SparseMoE(8, router_grad="reinforce")
    with pytest.raises(ValueError, match="h must have shape"):
        SparseMoE(8)(torch.randn(3, 7))
    with pytest.raises(ValueError, match="stage-2"):
        ConfSMoEClassifier([3], 2, ffn="dense", imputation="two_stage")
    with pytest.raises(ValueError, match="divisible"):
        ConfSMoEClassifier([3], 2, d=10, n_heads=3)
    with pytest.raises(ValueError, match="set_pools"):
        ConfSMoEClassifier([3, 3], 2, d=8)([torch.rand(2, 3)] * 2, torch.tensor([[True, False], [True, True]]))
    with pytest.raises(ValueError, match="pool"):
        pool_impute(torch.zeros(0, 3), 2)
    with pytest.raises(ValueError, match="rate"):
        sample_missing_mask(4, 3, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="idx"):
        routing_statistics(np.array([[5]]), np.array([0]), 4)
    with pytest.raises(ValueError, match="labels"):
        routing_statistics(np.array([[0], [1]]), np.array([0]), 4)


# --------------------------------------------------------------------------- load balance, modalities, labels

def test_load_balance_loss_is_one_when_uniform_and_larger_when_collapsed():
    from icml26.vision.confsmoe.method import load_balance_loss

    E = 4
    idx = torch.tensor([[0, 1], [2, 3], [0, 1], [2, 3]])
    probs = torch.full((4, E), 1.0 / E)
    assert float(load_balance_loss(idx, probs)) == pytest.approx(1.0)
    collapsed = torch.tensor([[0, 1]] * 4)
    p_coll = torch.tensor([[0.5, 0.5, 0.0, 0.0]] * 4)
    assert float(load_balance_loss(collapsed, p_coll)) == pytest.approx(2.0)  # E * (0.5*0.5 + 0.5*0.5)


def test_complementary_modalities_partition_the_image():
    from icml26.vision.confsmoe.setting import make_modalities

    x = np.arange(2 * 64, dtype=float).reshape(2, 64) / 128
    a, b, c = make_modalities(x, np.random.default_rng(0), feat_noise=0.0)
    assert (a.shape, b.shape, c.shape) == ((2, 24), (2, 24), (2, 16))
    np.testing.assert_allclose(np.concatenate([a, b, c], 1), x, atol=1e-6)  # disjoint bands, nothing shared


def test_labels_out_of_range_and_missing_rng_are_rejected():
    m = _model()
    xs, present, y = _data()
    with pytest.raises(ValueError, match="y must hold labels"):
        m(xs, present, y + 10)
    with pytest.raises(TypeError, match="y must be an integer"):
        m(xs, present, y.float())
    with pytest.raises(TypeError, match="rng"):
        sample_missing_mask(4, 3, 0.5, None)
    assert sample_missing_mask(4, 3, 0.5, 7).shape == (4, 3)  # an int seed is accepted


def test_early_stopping_rule_and_late_rise_known_answers():
    from icml26.vision.confsmoe.experiment import _plateaued, _rise

    assert not _plateaued([0.1, 0.2, 0.3], 1)
    assert _plateaued([0.1, 0.3, 0.2], 1) and not _plateaued([0.1, 0.3, 0.2], 2)
    assert _plateaued([0.5, 0.5, 0.5], 2)  # ties do not count as improvement: the first best epoch counts
    assert _rise([0.5] * 8) == 0.0
    # 8 epochs: last 3 = (0.8, 0.8, 0.8); the 3 ending at epoch 6 = (0.2, 0.5, 0.8)
    assert _rise([0.2] * 4 + [0.5] + [0.8] * 3) == pytest.approx(0.8 - 0.5)


def test_train_variant_early_stops_and_fixed_length_counts_as_capped():
    from icml26.core.paper import Profile
    from icml26.vision.confsmoe.experiment import train_variant

    g = np.random.default_rng(0)
    part = lambda n: ([torch.from_numpy(g.random((n, f)).astype(np.float32)) for f in (24, 24, 16)],
                      torch.from_numpy(g.integers(0, 10, n)))
    data = {"train": part(40), "val": part(20), "test": part(20)}
    masks = {k: torch.from_numpy(sample_missing_mask(n, 3, 0.3, g)) for k, n in (("train", 40), ("val", 20), ("test", 20))}
    base = {"d": 8, "tokens": 2, "n_experts": 4, "top_k": 2, "n_heads": 2, "dropout": 0.0, "lr": 1e-3,
            "batch": 20, "n_perm": 2, "lb_coef": 0.0}
    fixed = train_variant("softmax", data, masks, Profile("t", 1, {**base, "epochs": 4}), init_seed=0)
    assert fixed["epochs_run"] == 4 and fixed["capped"] == 1.0
    early = train_variant("softmax", data, masks, Profile("t", 1, {**base, "epochs": 60, "patience": 2}), init_seed=0)
    assert early["capped"] == 0.0 and early["epochs_run"] < 60  # labels are noise: validation plateaus fast


def test_router_options_noise_free_sharp_init_and_all_expert_weights():
    torch.manual_seed(0)
    h = torch.randn(50, 8)
    r1 = NoisyTopKRouter(8, 5, 2, noisy=False).train()
    a, b = r1.route(h), r1.route(h)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])  # no noise in training mode
    torch.manual_seed(1)
    r_all = NoisyTopKRouter(8, 5, 2, noisy=False, weights="all", init_scale=3.0)
    torch.manual_seed(1)
    r_one = NoisyTopKRouter(8, 5, 2, noisy=False)
    assert torch.allclose(r_all.w_gate, 3.0 * r_one.w_gate)
    idx, g, probs = r_all.route(h)
    assert torch.allclose(g, torch.softmax(h @ r_all.w_gate, -1).gather(1, idx))  # not renormalised
    assert (g.sum(1) < 1).all()
    with pytest.raises(ValueError, match="weights"):
        NoisyTopKRouter(8, 5, 2, weights="top")
    with pytest.raises(ValueError, match="init_scale"):
        NoisyTopKRouter(8, 5, 2, init_scale=0.0)
    with pytest.raises(TypeError, match="noisy"):
        NoisyTopKRouter(8, 5, 2, noisy=1)
    with pytest.raises(TypeError, match="router"):
        SparseMoE(8, 5, 2, 4, gate="softmax", router=[1])
    m = _model(gate="softmax", router={"noisy": False, "weights": "all"})
    assert not m.moe.router.noisy and m.moe.router.weights == "all"


def test_straight_through_weight_stays_finite_when_router_score_underflows():
    """A very sharp all-expert softmax makes the second chosen expert's g underflow to 0; the straight-through
    weight c_i * g_i / stopgrad(g_i) must still equal c_i and give finite router gradients."""
    torch.manual_seed(0)
    moe = SparseMoE(8, 8, 2, 4, gate="confidence", router={"noisy": False, "init_scale": 1000.0, "weights": "all"})
    h, y = torch.randn(30, 8), torch.randint(0, 4, (30,))
    assert (moe.router.route(h)[1] == 0).any()
    out = moe(h, y)
    out.y.sum().backward()
    assert torch.isfinite(out.y).all() and torch.equal(out.weight, out.conf)
    assert torch.isfinite(moe.router.w_gate.grad).all()


def test_confidence_gate_on_laplace_router_chooses_nearest_centres_and_weights_by_confidence():
    """conf_laplace: FuseMoE's distance router chooses the experts, the confidences weight them; the
    router is identical to the Laplace gate's under the same initialisation."""
    torch.manual_seed(3)
    conf = SparseMoE(2, n_experts=3, top_k=1, n_classes=2, gate="confidence", router_kind="laplace").eval()
    torch.manual_seed(3)
    lap = SparseMoE(2, n_experts=3, top_k=1, n_classes=2, gate="laplace").eval()
    assert conf.router.kind == "laplace" and torch.equal(conf.router.w_gate, lap.router.w_gate)
    with torch.no_grad():
        conf.router.w_gate.copy_(torch.tensor([[0.0, 5.0, -5.0], [0.0, 0.0, 0.0]]))
    h = torch.tensor([[4.0, 0.0], [-6.0, 1.0], [0.5, -0.3]])
    out = conf(h, torch.tensor([0, 1, 0]))
    assert out.idx[:, 0].tolist() == [1, 2, 0]  # nearest centre, as the Laplace gate
    assert torch.equal(out.weight, out.conf)  # mixture weights are the confidences, not exp(-||h - w||)
    assert torch.allclose(out.y, out.conf * out.expert_out[:, 0], atol=1e-6)
    with pytest.raises(ValueError, match="router_kind"):
        SparseMoE(8, gate="confidence", router_kind="gaussian")
    with pytest.raises(ValueError, match="router_kind"):
        SparseMoE(8, gate="laplace", router_kind="softmax")
    assert SparseMoE(8, gate="softmax").router.kind == "softmax"
    assert _model(gate="confidence", router_kind="laplace").moe.router.kind == "laplace"


def test_router_sharpness_scales_logits_and_keeps_the_choice():
    torch.manual_seed(2)
    h = torch.randn(40, 8)
    for kind in ("softmax", "laplace"):
        torch.manual_seed(5)
        r1 = NoisyTopKRouter(8, 6, 2, kind=kind, noisy=False, weights="all")
        torch.manual_seed(5)
        r4 = NoisyTopKRouter(8, 6, 2, kind=kind, noisy=False, weights="all", sharpness=4.0)
        assert torch.allclose(r4.logits(h), 4.0 * r1.logits(h), atol=1e-5)
        (i1, g1, _), (i4, g4, _) = r1.route(h), r4.route(h)
        assert torch.equal(i1, i4) and (g4[:, 0] >= g1[:, 0] - 1e-6).all()  # same experts, sharper top score
    with pytest.raises(ValueError, match="sharpness"):
        NoisyTopKRouter(8, 5, 2, sharpness=0.0)


def test_train_variant_reports_routing_at_initialisation_without_changing_training():
    """entropy0 / maxshare0 are the routing statistics of the untrained model (eval mode, test split) and
    entdrop their fall during training."""
    from icml26.core.paper import Profile
    from icml26.vision.confsmoe import experiment as X

    g = np.random.default_rng(1)
    part = lambda n: ([torch.from_numpy(g.random((n, f)).astype(np.float32)) for f in (24, 24, 16)],
                      torch.from_numpy(g.integers(0, 10, n)))
    data = {"train": part(40), "val": part(20), "test": part(30)}
    masks = {k: torch.from_numpy(sample_missing_mask(n, 3, 0.3, g)) for k, n in (("train", 40), ("val", 20), ("test", 30))}
    p = Profile("t", 1, {"d": 8, "tokens": 2, "n_experts": 4, "top_k": 2, "n_heads": 2, "dropout": 0.0, "lr": 1e-3,
                         "batch": 20, "n_perm": 2, "lb_coef": 0.0, "epochs": 2})
    res = X.train_variant("conf_laplace", data, masks, p, init_seed=4)
    torch.manual_seed(4)
    m = ConfSMoEClassifier([24, 24, 16], 10, d=8, tokens=2, n_experts=4, top_k=2, n_heads=2, dropout=0.0,
                           **X.VARIANTS["conf_laplace"])
    m.set_pools([x[masks["train"][:, j]] for j, x in enumerate(data["train"][0])])
    m.eval()
    with torch.no_grad():
        aux = m(data["test"][0], masks["test"], data["test"][1])[1]
    rs = X._routing(aux, masks["test"], data["test"][1], 4, 0, 4)
    assert res["entropy0"] == pytest.approx(rs["entropy"]) and res["maxshare0"] == pytest.approx(rs["max_share"])
    assert res["entdrop"] == pytest.approx(res["entropy0"] - res["entropy"])
