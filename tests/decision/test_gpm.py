"""Unit tests for GPM and its adaptive-testing baselines: gradients, estimators, brute force."""

import numpy as np
import pytest

from icml26.decision.gpm import method as M


def _bank(Q=12, d=1, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.lognormal(0, 0.3, size=(Q, d))
    c = rng.normal(size=Q)
    return a, c, rng


def _nll(theta, y, mask, a, c):
    p = M.prob(theta[None], a, c)[0]
    return -(mask * (y * np.log(p) + (1 - y) * np.log(1 - p))).sum() + 0.5 * theta @ theta


@pytest.mark.parametrize("d", [1, 3])
def test_item_gradients_match_finite_differences(d):
    a, c, rng = _bank(d=d)
    theta = rng.normal(size=(1, d))
    y = (rng.random((1, a.shape[0])) < 0.5).astype(float)
    g = M.item_gradients(theta, a, c, y)[0]                      # (Q, d)
    eps = 1e-6
    for k in range(d):
        e = np.zeros(d); e[k] = eps
        lp = M.prob(theta + e, a, c)[0]; lm = M.prob(theta - e, a, c)[0]
        bce = lambda p: -(y[0] * np.log(p) + (1 - y[0]) * np.log(1 - p))
        np.testing.assert_allclose(g[:, k], (bce(lp) - bce(lm)) / (2 * eps), atol=1e-6)


@pytest.mark.parametrize("d", [1, 3])
def test_map_estimate_matches_scipy_and_information_is_hessian(d):
    from scipy.optimize import minimize

    a, c, rng = _bank(Q=15, d=d, seed=1)
    y = (rng.random((1, 15)) < 0.5).astype(float)
    mask = (rng.random((1, 15)) < 0.7).astype(float)
    th = M.map_estimate(y, mask, a, c)
    ref = minimize(_nll, np.zeros(d), args=(y[0], mask[0], a, c), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(th[0], ref, atol=1e-5)
    H = M.information(th, a, c, mask)[0]
    eps = 1e-4
    num = np.zeros((d, d))
    for k in range(d):
        e = np.zeros(d); e[k] = eps
        gp = (M.item_gradients(th + e, a, c, y)[0] * mask[0][:, None]).sum(0) + (th[0] + e)
        gm = (M.item_gradients(th - e, a, c, y)[0] * mask[0][:, None]).sum(0) + (th[0] - e)
        num[:, k] = (gp - gm) / (2 * eps)
    np.testing.assert_allclose(H, num, atol=1e-6)


def test_mfi_matches_catsim_max_info_selector():
    from catsim.item_bank import ItemBank
    from catsim.selection import MaxInfoSelector

    rng = np.random.default_rng(2)
    Q = 40
    a = rng.lognormal(0, 0.3, size=(Q, 1)); b = rng.normal(size=Q)
    bank = ItemBank(np.column_stack([a[:, 0], b, np.zeros(Q), np.ones(Q)]))
    sel = MaxInfoSelector()
    for _ in range(5):
        theta = rng.normal(size=(1, 1))
        answered = list(rng.choice(Q, size=5, replace=False))
        avail = np.ones((1, Q)); avail[0, answered] = 0
        info = M.information(theta, a, -a[:, 0] * b, 1 - avail)
        ours = M.select_mfi(theta, a, -a[:, 0] * b, avail, info)[0]
        theirs = sel.select(item_bank=bank, administered_items=answered, est_theta=float(theta[0, 0]))
        assert ours == theirs


def test_kli_matches_dense_integration_in_1d():
    a, c, rng = _bank(Q=20, seed=3)
    theta = np.array([[0.4]])
    avail = np.ones((1, 20))
    t = 4
    delta = 3 / np.sqrt(t + 1)
    grid = np.linspace(-1, 1, 2001)
    p0 = M.prob(theta, a, c)[0]
    kl = np.zeros(20)
    for g in grid:
        p1 = M.prob(theta + delta * g, a, c)[0]
        kl += p0 * np.log(p0 / p1) + (1 - p0) * np.log((1 - p0) / (1 - p1))
    assert M.select_kli(theta, a, c, avail, t, n_points=401)[0] == np.argmax(kl)


def test_becat_expected_distance_brute_force():
    a, c, rng = _bank(Q=6, d=2, seed=4)
    theta = rng.normal(size=(1, 2))
    p = M.prob(theta, a, c)[0]
    E = M.becat_expected_distance(theta, a, c, np.array([[0, 1]]), np.array([[2, 3, 4]]))[0]
    for r, i in enumerate([0, 1]):
        for s, j in enumerate([2, 3, 4]):
            tot = 0.0
            for yi in (0, 1):
                for yj in (0, 1):
                    w = (p[i] if yi else 1 - p[i]) * (p[j] if yj else 1 - p[j])
                    tot += w * np.linalg.norm(-(yi - p[i]) * a[i] + (yj - p[j]) * a[j])
            assert E[r, s] == pytest.approx(tot)


def test_becat_gains_equal_facility_location_increments():
    a, c, rng = _bank(Q=10, d=2, seed=5)
    theta = rng.normal(size=(1, 2))
    S = np.array([[1, 7]]); ref = np.array([[0, 3, 4, 9]])
    gains = M.becat_gains(theta, a, c, S, ref)[0]
    allE = M.becat_expected_distance(theta, a, c, np.arange(10)[None], np.arange(10)[None])[0]
    V0 = [1, 7, 0, 3, 4, 9]
    D = max(allE[np.ix_(V0 + list(range(10)), [1, 7])].max(), allE[np.ix_(V0, range(10))].max())
    w = D - allE

    def F(Sset, V):
        return sum(max(w[i, j] for j in Sset) for i in V if i not in Sset)

    for q in [0, 2, 5, 8]:
        V = V0 + ([q] if q not in V0 else [])
        assert gains[q] == pytest.approx(F([1, 7, q], V) - F([1, 7], V))


def test_path_matching_loss_zero_for_full_bank_and_gradcheck():
    import torch

    a, c, rng = _bank(Q=8, d=2, seed=6)
    at, ct = torch.as_tensor(a), torch.as_tensor(c)
    y = torch.as_tensor((rng.random((3, 8)) < 0.5).astype(float))
    theta0 = torch.zeros(3, 2, dtype=torch.float64)
    loss, theta = M.path_matching_loss(torch.ones(3, 8, dtype=torch.float64), y, at, ct, theta0, K=4)
    assert float(loss) == pytest.approx(0.0, abs=1e-20)
    m = torch.rand(3, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda mm: M.path_matching_loss(mm, y, at, ct, theta0, K=3)[0], (m,))
    with pytest.raises(ValueError):
        M.path_matching_loss(m, y, at, ct, theta0, K=0)


def test_run_cat_never_repeats_and_gpm_trains():
    a, c, rng = _bank(Q=15, d=1, seed=7)
    theta = rng.normal(size=(30, 1))
    Y = (rng.random((30, 15)) < M.prob(theta, a, c)).astype(float)
    policy, log = M.train_gpm(a, c, Y, T=5, iters=3, batch=8, K=2, seed=0)
    assert len(log.losses) == 3 and np.all(np.isfinite(log.losses))
    seen = []

    def sel(th, av, info, S, t):
        q = M.select_gpm(policy, th, a, c, av, info, t, 5)
        seen.append(q)
        return q

    est = M.run_cat(sel, Y, a, c, 5)
    assert est.shape == (30, 5, 1)
    picks = np.stack(seen, axis=1)
    assert all(len(set(row)) == 5 for row in picks)
    est_b = M.run_cat(lambda th, av, info, S, t: M.select_becat(th, a, c, av, S, rng), Y, a, c, 5)
    assert np.all(np.isfinite(est_b))


def test_validation_errors():
    a, c, _ = _bank()
    with pytest.raises(ValueError, match="a must"):
        M.prob(np.zeros((1, 1)), a[:, 0], c)
    with pytest.raises(ValueError, match="c must"):
        M.prob(np.zeros((1, 1)), a, c[:-1])
    with pytest.raises(ValueError, match="theta"):
        M.prob(np.zeros((1, 2)), a, c)
    with pytest.raises(ValueError, match="NaN"):
        M.prob(np.zeros((1, 1)), a, np.full_like(c, np.nan))
    with pytest.raises(ValueError, match="prior_var"):
        M.map_estimate(np.zeros((1, 12)), np.zeros((1, 12)), a, c, prior_var=0)
    with pytest.raises(ValueError, match="L must"):
        M.run_cat(lambda *x: None, np.zeros((1, 12)), a, c, 13)
    with pytest.raises(ValueError, match="T must"):
        M.train_gpm(a, c, np.zeros((4, 12)), T=0)


def test_checks_fail_on_contradicted_metrics():
    from icml26.decision.gpm import experiment as ex

    ms = []
    for s in range(3):
        m = {}
        for name in ex.SETTINGS:
            m[f"ratio_vs_becat_{name}"] = 0.7
            m[f"ratio_vs_best_{name}"] = 0.8
            m[f"mse_gpm_{name}"] = [0.9, 0.5, 0.3, 0.2]
            m[f"mse_random_{name}"] = [0.9, 0.7, 0.6, 0.5]
        ms.append(m)
    for claim in ("fewer_than_becat", "fewer_than_best", "beats_random"):
        check = getattr(ex, f"check_{claim}")
        assert check(ms).status == "reproduced"
        assert check(getattr(ex, f"contradict_{claim}")(ms)).status != "reproduced"
    assert ex.questions_to_reach([0.5, 0.3, 0.2], 0.3) == 2.0
    assert ex.questions_to_reach([0.5, 0.3, 0.2], 0.1) == 4.0


def test_map_estimate_converges_with_steep_items():
    rng = np.random.default_rng(8)
    a = np.array([[6.0], [5.0], [4.0], [0.3]]); c = np.array([-12.0, 10.0, 0.0, 0.5])
    for _ in range(20):
        y = (rng.random((1, 4)) < 0.5).astype(float)
        th = M.map_estimate(y, np.ones((1, 4)), a, c)
        p = M.prob(th, a, c)
        g = -((y - p) @ a) + th
        assert np.abs(g).max() < 1e-8
