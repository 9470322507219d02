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


def test_refinement_follows_closed_form_when_it_never_converges():
    g, A = _window()
    eq0 = estimate_equilibrium(g, A, max_iter=0, alpha=1e-300)
    assert eq0.n_iter == 0 and not eq0.converged
    for j in (1, 3, 6):
        eq = estimate_equilibrium(g, A, max_iter=j, alpha=1e-300, lam=0.5)
        expected = g[-1] + 0.5 ** j * (eq0.ES - g[-1])  # no clipping: both points lie in the simplex
        np.testing.assert_allclose(eq.ES, expected, atol=1e-12)
        assert eq.n_iter == j and not eq.converged
    assert np.isclose(eq.ES.sum(), 1.0) and np.all(eq.ES >= 0)


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
                                dict(recent=0), dict(recent=1000)])
def test_estimate_equilibrium_validates(kw):
    g, A = _window()
    with pytest.raises(ValueError):
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


def test_checks_fail_on_contradicted_metrics():
    from icml26.decision.ese import experiment as ex

    ms = []
    for s in range(3):
        m = {}
        for n in (10, 40):
            m.update({f"rmse_ese_n{n}": 0.9, f"rmse_arima_n{n}": 1.0, f"rmse_ridge_n{n}": 1.1,
                      f"rmse_arima+ese_n{n}": 0.95, f"rmse_ridge+ese_n{n}": 1.0,
                      f"converged_ese_n{n}": 0.8, f"converged_noattr_n{n}": 0.0})
        ms.append(m)
    for claim in ("as_accurate", "plug_in", "attributes_essential"):
        check = getattr(ex, f"check_{claim}")
        assert check(ms).status == "reproduced"
        assert check(getattr(ex, f"contradict_{claim}")(ms)).status != "reproduced"
