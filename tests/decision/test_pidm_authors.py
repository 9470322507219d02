"""PIDM (arXiv:2601.21718), fifth session: the authors' goal-sequence simulator re-implemented in numpy and
checked against their recorded four-room demonstrations (vendored under icml26/decision/pidm/data)."""

from importlib.resources import files

import numpy as np
import pytest

from icml26.decision.pidm.experiment import (
    check_authors_four_room,
    contradict_authors_four_room,
    control_authors_four_room,
)
from icml26.decision.pidm.method import ClosestReferencePredictor
from icml26.decision.pidm.setting import (
    AUTHOR_DEMOS,
    author_demo_noise,
    goal_features,
    goal_replay,
    goal_rollouts,
    goal_step,
    goal_touch,
    load_author_demos,
    parse_layout,
)

SMALL = "WWWWWWWWWW\nW  G     W\nW A  W   W\nW    W G W\nWWWWWWWWWW"


def test_package_data_and_licence_ship():
    data = files("icml26.decision.pidm").joinpath("data")
    for name in AUTHOR_DEMOS:
        assert data.joinpath(f"{name}.json.gz").is_file()
    assert data.joinpath("DATA_LICENSE.txt").read_text().startswith("Community Data License Agreement - Permissive")
    assert "4e415f6f0e81018c591854d9f25412f59c40098f" in data.joinpath("PROVENANCE.md").read_text()


@pytest.mark.parametrize("name", AUTHOR_DEMOS)
def test_loader_shapes(name):
    world, eps = load_author_demos(name)
    assert len(eps) == 50 and world.n_goals == 4 and world.max_steps == 200
    np.testing.assert_array_equal(world.start, [182, 174])
    np.testing.assert_array_equal(world.goals, [[73, 70], [691, 70], [691, 696], [73, 696]])
    for e in eps:
        T = e["actions"].shape[0]
        assert e["positions"].shape == (T + 1, 2) and e["progress"].shape == (T + 1,)
        np.testing.assert_array_equal(e["positions"][0], world.start)
        assert np.all(np.diff(e["progress"]) >= 0) and e["progress"][-1] == world.n_goals
        assert np.all(np.abs(e["actions"]) <= 1.0 + 1e-6)


@pytest.mark.parametrize("name", AUTHOR_DEMOS)
def test_replaying_recorded_actions_reproduces_the_recorded_states(name):
    """Recorded actions + the recorder's noise stream (seed 42, continued over the episodes) through our
    dynamics give the recorded positions (to the 6-decimal rounding of the stored actions) and goal events."""
    world, eps = load_author_demos(name)
    noise = author_demo_noise(name)
    for e, z in list(zip(eps, noise))[:12]:
        pos, prog = goal_replay(world, e["actions"], z)
        assert np.max(np.abs(pos - e["positions"])) < 5e-3
        np.testing.assert_array_equal(prog, e["progress"])


def test_replay_without_the_noise_does_not_match():
    world, eps = load_author_demos("four_room_human")
    e = eps[0]
    pos, _ = goal_replay(world, e["actions"], np.zeros_like(e["actions"], dtype=np.float64))
    assert np.max(np.abs(pos - e["positions"])) > 10.0


def test_parse_layout_small():
    w = parse_layout(SMALL, [1, 0], room=(100, 100), box=4)
    np.testing.assert_array_equal(w.start, [20, 40])
    np.testing.assert_array_equal(w.goals, [[70, 60], [30, 20]])  # visiting order, rounded up
    assert w.walls.shape[1] == 4 and np.all(w.walls[:, 2:] > 0)
    # the inner wall (column 5, rows 2-3) and the bottom wall cell below it form one vertical box (a vertical
    # run reaching the last row is kept whatever its length, as in the authors' parser)
    assert [50, 40, 10, 60] in w.walls.tolist()
    assert [0, 80, 100, 20] in w.walls.tolist()  # the bottom row: a horizontal run


@pytest.mark.parametrize("bad, err", [
    ("WWW\nW W\nWW", ValueError),  # rows of unequal length
    ("WWWW\nW GW\nWWWW", ValueError),  # no start
    ("WWWW\nWAXW\nWWWW", ValueError),  # unknown character
    (3, TypeError),
])
def test_parse_layout_rejects_bad_layouts(bad, err):
    with pytest.raises(err):
        parse_layout(bad, [0])


def test_parse_layout_rejects_bad_goal_order():
    with pytest.raises(ValueError):
        parse_layout(SMALL, [0, 0])
    with pytest.raises(ValueError):
        parse_layout(SMALL, [2])


def test_goal_step_walls_deadzone_and_goals():
    w = parse_layout(SMALL, [0, 1], room=(100, 100), box=4, velocity_scale=5.0)
    # moving right into the inner wall (x in [50, 60)) from x = 45 ends outside the wall
    new = goal_step(w, np.array([[45.0, 50.0]]), np.array([[1.0, 0.0]]), np.zeros((1, 2)))
    assert new[0, 0] + 2 <= 50 and new[0, 1] == 50.0
    # actions inside the dead zone do not move; the noise does
    new = goal_step(w, np.array([[30.0, 50.0]]), np.array([[0.05, -0.05]]), np.array([[0.2, 0.0]]))
    np.testing.assert_allclose(new, [[31.0, 50.0]])
    # only the current goal counts
    assert goal_touch(w, np.array([[31.0, 21.0]]), np.array([0]))[0]
    assert not goal_touch(w, np.array([[31.0, 21.0]]), np.array([1]))[0]
    f = goal_features(w, np.array([[50.0, 25.0]]), np.array([1]))
    np.testing.assert_allclose(f, [[0.5, 0.25, 1.0, 0.0]])


