"""Unit tests for PIDM / BC (arXiv:2601.21718): environment, predictor, IDM, Theorem 1 toy."""

import numpy as np
import pytest
import torch

from icml26.decision.pidm.setting import (
    GOAL,
    FourRoomsNav,
    expert_episode,
    in_wall,
    rollout_success,
    rollout_successes,
    sample_free,
    sample_starts,
    step_positions,
)
from icml26.decision.pidm.method import (
    BCPolicy,
    ClosestReferencePredictor,
    PIDMPolicy,
    demos_needed,
    fit_regressor,
    fit_regressors,
    linear_gaussian_delta,
    linear_gaussian_idm,
    make_pairs,
    matched_level_ratios,
    sample_linear_gaussian,
)


def test_env_gymnasium_api_and_walls():
    env = FourRoomsNav()
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    # walking right from the start room at door height passes the lower door of the vertical wall
    env.reset(options={"start": [0.4, 0.25]})
    for _ in range(10):
        obs, r, term, trunc, _ = env.step(np.array([1.0, 0.0], dtype=np.float32))
    assert obs[0] > 0.55
    # walking right at a wall height stops before the wall
    env.reset(options={"start": [0.4, 0.45]})
    for _ in range(10):
        obs, *_ = env.step(np.array([1.0, 0.0], dtype=np.float32))
    assert obs[0] < 0.5
    assert not in_wall(obs[None])[0]


def test_step_never_enters_walls():
    rng = np.random.default_rng(0)
    pos = sample_free(rng, 2000)
    act = rng.uniform(-1, 1, size=pos.shape).astype(np.float32)
    new = step_positions(pos, act, 0.03)
    assert not in_wall(new).any()
    assert np.all(np.abs(new - pos) <= 0.03 + 1e-6)


def test_expert_reaches_goal_by_both_routes():
    env = FourRoomsNav()
    rng = np.random.default_rng(1)
    routes = set()
    for _ in range(20):
        s, a, route = expert_episode(env, rng, np.array([0.25, 0.25], dtype=np.float32))
        assert np.linalg.norm(s[-1] - GOAL) < env.goal_radius
        assert a.shape == (s.shape[0] - 1, 2)
        routes.add(route)
    assert routes == {0, 1}  # on the diagonal both routes are taken


def test_make_pairs_and_padding():
    tr = [np.arange(10, dtype=np.float32).reshape(5, 2)]
    ac = [np.ones((4, 2), dtype=np.float32)]
    S, F, A = make_pairs(tr, ac, k=3)
    assert S.shape == (4, 2) and F.shape == (4, 2) and A.shape == (4, 2)
    np.testing.assert_array_equal(F[0], tr[0][3])
    np.testing.assert_array_equal(F[-1], tr[0][4])  # clipped to the last state


def test_closest_reference_returns_demonstrated_successor():
    a = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 2.0]], dtype=np.float32)
    b = np.array([[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]], dtype=np.float32)
    pred = ClosestReferencePredictor([a, b], k=1)
    out = pred.predict(np.array([[0.1, 0.1], [0.9, 0.0], [3.1, 0.0]], dtype=np.float32))
    np.testing.assert_allclose(out, [[0.0, 1.0], [2.0, 0.0], [3.0, 0.0]])
    # never returns an average of the two modes
    mid = pred.predict(np.array([[0.5, 0.0]], dtype=np.float32))[0]
    assert any(np.allclose(mid, r) for r in np.concatenate([a, b]))


def test_regressor_fits_linear_map():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)).astype(np.float32)
    Y = X @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32)
    reg = fit_regressor(X, Y, loss="mse", hidden=32, steps=400, lr=1e-2, seed=0)
    err = np.mean((reg.predict(X) - Y) ** 2)
    assert err < 0.01 * np.var(Y)


def test_pidm_beats_bc_on_two_route_demos():
    env = FourRoomsNav()
    rng = np.random.default_rng(3)
    demos = [expert_episode(env, rng, sample_starts(rng, 1)[0], route_temp=3.0) for _ in range(6)]
    tr, ac = [d[0] for d in demos], [d[1] for d in demos]
    S, _, A = make_pairs(tr, ac, 1)
    starts = sample_starts(np.random.default_rng(9), 40)
    bc = BCPolicy(hidden=64, steps=500, seed=0).fit(S, A)
    pidm = PIDMPolicy(k=1, hidden=64, steps=500, seed=0).fit(tr, ac)
    s_pidm = rollout_success(pidm.act, starts)
    assert s_pidm >= 0.8
    assert s_pidm >= rollout_success(bc.act, starts)


