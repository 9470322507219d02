"""Unit tests for ESE (arXiv:2606.13285): known answers, invariances and input validation."""

import numpy as np
import pytest

from icml26.decision.ese.method import (ar_fit, ar_total_forecast, df_pvalues, ese_forecast,
                                        ese_predict, estimate_equilibrium, fit_influence,
                                        initial_equilibrium, normalise_attributes, proportions)


def test_proportions_sum_to_one_and_total():
    S = np.array([[1.0, 3.0], [2.0, 2.0]])
    MS, g = proportions(S)
    np.testing.assert_allclose(MS, [4.0, 4.0])
    np.testing.assert_allclose(g, [[0.25, 0.75], [0.5, 0.5]])


@pytest.mark.parametrize("bad", [np.array([1.0, 2.0]), np.array([[1.0, -1.0]]), np.array([[1.0, np.nan]])])
def test_proportions_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        proportions(bad)


def test_normalise_attributes_centres_and_scales():
    A = np.array([[[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]]])  # (1, 3, 2); second attribute constant
    An = normalise_attributes(A)
    np.testing.assert_allclose(An[0, :, 0], [-0.5, 0.0, 0.5])
    np.testing.assert_allclose(An[0, :, 1], 0.0)
    An2 = normalise_attributes(A, lower=np.array([0.0, 0.0]), upper=np.array([8.0, 10.0]))
    np.testing.assert_allclose(An2[0, :, 0], [-0.25, 0.0, 0.25])
    with pytest.raises(ValueError, match="lower/upper"):
        normalise_attributes(A, lower=np.zeros(3), upper=np.ones(3))


def test_fit_influence_recovers_psi_without_noise():
    rng = np.random.default_rng(0)
    p, n, m = 30, 8, 3
    An = normalise_attributes(rng.normal(size=(p, n, m)))
    psi = np.array([0.2, -0.1, 0.05])
    gamma = 1.0 / n + An @ psi / m
    np.testing.assert_allclose(fit_influence(gamma, An), psi, atol=1e-10)
    np.testing.assert_allclose(initial_equilibrium(An[-1], psi), gamma[-1])
    with pytest.raises(ValueError):
        fit_influence(gamma[:, :-1], An)


def test_df_pvalues_match_statsmodels():
    from statsmodels.tsa.stattools import adfuller

    rng = np.random.default_rng(1)
    d = np.column_stack([np.cumsum(rng.normal(size=60)), rng.normal(size=60), 0.5 * rng.normal(size=60)])
    for lags in (0, 1, 2):
        ours = df_pvalues(d, lags=lags)
        ref = [adfuller(d[:, i], maxlag=lags, regression="n", autolag=None, result_object=False)[1] for i in range(3)]
        np.testing.assert_allclose(ours, ref, rtol=1e-6)
    with pytest.raises(ValueError, match="lags"):
        df_pvalues(d, lags=-1)


def _window(seed=0, p=50, n=6, m=3):
    rng = np.random.default_rng(seed)
    A = np.cumsum(0.05 * rng.normal(size=(p, n, m)), axis=0) + rng.normal(size=(1, n, m))
    g = rng.dirichlet(np.full(n, 20.0), size=p)
    return g, A


def test_share_reading_with_r1_follows_closed_form_and_tends_to_current_share():
    g, A = _window()
    eq0 = estimate_equilibrium(g, A, max_iter=0, alpha=1e-300)
    assert eq0.n_iter == 0 and not eq0.converged
    for j in (1, 3, 6):
        eq = estimate_equilibrium(g, A, max_iter=j, alpha=1e-300, lam=0.5, correction="share", recent=1)
        expected = g[-1] + 0.5 ** j * (eq0.ES - g[-1])  # no clipping: both points lie in the simplex
        np.testing.assert_allclose(eq.ES, expected, atol=1e-12)
        assert eq.n_iter == j and not eq.converged
    assert np.isclose(eq.ES.sum(), 1.0) and np.all(eq.ES >= 0)


