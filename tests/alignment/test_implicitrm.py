"""Known answers for ImplicitRM (arXiv:2603.23184): the stratified likelihood and the paper's E_pref + E_prop."""

import numpy as np
import pytest
import torch

from icml26.alignment.implicitrm.method import (RewardModel, auc, fit_implicitrm, fit_naive, implicitrm_elbo_loss,
                                                implicitrm_nll, pairwise_accuracy, soft_label_loss, stratum_posteriors)
from icml26.alignment.implicitrm.setting import draw_feedback, make_world


def test_nll_matches_the_formula():
    rng = np.random.default_rng(0)
    f, g = rng.normal(size=50), rng.normal(size=50)
    F = (rng.random(50) < 0.3).astype(float)
    r, e = 1 / (1 + np.exp(-f)), 1 / (1 + np.exp(-g))
    want = -np.mean(F * np.log(r * e) + (1 - F) * np.log(1 - r * e))
    got = implicitrm_nll(torch.tensor(f), torch.tensor(g), torch.tensor(F)).item()
    assert got == pytest.approx(want, rel=1e-9)


def test_stratum_posteriors_closed_form():
    r, e = np.array([0.6, 0.6]), np.array([0.3, 0.3])
    post = stratum_posteriors(r, e, np.array([1.0, 0.0]))
    assert np.allclose(post[0], [1, 0, 0, 0])
    z = 1 - 0.18
    assert np.allclose(post[1], [0, 0.6 * 0.7 / z, 0.4 * 0.3 / z, 0.4 * 0.7 / z])
    assert np.allclose(post.sum(1), 1)


@pytest.mark.parametrize("p,e", [(0.2, 0.9), (0.7, 0.1), (0.5, 0.5)])
def test_soft_label_is_unbiased_at_the_truth(p, e):
    """Enumerating F in {0, 1}: E[q] = p and E[soft-label loss] = oracle cross-entropy for any r."""
    q0 = p * (1 - e) / (1 - p * e)
    assert p * e * 1.0 + (1 - p * e) * q0 == pytest.approx(p)
    for r in (0.1, 0.5, 0.93):
        exp_loss = p * e * soft_label_loss(np.array([r]), np.array([1.0]))[0] + \
            (1 - p * e) * soft_label_loss(np.array([r]), np.array([q0]))[0]
        oracle = -(p * np.log(r) + (1 - p) * np.log(1 - r))
        assert exp_loss == pytest.approx(oracle, rel=1e-12)


def test_generators():
    d = draw_feedback(make_world("separable", seed=1), 5000, seed=2)
    assert np.all(d["R"][d["F"] == 1] == 1)  # an action implies a preferred response
    d2 = draw_feedback(make_world("entangled", seed=1), 5000, seed=2)
    assert np.any(d2["R"][d2["F"] == 1] == 0)  # the entangled world acts on bad responses too
    assert 0.05 <= d["e_star"].min() and d["e_star"].max() <= 0.9


def test_pairwise_accuracy_and_auc():
    t = np.linspace(0, 1, 100)
    assert pairwise_accuracy(t, t) == 1.0 and pairwise_accuracy(-t, t) == 0.0
    assert auc(np.array([0.1, 0.9]), np.array([0.0, 1.0])) == 1.0


def test_implicitrm_recovers_the_ranking_where_naive_is_biased():
    torch.set_num_threads(1)
    w = make_world("separable", seed=3)
    tr, te = draw_feedback(w, 4000, seed=4), draw_feedback(w, 3000, seed=5)
    irm = fit_implicitrm(tr["c"], tr["s"], tr["F"], steps=300, seed=0)
    nv = fit_naive(tr["c"], tr["F"], steps=300, seed=0)
    a_irm = pairwise_accuracy(irm.reward(te["c"]), te["p_star"])
    a_nv = pairwise_accuracy(nv.reward(te["c"]), te["p_star"])
    assert a_irm > 0.9 and a_irm > a_nv


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="F"):
        stratum_posteriors(np.array([0.5]), np.array([0.5]), np.array([0.5]))
    with pytest.raises(ValueError, match="generator"):
        make_world("nope")
    with pytest.raises(ValueError, match="r"):
        soft_label_loss(np.array([1.0]), np.array([0.5]))


def _logit(p):
    return float(np.log(p / (1 - p)))


def test_stratum_posteriors_with_the_papers_epsilon():
    """Eq. 6's + epsilon on each no-action numerator, by hand: r = 0.6, e = 0.3, eps = 0.1."""
    post = stratum_posteriors(np.array([0.6]), np.array([0.3]), np.array([0.0]), eps=0.1)[0]
    z = 0.42 + 0.1 + 0.12 + 0.1 + 0.28 + 0.1
    assert np.allclose(post, [0, 0.52 / z, 0.22 / z, 0.38 / z])


