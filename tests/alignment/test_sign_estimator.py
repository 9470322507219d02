"""Known-answer tests for the sign estimator (arXiv:2510.23965), its baselines and the generator."""

import numpy as np
import pytest
from scipy.optimize import check_grad

from icml26.alignment._preferences import BETA_BAR_5, preset, sample_preferences
from icml26.alignment.sign_estimator.method import (
    _ramp_objective, angle_deg, bradley_terry, disagreement, em_mixture_logit, sign_estimator,
    sign_loss, zero_one_loss)


def _homogeneous(n, noise="logistic", seed=0, beta=BETA_BAR_5):
    return sample_preferences(n, heterogeneity="none", beta_bar=beta, design="isotropic",
                              noise=noise, rng=seed)


# ----------------------------------------------------------------------------- sign estimator
def test_sign_recovers_direction_noise_free():
    d = _homogeneous(4000, noise="none")
    theta = sign_estimator(d.delta_x, d.y, seed=0)
    assert np.isclose(np.linalg.norm(theta), 1.0)
    assert zero_one_loss(theta, d.delta_x, d.y) < 0.005
    assert angle_deg(theta, d.direction) < 1.0
    # annealing further drives the proxy to the 0-1 loss: a perfect separator, angle ~ 0
    sharp = sign_estimator(d.delta_x, d.y, seed=0, taus=(0.5, 0.2, 0.05, 0.01, 0.002, 0.0005))
    assert zero_one_loss(sharp, d.delta_x, d.y) == 0.0
    assert angle_deg(sharp, d.direction) < 0.2


def test_sign_matches_exact_zero_one_minimum_in_2d():
    # d = 2: the 0-1 loss is piecewise constant in the angle, with breaks where theta is
    # orthogonal to some delta_x_i; checking every arc's midpoint gives the exact minimum.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((80, 2))
    y = (x @ np.array([1.0, -0.4]) + rng.logistic(size=80) > 0).astype(float)
    breaks = np.sort(np.mod(np.arctan2(x[:, 1], x[:, 0]) + np.pi / 2, np.pi))
    breaks = np.concatenate([breaks, breaks + np.pi])
    mids = (breaks + np.roll(breaks, -1) + 2 * np.pi * (np.arange(breaks.size) == breaks.size - 1)) / 2
    exact = min(zero_one_loss([np.cos(a), np.sin(a)], x, y) for a in mids)
    theta = sign_estimator(x, y, seed=0, n_starts=32, taus=(0.5, 0.2, 0.05, 0.01))
    assert zero_one_loss(theta, x, y) <= exact + 1e-12


def test_sign_invariances():
    d = sample_preferences(3000, rng=1, **preset("gauss"))
    base = sign_estimator(d.delta_x, d.y, seed=5)
    # flipping every pair (swap a and b) leaves s_i * delta_x_i, hence the estimate, unchanged
    flipped = sign_estimator(-d.delta_x, 1 - d.y, seed=5)
    np.testing.assert_allclose(flipped, base, atol=1e-8)
    # rescaling the features does not change the direction (temperature is scale-free)
    scaled = sign_estimator(7.0 * d.delta_x, d.y, seed=5)
    assert angle_deg(scaled, base) < 0.5


def test_sign_loss_tends_to_zero_one_and_gradient():
    d = sample_preferences(500, rng=2, **preset("two"))
    theta = np.array([0.3, 1.0, -0.2, 0.1, 0.0])
    assert abs(sign_loss(theta, d.delta_x, d.y, tau=1e-6) - zero_one_loss(theta, d.delta_x, d.y)) < 1e-3
    sx = (2 * d.y - 1)[:, None] * d.delta_x
    w = np.array([0.5, -1.2, 0.3, 2.0, 0.7])
    err = check_grad(lambda v: _ramp_objective(v, sx, 0.3)[0], lambda v: _ramp_objective(v, sx, 0.3)[1], w)
    assert err < 1e-6
    # scale-free in w
    assert np.isclose(_ramp_objective(3 * w, sx, 0.3)[0], _ramp_objective(w, sx, 0.3)[0])


def test_sign_beats_bt_under_symmetric_heterogeneity():
    # a small version of the paper's point: BT is biased, sign is not
    d = sample_preferences(32000, rng=0, **preset("two"))
    a_bt = angle_deg(bradley_terry(d.delta_x, d.y), d.direction)
    a_sg = angle_deg(sign_estimator(d.delta_x, d.y, seed=0), d.direction)
    assert a_bt > 20 and a_sg < a_bt


