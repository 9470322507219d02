"""Unit tests for SusDiet (arXiv:2608.24274): the lambda constancy point first, then known answers."""

import itertools

import numpy as np
import pytest
import torch

from icml26.decision.susdiet.method import (
    ConstraintParams,
    PreferenceModel,
    RecipeEncoder,
    bpr_loss,
    constrained_topk,
    decision_score,
    ndcg_at_k,
    penalty,
    r_squared,
    recall_at_k,
    topk,
    train_susdiet,
    uncertainty_weighted_loss,
    violation_rate,
)
from icml26.decision.susdiet.setting import make_world, normalise_indicators


def _ranking(F):
    return np.argsort(-F, axis=1, kind="stable")


# ----------------------------------------------------------------------------- the constancy point (resolved first)
def test_written_score_ranking_is_invariant_to_lambda():
    """alpha_u^T lambda_u is one number per user: any lambda_u leaves every user's ranking unchanged."""
    rng = np.random.default_rng(0)
    y_hat, s = rng.normal(size=(5, 30)), rng.normal(size=(30, 4))
    alpha = np.abs(rng.normal(size=(5, 4)))
    ref = _ranking(decision_score(y_hat, alpha, np.zeros((5, 4)), s, "written"))
    for lam in (rng.normal(size=(5, 4)) * 10, np.full((5, 4), 1e3)):
        F = decision_score(y_hat, alpha, lam, s, "written")
        np.testing.assert_array_equal(_ranking(F), ref)
        # the shift is exactly alpha_u^T lambda_u per user
        np.testing.assert_allclose(F - decision_score(y_hat, alpha, np.zeros((5, 4)), s, "written"),
                                   np.repeat((alpha * lam).sum(1, keepdims=True), 30, 1), atol=1e-9)


def test_hinge_score_ranking_depends_on_lambda():
    rng = np.random.default_rng(1)
    y_hat, s = rng.normal(size=(5, 30)), rng.normal(size=(30, 4))
    alpha = np.full((5, 4), 2.0)
    a = _ranking(decision_score(y_hat, alpha, np.full((5, 4), -1.0), s, "hinge"))
    b = _ranking(decision_score(y_hat, alpha, np.full((5, 4), 1.0), s, "hinge"))
    assert (a != b).any()
    # a threshold above every indicator removes the penalty: ranking by y_hat alone
    np.testing.assert_array_equal(_ranking(decision_score(y_hat, alpha, np.full((5, 4), 99.0), s, "hinge")),
                                  _ranking(y_hat))


def test_written_penalty_loss_pushes_lambda_up_without_bound():
    """dL_sus/dlambda = -alpha < 0 whatever lambda is: gradient descent raises lambda forever (only l2 resists),
    and with beta3 < 1/2 the objective in (alpha, lambda) is unbounded below along alpha = lambda."""
    s = torch.randn(64, 4)
    for lam0 in (0.0, 10.0, 100.0):
        lam = torch.full((64, 4), lam0, requires_grad=True)
        alpha = torch.full((64, 4), 0.5)
        penalty(alpha, lam, s, "written").mean().backward()
        assert (lam.grad < 0).all()
    beta3, m = 1e-4, torch.randn(4)
    vals = [float(t * torch.ones(4) @ (m - t * torch.ones(4)) + beta3 * 2 * t * t * 4) for t in (1.0, 10.0, 100.0)]
    assert vals[0] > vals[1] > vals[2]


def test_hinge_penalty_closed_form_and_gradient():
    alpha = torch.tensor([[1.0, 2.0]], requires_grad=True)
    lam = torch.tensor([[0.5, 0.0]], requires_grad=True)
    s = torch.tensor([[1.0, -1.0]])
    p = penalty(alpha, lam, s, "hinge")
    assert float(p.detach()) == pytest.approx(0.5)  # 1 * 0.5 + 2 * 0
    p.sum().backward()
    np.testing.assert_allclose(alpha.grad.numpy(), [[0.5, 0.0]])
    np.testing.assert_allclose(lam.grad.numpy(), [[-1.0, 0.0]])
    assert float(penalty(alpha, lam, s, "written")) == pytest.approx(1 * 0.5 + 2 * -1.0)


