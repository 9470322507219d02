"""Unit tests for SkewD (arXiv:2511.14441): likelihood, penalties, HSIC, the CMA-ES + ECM fit, decisions."""

import numpy as np
import pytest
from scipy import stats

from icml26.decision.skewd.baselines import decide as _decide
from icml26.decision.skewd.setting import sample_pair
from icml26.decision.skewd.method import (
    difference_penalty, fit_lsnm, hsic, penalized_nll, select_penalties, skewd, sn_logpdf, spline_design)

FAST = dict(cma_population=20, cma_iters=40, ecm_max_iter=40, lambda_starts=(-5.0, 5.0))


def test_sn_logpdf_matches_scipy():
    y = np.linspace(-3, 4, 41)
    for lam in (0.0, -2.0, 5.0):
        ref = stats.skewnorm.logpdf(y, lam, loc=0.3, scale=1.7)
        np.testing.assert_allclose(sn_logpdf(y, 0.3, 1.7, lam), ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(sn_logpdf(y, 0.0, 1.0, 0.0), stats.norm.logpdf(y), atol=1e-12)


def test_difference_penalty_null_space():
    K = difference_penalty(8)
    assert K.shape == (8, 8)
    np.testing.assert_allclose(K @ np.ones(8), 0, atol=1e-12)          # constants are unpenalised
    np.testing.assert_allclose(K @ np.arange(8.0), 0, atol=1e-12)      # so are linear sequences
    v = np.arange(8.0) ** 2
    assert v @ K @ v > 0
    with pytest.raises(ValueError, match="p must exceed"):
        difference_penalty(2)


def test_spline_design_partition_of_unity():
    x = np.linspace(-2, 2, 50)
    B, _ = spline_design(x, 12)
    assert B.shape == (50, 14)
    np.testing.assert_allclose(B.sum(axis=1), 1.0, atol=1e-10)


def test_penalized_nll_batch_matches_rowwise():
    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = np.sin(x) + 0.3 * rng.normal(size=60)
    N, _ = spline_design(x, 6)
    Z, _ = spline_design(x, 4)
    K, M = difference_penalty(N.shape[1]), difference_penalty(Z.shape[1])
    theta = rng.normal(scale=0.3, size=(5, N.shape[1] + Z.shape[1] + 1))
    batch = penalized_nll(theta, y, N, Z, K, M, 0.7, 1.3)
    for i in range(5):
        b, r, lam = theta[i, :N.shape[1]], theta[i, N.shape[1]:-1], theta[i, -1]
        ll = stats.skewnorm.logpdf(y, lam, loc=N @ b, scale=np.exp(0.5 * Z @ r)).sum()
        ref = -ll + 0.35 * b @ K @ b + 0.65 * r @ M @ r
        assert batch[i] == pytest.approx(ref, rel=1e-9)
    # lambda omitted when skew=False equals lambda = 0
    th0 = theta.copy()
    th0[:, -1] = 0.0
    np.testing.assert_allclose(penalized_nll(theta[:, :-1], y, N, Z, K, M, 0.7, 1.3, skew=False),
                               penalized_nll(th0, y, N, Z, K, M, 0.7, 1.3))


def test_hsic_detects_dependence():
    rng = np.random.default_rng(1)
    a = rng.normal(size=200)
    indep = hsic(a, rng.normal(size=200))
    dep = hsic(a, a**2 + 0.1 * rng.normal(size=200))
    assert dep > 5 * indep
    assert hsic(a, a**2) == pytest.approx(hsic(a**2, a))


def test_fit_recovers_skew_and_improves_on_cma():
    rng = np.random.default_rng(2)
    x = rng.uniform(-2, 2, 500)
    y = np.tanh(x) + 0.3 * stats.skewnorm.rvs(6.0, size=500, random_state=rng)
    fit = fit_lsnm(x, y, 1.0, 1.0, skew=True, seed=0, **FAST)
    assert fit.nll_ecm <= fit.nll_cma + 1e-9
    assert fit.lam > 2.0                       # true shape 6; the sign and size are recovered
    # the scale of the noise, 0.3 * sd(SN(6)) ~ 0.18 ... fitted g is the SN scale 0.3
    assert 0.2 < np.median(fit.scale) < 0.45
    gfit = fit_lsnm(x, y, 1.0, 1.0, skew=False, seed=0, **FAST)
    assert gfit.lam == 0.0
    assert fit.loglik > gfit.loglik            # the skew model fits skewed noise better


def test_gaussian_fit_on_gaussian_noise_heteroscedastic_scale():
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, 600)
    g = 0.2 + 0.2 * (x + 2)
    y = x + g * rng.normal(size=600)
    fit = fit_lsnm(x, y, 1.0, 1.0, skew=False, seed=1, **FAST)
    # the estimated scale follows the true increasing scale
    assert np.corrcoef(fit.scale, g)[0, 1] > 0.9
    assert np.mean(np.abs(fit.mean - x)) < 0.15