def test_theorem1_quadrature_matches_monte_carlo():
    rng = np.random.default_rng(0)
    for se in (0.3, 1.0):
        s, a, sp = sample_linear_gaussian(rng, 400_000, 0.5, 1.0, 0.3, se)
        epe_bc = np.mean((a - 0.5 * s) ** 2)
        epe_idm = np.mean((a - linear_gaussian_idm(s, sp, 0.5, 1.0, 0.3, se)) ** 2)
        assert epe_bc - epe_idm == pytest.approx(linear_gaussian_delta(1.0, 0.3, se), rel=0.02)


def test_theorem1_limits():
    # future uninformative (huge transition noise): Delta -> 0; near-deterministic: Delta -> Var(a|s)
    assert linear_gaussian_delta(1.0, 0.3, 50.0) < 0.01
    assert linear_gaussian_delta(1.0, 0.3, 0.01) == pytest.approx(1.0 + 0.09, rel=0.01)
    assert linear_gaussian_delta(0.0, 0.3, 0.3) >= 0


def test_demos_needed_interpolates_on_the_running_max():
    ns = [1, 2, 5, 10, 20]
    bc = [0.1, 0.3, 0.5, 0.9, 0.95]
    assert demos_needed(ns, bc, 0.9) == (pytest.approx(10.0), False)
    need, cens = demos_needed(ns, bc, 0.7)  # halfway between 5 and 10 on a log scale
    assert need == pytest.approx(np.sqrt(5 * 10)) and not cens
    assert demos_needed(ns, bc, 0.05) == (pytest.approx(1.0), False)
    assert demos_needed(ns, bc, 1.0) == (pytest.approx(20.0), True)
    # a dip does not undo a level already reached
    assert demos_needed(ns, [0.1, 0.6, 0.4, 0.5, 0.9], 0.55)[0] < 2.0


def test_matched_level_ratios_known_answer():
    ns = [1, 2, 5, 10, 20]
    bc = [0.1, 0.3, 0.5, 0.9, 0.95]
    pidm = [0.5, 0.9, 0.95, 0.95, 0.95]
    r, cens = matched_level_ratios(ns, bc, pidm, [0.5, 0.9])
    assert r == pytest.approx([5.0, 5.0]) and cens == [False, False]
    # the same curve against itself gives 1 at every level, however noisy the curve
    r, _ = matched_level_ratios(ns, bc, bc, [0.3, 0.6, 0.9])
    assert r == pytest.approx([1.0, 1.0, 1.0])
    # a level BC never reaches: the ratio is a lower bound, flagged censored
    r, cens = matched_level_ratios(ns, bc, [0.99] * 5, [0.99])
    assert r == pytest.approx([20.0]) and cens == [True]


def test_threeroom_task_starts_and_expert():
    rng = np.random.default_rng(4)
    starts = sample_starts(rng, 300, "threeroom")
    assert not in_wall(starts).any()
    rooms = {(bool(x > 0.5), bool(y > 0.5)) for x, y in starts}
    assert rooms == {(False, False), (True, False), (False, True)}
    env = FourRoomsNav()
    for st in starts[:30]:
        s, a, _ = expert_episode(env, rng, st)
        assert np.linalg.norm(s[-1] - GOAL) < env.goal_radius


def test_input_validation():
    with pytest.raises(ValueError, match="X"):
        fit_regressor(np.zeros((0, 2)), np.zeros((0, 1)))
    with pytest.raises(ValueError, match="NaN"):
        fit_regressor(np.full((3, 2), np.nan), np.zeros((3, 1)))
    with pytest.raises(ValueError, match="same number"):
        fit_regressor(np.zeros((3, 2)), np.zeros((4, 1)))
    with pytest.raises(ValueError, match="loss"):
        fit_regressor(np.zeros((3, 2)), np.zeros((3, 1)), loss="huber")
    with pytest.raises(ValueError, match="k"):
        make_pairs([np.zeros((3, 2))], None, k=0)
    with pytest.raises(ValueError, match="actions"):
        make_pairs([np.zeros((3, 2))], [np.zeros((5, 2))], k=1)
    with pytest.raises(ValueError, match="trajectories"):
        ClosestReferencePredictor([], k=1)
    with pytest.raises(ValueError, match="columns"):
        ClosestReferencePredictor([np.zeros((3, 2))]).predict(np.zeros((1, 3)))
    with pytest.raises(ValueError, match="sigma_a"):
        linear_gaussian_delta(1.0, 0.0, 0.3)
    with pytest.raises(ValueError, match="task"):
        sample_starts(np.random.default_rng(0), 3, "maze")
    with pytest.raises(ValueError, match="success"):
        demos_needed([1, 2], [0.5], 0.5)
    with pytest.raises(ValueError):
        FourRoomsNav(step_size=0)
    with pytest.raises(RuntimeError):
        BCPolicy().act(np.zeros((1, 2)))


