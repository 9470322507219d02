import numpy as np
import pytest
import torch

from icml26.alignment import _preferences as P
from icml26.alignment._preferences import (dpo_loss, fit_bradley_terry, fit_plackett_luce, implicit_feedback,
                                           ipo_loss, kl_optimal_policy, pairwise_comparisons, plackett_luce_rankings,
                                           population, regularised_value, reward_model_loss, simpo_loss)


def test_bt_fit_recovers_scores_and_agrees_with_choix():
    choix = pytest.importorskip("choix")
    pop = population(6, 3, seed=0)
    i, j, y = pairwise_comparisons(pop, 20000, seed=1)
    s = fit_bradley_terry(6, i, j, y)
    true = pop.mean_utility() - pop.mean_utility().mean()
    assert np.abs(s - true).max() < 0.1
    data = [(a, b) if w else (b, a) for a, b, w in zip(i, j, y)]
    ref = choix.opt_pairwise(6, data, alpha=0.0)
    assert np.abs(s - (ref - ref.mean())).max() < 1e-4


def test_pl_fit_recovers_scores():
    scores = np.array([1.0, 0.5, 0.0, -0.5, -1.0])
    r = plackett_luce_rankings(scores, 3000, size=3, seed=0)
    s = fit_plackett_luce(5, r)
    assert np.abs(s - scores).max() < 0.12


def test_population_kinds_and_feedback():
    for kind in ("homogeneous", "mixture", "heterogeneous"):
        pop = population(5, 2, kind=kind, seed=3)
        assert pop.utilities().shape == (len(pop.weights), 5) and pop.weights.sum() == pytest.approx(1.0)
    fb = implicit_feedback(np.zeros(8), 500, slate=4, decay=0.5, seed=0)
    ex = fb["examined"].mean(0)
    assert ex[0] > ex[1] > ex[2] and not (fb["clicked"] & ~fb["examined"]).any()


def test_kl_optimal_policy_maximises_the_regularised_value():
    rng = np.random.default_rng(0)
    ref = rng.dirichlet(np.ones(5))
    r = rng.standard_normal(5)
    pi = kl_optimal_policy(ref, r, beta=0.3)
    best = regularised_value(pi, ref, r, 0.3)
    for _ in range(200):
        other = rng.dirichlet(np.ones(5))
        assert regularised_value(other, ref, r, 0.3) <= best + 1e-12
    # closed form of the optimum: beta * log E_ref[exp(r / beta)]
    assert best == pytest.approx(0.3 * np.log((ref * np.exp(r / 0.3)).sum()))


def test_losses_known_values():
    z = torch.zeros(3)
    assert torch.allclose(dpo_loss(z, z, z, z, beta=0.5), torch.full((3,), np.log(2.0)))
    assert torch.allclose(ipo_loss(z, z, z, z, torch.ones(3), torch.ones(3), beta=0.5), torch.ones(3))
    assert torch.allclose(simpo_loss(z, z, 1.0, 1.0, gamma=0.0), torch.full((3,), np.log(2.0)))
    assert torch.allclose(reward_model_loss(torch.tensor([10.0]), torch.tensor([-10.0])), torch.zeros(1), atol=1e-6)


@pytest.mark.parametrize("loss_type", ["sigmoid", "ipo"])
def test_dpo_and_ipo_equal_trl(loss_type):
    pytest.importorskip("trl", reason="trl not installed: the TRL cross-check is skipped")
    from trl_dpo_reference import trl_dpo_loss

    torch.manual_seed(0)
    b, t = 4, 6
    mc = torch.ones(b, t, dtype=torch.bool)
    mr = torch.ones(b, t, dtype=torch.bool)
    mc[0, 4:] = False
    mr[2, 2:] = False
    tc, tr = (torch.randn(b, t) - 1) * mc, (torch.randn(b, t) - 1) * mr
    ref_c, ref_r = torch.randn(b) - 4, torch.randn(b) - 4
    beta = 0.3
    if loss_type == "sigmoid":
        ours = dpo_loss(tc.sum(1), tr.sum(1), ref_c, ref_r, beta=beta).mean()
    else:
        ours = ipo_loss(tc.sum(1), tr.sum(1), ref_c, ref_r, mc.sum(1).float(), mr.sum(1).float(), beta=beta).mean()
    theirs = trl_dpo_loss(tc, tr, ref_c, ref_r, mc, mr, beta=beta, loss_type=loss_type)
    assert float(ours) == pytest.approx(float(theirs), rel=1e-5)