def test_skewd_orients_clear_ls_pair_both_ways():
    # y = tanh(x) + g(x) N with increasing scale g and strongly right-skewed N
    rng = np.random.default_rng(0)
    x = rng.normal(size=300)
    y = np.tanh(x) + (0.1 + 0.1 * (x + 3)) * stats.skewnorm.rvs(10.0, size=300, random_state=rng)
    x, y = (x - x.mean()) / x.std(), (y - y.mean()) / y.std()
    fw = skewd(x, y, 0.1, 1.0, seed=0, **FAST)
    assert fw.indep_dir == 1 and fw.fit_xy.lam > 2.0
    assert skewd(y, x, 0.1, 1.0, seed=0, **FAST).indep_dir == 0


def test_sample_pair_shapes_and_ls_scale():
    rng = np.random.default_rng(5)
    x, y = sample_pair(100, "AN", -2.0, rng)
    assert x.shape == y.shape == (100,)
    with pytest.raises(ValueError, match="noise"):
        sample_pair(10, "XX", 0.0, rng)


def test_decide_ties():
    assert _decide(1.0, 0.0) == 1.0 and _decide(0.0, 1.0) == 0.0 and _decide(0.0, 0.0) == 0.5


def test_select_penalties_returns_grid_point():
    rng = np.random.default_rng(6)
    x = rng.normal(size=80)
    y = np.sin(x) + 0.2 * rng.normal(size=80)
    grid = [(0.1, 1.0), (10.0, 1.0)]
    assert select_penalties(x, y, grid, n_folds=2, cma_population=10, cma_iters=10) in grid


@pytest.mark.parametrize("bad", [
    dict(x=np.array([1.0, np.nan] * 10)),
    dict(x=np.ones((5, 5))),
    dict(x=np.arange(19.0)),
    dict(x=np.ones(20)),
    dict(alpha=-1.0),
    dict(kappa=0.0),
])
def test_fit_lsnm_validates_inputs(bad):
    kw = dict(x=np.linspace(0, 1, 20), y=np.linspace(0, 1, 20) ** 2, alpha=1.0, kappa=1.0)
    kw.update(bad)
    with pytest.raises(ValueError):
        fit_lsnm(kw.pop("x"), kw.pop("y"), **kw, **FAST)


def test_hsic_validates():
    with pytest.raises(ValueError, match="same length"):
        hsic(np.arange(5.0), np.arange(6.0))


# ----------------------------------------------------------------------------- baselines and validation
def test_igci_finds_the_cause_of_a_deterministic_monotone_map():
    from icml26.decision.skewd.baselines import igci

    rng = np.random.default_rng(3)
    x = rng.uniform(0, 1, 500)
    y = x ** 3  # deterministic, independent of p(x): IGCI's setting
    assert igci(x, y, "uniform") == 1.0
    assert igci(y, x, "uniform") == 0.0
    with pytest.raises(ValueError, match="reference"):
        igci(x, y, "laplace")