def test_closest_reference_matches_brute_force_with_ties():
    rng = np.random.default_rng(5)
    trs = [rng.uniform(size=(30, 2)).astype(np.float32) for _ in range(4)]
    # the first three states of trajectory 0 again, with other futures: ties go to the first stored state
    trs.append(np.concatenate([trs[0][:3], rng.uniform(size=(5, 2)).astype(np.float32)]))
    pred = ClosestReferencePredictor(trs, k=2)
    q = np.concatenate([rng.uniform(size=(200, 2)), trs[0][:3]]).astype(np.float32)
    d2 = ((q[:, None, :] - pred.states[None]) ** 2).sum(-1)
    np.testing.assert_array_equal(pred.predict(q), pred.futures[np.argmin(d2, 1)])
    np.testing.assert_array_equal(pred.predict(trs[0][:3]), trs[0][2:5])


@pytest.mark.parametrize("loss,batch_size", [("l1", 256), ("mse", None)])
def test_fit_regressors_equals_one_at_a_time_fits(loss, batch_size):
    rng = np.random.default_rng(0)
    # full-batch problems small and large (two padding groups), minibatched ones, inputs of width 2 and 4
    shapes = [(40, 2), (90, 4), (200, 4), (300, 2), (600, 4)]
    Xs = [rng.normal(size=s).astype(np.float32) for s in shapes]
    Ys = [np.abs(x[:, :2]) - 0.5 * x[:, 1:2] for x in Xs]
    seeds = [3, 4, 5, 3, 7]
    kw = dict(loss=loss, hidden=16, steps=60, lr=1e-2, batch_size=batch_size)
    stack = fit_regressors(Xs, Ys, seeds, **kw)
    assert len(stack) == len(Xs) and stack.d_in == [2, 4, 4, 2, 4]
    for i, x in enumerate(Xs):
        one = fit_regressor(x, Ys[i], seed=seeds[i], **kw)
        np.testing.assert_allclose(stack.regressor(i).predict(x), one.predict(x), atol=1e-5)
        padded = np.zeros((len(Xs), len(x), 4), np.float32)
        padded[i, :, :x.shape[1]] = x
        np.testing.assert_allclose(stack.predict(padded)[i], one.predict(x), atol=1e-5)
    # the padded inputs of the 2-D problems have zero weights throughout training
    assert torch.count_nonzero(stack.weights[0][[0, 3], :, 2:]) == 0


def _fit_regressor_private_loop(X, Y, loss, hidden, depth, steps, lr, batch_size, seed):
    """fit_regressor's own Adam loop before it moved onto icml26.nn.mlp.fit (issue 13), kept as the reference."""
    from torch import nn

    from icml26.nn.mlp import mlp

    g = torch.Generator().manual_seed(int(seed))
    torch.manual_seed(int(seed))
    x_mean, x_std = X.mean(0), X.std(0) + 1e-6
    net = mlp([X.shape[1], *[hidden] * depth, Y.shape[1]], activation="relu")
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    Xt, Yt = torch.from_numpy((X - x_mean) / x_std), torch.from_numpy(Y)
    crit = nn.L1Loss() if loss == "l1" else nn.MSELoss()
    n = X.shape[0]
    for _ in range(int(steps)):
        if batch_size is None or batch_size >= n:
            xb, yb = Xt, Yt
        else:
            idx = torch.randint(0, n, (batch_size,), generator=g)
            xb, yb = Xt[idx], Yt[idx]
        opt.zero_grad()
        crit(net(xb), yb).backward()
        opt.step()
    return net


@pytest.mark.parametrize("loss,batch_size", [("l1", 32), ("mse", None), ("l1", 500)])
def test_fit_regressor_on_shared_fit_equals_its_private_loop_bit_for_bit(loss, batch_size):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3)).astype(np.float32)
    Y = (np.abs(X[:, :2]) - X[:, 2:]).astype(np.float32)
    kw = dict(loss=loss, hidden=16, depth=2, steps=40, lr=1e-2, batch_size=batch_size, seed=4)
    new = fit_regressor(X, Y, **kw)
    old = _fit_regressor_private_loop(X, Y, **kw)
    assert all(torch.equal(a, b) for a, b in zip(new.net.parameters(), old.parameters()))


def test_rollout_successes_equals_one_policy_at_a_time():
    starts = sample_starts(np.random.default_rng(2), 25, "threeroom")
    policies = [
        lambda s: np.tile(np.float32([1.0, 1.0]), (len(s), 1)),
        lambda s: (GOAL - s) / np.linalg.norm(GOAL - s, axis=1, keepdims=True),
        lambda s: np.zeros_like(s),
    ]
    want = [rollout_success(f, starts, max_steps=60) for f in policies]
    assert want[1] > 0 and want[2] == 0

    def act(pos, live):
        assert live.shape == pos.shape[:2]
        return np.stack([f(pos[j]) for j, f in enumerate(policies)])

    assert rollout_successes(act, starts, 3, max_steps=60) == want


