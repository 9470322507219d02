"""Unit tests for Box Thirding (arXiv:2602.18186) and its baselines, on cases with known answers."""

import math

import numpy as np
import pytest

from icml26.decision.b3 import (
    R0,
    BoxThirding,
    BoxThirdingBatch,
    BracketingSHBatch,
    bracketing_successive_halving,
    bracketing_successive_halving_batch,
    doubling_successive_halving,
    fit_subset_size,
    successive_halving,
    uniform_sampling,
)


class Env:
    """Arms with given means; ``noise`` = sd of Gaussian rewards (0: deterministic). Counts pulls."""

    def __init__(self, means, noise=0.0, seed=0):
        self.means = np.asarray(means, dtype=float)
        self.noise = noise
        self.rng = np.random.default_rng(seed)
        self.pulls = 0

    def __call__(self, arm, n):
        self.pulls += n
        return self.means[arm] + self.noise * self.rng.standard_normal(n)


def test_default_ratio_solves_balance_equation():
    assert abs(4 - R0 - R0 ** 1.5) < 1e-12 and 1 < R0 < 2


def test_cumulative_pulls_per_level():
    b = BoxThirdingBatch(10, t0=1, ratio=R0, seed=0)
    assert [b.n_pulls(l) for l in range(6)] == [1, 2, 3, 6, 9, 16]
    b = BoxThirdingBatch(10, t0=3, ratio=1.5, seed=0)
    assert [b.n_pulls(l) for l in range(4)] == [3, 5, 7, 11]  # ceil(3 * 1.5^l)


def test_hand_traced_three_arms():
    # t0=1, r=1.5: n = 1, 2, 3. Admit 3 arms (3 pulls); resolve level 0 (+1 pull on the best);
    # every arm screened: lone median lifted (+1), then the two level-1 arms duel (+1 on winner).
    env = Env([0.2, 0.9, 0.5])
    b3 = BoxThirding(3, t0=1, ratio=1.5, seed=4).run(env, 1000)
    assert b3.pulls_used == env.pulls == 6
    assert b3.recommend() == 1
    st = b3.state()
    assert sum(len(q) for q in st["levels"]) == 1


@pytest.mark.parametrize("n_arms", [27, 10, 50])
def test_deterministic_rewards_end_with_best_arm(n_arms):
    means = np.random.default_rng(n_arms).permutation(np.linspace(0, 1, n_arms))
    env = Env(means)
    b3 = BoxThirding(n_arms, seed=1).run(env, 10**6)
    assert b3.n_screened == n_arms
    assert b3.recommend() == int(np.argmax(means))


def test_deterministic_best_screened_arm_is_never_discarded():
    means = np.random.default_rng(0).random(2000)
    env = Env(means)
    b3 = BoxThirding(2000, seed=3)
    for t in range(50, 3000, 97):
        b3.run(env, t)
        scr = b3.screened()
        best = int(scr[np.argmax(means[scr])])
        alive = {a[0] for q in b3.state()["levels"] for a, _ in q}
        assert best in alive
        # the recommendation is the best arm of its (top) level
        top = [a[0] for a, _ in b3.state()["levels"][-1]]
        assert means[b3.recommend()] == max(means[top])


def test_anytime_same_state_as_single_run():
    means = np.random.default_rng(5).beta(1, 8, 3000)
    one = BoxThirding(3000, seed=11)
    one.run(Env(means, noise=0.5, seed=2), 7000)
    env = Env(means, noise=0.5, seed=2)
    two = BoxThirding(3000, seed=11)
    for t in (10, 999, 2500, 2501, 7000):
        two.run(env, t)
    assert one.state() == two.state()
    assert one.recommend() == two.recommend()
    assert one.pulls_used == two.pulls_used <= 7000
    assert one._b.rng.bit_generator.state == two._b.rng.bit_generator.state