def test_residual_reading_follows_closed_form():
    """L_j = mean residual - (ES_j - ES0), so ES_j = ES0 + (1 - (1 - lam)^j) * mean residual at ES0."""
    g, A = _window(7)
    eq0 = estimate_equilibrium(g, A, max_iter=0, alpha=1e-300)
    An = normalise_attributes(A)
    drift = (An - An[-1]) @ eq0.psi / A.shape[-1]
    mean_resid = (g - (eq0.ES + drift)).mean(axis=0)
    assert abs(mean_resid.sum()) < 1e-12               # shares and the path both sum to one
    for lam, j in ((0.5, 1), (0.5, 4), (0.3, 5)):
        eq = estimate_equilibrium(g, A, max_iter=j, alpha=1e-300, lam=lam)
        np.testing.assert_allclose(eq.ES, eq0.ES + (1 - (1 - lam) ** j) * mean_resid, atol=1e-12)


def test_equilibrium_stops_at_first_rejection():
    g, A = _window(2)
    eq = estimate_equilibrium(g, A, alpha=0.999999)
    assert eq.converged and eq.n_iter == 0


def test_zero_attributes_give_uniform_start():
    g, A = _window(3)
    eq = estimate_equilibrium(g, np.zeros_like(A), max_iter=0, alpha=1e-300)
    np.testing.assert_allclose(eq.psi, 0.0)
    np.testing.assert_allclose(eq.ES, np.full(g.shape[1], 1.0 / g.shape[1]))


@pytest.mark.parametrize("kw", [dict(lam=0.0), dict(lam=1.5), dict(max_iter=-1), dict(alpha=1.0),
                                dict(recent=0), dict(recent=1000), dict(max_iter=float("nan")),
                                dict(max_iter=float("inf")), dict(correction="other")])
def test_estimate_equilibrium_validates(kw):
    g, A = _window()
    with pytest.raises((ValueError, TypeError), match=next(iter(kw))):
        estimate_equilibrium(g, A, **kw)


def test_ar_fit_recovers_ar2():
    rng = np.random.default_rng(4)
    y = np.zeros(20000)
    for t in range(2, y.size):
        y[t] = 1.0 + 0.5 * y[t - 1] - 0.2 * y[t - 2] + rng.normal()
    coef = ar_fit(y, q=2)
    np.testing.assert_allclose(coef, [1.0, 0.5, -0.2], atol=0.03)
    assert ar_total_forecast(np.array([1.0, 0.5]), np.array([4.0]), h=2) == pytest.approx(1 + 0.5 * 3.0)
    with pytest.raises(ValueError):
        ar_fit(y[:3], q=2)


def test_ese_predict_and_forecast_shapes():
    ES = np.array([0.2, 0.8])
    np.testing.assert_allclose(ese_predict(10.0, ES), [2.0, 8.0])
    np.testing.assert_allclose(ese_predict(np.array([1.0, 2.0]), np.stack([ES, ES])), [[0.2, 0.8], [0.4, 1.6]])
    g, A = _window(5, p=70)
    S = 3.0 * g
    pred, eqs = ese_forecast(S, A, np.array([60, 69]), np.array([3.0, 3.0]), window=50)
    assert pred.shape == (2, g.shape[1]) and len(eqs) == 2
    np.testing.assert_allclose(pred.sum(axis=1), 3.0)
    with pytest.raises(ValueError, match="window"):
        ese_forecast(S, A, np.array([10]), np.array([3.0]), window=50)


def test_bad_inputs_found_by_the_review_are_refused():
    """Issue 14: NaN bounds, NaN totals and empty AR coefficients raise errors naming the argument."""
    A = np.random.default_rng(0).normal(size=(3, 4, 2))
    with pytest.raises(ValueError, match="lower"):
        normalise_attributes(A, lower=np.array([np.nan, 0.0]), upper=np.ones(2))
    with pytest.raises(ValueError, match="history"):
        ar_total_forecast(np.array([0.0, 0.5]), np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="coef"):
        ar_total_forecast(np.array([]), np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="MS_hat"):
        ese_predict(np.nan, np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="psi"):
        initial_equilibrium(np.zeros((4, 2)), np.array([np.nan, 0.0]))