def test_penalty_never_reaches_y_hat():
    """With fixed recipe features, L_sus has zero gradient on the preference model: y_hat equals the beta2 = 0
    control's."""
    w = make_world(n_ingredients=10, n_recipes=30, n_users=6, n_inter=6, n_test=1, seed=0)
    kw = dict(d=8, hist_len=4, steps=3, batch=8, seed=3)
    sus = {"s_hat": w.s}
    a = train_susdiet(w, sus, variants={"v": ("s_hat", "written", False)}, beta2=1.0, **kw)
    b = train_susdiet(w, sus, variants={}, beta2=0.0, **kw)
    for (n1, p1), (n2, p2) in zip(a["model"].named_parameters(), b["model"].named_parameters()):
        assert n1 == n2
        torch.testing.assert_close(p1, p2)


# ----------------------------------------------------------------------------- components
def test_uncertainty_weighted_loss_closed_form_and_optimum():
    s_hat, s = torch.zeros(4, 2), torch.tensor([[1.0, 2.0]] * 4)
    v = torch.tensor([0.0, np.log(4.0)])
    assert float(uncertainty_weighted_loss(s_hat, s, v)) == pytest.approx(1.0 + (4.0 / 4.0 + np.log(4.0)))
    # the optimum over v_k is v_k = log(MSE_k)
    v = torch.zeros(2, requires_grad=True)
    opt = torch.optim.Adam([v], lr=0.05)
    for _ in range(2000):
        opt.zero_grad()
        uncertainty_weighted_loss(s_hat, s, v).backward()
        opt.step()
    np.testing.assert_allclose(v.detach().numpy(), np.log([1.0, 4.0]), atol=1e-2)


def test_encoder_ignores_padding_and_shapes():
    torch.manual_seed(0)
    enc = RecipeEncoder(10, d=8, n_tasks=4).eval()
    tok = torch.tensor([[1, 2, 3, 0, 0]])
    g = torch.tensor([[50.0, 20.0, 10.0, 0.0, 0.0]])
    z1, s1 = enc(tok, g)
    tok2 = torch.tensor([[1, 2, 3, 0, 0, 0, 0]])
    z2, s2 = enc(tok2, torch.cat([g, torch.zeros(1, 2)], 1))
    assert z1.shape == (1, 8) and s1.shape == (1, 4)
    torch.testing.assert_close(z1, z2, atol=1e-5, rtol=1e-5)


def test_preference_model_score_all_matches_pairwise():
    w = make_world(n_ingredients=10, n_recipes=25, n_users=4, n_inter=6, n_test=1, seed=1)
    torch.manual_seed(0)
    m = PreferenceModel(w.tokens, w.region, w.n_ingredients, w.n_regions, d=8, hist_len=5).eval()
    hist = torch.tensor([[0, 0, 3, 4, 5], [1, 2, 3, 4, 5]])
    full = m.score_all(hist)
    items = torch.tensor([[0, 7, 24], [3, 3, 11]])
    with torch.no_grad():
        pair = m(hist, items)
    torch.testing.assert_close(pair, torch.gather(full, 1, items), atol=1e-5, rtol=1e-5)


def test_constraint_params_init_and_global_lambda():
    c = ConstraintParams(3, 4, global_lambda=True, alpha0=0.5)
    alpha, lam = c.all()
    np.testing.assert_allclose(alpha, 0.5, atol=1e-6)
    assert lam.shape == (3, 4) and (lam == lam[0]).all()


def test_bpr_loss_gradient():
    pos = torch.tensor([1.0], requires_grad=True)
    neg = torch.tensor([0.0])
    loss = bpr_loss(pos, neg)
    assert float(loss) == pytest.approx(np.log1p(np.exp(-1.0)))
    loss.backward()
    assert float(pos.grad) == pytest.approx(-1 / (1 + np.e))


def test_normalise_indicators_direction_and_scale():
    raw = np.abs(np.random.default_rng(0).normal(size=(200, 4))) + 0.1
    s = normalise_indicators(raw)
    np.testing.assert_allclose(s.mean(0), 0, atol=1e-9)
    np.testing.assert_allclose(s.std(0), 1, atol=1e-9)
    # nutrition is higher-is-better, so it is negated: more nutrition -> lower s
    assert np.corrcoef(raw[:, 0], s[:, 0])[0, 1] < -0.9 and np.corrcoef(raw[:, 1], s[:, 1])[0, 1] > 0.9