def test_budget_accounting_never_exceeds():
    means = np.random.default_rng(1).random(500)
    for budget in (1, 2, 7, 100, 1234):
        env = Env(means, noise=0.1)
        b3 = BoxThirding(500, seed=0).run(env, budget)
        assert b3.pulls_used == env.pulls <= budget
        for fn in (successive_halving, uniform_sampling, doubling_successive_halving):
            env = Env(means, noise=0.1)
            fn(env, 500, budget, seed=0)
            assert env.pulls <= budget


def test_screened_count_is_linear_in_budget():
    # c0 = Theta(T): each screened arm costs at least n_0 pulls and, for r < 2, on average at most
    # n_0 + sum_l 2^-(l+1) (n_{l+1} - n_l) (the cost once every level it may reach is resolved)
    b = BoxThirdingBatch(10**6, 4, seed=0)
    cost = b.n_pulls(0) + sum(2.0 ** -(l + 1) * (b.n_pulls(l + 1) - b.n_pulls(l)) for l in range(80))
    rng = np.random.default_rng(0)
    c0 = []
    for t in (10000, 40000):
        b.run(lambda arms, n: rng.binomial(n, 0.3, size=arms.shape).astype(float), t)
        assert t / cost <= b.n_screened <= t / b.n_pulls(0)
        c0.append(b.n_screened)
    assert 3.5 <= c0[1] / c0[0] <= 4.0


def test_successive_halving_tiny_deterministic():
    means = [0.1, 0.7, 0.3, 0.9, 0.2, 0.8, 0.4, 0.5]
    for seed in range(5):
        assert successive_halving(Env(means), 8, 24, subset_size=8, seed=seed) == 3
        assert uniform_sampling(Env(means), 8, 8, subset_size=8, seed=seed) == 3
        assert doubling_successive_halving(Env(means), 8, 10**4, first_budget=32, seed=seed) == 3


def test_fit_subset_size():
    assert fit_subset_size(5000, 1000) == 128  # 128 * 7 = 896 <= 1000 < 129 * 8
    assert fit_subset_size(10, 10**6) == 10
    assert fit_subset_size(5000, 1) == 1
    for t in (50, 500, 5000):
        n = fit_subset_size(10**5, t)
        assert n * math.ceil(math.log2(n)) <= t < (n + 1) * math.ceil(math.log2(n + 1))