# ----------------------------------------------------------------------------- BT baseline
def test_bt_matches_sklearn_unpenalised():
    from sklearn.linear_model import LogisticRegression

    d = _homogeneous(3000, seed=4)
    raw = bradley_terry(d.delta_x, d.y, normalize=False)
    sk = LogisticRegression(fit_intercept=False, C=np.inf, tol=1e-12, max_iter=10000,
                            solver="lbfgs").fit(d.delta_x, d.y).coef_.ravel()
    np.testing.assert_allclose(raw, sk, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bradley_terry(d.delta_x, d.y), sk / np.linalg.norm(sk), atol=1e-5)


def test_bt_matches_sklearn_ridge():
    from sklearn.linear_model import LogisticRegression

    d = sample_preferences(2000, rng=5, **preset("gauss"))
    l2 = 0.01
    raw = bradley_terry(d.delta_x, d.y, l2=l2, normalize=False)
    sk = LogisticRegression(fit_intercept=False, C=1.0 / (l2 * d.y.size), tol=1e-12,
                            max_iter=10000).fit(d.delta_x, d.y).coef_.ravel()
    np.testing.assert_allclose(raw, sk, rtol=1e-4, atol=1e-5)


def test_bt_consistent_when_homogeneous():
    # correctly specified logit: the MLE recovers beta_bar itself, scale included
    d = _homogeneous(40000, seed=6)
    raw = bradley_terry(d.delta_x, d.y, normalize=False)
    np.testing.assert_allclose(raw, BETA_BAR_5, atol=0.05)


# ----------------------------------------------------------------------------- EM panel baseline
def test_em_recovers_mean_of_well_specified_mixture():
    d = sample_preferences(8000, n_users=400, rng=7, **preset("two"))
    theta, (pi, betas) = em_mixture_logit(d.delta_x, d.y, d.user_ids, n_types=2, seed=0,
                                          return_params=True)
    assert angle_deg(theta, d.user_betas.mean(0)) < 6.0
    assert np.isclose(pi.sum(), 1.0) and betas.shape == (2, 5)


# ----------------------------------------------------------------------------- metrics
def test_angle_and_disagreement():
    assert np.isclose(angle_deg([1, 0], [0, 2]), 90.0)
    assert angle_deg([1, 1], [2, 2]) < 1e-5
    x = np.random.default_rng(0).standard_normal((200000, 2))
    # isotropic features: disagreement = angle / 180 degrees
    assert abs(disagreement([1, 0], [1, 1], x) - 0.25) < 0.01


# ----------------------------------------------------------------------------- generator
def test_generator_mean_direction():
    for name in ("two", "two-asym", "gauss", "homogeneous"):
        kw = preset(name)
        d = sample_preferences(50, rng=0, **kw)
        np.testing.assert_allclose(d.beta_bar, BETA_BAR_5, atol=1e-12)
        np.testing.assert_allclose(d.direction, BETA_BAR_5 / np.linalg.norm(BETA_BAR_5), atol=1e-12)
    # the users' tastes average to beta_bar
    d = sample_preferences(200000, rng=1, **preset("gauss"))
    np.testing.assert_allclose(d.user_betas.mean(0), BETA_BAR_5, atol=0.03)
    d = sample_preferences(200000, rng=1, **preset("two-asym"))
    np.testing.assert_allclose(d.user_betas.mean(0), BETA_BAR_5, atol=0.05)


def test_generator_labels_panel_and_determinism():
    d = _homogeneous(1000, noise="none")
    np.testing.assert_array_equal(d.y, (d.delta_x @ BETA_BAR_5 > 0).astype(float))
    p = sample_preferences(1000, n_users=30, rng=3, **preset("two"))
    assert p.user_ids.shape == (1000,) and p.user_ids.max() < 30 and p.user_betas.shape == (30, 5)
    q = sample_preferences(1000, n_users=30, rng=3, **preset("two"))
    np.testing.assert_array_equal(p.y, q.y)
    # gumbel shocks on both alternatives give the logistic law of the difference
    g = _homogeneous(200000, noise="gumbel", seed=8).y.mean()
    lg = _homogeneous(200000, noise="logistic", seed=9).y.mean()
    assert abs(g - lg) < 0.01
    corr = sample_preferences(100000, rng=0, **preset("two")).delta_x
    assert abs(np.corrcoef(corr[:, 0], corr[:, 2])[0, 1] - 1 / np.sqrt(2)) < 0.02