@pytest.mark.parametrize("eps", [0.0, 0.1])
def test_elbo_loss_by_hand(eps):
    """E_pref + E_prop on two samples (one action, one none) against the hand-computed cross-entropies."""
    r, a = 0.6, 0.3
    f = torch.tensor([_logit(r), _logit(r)], dtype=torch.float64)
    g = torch.tensor([_logit(a), _logit(a)], dtype=torch.float64)
    F = torch.tensor([1.0, 0.0], dtype=torch.float64)
    m_pp, m_na, m_np = r * (1 - a) + eps, (1 - r) * a + eps, (1 - r) * (1 - a) + eps
    q_pref, q_prop = m_pp / (m_pp + m_na + m_np), m_na / (m_pp + m_na + m_np)

    def ce(p, q):
        return -(q * np.log(p) + (1 - q) * np.log(1 - p))

    want = 0.5 * ((ce(r, 1.0) + ce(a, 1.0)) + (ce(r, q_pref) + ce(a, q_prop)))
    assert implicitrm_elbo_loss(f, g, F, eps=eps).item() == pytest.approx(want, rel=1e-12)


def test_elbo_value_is_nll_plus_posterior_entropy():
    rng = np.random.default_rng(1)
    f, g = torch.tensor(rng.normal(size=40)), torch.tensor(rng.normal(size=40))
    F = torch.tensor((rng.random(40) < 0.3).astype(float))
    post = stratum_posteriors(torch.sigmoid(f).numpy(), torch.sigmoid(g).numpy(), F.numpy())
    ent = -np.sum(np.where(post > 0, post * np.log(np.where(post > 0, post, 1.0)), 0.0), axis=1).mean()
    assert implicitrm_elbo_loss(f, g, F).item() == pytest.approx(implicitrm_nll(f, g, F).item() + ent, rel=1e-10)


def test_elbo_gradient_equals_the_likelihood_gradient():
    """Fisher's identity: with posteriors from the current heads (eps = 0) the paper's E_pref + E_prop has the
    gradient of the action's negative log-likelihood, in the logits and in every network parameter."""
    rng = np.random.default_rng(2)
    f = torch.tensor(rng.normal(size=64), requires_grad=True)
    g = torch.tensor(rng.normal(size=64), requires_grad=True)
    F = torch.tensor((rng.random(64) < 0.35).astype(float))
    ga = torch.autograd.grad(implicitrm_elbo_loss(f, g, F), (f, g))
    gb = torch.autograd.grad(implicitrm_nll(f, g, F), (f, g))
    for x, y in zip(ga, gb):
        assert torch.allclose(x, y, rtol=1e-9, atol=1e-12)
    torch.manual_seed(0)
    model = RewardModel(3, 2, hidden=5).double()
    c, s = torch.tensor(rng.normal(size=(64, 3))), torch.tensor(rng.normal(size=(64, 2)))
    params = list(model.parameters())
    ga = torch.autograd.grad(implicitrm_elbo_loss(model(c), model.propensity_logit(s), F), params)
    gb = torch.autograd.grad(implicitrm_nll(model(c), model.propensity_logit(s), F), params)
    for x, y in zip(ga, gb):
        assert torch.allclose(x, y, rtol=1e-8, atol=1e-12)
    # with the paper's smoothing the gradients differ (a little), so eps is not a no-op
    gc = torch.autograd.grad(implicitrm_elbo_loss(model(c), model.propensity_logit(s), F, eps=0.05), params)
    assert not all(torch.allclose(x, y, rtol=1e-6, atol=1e-9) for x, y in zip(gc, gb))


def test_e_pref_is_unbiased_at_the_true_posteriors_monte_carlo():
    """Theorem 3.2 by Monte Carlo: F = R A drawn at known (r*, a*); E_pref's soft label phi_PA + phi_PP at the true
    heads averages to r*, so E[E_pref] matches the oracle cross-entropy on R for a candidate reward."""
    rng = np.random.default_rng(3)
    n = 400_000
    p, a = rng.uniform(0.05, 0.95, n), rng.uniform(0.05, 0.9, n)
    F = (rng.random(n) < p).astype(float) * (rng.random(n) < a)
    post = stratum_posteriors(p, a, F)
    q = post[:, 0] + post[:, 1]
    r = np.clip(p + 0.2 * rng.standard_normal(n), 0.02, 0.98)
    oracle = np.mean(-(p * np.log(r) + (1 - p) * np.log(1 - r)))
    assert np.mean(soft_label_loss(r, q)) == pytest.approx(oracle, rel=5e-3)
    assert abs(np.mean(soft_label_loss(r, F)) - oracle) / oracle > 0.1  # the naive label is biased


def test_elbo_bad_input_names_the_argument():
    f = torch.zeros(3)
    with pytest.raises(ValueError, match="F"):
        implicitrm_elbo_loss(f, f, torch.tensor([0.0, 0.5, 1.0]))
    with pytest.raises(TypeError, match="g"):
        implicitrm_elbo_loss(f, np.zeros(3), f)
    with pytest.raises(ValueError, match="eps"):
        implicitrm_elbo_loss(f, f, f, eps=-0.1)