def test_goal_rollouts_scripted_policy_succeeds_and_idle_fails():
    open_room = "WWWWWWWWWW\nW  G     W\nW A      W\nW      G W\nWWWWWWWWWW"
    w = parse_layout(open_room, [0, 1], room=(100, 100), box=4, velocity_scale=5.0, noise_sd=0.0, max_steps=60)

    def scripted(f, live):  # head straight to the current goal
        pos = f[..., :2] * 100
        prog = f[..., 2:].sum(-1).astype(int)
        target = np.where(prog[..., None] == 0, w.goals[0], w.goals[1])
        d = target - pos
        return np.clip(d / 5.0, -1, 1)

    rng = np.random.default_rng(0)
    out = goal_rollouts(w, lambda f, live: np.stack([scripted(f, live)[0], np.zeros_like(f[0, :, :2])]), 2, 3, rng)
    assert out[0] == 1.0 and out[1] == 0.0


def test_predictor_same_goal_mask():
    a = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0]], dtype=np.float32)
    b = np.array([[0.0, 0.01, 1.0], [0.5, 0.5, 1.0]], dtype=np.float32)
    pred = ClosestReferencePredictor([a, b], 1, match_cols=(2,))
    # nearest by position is a[0], but the flag matches only b's states
    np.testing.assert_allclose(pred.predict(np.array([[0.0, 0.0, 1.0]])), [[0.5, 0.5, 1.0]])
    np.testing.assert_allclose(ClosestReferencePredictor([a, b], 1).predict(np.array([[0.0, 0.0, 1.0]])),
                               [[0.5, 0.5, 1.0]])  # without the mask the flag is a coordinate
    np.testing.assert_allclose(pred.predict(np.array([[0.0, 0.0, 0.0]])), [[0.1, 0.0, 0.0]])
    # no stored state with the flag: all states are candidates
    np.testing.assert_allclose(pred.predict(np.array([[0.1, 0.0, 7.0]])), [[0.1, 0.0, 0.0]])
    with pytest.raises(ValueError):
        ClosestReferencePredictor([a], 1, match_cols=(3,))


def _metrics(bc, bcc, pidm, seeds=20):
    ns = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
    return [{"levels": [0.5, 0.6, 0.7, 0.8, 0.9], "author_n_demos": ns,
             "four_room_human/success/bc": list(bc[i % len(bc)]),
             "four_room_human/success/bc_control": list(bcc[i % len(bcc)]),
             "four_room_human/success/pidm": list(pidm[i % len(pidm)])} for i in range(seeds)]


def test_author_check_decides():
    late = [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]
    early = [[0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]]
    ms = _metrics(late, late, early)
    v = check_authors_four_room(ms)
    assert v.status == "reproduced" and v.value > 2
    assert check_authors_four_room(control_authors_four_room(ms)).status != "reproduced"
    assert check_authors_four_room(contradict_authors_four_room(ms)).status == "not-reproduced"
    # BC never learns: the gate makes the claim not-checkable
    never = [[0, 0, 0, 0, 0, 0]]
    assert check_authors_four_room(_metrics(never, never, early)).status == "not-checkable"
    assert check_authors_four_room(_metrics(late, late, early, seeds=3)).status == "not-checkable"


def test_author_extras_reported_but_not_deciding():
    """Fifth session, review fix: PIDM with s' = s and the authors' README protocol are reported, deciding nothing."""
    late = [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]
    early = [[0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]]
    ms = _metrics(late, late, early)
    base = check_authors_four_room(ms)
    for m in ms:
        m["four_room_human/success/pidm_same"] = [0.0] * 6
        for k in ("bc", "bc_control", "pidm"):
            m[f"four_room_human/readme_success/{k}"] = [0.1] * 6
    v = check_authors_four_room(ms)
    assert v.status == base.status and v.value == base.value
    assert "s' = s" in v.measured and "README protocol" in v.measured


def test_full_profile_uses_the_fork_protocol_to_decide():
    from icml26.decision.pidm import PAPER

    p = PAPER.profile("full")
    assert p["author_eval_noise"] == 0.0 and p["author_eval_max_steps"] == 500 and p["author_n_eval"] == 1
    assert p["author_readme_noise"] == 0.2 and p["author_readme_max_steps"] == 200 and p["author_readme_n_eval"] == 10


def test_author_navigation_reports_both_protocols():
    from dataclasses import replace

    from icml26.decision.pidm import PAPER
    from icml26.decision.pidm.experiment import author_navigation

    p = PAPER.profile("quick")
    p = replace(p, params={**p.params, "author_n_demos": [1], "author_steps": 5, "author_readme_n_eval": 2,
                           "author_readme_max_steps": 20, "author_eval_max_steps": 30})
    out = author_navigation(p, "four_room_human", np.random.default_rng(0), 0)
    for k in ("success/bc", "success/bc_control", "success/pidm", "success/pidm_same", "readme_success/bc",
              "readme_success/bc_control", "readme_success/pidm"):
        v = out[f"four_room_human/{k}"]
        assert len(v) == 1 and 0.0 <= v[0] <= 1.0
