"""Known-answer tests for fdiv-rlhf (arXiv:2605.06977): closed-form optimum, sampler, MLE, loop."""

import dataclasses

import numpy as np
import pytest

from icml26.alignment.fdiv_rlhf.method import (divergence, exploration_bonus, fit_linear_bt, objective,
                                               online_rlhf, optimal_policy, sensitivity_sampler,
                                               suboptimality)

DIVS = [("reverse_kl", None), ("forward_kl", None), ("chi2", None), ("js", None), ("alpha", 0.5)]


@pytest.fixture
def rng():
    return np.random.default_rng(7)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name,alpha", DIVS)
def test_closed_form_maximises_objective(name, alpha, rng):
    from scipy.optimize import minimize

    dv = divergence(name, alpha)
    K, eta = 6, 2.0
    r, pi0 = rng.normal(size=K), rng.dirichlet(3 * np.ones(K))
    pi, lam = optimal_policy(r, pi0, eta, dv)
    assert pi.sum() == pytest.approx(1.0) and np.all(pi >= 0)
    res = minimize(lambda p: -objective(np.maximum(p, 1e-12), r, pi0, eta, dv), pi0, method="SLSQP",
                   bounds=[(1e-12, 1.0)] * K, constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    assert np.max(np.abs(res.x - pi)) < 1e-5
    assert objective(pi, r, pi0, eta, dv) >= -res.fun - 1e-9
    # stationarity: f'(pi / pi0) = eta (r - lambda) on the support
    on = pi > 1e-9
    assert np.allclose(dv.fprime(pi[on] / pi0[on]), eta * (r[on] - lam), atol=1e-6)


@pytest.mark.parametrize("name,alpha", DIVS)
def test_f_normalised_and_h_inverts_fprime(name, alpha):
    dv = divergence(name, alpha)
    assert float(dv.f(np.array(1.0))) == pytest.approx(0.0, abs=1e-12)
    u = np.array([0.3, 0.8, 1.0, 1.7, 2.5])
    assert np.allclose(dv.h(dv.fprime(u)), u)
    v = dv.fprime(u)
    eps = 1e-6
    assert np.allclose((dv.h(v + eps) - dv.h(v - eps)) / (2 * eps), dv.hprime(v), rtol=1e-5)


def test_reverse_kl_is_softmax_and_chi2_is_sparse(rng):
    r, pi0 = rng.normal(size=8), np.full(8, 1 / 8)
    pi, _ = optimal_policy(r, pi0, 3.0, divergence("reverse_kl"))
    assert np.allclose(pi, np.exp(3 * r) / np.exp(3 * r).sum())
    pi2, _ = optimal_policy(5 * r, pi0, 3.0, divergence("chi2"))
    assert np.any(pi2 == 0)


def test_chi2_water_filling_matches_bisection(rng):
    dv = divergence("chi2")
    slow = dataclasses.replace(dv, name="chi2_bisect")
    R, P = 3 * rng.normal(size=(50, 10)), rng.dirichlet(np.ones(10), size=50)
    a, la = optimal_policy(R, P, 2.0, dv)
    b, lb = optimal_policy(R, P, 2.0, slow, n_iter=80)
    assert np.max(np.abs(a - b)) < 1e-12 and np.max(np.abs(la - lb)) < 1e-10


def test_sensitivity_sampler_special_cases(rng):
    r, pi0, eta = rng.normal(size=7), rng.dirichlet(np.ones(7)), 2.0
    kl = divergence("reverse_kl")
    assert np.allclose(sensitivity_sampler(r, pi0, eta, kl), optimal_policy(r, pi0, eta, kl)[0])
    chi = divergence("chi2")
    pi, _ = optimal_policy(4 * r, pi0, eta, chi)
    st = sensitivity_sampler(4 * r, pi0, eta, chi)
    on = pi > 0
    assert np.allclose(st[on], pi0[on] / pi0[on].sum()) and np.all(st[~on] == 0)


def test_sensitivity_is_policy_derivative(rng):
    """d pi_r(a) / d r(a) at fixed lambda is eta pi0(a) h'(.), the weight Alg. 2 samples by."""
    dv = divergence("forward_kl")
    r, pi0, eta = rng.normal(size=5), rng.dirichlet(np.ones(5)), 1.5
    _, lam = optimal_policy(r, pi0, eta, dv)
    eps = 1e-6
    fd = (pi0 * dv.h(eta * (r + eps - lam)) - pi0 * dv.h(eta * (r - eps - lam))) / (2 * eps)
    w = eta * pi0 * dv.hprime(eta * (r - lam))
    assert np.allclose(fd, w, rtol=1e-5)
    assert np.allclose(sensitivity_sampler(r, pi0, eta, dv), w / w.sum())


def test_logistic_mle_matches_sklearn(rng):
    from sklearn.linear_model import LogisticRegression

    X = rng.normal(size=(400, 4))
    y = (rng.random(400) < 1 / (1 + np.exp(-X @ np.array([1.0, -2.0, 0.5, 0.0])))).astype(float)
    ours = fit_linear_bt(X, y, lam=1.0)
    sk = LogisticRegression(C=1.0, fit_intercept=False, tol=1e-12, max_iter=1000).fit(X, y)
    assert np.allclose(ours, sk.coef_[0], atol=1e-6)


def test_bonus_closed_form(rng):
    phi = rng.normal(size=(3, 2))
    pi0 = np.array([0.5, 0.25, 0.25])
    b = exploration_bonus(phi, pi0, np.eye(2), beta=2.0)
    ref = pi0 @ phi
    assert np.allclose(b, 2 * np.linalg.norm(phi - ref, axis=1))


def test_suboptimality_zero_at_truth_and_positive_elsewhere(rng):
    r = rng.normal(size=(10, 5))
    pi0 = np.full((10, 5), 0.2)
    dv = divergence("js")
    assert suboptimality(r, r, pi0, 2.0, dv) == pytest.approx(0.0, abs=1e-10)
    assert suboptimality(r + rng.normal(size=r.shape), r, pi0, 2.0, dv) > 0


def test_online_loop_runs_and_uniform_regret_is_linear(rng):
    N, K, d = 20, 5, 3
    phi = rng.normal(size=(N, K, d)) / np.sqrt(d)
    out = online_rlhf(phi, np.array([1.5, -1.0, 0.5]), np.full((N, K), 1 / K), 2.0, divergence("chi2"), 120,
                      np.random.default_rng(0), checkpoints=(60, 120))
    assert set(out) == {"optimism", "sensitivity", "passive", "greedy", "uniform"}
    for v in out.values():
        assert v["regret"].shape == (120,) and np.all(v["regret"] >= -1e-9)
        assert v["subopt"].shape == (2,)
    assert np.cumsum(out["uniform"]["regret"])[-1] > np.cumsum(out["optimism"]["regret"])[-1]


def test_validation():
    with pytest.raises(ValueError, match="unknown divergence"):
        divergence("hellinger2")
    with pytest.raises(ValueError, match="alpha"):
        divergence("alpha", 1.5)
    with pytest.raises(ValueError, match="eta"):
        optimal_policy(np.zeros(3), np.full(3, 1 / 3), -1.0, divergence("chi2"))
    with pytest.raises(ValueError, match="pi0"):
        optimal_policy(np.zeros(3), np.array([0.5, 0.5, 0.0]), 1.0, divergence("chi2"))
    with pytest.raises(ValueError, match="NaN"):
        optimal_policy(np.array([np.nan, 0.0]), np.full(2, 0.5), 1.0, divergence("chi2"))
    with pytest.raises(ValueError, match="labels"):
        fit_linear_bt(np.zeros((2, 2)), np.array([0.0, 2.0]))
    with pytest.raises(ValueError, match="lam"):
        fit_linear_bt(np.zeros((2, 2)), np.array([0.0, 1.0]), lam=0.0)
    with pytest.raises(ValueError, match="samplers"):
        online_rlhf(np.zeros((2, 3, 2)), np.ones(2), np.full((2, 3), 1 / 3), 1.0, divergence("chi2"), 5,
                    np.random.default_rng(0), samplers=("thompson",))
    with pytest.raises(ValueError, match="Sigma_inv"):
        exploration_bonus(np.zeros((3, 2)), np.full(3, 1 / 3), np.eye(3), 1.0)


def test_safeguarded_newton_matches_bisection_to_machine_precision(rng):
    """The root finder for lambda agrees with plain bisection (64 halvings) for every smooth f."""
    r, pi0 = rng.normal(size=(7, 9)), rng.dirichlet(2 * np.ones(9), size=7)
    for name, alpha in [("forward_kl", None), ("js", None), ("alpha", 0.3)]:
        dv = divergence(name, alpha)
        pi, lam = optimal_policy(r, pi0, 1.5, dv)
        c = float(dv.fprime(np.array(1.0)))
        lo, hi = r.min(axis=1) - c / 1.5, r.max(axis=1) - c / 1.5
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            big = np.sum(pi0 * dv.h(1.5 * (r - mid[:, None])), axis=1) > 1
            lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
        assert np.allclose(lam, hi, atol=1e-10)


def test_reference_policy_poor_coverage_and_concentrability():
    from icml26.alignment.fdiv_rlhf.setting import concentrability, linear_dueling_bandit, reference_policy

    phi, theta = linear_dueling_bandit(np.random.default_rng(1), 30, 10, 4, 2.0)
    r = phi @ theta
    p_uni, p_poor = reference_policy(r, "uniform"), reference_policy(r, "poor", top=3, top_mass=0.06)
    assert np.allclose(p_poor.sum(axis=1), 1.0)
    best = np.argsort(-r, axis=1)[:, :3]
    assert np.allclose(np.take_along_axis(p_poor, best, axis=1), 0.02)
    dv = divergence("reverse_kl")
    c_uni = concentrability(optimal_policy(r, p_uni, 2.0, dv)[0], p_uni)
    c_poor = concentrability(optimal_policy(r, p_poor, 2.0, dv)[0], p_poor)
    assert c_poor > c_uni >= 1.0


def test_controls_differ_only_in_how_responses_are_drawn(rng):
    """passive = optimism with beta = 0, so the two give the same run when beta = 0."""
    N, K, d = 15, 5, 3
    phi = rng.normal(size=(N, K, d)) / np.sqrt(d)
    th = np.array([1.0, -0.5, 0.3])
    p0 = np.full((N, K), 1 / K)
    a = online_rlhf(phi, th, p0, 2.0, divergence("reverse_kl"), 40, np.random.default_rng(3),
                    samplers=("optimism",), beta=0.0)
    b = online_rlhf(phi, th, p0, 2.0, divergence("reverse_kl"), 40, np.random.default_rng(3),
                    samplers=("passive",), beta=0.0)
    assert np.allclose(a["optimism"]["regret"], b["passive"]["regret"])
