"""Unit tests for the Stackelberg-Littlestone calculator, SSOA and the adversary (arXiv:2504.09006)."""

import itertools

import numpy as np
import pytest

from icml26.decision.stackelberg.method import (
    SSOA,
    FirstConsistentLeader,
    SOALeader,
    StackelbergLittlestone,
    StructuredStackelbergGame,
    play_sequence,
    tree_adversary,
    worst_case_regret,
)
from icml26.decision.stackelberg.setting import harmless_instance, permutation_instance, random_instance


def _grid_simplex_2(k=2001):
    p = np.linspace(0, 1, k)
    return np.stack([p, 1 - p], 1)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_example3_closed_forms(n):
    calc = StackelbergLittlestone(*permutation_instance(n))
    assert calc.sl() == pytest.approx(n - sum(1 / k for k in range(1, n + 1)), abs=1e-9)
    assert calc.ldim() == n - 1


def test_regret_identity_game():
    game, _ = permutation_instance(3)
    x = np.array([0.5, 0.3, 0.2])
    for j in range(3):
        assert game.regret(0, x, j) == pytest.approx(1 - x[j], abs=1e-9)


def test_stackelberg_commitment_matches_grid():
    rng = np.random.default_rng(3)
    game, _ = random_instance(rng, n_contexts=3, n_types=2, n_leader=2, n_follower=3, n_hypotheses=4)
    X = _grid_simplex_2()
    for z, j in itertools.product(range(3), range(2)):
        u_star, x_star = game.stackelberg(z, j)
        grid = max(game.leader_utility(z, x, j) for x in X)
        assert u_star >= grid - 1e-9
        assert u_star <= grid + 5e-3  # grid resolution
        assert game.leader_utility(z, x_star, j) == pytest.approx(u_star, abs=1e-6)


def test_minimax_commitment_matches_grid():
    rng = np.random.default_rng(7)
    game, _ = random_instance(rng, n_contexts=2, n_types=3, n_leader=2, n_follower=2, n_hypotheses=5)
    X = _grid_simplex_2()
    offsets = [0.2, 0.0, 0.5]
    val, x = game.minimax_commitment(1, [0, 1, 2], offsets)
    grid = min(max(game.regret(1, xx, j) + o for j, o in zip(range(3), offsets)) for xx in X)
    assert val <= grid + 1e-9
    assert val >= grid - 5e-3
    # the returned commitment attains the value under leader-favoured tie-breaking
    assert max(game.regret(1, x, j) + o for j, o in zip(range(3), offsets)) == pytest.approx(val, abs=1e-6)


def _brute_sl(game, H, V_rows, depth=0):
    """Tree definition evaluated directly with a grid over a 2-action simplex (independent check)."""
    X = _grid_simplex_2(401)
    best = 0.0
    for z in range(game.n_contexts):
        labels = sorted({int(H[h, z]) for h in V_rows})
        if len(labels) < 2:
            continue
        # every non-empty subset of labels as children (the definition allows any)
        for r in range(2, len(labels) + 1):
            for S in itertools.combinations(labels, r):
                child = {j: _brute_sl(game, H, [h for h in V_rows if H[h, z] == j], depth + 1) for j in S}
                val = min(max(game.regret(z, x, j) + child[j] for j in S) for x in X)
                best = max(best, val)
    return best


def test_sl_recursion_matches_tree_definition_bruteforce():
    rng = np.random.default_rng(11)
    game, H = random_instance(rng, n_contexts=2, n_types=3, n_leader=2, n_follower=2, n_hypotheses=5)
    calc = StackelbergLittlestone(game, H)
    brute = _brute_sl(game, H, list(range(H.shape[0])))
    assert calc.sl() == pytest.approx(brute, abs=1e-2)
    assert calc.sl() <= brute + 1e-9  # grid minimum can only overestimate the infimum


def test_ldim_known_values():
    game, H = harmless_instance(4)  # all binary functions on 4 points: Ldim 4
    calc = StackelbergLittlestone(game, H)
    assert calc.ldim() == 4
    assert calc.sl() == 0.0
    single = StackelbergLittlestone(game, H[:1])
    assert single.ldim() == 0 and single.sl() == 0.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bounds_on_random_instances(seed):
    rng = np.random.default_rng(seed)
    game, H = random_instance(rng, n_contexts=3, n_types=3, n_leader=2, n_follower=2, n_hypotheses=8)
    calc = StackelbergLittlestone(game, H)
    sl = calc.sl()
    assert sl <= calc.ldim() + 1e-9
    assert worst_case_regret(calc, SSOA(calc).commit) == pytest.approx(sl, abs=1e-6)
    for cls in (SSOA, SOALeader, FirstConsistentLeader):
        assert tree_adversary(cls(calc))[0] >= sl - 1e-6
        assert worst_case_regret(calc, cls(calc).commit) >= sl - 1e-6
    for _ in range(20):
        h = int(rng.integers(H.shape[0]))
        assert play_sequence(SSOA(calc), rng.integers(3, size=6), h) <= sl + 1e-6