def test_generator_follows_the_linear_equilibrium_model():
    """With kappa = 1 and no share noise the shares equal 1/n + A'psi/m exactly, so ES0 recovers them."""
    from icml26.decision.ese.setting import generate

    S, A = generate(8, 3, 120, np.random.default_rng(3), kappa=1.0, sigma_share=0.0)
    _, g = proportions(S)
    eq = estimate_equilibrium(g[60:110], A[60:110], max_iter=0, alpha=1e-300)
    An = normalise_attributes(A)                        # the generator normalises over all T
    np.testing.assert_allclose(g[1:].sum(axis=1), 1.0)
    assert np.all(g > 0) and np.all(np.abs(An) <= 1.0)
    # ES0 uses the window's own normalisation: the fit is exact up to that rescaling, so its error is tiny
    assert np.max(np.abs(eq.ES - g[110])) < 0.02


def test_hidden_attribute_makes_es0_miss_a_level_that_the_refinement_recovers():
    """A static hidden attribute shifts each system's equilibrium by a constant the observed attributes
    cannot explain: ES0 misses it, and the level refinement run to its cap (alpha tiny, so the test
    never stops it) recovers the current share, since the gap is constant over the window."""
    from icml26.decision.ese.setting import generate

    n = 40
    S, A = generate(n, 3, 120, np.random.default_rng(3), kappa=1.0, sigma_share=0.0, hidden=1, hidden_weight=0.4)
    assert A.shape == (120, n, 3)                       # the hidden attribute is not returned
    _, g = proportions(S)
    np.testing.assert_allclose(g.sum(axis=1), 1.0)
    es0 = estimate_equilibrium(g[60:110], A[60:110], max_iter=0, alpha=1e-300)
    ref = estimate_equilibrium(g[60:110], A[60:110], max_iter=60, alpha=1e-300)
    err0, err = n * np.max(np.abs(es0.ES - g[109])), n * np.max(np.abs(ref.ES - g[109]))
    assert err0 > 0.05 and err < err0 / 5
    # without the hidden attribute the same generator is fitted almost exactly by ES0
    S, A = generate(n, 3, 120, np.random.default_rng(3), kappa=1.0, sigma_share=0.0)
    _, g = proportions(S)
    assert n * np.max(np.abs(estimate_equilibrium(g[60:110], A[60:110], max_iter=0).ES - g[109])) < err0 / 5


@pytest.mark.parametrize("kw", [{"hidden": 1, "hidden_weight": 0.0}, {"hidden": 0, "hidden_weight": 0.2},
                                {"hidden": 1, "hidden_weight": 1.0}, {"hidden": -1, "hidden_weight": 0.0}])
def test_generator_rejects_inconsistent_hidden_attributes(kw):
    from icml26.decision.ese.setting import generate

    with pytest.raises(ValueError, match="hidden"):
        generate(5, 2, 40, 0, **kw)


# ----------------------------------------------------------------------------- the deviation reading (issue 15)
def test_reversion_rate_recovers_an_error_correction_rate_exactly():
    from icml26.decision.ese.method import reversion_rate

    rng = np.random.default_rng(3)
    p, n, kappa = 40, 5, 0.3
    path = rng.dirichlet(np.ones(n), size=p)          # any equilibrium path
    g = np.empty((p, n))
    g[0] = rng.dirichlet(np.ones(n))
    for t in range(p - 1):                            # noiseless error correction
        g[t + 1] = g[t] + kappa * (path[t] - g[t])
    assert reversion_rate(g, path) == pytest.approx(kappa, abs=1e-12)
    # clipped to [0, 1]; a gap that never varies gives 0
    assert reversion_rate(g, 2 * g - path) == 0.0        # shares move away from the "equilibrium"
    assert reversion_rate(np.tile(g[:1], (p, 1)), np.tile(g[:1], (p, 1))) == 0.0
    with pytest.raises(ValueError, match="path"):
        reversion_rate(g, path[:-1])
    with pytest.raises(ValueError, match="2 time points"):
        reversion_rate(g[:1], path[:1])