def test_metrics_known_answers():
    top = np.array([[5, 1, 2], [7, 8, 9]])
    rel = np.array([[1], [3]])
    np.testing.assert_allclose(ndcg_at_k(top, rel), [1 / np.log2(3), 0.0])
    np.testing.assert_allclose(recall_at_k(top, rel), [1.0, 0.0])
    s = np.array([[0.0, 0.0]] * 5 + [[2.0, 0.0]] * 5)
    np.testing.assert_allclose(violation_rate(np.array([[0, 5]]), s, np.array([[1.0, 1.0]])), [0.25])
    assert r_squared(np.ones((3, 1)) * 2, np.array([[1.0], [2.0], [3.0]]))[0] == pytest.approx(0.0)
    sc = np.array([[0.1, 0.9, 0.5, 0.7]])
    np.testing.assert_array_equal(topk(sc, np.array([[False, True, False, False]]), 2), [[3, 2]])


@pytest.mark.parametrize("list_mean", [False, True])
def test_constrained_topk_matches_brute_force(list_mean):
    rng = np.random.default_rng(3)
    for trial in range(5):
        u, s, tau = rng.normal(size=9), rng.normal(size=(9, 2)), rng.normal(0.5, 0.5, size=2)
        best, best_val = None, -np.inf
        for combo in itertools.combinations(range(9), 3):
            c = list(combo)
            ok = (s[c].mean(0) <= tau + 1e-12).all() if list_mean else (s[c] <= tau).all()
            if ok and u[c].sum() > best_val:
                best, best_val = c, u[c].sum()
        if best is None:
            continue
        got = constrained_topk(u, s, tau, 3, list_mean=list_mean)
        assert u[got].sum() == pytest.approx(best_val)


def test_world_is_deterministic_and_pool_does_not_change_catalog():
    a = make_world(n_ingredients=12, n_recipes=40, n_users=5, n_inter=6, n_test=2, seed=4)
    b = make_world(n_ingredients=12, n_recipes=40, n_users=5, n_inter=6, n_test=2, seed=4, n_pool=30)
    np.testing.assert_array_equal(a.tokens, b.tokens)
    np.testing.assert_array_equal(a.train_seq, b.train_seq)
    np.testing.assert_allclose(a.s, b.s)
    assert b.pool_tokens.shape == (30, a.tokens.shape[1]) and a.pool_tokens.shape[0] == 0


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="form"):
        penalty(np.ones((1, 2)), np.ones((1, 2)), np.ones((1, 2)), "lagrange")
    with pytest.raises(ValueError, match="alpha"):
        penalty(np.ones((1, 3)), np.ones((1, 2)), np.ones((1, 2)))
    with pytest.raises(ValueError, match="n_test"):
        make_world(n_inter=5, n_test=5)


# ----------------------------------------------------------------------------- review: matching at equal NDCG
def test_matched_violation_interpolates_and_flags_outside():
    from icml26.decision.susdiet.experiment import matched_violation

    v, inside = matched_violation(0.05, [0.08, 0.04, 0.06], [0.10, 0.02, 0.06])
    assert inside and v == pytest.approx(0.04)
    v, inside = matched_violation(0.03, [0.08, 0.04], [0.10, 0.02])
    assert not inside and v == pytest.approx(0.02)  # nearest end point, flagged


def test_pareto_front_drops_dominated_points_and_matching_reads_the_front():
    """A non-monotone control curve (a small weight that raises NDCG) is read along its best trade-off."""
    from icml26.decision.susdiet.experiment import matched_violation, pareto_front

    nd, vi = [0.059, 0.063, 0.042, 0.018], [0.12, 0.075, 0.043, 0.041]
    np.testing.assert_array_equal(pareto_front(nd, vi), [3, 2, 1])  # (0.059, 0.12) is dominated by (0.063, 0.075)
    v, inside = matched_violation(0.053, nd, vi)
    assert inside and v == pytest.approx(0.043 + (0.053 - 0.042) / (0.063 - 0.042) * (0.075 - 0.043))
    # other quantities measured at the same points are read at the same place on the front
    v2, _ = matched_violation(0.063, nd, vi, values=[1.0, 2.0, 3.0, 4.0])
    assert v2 == pytest.approx(2.0)