def test_bad_input():
    with pytest.raises(ValueError, match="kind"):
        population(3, 2, kind="weird")
    with pytest.raises(ValueError, match="i, j and y"):
        fit_bradley_terry(3, [0], [1, 2], [1.0])
    with pytest.raises(ValueError, match="item indices"):
        fit_bradley_terry(3, [0], [5], [1.0])
    with pytest.raises(ValueError, match="y"):
        fit_bradley_terry(3, [0], [1], [np.nan])
    with pytest.raises(ValueError, match="ref_probs"):
        kl_optimal_policy([0.5, 0.6], [0.0, 1.0], 1.0)
    with pytest.raises((ValueError, TypeError), match="beta"):
        dpo_loss(torch.zeros(1), torch.zeros(1), torch.zeros(1), torch.zeros(1), beta=0.0)
    with pytest.raises(ValueError, match="rankings"):
        fit_plackett_luce(3, [[0]])


def test_linear_bt_equals_sklearn_ridge_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    dX = rng.normal(size=(400, 4))
    y = (rng.random(400) < 1 / (1 + np.exp(-dX @ np.array([1.0, -0.5, 0.0, 2.0])))).astype(float)
    ours = P.fit_linear_bradley_terry(dX, y, l2=2.0)
    sk = LogisticRegression(C=1 / 2.0, fit_intercept=False, tol=1e-12, max_iter=10000).fit(dX, y).coef_[0]
    assert np.allclose(ours, sk, atol=1e-6)


def test_linear_bt_soft_labels_and_weights_equal_replicated_hard_labels():
    rng = np.random.default_rng(4)
    dX = rng.normal(size=(30, 3))
    p = rng.uniform(0.1, 0.9, 30)
    w = rng.integers(1, 4, 30).astype(float)
    soft = P.fit_linear_bradley_terry(dX, p, weights=w, l2=0.5)
    # the weighted soft-label likelihood is that of w*p wins and w*(1-p) losses per pair
    X2 = np.vstack([dX, dX])
    y2 = np.r_[np.ones(30), np.zeros(30)]
    hard = P.fit_linear_bradley_terry(X2, y2, weights=np.r_[w * p, w * (1 - p)], l2=0.5)
    assert np.allclose(soft, hard, atol=1e-9)


def test_linear_bt_with_vanishing_ridge_leaves_unconstrained_direction_alone():
    # tabular features of 3 items: utilities are defined up to a constant shift
    X = np.eye(3)
    r = np.array([0.0, 1.0, -1.0])
    a, b = np.divmod(np.arange(9), 3)
    probs = 1 / (1 + np.exp(-(r[a] - r[b])))
    theta = P.fit_linear_bradley_terry(X[a] - X[b], probs, weights=np.full(9, 1 / 9), l2=1e-12, tol=1e-13)
    assert np.allclose(theta - theta.mean(), r - r.mean(), atol=1e-7)
    assert abs(theta.mean()) < 1e-6


def test_linear_bt_bad_input():
    with pytest.raises(ValueError, match="y"):
        P.fit_linear_bradley_terry(np.zeros((2, 2)), np.array([0.0, 2.0]))
    with pytest.raises(ValueError, match="weights"):
        P.fit_linear_bradley_terry(np.zeros((2, 2)), np.array([0.0, 1.0]), weights=np.array([1.0, -1.0]))
    with pytest.raises(ValueError, match="theta0"):
        P.fit_linear_bradley_terry(np.zeros((2, 2)), np.array([0.0, 1.0]), theta0=np.zeros(3))
    with pytest.raises(ValueError, match="l2"):
        P.fit_linear_bradley_terry(np.zeros((2, 2)), np.array([0.0, 1.0]), l2=-1.0)