def test_deviation_shares_interpolate_between_last_share_and_equilibrium():
    from icml26.decision.ese.method import deviation_shares

    g, es = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(deviation_shares(g, es, 0.0), g)
    np.testing.assert_allclose(deviation_shares(g, es, 1.0), es)
    np.testing.assert_allclose(deviation_shares(g, es, 0.5), [0.35, 0.3, 0.35])
    np.testing.assert_allclose(deviation_shares(g, es, 0.5, h=2), g + 0.75 * (es - g))  # 1 - (1 - k)^h
    both = deviation_shares(np.stack([g, es]), np.stack([es, g]), np.array([1.0, 0.0]))
    np.testing.assert_allclose(both, [es, es])
    assert deviation_shares(g, es, 0.3).sum() == pytest.approx(1.0)
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="kappa"):
            deviation_shares(g, es, bad)
    with pytest.raises(ValueError, match="ES"):
        deviation_shares(g, es[:2], 0.5)


def test_deviation_forecast_is_the_equilibrium_forecast_moved_from_the_last_share():
    from icml26.decision.ese.method import deviation_shares, equilibrium_path, reversion_rate
    from icml26.decision.ese.setting import generate

    S, A = generate(6, 3, 120, np.random.default_rng(4), kappa=0.5)
    origins, ms = np.array([70, 90]), np.array([3.0, 4.0])
    pred_eq, eqs = ese_forecast(S, A, origins, ms, window=50)
    pred_dev, eqs_dev = ese_forecast(S, A, origins, ms, window=50, predictor="deviation")
    gamma = S / S.sum(axis=1, keepdims=True)
    for k, (t, e) in enumerate(zip(origins, eqs_dev)):
        assert np.array_equal(e.ES, eqs[k].ES) and 0.0 <= e.kappa <= 1.0
        kap = reversion_rate(gamma[t - 49:t + 1], equilibrium_path(e, A[t - 49:t + 1]))
        assert e.kappa == kap
        np.testing.assert_allclose(pred_dev[k], ms[k] * deviation_shares(gamma[t], e.ES, kap))
        assert pred_dev[k].sum() == pytest.approx(ms[k]) and pred_eq[k].sum() == pytest.approx(ms[k])
    assert np.isnan(eqs[0].kappa)
    with pytest.raises(ValueError, match="predictor"):
        ese_forecast(S, A, origins, ms, window=50, predictor="ecm")


def test_equilibrium_path_names_a_wrong_eq():
    from icml26.decision.ese.method import equilibrium_path

    with pytest.raises(TypeError, match="eq"):
        equilibrium_path("x", np.zeros((5, 3, 2)))


# ----------------------------------------------------------------------------- the moving regime (issue 15, fifth session)
@pytest.mark.parametrize("phi", [1.0, 0.9])
def test_returned_equilibrium_is_the_linear_formula_and_drives_the_shares(phi):
    """Known answer: without hidden attributes pi = 1/n + A'psi/m exactly (a least-squares fit of
    pi - 1/n on the generator's own normalisation has zero residual), and with kappa = 1 and no share
    noise the next share is pi_t. Returning pi changes neither S nor A."""
    from icml26.decision.ese.setting import generate

    n, m, T = 7, 3, 90
    kw = dict(kappa=1.0, sigma_share=0.0, attr_phi=phi, sigma_attr=0.3)
    S, A, pi = generate(n, m, T, np.random.default_rng(5), return_equilibrium=True, **kw)
    S2, A2 = generate(n, m, T, np.random.default_rng(5), **kw)
    np.testing.assert_array_equal(S, S2)
    np.testing.assert_array_equal(A, A2)
    _, g = proportions(S)
    np.testing.assert_allclose(g[1:], pi[:-1], atol=1e-12)
    np.testing.assert_allclose(pi.sum(axis=1), 1.0)
    An = normalise_attributes(A)
    psi = fit_influence(pi, An)
    np.testing.assert_allclose(1.0 / n + An @ psi / m, pi, atol=1e-12)