@pytest.mark.parametrize("kwargs, name", [
    ({"n_arms": 0}, "n_arms"), ({"n_arms": 2.5}, "n_arms"), ({"n_arms": 5, "t0": 0}, "t0"),
    ({"n_arms": 5, "t0": 1.5}, "t0"), ({"n_arms": 5, "ratio": 2.0}, "ratio"),
    ({"n_arms": 5, "ratio": 0.9}, "ratio"), ({"n_arms": 5, "ratio": float("nan")}, "ratio"),
    ({"n_arms": 5, "ratio": float("inf")}, "ratio"), ({"n_arms": 5, "seed": -1}, "seed"),
])
def test_constructor_validation(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        BoxThirding(**kwargs)


def test_run_validation():
    env = Env([0.1, 0.5, 0.3])
    b3 = BoxThirding(3, seed=0)
    for bad in (0, -3, float("nan"), float("inf"), 2.5):
        with pytest.raises((ValueError, TypeError), match="budget"):
            b3.run(env, bad)
    with pytest.raises(ValueError, match="pull"):
        b3.run("not callable", 10)
    with pytest.raises(ValueError, match="shape"):
        BoxThirding(3, seed=0).run(lambda a, n: np.zeros(n + 1), 10)
    with pytest.raises(ValueError, match="NaN"):
        BoxThirding(3, seed=0).run(lambda a, n: np.full(n, np.nan), 10)
    b3.run(env, 5)
    with pytest.raises(ValueError, match="budget"):
        b3.run(env, b3.pulls_used - 1)
    with pytest.raises(ValueError, match="subset_size"):
        successive_halving(env, 3, 100, subset_size=4)
    with pytest.raises(ValueError, match="budget"):
        uniform_sampling(env, 3, 0)
    with pytest.raises(ValueError, match="first_budget"):
        doubling_successive_halving(env, 3, 100, first_budget=0)
    with pytest.raises(ValueError, match="n_arms"):
        successive_halving(env, 0, 100)


# --------------------------------------------------------------------------- bracketing SH
def _bsh_single(means, noise=0.0, seed=0, n_reps=1):
    env = Env(means, noise=noise, seed=seed)

    def pull_sum(arms, n):
        arms = np.asarray(arms)
        env.pulls += n * arms.size
        return n * env.means[arms] + noise * np.sqrt(n) * env.rng.standard_normal(arms.shape)

    return env, pull_sum


def test_bsh_brackets_and_first_budgets():
    b = BracketingSHBatch(5000, 3, seed=0)
    assert b.n_brackets == 13 and b.sizes[:4] == [2, 4, 8, 16] and b.sizes[-1] == 5000  # 2^13 > 5000
    assert [b.first_budget(l) for l in (1, 2, 3, 4)] == [2, 8, 24, 64]  # n_l * ceil(log2 n_l)
    assert b.run_budget(3, 2) == 96
    for l, arms in enumerate(b.brackets):  # distinct arms inside a bracket
        assert arms.shape == (3, b.sizes[l])
        assert all(len(set(row)) == b.sizes[l] for row in arms)
    # hand-traced start of the schedule: each job is the run of the bracket with the smallest
    # pulls after it (ties: smaller bracket). Pulls after the candidate run, brackets 1/2/3:
    # 2/8/24 -> l1; 6/8/24 -> l1; 14/8/24 -> l2; 14/24/24 -> l1; 30/24/24 -> l2 (tie, smaller);
    # 30/56/24 -> l3; 30/56/72 -> l1
    env, ps = _bsh_single(np.linspace(0, 1, 5000))
    jobs = []
    for _ in range(7):
        jobs.append(b.next_job())
        b.run(ps, b.pulls_used + jobs[-1][1])
    assert jobs == [(1, 2), (1, 4), (2, 8), (1, 8), (2, 16), (3, 24), (1, 16)]
    assert b.pulls_used == sum(c for _, c in jobs) == env.pulls // 3


@pytest.mark.parametrize("n_arms", [2, 7, 64, 300])
def test_bsh_deterministic_returns_best_sampled_arm(n_arms):
    means = np.random.default_rng(n_arms).permutation(np.linspace(0, 1, n_arms))
    for budget in (3, 50, 700, 5000):
        env, ps = _bsh_single(means)
        b = BracketingSHBatch(n_arms, 1, seed=budget).run(ps, budget)
        sampled = b.sampled()[0]
        if sampled.size:
            # with exact rewards every SH run returns its bracket's best arm, and the bracket
            # outputs are compared by their true means
            assert b.recommend()[0] == sampled[np.argmax(means[sampled])]
            assert means[b.recommend()[0]] == max(means[b.brackets[l][0]].max()
                                                   for l in range(b.n_brackets) if b.runs_done[l])


def test_bsh_large_budget_finds_best_arm_and_single_run_agrees():
    means = np.random.default_rng(3).permutation(np.linspace(0, 1, 40))
    for seed in range(4):
        assert bracketing_successive_halving(Env(means), 40, 10**5, seed=seed) == int(np.argmax(means))


def test_bsh_budget_accounting_and_anytime():
    means = np.random.default_rng(1).beta(1, 8, 500)
    for budget in (1, 2, 7, 100, 1234, 9999):
        env = Env(means, noise=0.3)
        bracketing_successive_halving(env, 500, budget, seed=0)
        assert env.pulls <= budget
    # reading at checkpoints = running straight to each checkpoint (same state, same schedule)
    env1, ps1 = _bsh_single(means, noise=0.3, seed=5, n_reps=4)
    one = BracketingSHBatch(500, 4, seed=9).run(ps1, 6000)
    env2, ps2 = _bsh_single(means, noise=0.3, seed=5, n_reps=4)
    two = BracketingSHBatch(500, 4, seed=9)
    for t in (10, 400, 401, 3000, 6000):
        two.run(ps2, t)
        assert two.pulls_used <= t
    assert one.pulls_used == two.pulls_used == env1.pulls // 4 == env2.pulls // 4 <= 6000
    assert one.runs_done == two.runs_done and one.bracket_pulls == two.bracket_pulls
    # the budget is shared evenly: once a bracket is open its pulls stay within a factor of the others'
    open_ = [p for p in one.bracket_pulls if p > 0]
    assert max(open_) <= 4 * min(open_)


def test_bsh_batch_shapes_and_checkpoint_order():
    means = np.random.default_rng(2).random(100)
    _, ps = _bsh_single(means, noise=0.1, seed=1)
    out = bracketing_successive_halving_batch(ps, 100, [5000, 50, 500], 6, seed=3)
    assert out.shape == (6, 3) and out.min() >= 0 and out.max() < 100
    _, ps = _bsh_single(means, noise=0.1, seed=1)
    ref = bracketing_successive_halving_batch(ps, 100, [50, 500, 5000], 6, seed=3)
    np.testing.assert_array_equal(out[:, [1, 2, 0]], ref)


def test_bsh_validation():
    env = Env([0.1, 0.5, 0.3])
    for bad in (0, -3, float("nan"), 2.5):
        with pytest.raises((ValueError, TypeError), match="budget"):
            bracketing_successive_halving(env, 3, bad)
    with pytest.raises(ValueError, match="n_arms"):
        bracketing_successive_halving(env, 0, 10)
    with pytest.raises(ValueError, match="pull"):
        bracketing_successive_halving("nope", 3, 10)
    with pytest.raises(ValueError, match="seed"):
        bracketing_successive_halving(env, 3, 10, seed=-1)
    with pytest.raises(ValueError, match="n_reps"):
        BracketingSHBatch(3, 0)
    with pytest.raises(ValueError, match="checkpoints"):
        bracketing_successive_halving_batch(lambda a, n: np.zeros(a.shape), 3, [], 1)
    with pytest.raises(ValueError, match="checkpoints"):
        bracketing_successive_halving_batch(lambda a, n: np.zeros(a.shape), 3, [0], 1)
    with pytest.raises(ValueError, match="NaN"):
        bracketing_successive_halving(lambda a, n: np.full(n, np.nan), 3, 10)
    b = BracketingSHBatch(3, seed=0).run(lambda a, n: np.zeros(a.shape), 20)
    with pytest.raises(ValueError, match="budget"):
        b.run(lambda a, n: np.zeros(a.shape), b.pulls_used - 1)


@pytest.mark.parametrize("budget", [40, 300, 1500])
def test_best_mean_rule_is_pure_screening_with_deterministic_rewards(budget):
    """With exact comparisons the best screened arm is never discarded, so the best-mean rule returns it."""
    means = np.random.default_rng(budget).beta(1, 8, 800)
    b3 = BoxThirdingBatch(800, 1, seed=budget).run(lambda arms, n: n * means[arms], budget)
    scr = b3.screened()[0]
    assert b3.recommend("mean")[0] == scr[np.argmax(means[scr])]
    # the best screened arm is alive, and the level rule picks an alive arm too
    alive = b3.alive()[0]
    assert scr[np.argmax(means[scr])] in alive and b3.recommend("level")[0] in alive


def test_recommendation_rule_is_validated():
    b3 = BoxThirding(10, seed=0)
    with pytest.raises(ValueError, match="rule"):
        b3.recommend("best")


def test_successive_halving_on_a_given_subset_size_stays_in_budget():
    env = Env(np.linspace(0, 1, 400))
    arm = successive_halving(env, 400, 1000, subset_size=379, seed=0)
    assert 0 <= arm < 400 and env.pulls <= 1000
    with pytest.raises(ValueError, match="subset_size"):
        successive_halving(env, 400, 1000, subset_size=401, seed=0)


def _bayes_ucb_reference(means, T, seed):
    """Brute force Bayes-UCB: every arm's Beta quantile each step; ties: lowest F, then arm order."""
    from scipy.special import betaincinv

    rng = np.random.default_rng(seed)
    N = len(means)
    order = np.argsort(rng.random((1, N)), axis=1)[0]
    S, F = np.zeros(N), np.zeros(N)
    env = np.random.default_rng(seed + 100)
    draws = []
    for t in range(1, T + 1):
        p = 1 - 1 / t
        q = betaincinv(1 + S, 1 + F, p)
        top = np.flatnonzero(q >= q.max() - 1e-15)
        j = top[np.lexsort((top, F[top]))][0]
        x = float(env.random() < means[order[j]])
        draws.append(order[j])
        S[j] += x
        F[j] += 1 - x
    n = S + F
    return draws, order[np.argmax(4 * n + (S + 1) / (n + 2))]


def test_bayes_ucb_matches_brute_force():
    from icml26.decision.b3.method import bayes_ucb_batch

    means = np.random.default_rng(0).beta(1, 3, 30)
    for T in (20, 150, 400):
        ref_draws, ref_rec = _bayes_ucb_reference(means, T, seed=T)
        env = np.random.default_rng(T + 100)
        draws = []

        def pull_sum(arms, n):
            draws.append(int(arms[0]))
            return np.array([float(env.random() < means[arms[0]])])

        rec = bayes_ucb_batch(pull_sum, 30, [T], 1, seed=np.random.default_rng(T))
        assert draws == ref_draws
        assert rec[0, 0] == ref_rec


def test_bayes_ucb_anytime_and_budget():
    from icml26.decision.b3.method import bayes_ucb, bayes_ucb_batch

    env = Env(np.linspace(0.05, 0.95, 50), noise=0.0)
    assert 0 <= bayes_ucb(env, 50, 200, seed=0) < 50 and env.pulls == 200
    means = np.random.default_rng(1).beta(1, 8, 2000)

    def pull_sum(arms, n):
        return np.random.default_rng(int(arms.sum())).binomial(n, means[arms]).astype(float)

    out = bayes_ucb_batch(pull_sum, 2000, [300, 100], 3, seed=0)
    assert out.shape == (3, 2)
    with pytest.raises(ValueError, match="rewards"):
        bayes_ucb(lambda a, n: np.full(n, 2.0), 5, 10, seed=0)


# ----------------------------------------------------------------------------- sixth session: rule and seeds
def _tiny_profile(**extra):
    from icml26.core.paper import Profile

    return Profile("tiny", seeds=2, params={"n_arms": 200, "reps": 3, "budgets": [100, 300], "bucb_reps": 3,
                                            **extra})


def test_seed_offset_shifts_the_seeds():
    """Profile seed s under seed_offset k runs exactly as seed s + k without an offset."""
    from icml26.decision.b3.experiment import run

    assert run(_tiny_profile(seed_offset=1000), 1) == run(_tiny_profile(), 1001)
    assert run(_tiny_profile(seed_offset=1000), 1) != run(_tiny_profile(), 1)


def test_full_profile_decides_on_fresh_seeds_with_bucb_on_every_repetition():
    from icml26.decision.b3 import PAPER

    full = PAPER.profile("full")
    assert full["bucb_reps"] == full["reps"]
    # seeds 0..5 and 1000..1005 were seen under both rules; the second pre-registration decides on 2000..2005
    assert full["seed_offset"] >= 2000 and PAPER.profile("quick")["seed_offset"] == full["seed_offset"]


def test_bayes_ucb_repetitions_carry_both_rules():
    from icml26.decision.b3.experiment import run

    m = run(_tiny_profile(), 3)
    # with Bayes-UCB on every repetition, B3's regret on its repetitions is B3's regret, under each rule
    for key in ("b3", "b3_mean"):
        assert m[f"bernoulli/{key}/regret_bucb_reps"] == pytest.approx(m[f"bernoulli/{key}/regret"])
    assert m["bernoulli/bucb/reps"] == 3
    fewer = run(_tiny_profile(bucb_reps=2), 3)
    assert len(fewer["bernoulli/b3_mean/regret_bucb_reps"]) == 2 and fewer["bernoulli/bucb/reps"] == 2


N_ARMS = 100


def _rule_rows(level, mean, control, n=6, c0=(30.0, 60.0, 100.0)):
    """Rows with three budgets, B3 screening ``c0`` of N_ARMS arms (the last budget: every arm); B3's regret
    per budget is ``level`` (most-played rule) / ``mean`` (best-mean rule), the control's ``control``."""
    rng = np.random.default_rng(0)
    out = []
    for _ in range(n):
        j = lambda xs: [float(x + 0.01 * rng.random()) for x in xs]  # noqa: E731 - paired seeds
        out.append({"budgets": [100, 200, 400], "n_arms": N_ARMS, "bernoulli/b3/c0": list(c0),
                    "bernoulli/b3/regret": j(level), "bernoulli/b3_mean/regret": j(mean),
                    "bernoulli/doubling/regret": j(control)})
    return out


def test_deciding_budgets_are_those_before_every_arm_is_screened():
    from icml26.decision.b3 import at_budgets, deciding_budgets, lower_status

    ms = _rule_rows(level=[0.1] * 3, mean=[0.1] * 3, control=[0.3] * 3)
    assert deciding_budgets(ms) == [0, 1]
    ms[2]["bernoulli/b3/c0"] = [30.0, 100.0, 100.0]  # one seed already screened every arm at the 2nd budget
    assert deciding_budgets(ms) == [0]
    sub = at_budgets(ms, [0])
    assert sub[0]["budgets"] == [100] and len(sub[0]["bernoulli/b3/regret"]) == 1 and sub[0]["n_arms"] == N_ARMS
    assert deciding_budgets(sub) == [0]  # idempotent
    assert deciding_budgets(_rule_rows([0.1] * 3, [0.1] * 3, [0.3] * 3, c0=(100.0, 100.0, 100.0))) == []
    assert lower_status("reproduced", "partly") == "partly"
    assert lower_status("partly", "not-reproduced") == "not-reproduced"
    assert lower_status("reproduced", "not-checkable") == "not-checkable"


def test_lower_of_rules_takes_the_worse_rule_on_deciding_budgets_only():
    from icml26.core import checks as C
    from icml26.decision.b3 import LowerOfRules, _by_rule

    chk = _by_rule(lambda k: C.beats(f"bernoulli/{k}/regret", "bernoulli/doubling/regret", at="each"))
    assert isinstance(chk, LowerOfRules) and chk.comparative
    both = _rule_rows(level=[0.1] * 3, mean=[0.1] * 3, control=[0.3] * 3)
    assert chk(both).status == "reproduced"
    # good under one rule only: the lower verdict decides, whichever rule it is
    v = chk(_rule_rows(level=[0.1] * 3, mean=[0.5] * 3, control=[0.3] * 3))
    assert v.status == "not-reproduced" and "most-played rule [reproduced]" in v.measured
    v = chk(_rule_rows(level=[0.5] * 3, mean=[0.1] * 3, control=[0.3] * 3))
    assert v.status == "not-reproduced" and "best-mean rule [reproduced]" in v.measured
    # a budget where every arm is screened does not decide: winning only there is no pass ...
    v = chk(_rule_rows(level=[0.5, 0.5, 0.0], mean=[0.5, 0.5, 0.0], control=[0.3] * 3))
    assert v.status == "not-reproduced" and "reported, not deciding" in v.evidence
    # ... nor does losing there make a fail
    assert chk(_rule_rows(level=[0.1, 0.1, 0.9], mean=[0.1, 0.1, 0.9], control=[0.3] * 3)).status == "reproduced"
    # the same rows with the last budget in the data-poor regime: now it counts (1/3 pass -> not-reproduced)
    assert chk(_rule_rows(level=[0.5, 0.5, 0.0], mean=[0.5, 0.5, 0.0], control=[0.3] * 3,
                          c0=(30.0, 60.0, 90.0))).status == "not-reproduced"
    assert chk(_rule_rows(level=[0.1] * 3, mean=[0.1] * 3, control=[0.3] * 3,
                          c0=(100.0,) * 3)).status == "not-checkable"
    assert chk(chk.contradict(both)).status != "reproduced"
    assert chk(chk.on_control(both)).status != "reproduced"
    with pytest.raises(TypeError, match="Check"):
        LowerOfRules(chk.mean, "b3")


def _sh_rows(level, mean, control, sh=(0.2, 0.1, 0.05), c0=(300.0, 1500.0, 5000.0)):
    """matches-sh rows: three budgets, the last with c0 = N (5000 arms); SH's regret ``sh`` (both variants)."""
    out = []
    for s in range(6):
        e = 0.002 * s
        out.append({"budgets": [1000, 5000, 20000], "sh_subset": [128, 512, 1818], "n_arms": 5000,
                    "bernoulli/b3/c0": list(c0),
                    "bernoulli/b3/regret": [x + e for x in level], "bernoulli/b3_mean/regret": [x + e for x in mean],
                    "bernoulli/sh/regret": [x + e for x in sh], "bernoulli/sh_c0/regret": [x + e for x in sh],
                    "bernoulli/doubling/regret": [x + e for x in control]})
    return out


def test_matches_sh_needs_both_rules_and_a_control_the_bound_rejects():
    from icml26.decision.b3.experiment import check_matches_sh, contradict_matches_sh, control_matches_sh

    good = [0.22, 0.11, 0.9]  # within 1.5x of SH at the deciding budgets (the last, c0 = N, does not decide)
    ms = _sh_rows(level=good, mean=good, control=[0.5, 0.4, 0.3])  # control 2.5x and 4x SH, B3 below it
    v = check_matches_sh(ms)
    assert v.status == "reproduced" and "reported, not deciding" in v.evidence
    assert check_matches_sh(contradict_matches_sh(ms)).status != "reproduced"
    assert check_matches_sh(control_matches_sh(ms)).status != "reproduced"
    # lower of the two rules: within the bound under one rule only is not enough
    assert check_matches_sh(_sh_rows(level=good, mean=[0.6, 0.3, 0.0], control=[0.5, 0.4, 0.3])).status \
        == "not-reproduced"
    assert check_matches_sh(_sh_rows(level=[0.6, 0.3, 0.0], mean=good, control=[0.5, 0.4, 0.3])).status \
        == "not-reproduced"
    # the control also within the bound (its ratio's CI not above 1.5): the bound does not separate -> partly
    v = check_matches_sh(_sh_rows(level=good, mean=good, control=[0.24, 0.12, 0.3]))
    assert v.status == "partly" and "control separation" in v.evidence and ": no (" in v.evidence
    # the control fails the bound, but B3 is worse than the control at most deciding budgets -> partly
    # (three deciding budgets here: B3 no worse than the control at 1/3)
    worse = _sh_rows(level=[0.28, 0.14, 0.07], mean=[0.28, 0.14, 0.07], control=[0.25, 0.18, 0.06],
                     c0=(300.0, 1500.0, 3000.0))
    v = check_matches_sh(worse)
    assert v.status == "partly" and ": yes (" in v.evidence and "at 1/3" in v.evidence
    # no deciding budget
    v = check_matches_sh(_sh_rows(level=good, mean=good, control=[0.5, 0.4, 0.3], c0=(5000.0,) * 3))
    assert v.status == "not-checkable" and v.control


def test_budget_helpers_reject_bad_input():
    """Read-through after the sixth session: the deciding-budget helpers name bad input."""
    import pytest

    from icml26.decision.b3 import at_budgets, deciding_budgets, lower_status

    assert lower_status("partly", "reproduced") == "partly"
    for bad in ((), ("bogus",)):
        with pytest.raises(ValueError, match="statuses"):
            lower_status(*bad)
    row = {"n_arms": 10, "budgets": [5, 50], "bernoulli/b3/c0": [4, 10], "x": [1.0, 2.0]}
    assert deciding_budgets([row, dict(row)]) == [0]
    assert at_budgets([row], [0])[0]["x"] == [1.0]
    with pytest.raises(ValueError, match="idx"):
        at_budgets([row], [-1])
    with pytest.raises(ValueError, match="n_arms"):
        deciding_budgets([{"budgets": [5]}])
    with pytest.raises(ValueError, match="disagree"):
        deciding_budgets([row, {**row, "n_arms": 11}])
