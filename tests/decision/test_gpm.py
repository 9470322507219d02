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


def test_gpm_choice_nearest_farthest_and_straight_through():
    import torch

    b = torch.tensor([-2.0, -0.5, 0.1, 0.9, 2.5], dtype=torch.float64)
    logits = torch.tensor([[0.0, 0.0, 5.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    avail = torch.ones(1, 5, dtype=torch.float64)
    w, idx = M.gpm_choice(logits, avail, b, choice="nearest")
    pi = torch.softmax(logits.detach(), 1)
    b_bar = float(pi @ b)
    assert int(idx) == int(np.argmin((b.numpy() - b_bar) ** 2))
    assert float(w.detach()[0, idx]) == pytest.approx(1.0) and float(w.detach().sum()) == pytest.approx(1.0)
    (w * torch.arange(5.0, dtype=torch.float64)).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0   # gradient reaches the policy
    _, far = M.gpm_choice(logits.detach(), avail, b, choice="farthest")
    assert int(far) in (0, 4)                    # a convex score is maximised at an extreme difficulty
    avail[0, int(idx)] = 0
    _, idx2 = M.gpm_choice(logits.detach(), avail, b, choice="nearest")
    assert int(idx2) != int(idx)
    with pytest.raises(ValueError, match="choice"):
        M.gpm_choice(logits, avail, b, choice="middle")


def test_gradient_gap_inner_step_and_gd_estimate_known_answers():
    import torch

    a, c, rng = _bank(Q=8, d=2, seed=6)
    at, ct = torch.as_tensor(a), torch.as_tensor(c)
    y = torch.as_tensor((rng.random((3, 8)) < 0.5).astype(float))
    full = torch.ones(3, 8, dtype=torch.float64)
    theta = torch.as_tensor(rng.normal(size=(3, 2)))
    assert float(M.gradient_gap(theta, full, y, full, at, ct)) == pytest.approx(0.0, abs=1e-15)
    m = torch.rand(3, 8, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda mm: M.gradient_gap(M.inner_step(theta, mm, y, at, ct, 0.1), mm, y,
                                                              full, at, ct), (m,))
    mask = (rng.random((3, 8)) < 0.5).astype(float)
    p = M.prob(theta.numpy(), a, c)
    step = M.inner_step(theta, torch.as_tensor(mask), y, at, ct, 0.3).numpy()
    np.testing.assert_allclose(step, theta.numpy() + 0.3 * (mask * (y.numpy() - p)) @ a)
    est = M.gd_estimate(y.numpy(), mask, a, c, np.array([0.2, -0.1]), eta=0.3, steps=1)
    p0 = M.prob(np.tile([0.2, -0.1], (3, 1)), a, c)
    np.testing.assert_allclose(est, np.array([0.2, -0.1]) + 0.3 * (mask * (y.numpy() - p0)) @ a)
    np.testing.assert_allclose(M.gd_estimate(y.numpy(), mask, a, c, np.zeros(2), steps=0), 0.0)


def test_heldout_scores_match_sklearn():
    from sklearn.metrics import roc_auc_score

    a, c, rng = _bank(Q=20, d=1, seed=9)
    theta = rng.normal(size=(15, 1))
    y = (rng.random((15, 20)) < M.prob(theta, a, c)).astype(float)
    held = (rng.random((15, 20)) < 0.3).astype(float)
    acc, auc = M.heldout_scores(theta, y, held, a, c)
    p = M.prob(theta, a, c)[held > 0]
    assert auc == pytest.approx(roc_auc_score(y[held > 0], p))
    assert acc == pytest.approx(np.mean((p > 0.5) == (y[held > 0] > 0.5)))


def test_split_heldout_and_run_cat_respect_candidates():
    from icml26.decision.gpm.setting import split_heldout

    cand, held = split_heldout(7, 15, 0, frac=0.2)
    assert np.all(held.sum(1) == 3) and np.all(cand + held == 1)
    a, c, rng = _bank(Q=15, d=1, seed=7)
    theta = rng.normal(size=(7, 1))
    Y = (rng.random((7, 15)) < M.prob(theta, a, c)).astype(float)
    picks = []

    def sel(th, av, info, S, t):
        q = M.select_random(av, rng)
        picks.append(q)
        return q

    est = M.run_cat(sel, Y, a, c, 6, avail0=cand)
    assert est.shape == (7, 6, 1)
    chosen = np.stack(picks, 1)
    assert np.all(np.take_along_axis(held, chosen, 1) == 0)
    assert all(len(set(row)) == 6 for row in chosen)


def test_train_gpm_runs_and_its_policy_selects_valid_items():
    from icml26.decision.gpm.setting import split_heldout

    a, c, rng = _bank(Q=15, d=1, seed=7)
    theta = rng.normal(size=(30, 1))
    Y = (rng.random((30, 15)) < M.prob(theta, a, c)).astype(float)
    cand, held = split_heldout(30, 15, 1)
    model = M.train_gpm(a, Y, cand, held, T=4, iters=3, batch=8, seed=0)
    assert len(model.losses) == 3 and np.all(np.isfinite(model.losses)) and np.isfinite(model.loss_ratio)
    assert model.c.shape == (15,) and model.theta0.shape == (1,)
    import torch

    gen = torch.Generator().manual_seed(0)
    est = M.run_cat(lambda th, av, info, S, t: M.select_gpm(model, a, Y, S, av, gen), Y, a, c, 4, avail0=cand)
    assert np.all(np.isfinite(est))
    loss = M.path_loss_of(model.policy, a, model.c, model.theta0, Y, cand, T=3)
    assert np.isfinite(loss) and loss > 0
    est_b = M.run_cat(lambda th, av, info, S, t: M.select_becat(th, a, c, av, S, rng), Y, a, c, 4)
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
        M.train_gpm(a, np.zeros((4, 12)), np.ones((4, 12)), np.zeros((4, 12)), T=0)


def test_questions_to_reach():
    from icml26.decision.gpm.setting import questions_to_reach

    assert questions_to_reach([0.5, 0.3, 0.2], 0.3) == 2.0
    assert questions_to_reach([0.5, 0.3, 0.2], 0.1) == 4.0


def test_map_estimate_converges_with_steep_items():
    rng = np.random.default_rng(8)
    a = np.array([[6.0], [5.0], [4.0], [0.3]]); c = np.array([-12.0, 10.0, 0.0, 0.5])
    for _ in range(20):
        y = (rng.random((1, 4)) < 0.5).astype(float)
        th = M.map_estimate(y, np.ones((1, 4)), a, c)
        p = M.prob(th, a, c)
        g = -((y - p) @ a) + th
        assert np.abs(g).max() < 1e-8


def test_training_gate_averages_paired_evaluation_passes(monkeypatch):
    """The gate is mean(untrained path loss) / mean(trained path loss) over GATE_DRAWS paired
    passes (seeds seed, seed+1, ...); gate_single is the first pass alone (the old gate)."""
    from icml26.core.paper import Profile
    from icml26.decision.gpm import experiment as E

    calls = []

    def fake_path_loss(policy, a, c, theta0, Y, cand, T, eta=0.1, seed=0, choice="nearest"):
        trained = getattr(policy, "_trained", False)
        calls.append((trained, seed))
        return (1.0 if trained else 2.0) + seed   # untrained: 2 + s, trained: 1 + s

    real_train = M.train_gpm

    def tagged_train(*args, **kw):
        model = real_train(*args, **kw)
        model.policy._trained = True
        return model

    monkeypatch.setattr(M, "path_loss_of", fake_path_loss)
    monkeypatch.setattr(M, "train_gpm", tagged_train)
    a, c, rng = _bank(Q=10, d=1, seed=3)
    theta = rng.normal(size=(20, 1))
    Y = (rng.random((20, 10)) < M.prob(theta, a, c)).astype(float)
    prof = Profile("t", seeds=1, timeout_s=60, params={
        "test_length": 3, "train_iters": 1, "train_iters_code": 1, "batch": 8, "eta_inner": 0.1,
        "policy_lr": 1e-3, "model_lr": 1e-2, "hidden": 4})
    _, out = E.train(prof, a, Y, Y, np.random.default_rng(0), seed=5, choice="nearest")
    seeds = [5 + e for e in range(E.GATE_DRAWS)]
    assert sorted(s for t, s in calls if t) == seeds and sorted(s for t, s in calls if not t) == seeds
    np.testing.assert_allclose(out["gate"], np.mean([2.0 + s for s in seeds]) / np.mean([1.0 + s for s in seeds]))
    np.testing.assert_allclose(out["gate_single"], 7.0 / 6.0)


def test_protocol_pieces_and_soft_choice():
    import torch

    assert M.protocol_pieces("ours") == frozenset()
    assert M.protocol_pieces("code") == frozenset(M.CODE_PIECES)
    assert M.protocol_pieces("soft+fd") == {"soft", "fd"}
    for bad in ("", "soft+soft", "soft+nope", "Ours"):
        with pytest.raises(ValueError, match="protocol"):
            M.protocol_pieces(bad)
    with pytest.raises(TypeError, match="protocol"):
        M.protocol_pieces(None)
    b = torch.tensor([-1.0, 0.0, 2.0], dtype=torch.float64)
    logits = torch.zeros(1, 3, dtype=torch.float64)
    avail = torch.tensor([[1.0, 1.0, 0.0]], dtype=torch.float64)
    w, idx = M.gpm_choice(logits, avail, b, choice="farthest", hard=False)
    # target difficulty -0.5 over the two available items: both at squared distance 0.25 -> soft 1/2, 1/2
    np.testing.assert_allclose(w.numpy(), [[0.5, 0.5, 0.0]], atol=1e-12)
    assert int(idx) in (0, 1)


def test_heldout_gap_known_answer():
    import torch

    a = np.array([[1.0], [2.0], [0.5]])
    c = np.array([0.0, 1.0, -1.0])
    theta = np.array([[0.3]])
    y = np.array([[1.0, 0.0, 1.0]])
    held = np.array([[1.0, 0.0, 1.0]])
    p = M.prob(theta, a, c)[0]
    yh = y[0] * held[0]
    g_H = -((held[0] * (yh - p)) @ a) / 2
    g_all = -((yh - p) @ a) / 3                       # every item, label 0 outside the held-out set
    t = lambda x: torch.as_tensor(x, dtype=torch.float64)
    got = float(M.heldout_gap(t(theta), t(y), t(held), t(a), t(c)))
    assert got == pytest.approx(float(np.linalg.norm(g_H - g_all)))


def test_code_fd_term_matches_central_difference_by_hand():
    import torch

    a = torch.tensor([[1.0], [1.5]], dtype=torch.float64)
    c = torch.tensor([0.2, -0.4], dtype=torch.float64)
    y = torch.tensor([[1.0, 0.0]], dtype=torch.float64)
    alpha = torch.tensor([0.7], dtype=torch.float64, requires_grad=True)      # a one-parameter "policy"
    m = torch.cat([torch.sigmoid(alpha), 1 - torch.sigmoid(alpha)])[None]      # soft mask from it
    start = torch.zeros(1, 1, dtype=torch.float64)
    theta1 = M.inner_step(start, m, y, a, c, 0.1)
    loss = (theta1 ** 2).sum()
    fd, = M.code_fd_term([alpha], loss, theta1, start, m, y, a, c, lw=0.1)
    g = 2 * theta1.detach()
    epl = float(g.norm())

    def L_at(th, al):
        mm = torch.cat([torch.sigmoid(al), 1 - torch.sigmoid(al)])[None]
        bce = torch.nn.functional.binary_cross_entropy_with_logits(th @ a.T + c, y, reduction="none")
        return (bce * mm).sum()

    # by hand: g = 2 theta1(alpha) and epl = ||g|| stay functions of alpha (the code keeps their graph)
    a1 = alpha.detach().clone().requires_grad_(True)
    m1 = torch.cat([torch.sigmoid(a1), 1 - torch.sigmoid(a1)])[None]
    g1 = 2 * M.inner_step(start, m1, y, a, c, 0.1)
    e1 = g1.norm()
    d_plus = torch.autograd.grad(L_at(start + e1 * g1, a1), a1, retain_graph=True)[0]
    d_minus = torch.autograd.grad(L_at(start - e1 * g1, a1), a1)[0]
    want = 0.1 * (d_plus - d_minus) / 2 * epl
    assert float(fd.detach()) == pytest.approx(float(want), rel=1e-10)
    # and the central difference itself, by finite differences in alpha of the summed BCE at start +- epl g
    h = 1e-6
    fdiff = lambda th: (L_at(th, alpha.detach() + h) - L_at(th, alpha.detach() - h)) / (2 * h)
    assert float(d_plus) != pytest.approx(float(d_minus))
    assert float(fdiff(start + epl * g) - fdiff(start - epl * g)) != 0.0
    with pytest.raises(ValueError, match="lw"):
        M.code_fd_term([alpha], loss, theta1, start, m, y, a, c, lw=0.0)


@pytest.mark.parametrize("protocol", ["code", "soft", "heldout", "fd"])
def test_train_gpm_code_protocols_run(protocol):
    from icml26.decision.gpm.setting import split_heldout

    a, c, rng = _bank(Q=15, d=2, seed=7)
    theta = rng.normal(size=(30, 2))
    Y = (rng.random((30, 15)) < M.prob(theta, a, c)).astype(float)
    cand, held = split_heldout(30, 15, 1)
    model = M.train_gpm(a, Y, cand, held, T=4, iters=3, batch=8, seed=0, protocol=protocol)
    assert len(model.losses) == 3 and np.all(np.isfinite(model.losses)) and np.all(np.isfinite(model.c))
    with pytest.raises(ValueError, match="protocol"):
        M.train_gpm(a, Y, cand, held, T=4, iters=1, batch=8, protocol="exact")


@pytest.mark.parametrize("d", [1, 2])
def test_oracle_path_loss_is_the_brute_force_minimum_at_one_step(d):
    import torch

    a, c, rng = _bank(Q=9, d=d, seed=11)
    theta = rng.normal(size=(5, d))
    Y = (rng.random((5, 9)) < M.prob(theta, a, c)).astype(float)
    cand = np.ones((5, 9)); cand[:, 0] = 0
    theta0 = np.full(d, 0.1)
    got = M.oracle_path_loss(a, c, theta0, Y, cand, T=1, eta=0.2, through_layer=False)
    at, ct, y, full = (torch.as_tensor(x) for x in (a, c, Y, cand))
    start = torch.as_tensor(theta0).expand(5, d)
    best = np.full(5, np.inf)
    for q in range(1, 9):                          # item 0 is not a candidate
        m = torch.zeros(5, 9, dtype=torch.float64); m[:, q] = 1
        th1 = M.inner_step(start, m, y, at, ct, 0.2)
        for i in range(5):
            val = float(M.gradient_gap(th1[i:i + 1], m[i:i + 1], y[i:i + 1], full[i:i + 1], at, ct))
            best[i] = min(best[i], val)
    # gradient_gap divides the norm over the batch by B; per examinee the norms add up over B
    assert got == pytest.approx(float(np.sqrt(np.sum(best ** 2)) / 5))
    noisy = M.oracle_path_loss(a, c, theta0, Y, cand, T=3, eta=0.2, through_layer=True)
    exact = M.oracle_path_loss(a, c, theta0, Y, cand, T=3, eta=0.2, through_layer=False)
    assert np.isfinite(noisy) and noisy > 0 and exact > 0
    # the direct oracle never uses the Gumbel draws, so its seed changes nothing (experiment.train
    # computes its GATE_DRAWS passes once); the layer's oracle does depend on it
    for s in (1, 7):
        assert M.oracle_path_loss(a, c, theta0, Y, cand, T=3, eta=0.2, through_layer=False, seed=s) == exact
    with pytest.raises(ValueError, match="T must"):
        M.oracle_path_loss(a, c, theta0, Y, cand, T=9)


def test_oracle_path_loss_rejects_bad_inputs():
    a, c, rng = _bank(Q=6, d=2, seed=3)
    Y = (rng.random((4, 6)) < 0.5).astype(float)
    cand = np.ones((4, 6))
    theta0 = np.zeros(2)
    with pytest.raises(ValueError, match="shape"):
        M.oracle_path_loss(a, c, theta0, Y, cand[:, :5], T=2)
    with pytest.raises(ValueError, match="theta0"):
        M.oracle_path_loss(a, c, np.zeros(3), Y, cand, T=2)
    with pytest.raises(ValueError, match="eta"):
        M.oracle_path_loss(a, c, theta0, Y, cand, T=2, eta=0.0)
    with pytest.raises(ValueError, match="T must"):
        M.oracle_path_loss(a, c, theta0, Y, cand, T=0)


def _old_path_loss_of(policy, a, c, theta0, Y, cand, T, eta=0.1, seed=0, choice="nearest", feature="difficulty"):
    """path_loss_of before issue 13's shared _setup, verbatim (the reference for the bit-identity test)."""
    import torch

    from icml26.core.validate import as_array, check_int

    a, c = M._check_bank(a, c)
    Y = as_array("Y", Y, ndim=2)
    cand = as_array("cand", cand, ndim=2)
    T = check_int("T", T, minimum=1)
    gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    at, ct = torch.as_tensor(a), torch.as_tensor(c)
    y, full = torch.as_tensor(Y), torch.as_tensor(cand)
    B, Q = y.shape
    b = torch.as_tensor(M.selection_feature(a, c, feature))
    start = torch.as_tensor(np.asarray(theta0, dtype=float)).expand(B, a.shape[1])
    sel, avail, total = torch.zeros(B, Q, dtype=torch.float64), full.clone(), 0.0
    with torch.no_grad():
        for _t in range(T):
            w, pick = M.gpm_choice(policy((2 * y - 1) * sel), avail, b, M._gumbel((B, Q), gen), choice=choice)
            m = sel + w
            total += float(M.gradient_gap(M.inner_step(start, m, y, at, ct, eta), m, y, full, at, ct))
            sel = sel + torch.zeros_like(sel).scatter_(1, pick[:, None], 1.0)
            avail = avail.scatter(1, pick[:, None], 0.0)
    return total / T


def _old_oracle_path_loss(a, c, theta0, Y, cand, T, eta=0.1, seed=0, through_layer=True, feature="difficulty"):
    """oracle_path_loss before issue 13's shared _setup, verbatim."""
    import torch

    from icml26.core.validate import as_array, check_int, check_positive

    a, c = M._check_bank(a, c)
    Y = as_array("Y", Y, ndim=2)
    cand = as_array("cand", cand, ndim=2)
    if Y.shape != cand.shape or Y.shape[1] != a.shape[0]:
        raise ValueError(f"Y and cand must both have shape (N, {a.shape[0]}), got {Y.shape}, {cand.shape}")
    T = check_int("T", T, minimum=1, maximum=int(cand.sum(1).min()))
    eta = check_positive("eta", eta)
    theta0 = as_array("theta0", theta0, ndim=1)
    if theta0.shape != (a.shape[1],):
        raise ValueError(f"theta0 must have shape ({a.shape[1]},), got {theta0.shape}")
    gen = torch.Generator().manual_seed(check_int("seed", seed, minimum=0))
    at, ct = torch.as_tensor(a), torch.as_tensor(c)
    y, full = torch.as_tensor(Y), torch.as_tensor(cand)
    B, Q = y.shape
    b = torch.as_tensor(M.selection_feature(a, c, feature))
    start = torch.as_tensor(np.asarray(theta0, dtype=float)).expand(B, a.shape[1])
    sel, avail, total = torch.zeros(B, Q, dtype=torch.float64), full.clone(), 0.0
    eye = torch.eye(Q, dtype=torch.float64)
    with torch.no_grad():
        for _t in range(T):
            g = M._gumbel((B, Q), gen)
            mm = sel[:, None, :] + eye[None]
            th1 = start[:, None, :] + eta * torch.einsum("bkq,bkq,qd->bkd", mm,
                                                         y[:, None, :] - torch.sigmoid(
                                                             torch.einsum("bkd,qd->bkq", start[:, None, :].expand(B, Q, -1), at) + ct),
                                                         at)
            r = y[:, None, :] - torch.sigmoid(torch.einsum("bkd,qd->bkq", th1, at) + ct)
            g_S = -torch.einsum("bkq,qd->bkd", mm * r, at) / mm.sum(2, keepdim=True)
            g_Q = -torch.einsum("bkq,qd->bkd", full[:, None, :] * r, at) / full.sum(1)[:, None, None]
            val = torch.linalg.norm(g_S - g_Q, dim=2)
            best = torch.where(avail > 0, val, torch.full_like(val, float("inf"))).argmin(1)
            if through_layer:
                score = -(b[None] - b[best][:, None]) ** 2 + torch.where(avail > 0, 0.0, -1e30) + g
                pick = score.argmax(1)
            else:
                pick = best
            m = sel + torch.zeros_like(sel).scatter_(1, pick[:, None], 1.0)
            total += float(M.gradient_gap(M.inner_step(start, m, y, at, ct, eta), m, y, full, at, ct))
            sel = m
            avail = avail.scatter(1, pick[:, None], 0.0)
    return total / T


@pytest.mark.parametrize("d, choice, feature", [(1, "nearest", "difficulty"), (2, "nearest", "intercept"),
                                                (2, "farthest", "difficulty")])
def test_path_losses_are_bit_identical_to_the_pre_setup_code(d, choice, feature):
    """path_loss_of and oracle_path_loss on the shared _setup give exactly the old numbers."""
    import torch

    from icml26.decision.gpm.setting import split_heldout

    a, c, rng = _bank(Q=10, d=d, seed=5)
    theta = rng.normal(size=(7, d))
    Y = (rng.random((7, 10)) < M.prob(theta, a, c)).astype(float)
    cand, _ = split_heldout(7, 10, np.random.default_rng(1))
    theta0 = rng.normal(size=d) * 0.3
    torch.manual_seed(0)
    policy = M.make_policy(10, 16)
    for seed in (0, 3):
        for T in (1, 3):
            new = M.path_loss_of(policy, a, c, theta0, Y, cand, T=T, eta=0.15, seed=seed, choice=choice,
                                 feature=feature)
            old = _old_path_loss_of(policy, a, c, theta0, Y, cand, T=T, eta=0.15, seed=seed, choice=choice,
                                    feature=feature)
            assert new == old
            for through in (True, False):
                assert M.oracle_path_loss(a, c, theta0, Y, cand, T=T, eta=0.15, seed=seed, through_layer=through,
                                          feature=feature) == \
                    _old_oracle_path_loss(a, c, theta0, Y, cand, T=T, eta=0.15, seed=seed, through_layer=through,
                                          feature=feature)


def test_path_loss_of_rejects_bad_inputs():
    """path_loss_of checks its inputs as oracle_path_loss does (the shared _setup)."""
    import torch

    a, c, rng = _bank(Q=6, d=2, seed=3)
    Y = (rng.random((4, 6)) < 0.5).astype(float)
    cand = np.ones((4, 6))
    theta0 = np.zeros(2)
    torch.manual_seed(0)
    policy = M.make_policy(6, 8)
    with pytest.raises(ValueError, match="shape"):
        M.path_loss_of(policy, a, c, theta0, Y, cand[:, :5], T=2)
    with pytest.raises(ValueError, match="shape"):
        M.path_loss_of(policy, a, c, theta0, Y[:3], cand, T=2)
    with pytest.raises(ValueError, match="shape"):
        M.path_loss_of(policy, a[:5], c[:5], theta0, Y, cand, T=2)
    with pytest.raises(ValueError, match="theta0"):
        M.path_loss_of(policy, a, c, np.zeros(3), Y, cand, T=2)
    with pytest.raises(ValueError, match="theta0"):
        M.path_loss_of(policy, a, c, np.zeros((1, 2)), Y, cand, T=2)
    with pytest.raises(ValueError, match="eta"):
        M.path_loss_of(policy, a, c, theta0, Y, cand, T=2, eta=0.0)
    with pytest.raises(ValueError, match="T must"):
        M.path_loss_of(policy, a, c, theta0, Y, cand, T=0)
    with pytest.raises(ValueError, match="T must"):
        M.path_loss_of(policy, a, c, theta0, Y, cand, T=7)
    with pytest.raises(ValueError, match="seed"):
        M.path_loss_of(policy, a, c, theta0, Y, cand, T=2, seed=-1)