def test_random_walk_default_is_unchanged_and_ar_attributes_follow_their_recursion():
    from icml26.decision.ese.setting import generate

    a = generate(6, 2, 60, np.random.default_rng(2), sigma_attr=0.1)
    b = generate(6, 2, 60, np.random.default_rng(2), sigma_attr=0.1, attr_phi=1.0)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # attr_phi < 1 with no attribute noise: A_t - A_0 = phi^t (A_0 - A_0) = 0, so the attributes stay put
    _, A = generate(6, 2, 60, np.random.default_rng(2), sigma_attr=0.0, attr_phi=0.5)
    np.testing.assert_array_equal(A, np.broadcast_to(A[0], A.shape))
    # the recursion, read back from the draws: A_t - A_0 = phi (A_{t-1} - A_0) + sigma eps with eps ~ N(0, 1)
    _, A = generate(50, 2, 400, np.random.default_rng(2), sigma_attr=0.2, attr_phi=0.8)
    d = A - A[0]
    eps = (d[1:] - 0.8 * d[:-1]) / 0.2
    assert abs(eps.std() - 1.0) < 0.02 and abs(eps.mean()) < 0.02
    with pytest.raises(ValueError, match="attr_phi"):
        generate(5, 2, 40, 0, attr_phi=1.5)


def test_premise_metrics_known_answer():
    """A constant equilibrium has no within-window variance; one that alternates +-d around a fixed
    point has variance d^2 per system, and the noise variance is mean (sigma gamma)^2."""
    from icml26.decision.ese.experiment import premise

    T, n, W, sig = 30, 4, 10, 0.1
    gamma = np.full((T, n), 1.0 / n)
    pi = np.full((T, n), 1.0 / n)
    origins = np.array([15, 20])
    out = premise(gamma, pi, origins, W, sig)
    assert out["premise/eq_var_ratio"] == 0.0
    assert out["premise/rmse_meanshare_vs_eq"] == 0.0
    d = 0.01
    sign = np.where(np.arange(T) % 2 == 0, 1.0, -1.0)[:, None] * np.array([1.0, -1.0, 1.0, -1.0])
    pi = 1.0 / n + d * sign
    out = premise(gamma, pi, origins, W, sig, {"last": gamma[origins]})
    np.testing.assert_allclose(out["premise/noise_sd"], sig / n)
    np.testing.assert_allclose(out["premise/eq_var_ratio"], d ** 2 / (sig / n) ** 2)
    np.testing.assert_allclose(out["premise/rmse_meanshare_vs_eq"], d)     # window mean = 1/n, pi_t = 1/n +- d
    np.testing.assert_allclose(out["premise/rmse_meaneq_vs_eq"], d)
    np.testing.assert_allclose(out["premise/rmse_last_vs_eq"], d)


def test_moving_regime_meets_its_premise_and_the_slow_one_does_not():
    """The pre-registered premise on one dev seed (>= 100): the moving regime's equilibrium varies within
    a window by at least the share-noise variance, the slow regime's by a small fraction of it."""
    from icml26.decision.ese import PAPER, PREMISE_K
    from icml26.decision.ese.experiment import premise
    from icml26.decision.ese.setting import generate

    prof = PAPER.profile("full")
    base = dict(sigma_attr=prof["sigma_attr"], sigma_share=prof["sigma_share"], hidden=prof["hidden"],
                hidden_weight=prof["hidden_weight"])
    mv = {**base, **{k: v for k, v in prof["moving"].items() if k != "n_systems"}}
    ratios = {}
    for name, kw in (("slow", base), ("moving", mv)):
        S, _, pi = generate(10, prof["m"], prof["T"], np.random.default_rng(100), kappa=0.8, return_equilibrium=True,
                            **kw)
        _, g = proportions(S)
        ratios[name] = premise(g, pi, np.arange(449, 499), prof["window"], prof["sigma_share"])["premise/eq_var_ratio"]
    assert ratios["moving"] >= PREMISE_K > 3 * ratios["slow"]


def test_premise_rejects_bad_input():
    import pytest

    from icml26.decision.ese.experiment import premise

    g = np.full((20, 3), 1 / 3)
    o = np.arange(9, 19)
    with pytest.raises(ValueError, match="gamma and pi"):
        premise(g, g[:, :2], o, 10, 0.02)
    with pytest.raises(ValueError, match="window"):
        premise(g, g, o, 0, 0.02)
    with pytest.raises(ValueError, match="sigma_share"):
        premise(g, g, o, 10, -1.0)
    with pytest.raises(ValueError, match="origins"):
        premise(g, g, np.arange(3, 8), 10, 0.02)
    with pytest.raises(ValueError, match="origins"):
        premise(g, g, np.array([9.5]), 10, 0.02)