def test_generator_validation():
    with pytest.raises(ValueError, match="n must"):
        sample_preferences(0, **preset("two"))
    with pytest.raises(ValueError, match="types"):
        sample_preferences(10, heterogeneity="mixture")
    with pytest.raises(ValueError, match="weights"):
        sample_preferences(10, heterogeneity="mixture", types=np.eye(2), weights=np.array([0.2, 0.2]))
    with pytest.raises(ValueError, match="beta_bar"):
        sample_preferences(10, heterogeneity="gaussian", cov=np.ones(2))
    with pytest.raises(ValueError, match="cov"):
        sample_preferences(10, heterogeneity="gaussian", beta_bar=np.ones(2), cov=np.ones(3))
    with pytest.raises(ValueError, match="noise"):
        sample_preferences(10, heterogeneity="none", beta_bar=np.ones(2), noise="cauchy")
    with pytest.raises(ValueError, match="design"):
        sample_preferences(10, heterogeneity="none", beta_bar=np.ones(2), design="weird")
    with pytest.raises(ValueError, match="beta_bar"):
        sample_preferences(10, heterogeneity="none", beta_bar=np.zeros(2))


# ----------------------------------------------------------------------------- validation
@pytest.mark.parametrize("fn", [sign_estimator, bradley_terry])
def test_input_validation(fn):
    x = np.random.default_rng(0).standard_normal((20, 3))
    y = (x[:, 0] > 0).astype(float)
    with pytest.raises(ValueError, match="delta_x"):
        fn(x[:, 0], y)
    with pytest.raises(ValueError, match="delta_x"):
        fn(np.zeros((0, 3)), np.zeros(0))
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="delta_x"):
        fn(bad, y)
    bad[3, 1] = np.inf
    with pytest.raises(ValueError, match="delta_x"):
        fn(bad, y)
    with pytest.raises(ValueError, match="y"):
        fn(x, y[:-1])
    with pytest.raises(ValueError, match="y"):
        fn(x, 2 * y - 1)                     # labels in {-1, 1}
    y_nan = y.copy()
    y_nan[0] = np.nan
    with pytest.raises(ValueError, match="y"):
        fn(x, y_nan)


def test_hyperparameter_validation():
    x = np.random.default_rng(0).standard_normal((20, 3))
    y = (x[:, 0] > 0).astype(float)
    with pytest.raises(ValueError, match="taus"):
        sign_estimator(x, y, taus=(0.5, -1.0))
    with pytest.raises(ValueError, match="n_starts"):
        sign_estimator(x, y, n_starts=-1)
    with pytest.raises(ValueError, match="tau"):
        sign_loss(np.ones(3), x, y, tau=0.0)
    with pytest.raises(ValueError, match="theta"):
        sign_loss(np.zeros(3), x, y)
    with pytest.raises(ValueError, match="l2"):
        bradley_terry(x, y, l2=-1.0)
    with pytest.raises(ValueError, match="user_ids"):
        em_mixture_logit(x, y, np.arange(5))


def test_issue14_bad_inputs_are_refused_with_the_argument_named():
    from icml26.alignment.sign_estimator.method import EXAMPLES

    x = np.random.default_rng(0).normal(size=(50, 3))
    x_nan = x.copy()
    x_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="delta_x"):   # used to return a share of 0.005
        disagreement(np.ones(3), np.ones(3), x_nan)
    y = (x[:, 0] > 0).astype(float)
    with pytest.raises(ValueError, match="delta_x"):   # used to blame the labels
        bradley_terry(x * 1e200, y)
    with pytest.raises(TypeError, match="n_starts"):
        sign_estimator(x, y, n_starts=1.5)
    for fn, kwargs in EXAMPLES():
        fn(**kwargs)


def test_gauss_preset_in_higher_dimension_has_the_same_mean_direction():
    kw = preset("gauss", d=20)
    assert kw["beta_bar"].shape == (20,) and np.allclose(kw["beta_bar"][:5], BETA_BAR_5)
    data = sample_preferences(200, rng=0, **kw)
    assert data.delta_x.shape == (200, 20)
    with pytest.raises(ValueError, match="d"):
        preset("two", d=7)


def test_em_with_four_types_runs_on_two_type_panel():
    kw = preset("two")
    pan = sample_preferences(2000, rng=1, n_users=400, **kw)
    th = em_mixture_logit(pan.delta_x, pan.y, pan.user_ids, n_types=4, n_iter=10, seed=0)
    assert th.shape == (5,) and abs(np.linalg.norm(th) - 1) < 1e-12