def test_cam_orients_additive_noise_with_a_nonlinear_mechanism():
    from icml26.decision.skewd.baselines import cam_pair

    rng = np.random.default_rng(4)
    x = rng.uniform(-2, 2, 400)
    y = np.sin(2 * x) * 2 + 0.1 * rng.normal(size=400)
    assert cam_pair(x, y) == 1.0
    assert cam_pair(y, x) == 0.0


def test_sample_pair_validates_and_is_seeded():
    a = sample_pair(50, "LS", 20.0, 7)
    b = sample_pair(50, "LS", 20.0, np.random.default_rng(7))
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="rng"):
        sample_pair(50, "LS", 20.0, -1)
    with pytest.raises(ValueError, match="shape"):
        sample_pair(50, "LS", 0.0, 1, law="AGN")
    with pytest.raises(ValueError, match="noise"):
        sample_pair(50, "XX", 1.0, 1)


def test_fit_refuses_huge_inputs_and_negative_seeds():
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    y = x + 0.1 * rng.normal(size=40)
    with pytest.raises(ValueError, match="x"):
        fit_lsnm(x * 1e200, y, cma_iters=1, cma_population=4, ecm_max_iter=0)
    with pytest.raises(ValueError, match="seed"):
        skewd(x, y, seed=-1, cma_iters=1, cma_population=4, ecm_max_iter=0)
    with pytest.raises(TypeError, match="cma_iters"):
        fit_lsnm(x, y, cma_iters=2.5)


# ----------------------------------------------------------------------------- fast paths against references
def test_rho_step_matches_bounded_lbfgsb():
    from scipy.optimize import minimize

    from icml26.decision.skewd.method import _rho_step, neg_q_rho

    rng = np.random.default_rng(11)
    x = rng.normal(size=300)
    Z, _ = spline_design(x, 5)
    M = difference_penalty(Z.shape[1])
    for _ in range(4):
        c = rng.gamma(1.0, size=300) * np.exp(Z @ rng.normal(size=Z.shape[1]))
        r0 = rng.normal(size=Z.shape[1])
        ours = _rho_step(r0, Z, c, M, 1.0, (-10.0, 5.0))
        ref = minimize(neg_q_rho, r0, args=(Z, c, M, 1.0), jac=True, method="L-BFGS-B",
                       bounds=[(-10.0, 5.0)] * Z.shape[1], options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-12}).x
        assert neg_q_rho(ours, Z, c, M, 1.0)[0] <= neg_q_rho(ref, Z, c, M, 1.0)[0] + 1e-8
        np.testing.assert_allclose(ours, ref, atol=1e-4)
    # an optimum outside the box: the bounded fallback keeps rho inside it
    c = np.full(300, 1e8)
    out = _rho_step(np.zeros(Z.shape[1]), Z, c, M, 1.0, (-10.0, 5.0))
    assert np.all(out <= 5.0 + 1e-12) and np.all(out >= -10.0 - 1e-12)