def test_paired_margin_levels():
    from icml26.decision.susdiet.experiment import paired_margin

    ctl = np.full(5, 0.10)
    assert paired_margin(ctl * 0.8, ctl)["status"] == "reproduced"  # 20% fewer in every seed
    assert paired_margin(ctl * 0.98, ctl)["status"] == "partly"  # fewer, but below the 5% margin
    assert paired_margin(ctl * 1.1, ctl)["status"] == "not-reproduced"
    assert paired_margin(ctl[:4] * 0.5, ctl[:4])["status"] == "not-checkable"  # 4 seeds: Wilcoxon p >= 1/16
    mixed = ctl * np.array([0.5, 0.5, 0.5, 0.5, 1.2])  # one seed against: p = 2/32 is not < 0.05
    assert paired_margin(mixed, ctl)["status"] == "not-reproduced"


def _beats_rows(n=5, grape_inside=0.0, ours=0.01):
    return [{"written_s/violation": ours, "written_s/ndcg10": 0.05, "pref/ndcg10": 0.06,
             "written_s/matched_global_violation": 0.02, "written_s/matched_global_inside": 1.0,
             "written_s/matched_grape_violation": 0.10, "written_s/matched_grape_inside": grape_inside,
             "hinge_s/violation": 0.08, "hinge_s/ndcg10": 0.07, "hinge_s/matched_global_violation": 0.07,
             "hinge_s/matched_grape_violation": 0.1, "grape/weights": [1.0, 3.0], "grape/ndcg10": 0.06,
             "grape/ndcg10_curve": [0.07, 0.04], "grape/violation": 0.06, "encoder/r2_mean": 0.97,
             "train/pref_over_random_ndcg": 5.0}
            for _ in range(n)]


def test_beats_preference_counts_a_control_only_at_matched_ndcg():
    """Revised rule: a control whose NDCG range does not contain ours in >= 80% of seeds is not checkable and
    caps the verdict at partly; each matched control is decided by a paired Wilcoxon test beyond 5%."""
    from icml26.decision.susdiet.experiment import check_beats_preference

    assert check_beats_preference(_beats_rows(grape_inside=1.0)).status == "reproduced"
    v = check_beats_preference(_beats_rows(grape_inside=0.0))
    assert v.status == "partly" and "GRAPE-style not checkable" in v.evidence
    assert check_beats_preference(_beats_rows(grape_inside=0.0, ours=0.03)).status == "not-reproduced"
    rows = _beats_rows(grape_inside=0.0)
    for m in rows:
        m["written_s/matched_global_inside"] = 0.0
    assert check_beats_preference(rows).status == "not-checkable"
    # a tie with a control is not a win; beating only the GRAPE-style one is no part the tied control fails
    # when global re-ranking beats the GRAPE-style one as well (changed by review after the full run: this
    # case read partly before)
    v = check_beats_preference(_beats_rows(grape_inside=1.0, ours=0.02))
    assert v.status == "not-reproduced" and "global re-ranking at matched NDCG: relative reduction +0.0%" in v.evidence
    assert "global re-ranking in our place" in v.evidence and "the same partly" in v.evidence
    # ... and partly when global re-ranking, in our place, does not beat the GRAPE-style model
    rows = _beats_rows(grape_inside=1.0, ours=0.05)
    for m, g in zip(rows, (0.04, 0.04, 0.20, 0.20, 0.04)):
        m["written_s/matched_global_violation"] = g
    v = check_beats_preference(rows)
    assert v.status == "partly" and "our part is not matched" in v.evidence
    # four seeds cannot reach p < 0.05 with a one-sided Wilcoxon test
    assert check_beats_preference(_beats_rows(n=4, grape_inside=1.0)).status == "not-checkable"


def _threshold_rows(ours=0.07, levelled=0.10, quantile=0.10, glob=0.10, rho=0.4, n=5):
    return [{"hinge_s/violation": ours, "hinge_s_levelled/violation": levelled, "hinge_s_quantile/violation": quantile,
             "hinge_s_global/violation": glob, "hinge_s_quantile_raw/violation": quantile,
             "hinge_s/spearman_lambda_tau": rho, "hinge_s_quantile/spearman_lambda_tau": 0.5,
             **{f"hinge_s/spearman_lambda_tau/{d}": rho for d in ("nutrition", "environment", "cost", "welfare")},
             "hinge_s/ndcg10": 0.06, "written_s/spearman_lambda_tau": 0.0, "written_s/lambda_drift": 0.2,
             "hinge_s/lambda_mean": 0.15, "hinge_s/lambda_sd_users": 0.04, "hinge_s/lambda_drift": 0.1,
             "hinge_s_global/lambda_mean": 0.3, "encoder/r2_mean": 0.97, "train/pref_over_random_ndcg": 5.0}
            for _ in range(n)]