def test_adversary_sequence_is_realisable():
    rng = np.random.default_rng(5)
    game, H = random_instance(rng, n_contexts=3, n_types=3, n_leader=2, n_follower=2, n_hypotheses=10)
    calc = StackelbergLittlestone(game, H)
    _, seq = tree_adversary(SOALeader(calc))
    consistent = [h for h in range(H.shape[0]) if all(H[h, z] == j for z, j in seq)]
    assert consistent


def test_invariance_to_relabelling():
    from icml26.decision.stackelberg.experiment import _relabel

    rng = np.random.default_rng(2)
    game, H = random_instance(rng, n_contexts=3, n_types=3, n_leader=2, n_follower=2, n_hypotheses=9)
    a = StackelbergLittlestone(game, H)
    b = StackelbergLittlestone(*_relabel(game, H, rng))
    assert a.sl() == pytest.approx(b.sl(), abs=1e-9)
    assert a.ldim() == b.ldim()


def test_scaling_leader_utility_scales_sl():
    rng = np.random.default_rng(4)
    game, H = random_instance(rng, n_contexts=3, n_types=2, n_leader=2, n_follower=2, n_hypotheses=6)
    scaled = StructuredStackelbergGame(2.0 * game.U_L, game.U_F)
    assert StackelbergLittlestone(scaled, H).sl() == pytest.approx(2 * StackelbergLittlestone(game, H).sl(), abs=1e-8)


def test_input_validation():
    game, H = permutation_instance(3)
    with pytest.raises(ValueError, match="U_L"):
        StructuredStackelbergGame(np.zeros((2, 2)), np.zeros((2, 1, 2, 2)))
    with pytest.raises(ValueError, match="U_F"):
        StructuredStackelbergGame(np.zeros((2, 2, 2)), np.zeros((3, 1, 2, 2)))
    with pytest.raises(ValueError, match="NaN"):
        StructuredStackelbergGame(np.full((1, 2, 2), np.nan), np.zeros((1, 1, 2, 2)))
    with pytest.raises(ValueError, match="x must"):
        game.regret(0, np.array([0.5, 0.5]), 0)
    with pytest.raises(ValueError, match="probability"):
        game.regret(0, np.array([0.5, 0.6, 0.1]), 0)
    with pytest.raises(ValueError, match="z must"):
        game.regret(5, np.ones(3) / 3, 0)
    with pytest.raises(ValueError, match="H"):
        StackelbergLittlestone(game, H[:, :2])
    with pytest.raises(ValueError, match="H"):
        StackelbergLittlestone(game, H + 5)
    with pytest.raises(ValueError, match="n_hypotheses"):
        random_instance(np.random.default_rng(0), n_contexts=2, n_types=2, n_hypotheses=5)
    with pytest.raises(ValueError, match="n must"):
        permutation_instance(0)
    calc = StackelbergLittlestone(game, H)
    leader = SSOA(calc)
    leader.update(0, 0)
    with pytest.raises(ValueError, match="inconsistent"):
        leader.update(1, 0)  # a bijection cannot map two contexts to type 0


def test_instance_sizes_are_guarded():
    """n! and 2^Z enumerations refuse sizes that would not fit, with a clear error (not a hang)."""
    with pytest.raises(ValueError, match="n must be <= 8"):
        permutation_instance(11)
    with pytest.raises(ValueError, match="n_contexts must be <= 16"):
        harmless_instance(26)
    with pytest.raises(ValueError, match="n_types \\*\\* n_contexts"):
        random_instance(np.random.default_rng(0), n_contexts=30, n_types=3, n_hypotheses=4)


def test_play_sequence_rejects_bad_contexts():
    calc = StackelbergLittlestone(*permutation_instance(3))
    with pytest.raises(ValueError, match="contexts"):
        play_sequence(SSOA(calc), [0, 7], 0)
    with pytest.raises(ValueError, match="contexts"):
        play_sequence(SSOA(calc), [0.5, 1.0], 0)
    with pytest.raises(TypeError, match="contexts"):
        play_sequence(SSOA(calc), "01", 0)
    with pytest.raises(TypeError, match="h_star"):
        play_sequence(SSOA(calc), [0, 1], "0")
    assert play_sequence(SSOA(calc), [], 0) == 0.0