def test_rho_step_box_interior_path_is_bit_identical_to_the_projected_one():
    """Seventh session: inside the box _rho_step skips the free-set bookkeeping and reuses the
    exp(-Z rho) weights of the last evaluation for the Hessian; the iterate is bit for bit what the
    projected step (solve on the free coordinates, Hessian recomputed) gives."""
    from icml26.decision.skewd.method import _rho_step, neg_q_rho

    def reference(rho0, Z, c, M, kappa, lo, hi, max_newton=30, newton_tol=1e-12):
        r = np.clip(np.asarray(rho0, dtype=float), lo, hi)
        val, grad = neg_q_rho(r, Z, c, M, kappa)
        eye = 1e-10 * np.eye(r.size)
        for _ in range(max_newton):
            free = ~(((r <= lo) & (grad > 0)) | ((r >= hi) & (grad < 0)))
            if not free.any():
                return r
            Hs = (Z.T * (c * np.exp(-(Z @ r)))) @ Z + kappa * M + eye
            step = np.zeros_like(r)
            step[free] = np.linalg.solve(Hs[np.ix_(free, free)], grad[free])
            dec = float(grad[free] @ step[free])
            if dec < newton_tol:
                return r
            t = 1.0
            while t > 1e-10:
                cand = np.clip(r - t * step, lo, hi)
                v_c, g_c = neg_q_rho(cand, Z, c, M, kappa)
                if np.isfinite(v_c) and v_c <= val - 1e-4 * float(grad @ (r - cand)):
                    break
                t *= 0.5
            else:
                return r
            r, val, grad = cand, v_c, g_c
        return None

    rng = np.random.default_rng(21)
    x = rng.normal(size=400)
    Z, _ = spline_design(x, 5)
    M = difference_penalty(Z.shape[1])
    for scale in (1.0, 1.0, 1e-3, 1e4):   # the last two push coordinates onto the box's bounds
        c = scale * rng.gamma(1.0, size=400) * np.exp(Z @ rng.normal(size=Z.shape[1]))
        r0 = rng.normal(size=Z.shape[1])
        ref = reference(r0, Z, c, M, 1.0, -10.0, 5.0)
        if ref is not None:
            assert _rho_step(r0, Z, c, M, 1.0, (-10.0, 5.0)).tobytes() == ref.tobytes()


def test_fast_cma_samples_the_same_stream_as_cmaes():
    """Seventh session: _cma_stage's CMA subclass asks exactly the samples of cmaes.CMA (bounded,
    with resampling of infeasible draws) and so reaches the same state after each tell."""
    from cmaes import CMA

    from icml26.decision.skewd.method import _fast_cma_class

    dim = 12
    bounds = np.full((dim, 2), [-np.inf, np.inf])
    bounds[6:11] = [-0.5, 0.5]
    bounds[-1] = [-1.0, 1.0]

    def stream(cls):
        opt = cls(mean=np.r_[np.linspace(-1, 1, 6), np.zeros(6)], sigma=1.0, bounds=bounds, seed=5,
                  population_size=10, lr_adapt=True)
        out = []
        for _ in range(15):
            xs = np.array([opt.ask() for _ in range(opt.population_size)])
            opt.tell(list(zip(xs, (xs**2).sum(1) + np.abs(xs - 0.3).sum(1))))
            out.append(xs)
        return np.array(out)

    assert stream(_fast_cma_class()).tobytes() == stream(CMA).tobytes()


def test_gram_median_is_numpys_bit_for_bit():
    """Seventh session: the bracketed selection of _median returns np.median's value exactly."""
    from icml26.decision.skewd.method import _gram, _median

    rng = np.random.default_rng(22)
    for size in (5, 19999, 20000, 20001, 50000):
        for a in (rng.normal(size=size) ** 2, np.round(rng.exponential(size=size), 1), np.ones(size)):
            assert _median(a) == np.median(a)
    v = rng.normal(size=300)
    d2 = (v[:, None] - v[None, :]) ** 2
    upper = d2[np.triu_indices(300, 1)]
    assert _gram(v).tobytes() == np.exp(d2 * (-1.0 / np.median(upper[upper > 0]))).tobytes()


def test_hsic_equals_double_centred_trace():
    rng = np.random.default_rng(12)
    a = rng.normal(size=150)
    b = np.abs(a) + 0.3 * rng.normal(size=150)
    n = a.size
    H = np.eye(n) - 1.0 / n

    def gram(v):
        d2 = (v[:, None] - v[None, :]) ** 2
        return np.exp(-d2 / np.median(d2[d2 > 0]))

    ref = np.trace(gram(a) @ H @ gram(b) @ H) / n**2
    assert hsic(a, b) == pytest.approx(ref, rel=1e-10)