def test_personal_thresholds_needs_every_control_beaten():
    from icml26.decision.susdiet.experiment import check_personal_thresholds

    assert check_personal_thresholds(_threshold_rows()).status == "reproduced"
    # level-matched global lambda as good as ours: personalisation not shown, Spearman holds -> partly
    assert check_personal_thresholds(_threshold_rows(levelled=0.0705)).status == "partly"
    # the naive quantile beats ours and the level-matched control ties: not reproduced
    assert check_personal_thresholds(_threshold_rows(levelled=0.07, quantile=0.05, glob=0.07)).status == "not-reproduced"
    assert check_personal_thresholds(_threshold_rows(rho=0.1)).status == "partly"
    assert check_personal_thresholds(_threshold_rows(n=4)).status == "not-checkable"


def test_ensemble_training_matches_separate_training():
    """Models trained together (vmapped) follow their own paths: two weight-0 models equal one trained alone,
    and a positive green weight changes the model."""
    w = make_world(n_ingredients=10, n_recipes=30, n_users=6, n_inter=6, n_test=1, seed=0)
    kw = dict(d=8, hist_len=4, steps=4, batch=8, seed=3)
    sus = {"s_hat": w.s}
    single = train_susdiet(w, sus, green_weights=[0.0], **kw)["model"]
    pair = train_susdiet(w, sus, green_weights=[0.0, 0.0], **kw)["models"]
    for (n, p), (_, q0), (_, q1) in zip(single.named_parameters(), pair[0].named_parameters(),
                                         pair[1].named_parameters()):
        torch.testing.assert_close(q0, p, atol=1e-5, rtol=1e-4, msg=n)
        torch.testing.assert_close(q1, p, atol=1e-5, rtol=1e-4, msg=n)
    green = train_susdiet(w, sus, green_weights=[0.0, 5.0], **kw)["models"]
    assert any(not torch.allclose(a, b) for a, b in zip(green[0].parameters(), green[1].parameters()))
    with pytest.raises(ValueError, match="green_weights"):
        train_susdiet(w, sus, green_weights=[-1.0], **kw)


def test_recipe_encoder_fit_on_shared_fit_equals_its_private_loop_bit_for_bit():
    """fit_recipe_encoder moved onto icml26.nn.mlp.fit (issue 13): the private Adam + cosine loop, kept here as
    the reference, gives the same weights and the same per-step MSE history."""
    from icml26.decision.susdiet.method import RecipeEncoder, fit_recipe_encoder, uncertainty_weighted_loss

    rng = np.random.default_rng(0)
    tokens = rng.integers(1, 13, size=(50, 6))
    tokens[:, 4:] = 0
    grams = rng.uniform(10, 200, size=(50, 6)) * (tokens > 0)
    s = rng.normal(size=(50, 3))
    out = fit_recipe_encoder(tokens, grams, s, n_ingredients=12, d=8, steps=30, batch=16, lr=1e-2, seed=4)
    gen = torch.Generator().manual_seed(4)
    torch.manual_seed(4)
    train = np.random.default_rng([4, 41]).permutation(50)[int(0.2 * 50):]
    T, G, S = torch.as_tensor(tokens), torch.as_tensor(grams, dtype=torch.float32), torch.as_tensor(s, dtype=torch.float32)
    enc = RecipeEncoder(12, d=8, n_tasks=3)
    opt = torch.optim.Adam(enc.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30)
    tr, history = torch.as_tensor(train), []
    for _ in range(30):
        b = tr[torch.randint(0, len(tr), (16,), generator=gen)]
        _, sh = enc(T[b], G[b])
        loss = uncertainty_weighted_loss(sh, S[b], enc.log_var)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        history.append(float(((sh - S[b]) ** 2).mean().detach()))
    assert out["history"] == history
    assert all(torch.equal(p, q) for p, q in zip(out["model"].parameters(), enc.parameters()))