def test_navigation_equals_one_policy_at_a_time():
    """The batched navigation part computes what training and rolling out each policy alone computes."""
    from icml26.core.paper import Profile
    from icml26.decision.pidm.experiment import navigation

    params = {"hidden": 16, "lr": 1e-3, "batch_size": 64, "k": 1, "step_size": 0.03, "max_steps": 60,
              "route_temp": 0.3, "noise_sd": 0.1, "extra_tasks": ["threeroom"], "n_demos": [1, 3], "steps": 30,
              "n_eval": 12, "n_extra_free": 2, "n_extra_random": 50, "bias_n": 1, "bias_sd": [0.0, 0.3]}
    got = navigation(Profile("t", seeds=1, params=params), "threeroom", np.random.default_rng(7), 7, bias=True)

    rng = np.random.default_rng(7)
    env = FourRoomsNav(step_size=0.03, max_steps=60)

    def demo():
        return expert_episode(env, rng, sample_starts(rng, 1, "threeroom")[0], 0.3, 0.1)

    demos = [demo() for _ in range(3)]
    free = [demo()[0] for _ in range(2)]
    S_r = sample_free(rng, 50)
    A_r = rng.uniform(-1, 1, size=S_r.shape).astype(np.float32)
    extra = (S_r, step_positions(S_r, A_r, 0.03), A_r)
    starts = sample_starts(rng, 12, "threeroom")
    fit = {"hidden": 16, "steps": 30, "lr": 1e-3, "loss": "l1", "batch_size": 64}
    one_episode = pytest.approx  # float rounding of batched products may at most flip an episode
    tol = 1 / 12 + 1e-9

    def succ(act):
        return rollout_success(act, starts, 0.03, max_steps=60)

    for i, n in enumerate([1, 3]):
        tr, ac = [d[0] for d in demos[:n]], [d[1] for d in demos[:n]]
        S, _, A = make_pairs(tr, ac, 1)
        bc = BCPolicy(seed=7000 + i, **fit).fit(S, A)
        bc2 = BCPolicy(seed=7500 + i, **fit).fit(S, A)
        pidm = PIDMPolicy(k=1, seed=7000 + i, **fit).fit(tr, ac)
        plus = PIDMPolicy(k=1, seed=7000 + i, **fit).fit(tr, ac, extra_state_trajectories=free, extra_transitions=extra)
        for key, pol in (("bc", bc), ("bc_control", bc2), ("pidm", pidm), ("pidm_extra", plus)):
            assert got[f"threeroom/success/{key}"][i] == one_episode(succ(pol.act), abs=tol), key
        if n == 1:
            assert got["bias_success_bc"] == one_episode(succ(bc.act), abs=tol)
            for b, v in zip([0.0, 0.3], got["bias_success_pidm"]):
                pidm.bias_sd, pidm.rng = b, np.random.default_rng(7)
                assert v == one_episode(succ(pidm.act), abs=tol)


def test_batched_api_validation():
    X, Y = np.zeros((5, 2)), np.zeros((5, 1))
    with pytest.raises(ValueError, match="seeds"):
        fit_regressors([X], [Y], [0, 1])
    with pytest.raises(ValueError, match="Ys"):
        fit_regressors([X, X], [Y, np.zeros((5, 2))], [0, 1])
    with pytest.raises(ValueError, match=r"Xs\[0\]"):
        fit_regressors([np.full((5, 2), np.nan)], [Y], [0])
    with pytest.raises(ValueError, match="same number"):
        fit_regressors([X], [np.zeros((4, 1))], [0])
    with pytest.raises(ValueError, match="batch_size"):
        fit_regressors([X], [Y], [0], batch_size=0)
    with pytest.raises(TypeError, match="seeds"):
        fit_regressors([X], [Y], [0.5])
    stack = fit_regressors([X], [Y], [0], hidden=4, steps=1)
    with pytest.raises(ValueError, match="X"):
        stack.predict(np.zeros((2, 3, 2)))
    with pytest.raises(ValueError, match="i"):
        stack.regressor(1)
    start = np.full((2, 2), 0.2)
    with pytest.raises(TypeError, match="policy_act"):
        rollout_successes(None, start, 2)
    with pytest.raises(ValueError, match="n_policies"):
        rollout_successes(lambda p, live: p, start, 0)
    with pytest.raises(ValueError, match="policy_act"):
        rollout_successes(lambda p, live: p[:, :1], start, 2)
