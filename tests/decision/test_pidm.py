"""Unit tests for PIDM / BC (arXiv:2601.21718): environment, predictor, IDM, Theorem 1 toy."""

import numpy as np
import pytest

from icml26.decision.pidm.setting import (
    GOAL,
    FourRoomsNav,
    expert_episode,
    in_wall,
    rollout_success,
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