def test_hsic_equals_lingams_statistic_with_the_same_bandwidth():
    """Our HSIC is lingam's (the library RESIT uses) HSIC statistic divided by n: the same Gaussian
    kernel exp(-d^2 / median(d^2)); lingam takes the median over the first 100 points only, so with
    n = 100 the bandwidths coincide. (Ours centres one Gram matrix only, for speed, and takes the
    median over every point.)"""
    lh = pytest.importorskip("lingam.hsic")
    rng = np.random.default_rng(14)
    a = rng.normal(size=100)
    b = a**2 + 0.5 * rng.normal(size=100)
    _, Kc = lh.get_gram_matrix(a[:, None], lh.get_kernel_width(a[:, None]))
    _, Lc = lh.get_gram_matrix(b[:, None], lh.get_kernel_width(b[:, None]))
    assert hsic(a, b) == pytest.approx(lh.hsic_teststat(Kc, Lc, a.size) / a.size, rel=1e-9)


def test_skewd_with_shared_grams_equals_without():
    from icml26.decision.skewd.method import centred_grams

    rng = np.random.default_rng(13)
    x = rng.normal(size=120)
    y = np.tanh(x) + 0.3 * rng.normal(size=120)
    x, y = (x - x.mean()) / x.std(), (y - y.mean()) / y.std()
    fast = dict(cma_population=8, cma_iters=5, ecm_max_iter=5)
    a = skewd(x, y, 0.1, 1.0, seed=3, **fast)
    b = skewd(x, y, 0.1, 1.0, seed=3, grams=centred_grams(x, y), **fast)
    assert a.indep_score == pytest.approx(b.indep_score, rel=1e-12)
    fyx = b.fit_yx
    assert a.indep_score == pytest.approx(hsic(y, fyx.residuals) - hsic(x, b.fit_xy.residuals), rel=1e-9)
    with pytest.raises(ValueError, match="grams"):
        skewd(x, y, grams=(np.eye(3), np.eye(3)), **fast)


# ----------------------------------------------------------------------------- checks with known answers
def _fake_rows(n_seeds=5, per=10, ll=1.0, gauss_ll=1.0, resit=0.0):
    from icml26.decision.skewd.experiment import METHODS, SKEWED_LS

    rows = []
    for _ in range(n_seeds):
        m = {"n": 1000.0}
        for cfg in ("LS_sym",) + SKEWED_LS:
            for meth in METHODS:
                m[f"correct_{cfg}_{meth}"] = [1.0] * per
            m[f"correct_{cfg}_skewd_ll"] = [1.0] * per if ll == 1.0 else [1.0] * (per - 1) + [0.0]
            m[f"correct_{cfg}_gauss_ll"] = [gauss_ll] * per
            m[f"correct_{cfg}_resit"] = [resit if i % 5 == 0 else float("nan") for i in range(per)]
        rows.append(m)
    return rows


def test_ll_every_set_known_answers():
    from icml26.decision.skewd.experiment import check_ll_every_set, contradict_ll_every_set

    assert check_ll_every_set(_fake_rows()).status == "reproduced"
    assert check_ll_every_set(_fake_rows(ll=0.9)).status == "not-reproduced"    # 0.90 in every set
    assert check_ll_every_set(_fake_rows(per=4)).status == "not-checkable"     # 20 < 50 pairs per set
    assert check_ll_every_set(contradict_ll_every_set(_fake_rows())).status == "not-reproduced"


def test_competitive_uses_only_the_pairs_a_subsampled_baseline_ran_on():
    from icml26.decision.skewd.experiment import check_competitive

    v = check_competitive(_fake_rows(resit=1.0))
    assert v.status == "reproduced"
    assert "RESIT (lingam) 1.00 on 50 pairs" in v.evidence
