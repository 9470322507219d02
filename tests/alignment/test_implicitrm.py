"""Known answers for the ImplicitRM reconstruction (arXiv:2603.23184)."""

import numpy as np
import pytest
import torch

from icml26.alignment.implicitrm.method import (auc, fit_implicitrm, fit_naive, implicitrm_nll, pairwise_accuracy,
                                                soft_label_loss, stratum_posteriors)
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
